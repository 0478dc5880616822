import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DELIVER_FOLDER_JOB } from '../../src/domain/ports/job-catalog.ts';
import { deliveryArchive, jobIdOf } from '../support/delivery-archive.ts';
import {
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const exists = (path: string) =>
  readFile(path).then(
    () => true,
    () => false,
  );

describe('folder delivery, embedded local folder (DATA_DIR/files/<key id>/smartmatch)', () => {
  let t: TestService;
  let client: { key: string; id: string };

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', DELIVERY_RETRY_BASE_SECONDS: '0.05' });
    client = await t.createKey();
  });
  after(async () => await t.stop());

  test('a completed job is dropped as <filename>.zip in its key folder, byte for byte', async () => {
    const url = await register(t, client.key, 'filename=dropped.csv');
    await upload(url, 'voterbase_id\nNC-000000001\n');
    const result = await waitForResult(t, client.key, 'dropped.csv');
    assert.equal(result.error, null);
    const archive = await deliveryArchive(t, await jobIdOf(t, client.id, 'dropped.csv'));
    const folder = join(t.dataDir, 'files', client.id, 'smartmatch');
    const target = join(folder, 'dropped.zip');
    await waitFor(() => exists(target), 'the archive in the folder');
    assert.deepEqual(await readFile(target), archive);
    assert.deepEqual(await readdir(folder), ['dropped.zip'], 'no temporary file left behind');
    assert.equal((await t.running.services.queue.stats()).dead, 0);
  });

  test('delivering again replaces the same name (idempotent)', async () => {
    const jobId = await jobIdOf(t, client.id, 'dropped.csv');
    const { queue } = t.running.services;
    const database = t.running.services.database!;
    await queue.enqueue({ type: DELIVER_FOLDER_JOB, payload: { v: 1, jobId }, maxAttempts: 2 });
    const done = () =>
      (
        database.db
          .prepare(`SELECT count(*) AS n FROM queue WHERE type = ? AND state = 'done'`)
          .get(DELIVER_FOLDER_JOB) as { n: number }
      ).n;
    await until(() => done() === 2, 'the second delivery done');
    assert.deepEqual(await readdir(join(t.dataDir, 'files', client.id, 'smartmatch')), ['dropped.zip']);
  });
});

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
