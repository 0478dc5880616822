import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { killHard, startBlobWriter } from '../../../test/support/blob-writer-process.ts';
import { FsBlobStore, TEMP_STALE_MS } from './fs-blob-store.ts';

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

test('a put refused at once, while its temporary file is still being opened, leaves no temporary file', async () => {
  // The first chunk is over the cap: the pipeline fails before the file's open has completed.
  const refused = Array.from({ length: 300 }, (_, i) =>
    store.put(`refused/${i}.csv`, Readable.from([Buffer.alloc(64)]), { maxBytes: 1 }),
  );
  for (const put of await Promise.allSettled(refused)) assert.equal(put.status, 'rejected');
  // Any open still in flight has settled by now.
  await new Promise((settled) => setTimeout(settled, 200));
  assert.deepEqual(await readdir(join(root, '.tmp')), []);
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

test('the temporary files of a process killed mid-write are swept at once; a live process keeps its own', async () => {
  const shared = await mkdtemp(join(tmpdir(), 'listmatch-blobs-crash-'));
  // Another process sharing the root (ROLES=api beside ROLES=worker), still writing.
  const live = await startBlobWriter(shared, 'results/job_live/result.csv');
  try {
    const crashed = await startBlobWriter(shared, 'uploads/job_crashed/upload.csv');
    await killHard(crashed);
    const tmp = join(shared, '.tmp');
    assert.equal((await readdir(tmp)).length, 2, 'the crash left its partial upload behind');
    const [writing] = await readdir(tmp);
    assert.ok(writing !== undefined);

    // A new process starts on the same folder and sweeps before it writes anything.
    const store = new FsBlobStore(shared);
    const own = await store.openWriter('uploads/job_own/upload.csv');
    own.stream.write('in progress\n');
    assert.equal(await store.sweepTemporary(TEMP_STALE_MS), 1);
    const left = await readdir(tmp);
    assert.equal(left.length, 2, "the live process's file and this process's own stay");
    await own.abort();
    assert.equal((await readdir(tmp)).length, 1);

    // Untouched for longer than a live writer ever leaves its file: a process elsewhere that is gone.
    const foreign = join(tmp, 'ffffffffffff-12345-00aa.part');
    await writeFile(foreign, 'x');
    assert.equal(await store.sweepTemporary(TEMP_STALE_MS), 0, 'fresh: it may be being written');
    const stale = new Date(Date.now() - TEMP_STALE_MS - 60_000);
    await utimes(foreign, stale, stale);
    assert.equal(await store.sweepTemporary(TEMP_STALE_MS), 1);
    assert.equal((await readdir(tmp)).length, 1, 'the live writer is kept throughout');
  } finally {
    await killHard(live);
    await rm(shared, { recursive: true, force: true });
  }
});

test('a writer touches its temporary file while it is open, so no sweep takes it for stale', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'listmatch-blobs-touch-'));
  try {
    const touching = new FsBlobStore(folder, { touchEveryMs: 20 });
    const writer = await touching.openWriter('results/job_slow/result.csv');
    writer.stream.write('header\n');
    await new Promise((settled) => setTimeout(settled, 50));
    const [name] = await readdir(join(folder, '.tmp'));
    const path = join(folder, '.tmp', name!);
    const stale = new Date(Date.now() - TEMP_STALE_MS - 60_000);
    await utimes(path, stale, stale);
    await new Promise((settled) => setTimeout(settled, 100));
    // Another process's sweep (a store of its own) sees a file touched just now.
    assert.equal(await new FsBlobStore(folder).sweepTemporary(TEMP_STALE_MS), 0);
    assert.equal((await writer.commit()).bytes, 7);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

test('keys that would leave the root are refused', async () => {
  for (const key of ['../x', 'a/../../b', '/etc/passwd', '.hidden']) {
    await assert.rejects(store.stat(key), { code: 'INTERNAL' }, key);
  }
});

test('list walks the prefix as a string prefix, in key order, with after and limit, never .tmp', async () => {
  const listRoot = await mkdtemp(join(tmpdir(), 'listmatch-blobs-list-'));
  try {
    const blobs = new FsBlobStore(listRoot);
    for (const key of [
      'uploads/job_2/b.csv',
      'uploads/job_1/a.csv',
      'uploads/job_10/c.csv',
      'uploads-x',
      'results/r',
    ]) {
      await blobs.put(key, Readable.from([Buffer.from(key)]));
    }
    const writer = await blobs.openWriter('uploads/job_3/pending.csv');
    writer.stream.write('not yet');
    const keys = async (prefix: string, options?: { after?: string; limit?: number }) =>
      (await blobs.list(prefix, options)).map((blob) => blob.key);

    assert.deepEqual(await keys('uploads/'), [
      'uploads/job_1/a.csv',
      'uploads/job_10/c.csv',
      'uploads/job_2/b.csv',
    ]);
    assert.deepEqual(await keys('uploads'), [
      'uploads-x',
      'uploads/job_1/a.csv',
      'uploads/job_10/c.csv',
      'uploads/job_2/b.csv',
    ]);
    assert.deepEqual(await keys('uploads/job_1'), ['uploads/job_1/a.csv', 'uploads/job_10/c.csv']);
    assert.deepEqual(await keys('uploads/', { after: 'uploads/job_1/a.csv', limit: 1 }), [
      'uploads/job_10/c.csv',
    ]);
    assert.deepEqual(await keys('', { limit: 2 }), ['results/r', 'uploads-x']);
    assert.deepEqual(await keys('nothing/here/'), []);

    const [first] = await blobs.list('uploads/job_1/');
    assert.equal(first?.bytes, 'uploads/job_1/a.csv'.length);
    assert.ok(first !== undefined && Math.abs(first.modifiedAt - Date.now()) < 60_000);

    await writer.abort();
    await assert.rejects(blobs.list('.tmp'), { code: 'INTERNAL' });
    await assert.rejects(blobs.list('../'), { code: 'INTERNAL' });
  } finally {
    await rm(listRoot, { recursive: true, force: true });
  }
});
