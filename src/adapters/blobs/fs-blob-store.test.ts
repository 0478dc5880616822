import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { FsBlobStore } from './fs-blob-store.ts';

let root: string;
let store: FsBlobStore;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-blobs-'));
  store = new FsBlobStore(root);
});
after(() => rm(root, { recursive: true, force: true }));

test('put is atomic: an over-cap body leaves neither the blob nor a temporary file', async () => {
  await assert.rejects(
    store.put('uploads/a.csv', Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), { maxBytes: 15 }),
    {
      code: 'PAYLOAD_TOO_LARGE',
    },
  );
  assert.equal(await store.stat('uploads/a.csv'), null);
  assert.deepEqual(await readdir(join(root, '.tmp')), []);
  assert.deepEqual(await store.put('uploads/a.csv', Readable.from([Buffer.from('ok')]), { maxBytes: 15 }), {
    bytes: 2,
  });
});

test('sweepTemporary removes only temporary files older than the limit', async () => {
  await store.healthy();
  const old = join(root, '.tmp', 'old.part');
  const fresh = join(root, '.tmp', 'fresh.part');
  await writeFile(old, 'x');
  await writeFile(fresh, 'y');
  const dayAgo = new Date(Date.now() - 25 * 3600_000);
  await utimes(old, dayAgo, dayAgo);
  assert.equal(await store.sweepTemporary(24 * 3600_000), 1);
  assert.deepEqual(await readdir(join(root, '.tmp')), ['fresh.part']);
});

test('keys that would leave the root are refused', async () => {
  for (const key of ['../x', 'a/../../b', '/etc/passwd', '.hidden']) {
    await assert.rejects(store.stat(key), { code: 'INTERNAL' }, key);
  }
});
