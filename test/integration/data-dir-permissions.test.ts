/**
 * Everything the service keeps under DATA_DIR is personal data or a secret: whatever umask it was
 * started with, no file or folder it creates is open to other users, and a DATA_DIR that was open
 * is closed at start.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { rawConnection } from '../support/raw-http.ts';
import { getJson, startTestService, until } from '../support/test-service.ts';

/** Every file and folder under `dir` (itself included) with its permission bits. */
async function modes(dir: string): Promise<{ path: string; mode: number; folder: boolean }[]> {
  const found = [{ path: dir, mode: (await stat(dir)).mode & 0o777, folder: true }];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await modes(path)));
    else found.push({ path, mode: (await stat(path)).mode & 0o777, folder: false });
  }
  return found;
}

test('under umask 022 and a DATA_DIR left 0755, everything the service writes is 0600 / 0700', async () => {
  const previous = process.umask(0o022);
  const dataDir = await mkdtemp(join(tmpdir(), 'listmatch-perm-'));
  await chmod(dataDir, 0o755);
  const t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', MAIL: 'outbox' }, { dataDir });
  const { base, running } = t;
  try {
    assert.deepEqual(running.services.privacyNotes, [
      `${dataDir} was open to other users (mode 755); it is now 700`,
    ]);
    const { key } = await t.createKey();

    // A partial upload: its temporary file holds list rows while the body arrives.
    const partial = await getJson(`${base}/service/smartmatch?filename=partial`, key);
    const partialUrl = new URL(String(partial.body['url']));
    const connection = await rawConnection(base);
    connection.socket.write(
      `PUT ${partialUrl.pathname}${partialUrl.search} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nmatchback_id,voter_id,state\n1,123456,NC\n`,
    );
    const tmp = join(dataDir, 'blobs', '.tmp');
    await until(async () => (await readdir(tmp).catch(() => [])).length > 0, 'a temporary upload file');
    for (const name of await readdir(tmp))
      assert.equal((await stat(join(tmp, name))).mode & 0o777, 0o600, name);
    connection.socket.destroy();

    // A whole job: upload, result, delivery archive, e-mail outbox, the database.
    const registered = await getJson(
      `${base}/service/smartmatch?filename=whole&notification_email=ops@example.org`,
      key,
    );
    const put = await fetch(String(registered.body['url']), {
      method: 'PUT',
      body: 'matchback_id,voter_id,state\n1,123456,NC\n',
    });
    assert.equal(put.status, 200);
    await until(
      async () =>
        String((await getJson(`${base}/service/smartmatch/poll?filename=whole`, key)).body['url']) !== '',
      'the result',
      15_000,
    );
    await until(async () => (await readdir(join(dataDir, 'outbox')).catch(() => [])).length >= 2, 'notices');

    const all = await modes(dataDir);
    assert.ok(
      all.some((entry) => entry.path.endsWith('listmatch.db')),
      'the database is among them',
    );
    assert.ok(
      all.some((entry) => entry.path.includes(`${join('blobs', 'results')}`)),
      'results are among them',
    );
    const open = all
      .filter((entry) => (entry.mode & 0o077) !== 0)
      .map((e) => `${e.path} ${e.mode.toString(8)}`);
    assert.deepEqual(open, [], 'nothing is open to group or others');
  } finally {
    await t.stop();
    process.umask(previous);
  }
});
