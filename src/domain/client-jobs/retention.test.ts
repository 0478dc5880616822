import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FsBlobStore } from '../../adapters/blobs/fs-blob-store.ts';
import { LocalFileDrop } from '../../adapters/delivery/local-file-drop.ts';
import { SqliteQueue } from '../../adapters/queue/sqlite-queue.ts';
import { SqlJobStore } from '../../adapters/sql/sql-job-store.ts';
import { SqlKeyStore } from '../../adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../adapters/sqlite/sqlite-database.ts';
import { publicMessage } from '../errors.ts';
import { KeyService } from '../keys/key-service.ts';
import { retentionExpired } from './job-failures.ts';
import type { Job, JobState } from './job-types.ts';
import { deliveryArchiveKey } from './result-files.ts';
import { Retention } from './retention.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const DAY = 24 * 3600_000;
const T0 = 1_700_000_000_000;

let root: string;
let database: SqliteDatabase;
let jobs: SqlJobStore;
let blobs: FsBlobStore;
let keyId: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-retention-'));
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  const sql = new SqliteRunner(database, new SqliteQueue(database, { maxAttempts: 3 }));
  jobs = new SqlJobStore(sql);
  blobs = new FsBlobStore(join(root, 'blobs'));
  keyId = (await new KeyService(new SqlKeyStore(sql)).createKey({ name: 'client' }, T0)).record.id;
});
afterEach(async () => {
  database.close();
  await rm(root, { recursive: true, force: true });
});

/** A job in `state`, finished at `finishedAt`, with its upload, result and delivery archive stored. */
async function finishedJob(
  id: string,
  state: JobState,
  finishedAt: number,
  format: 'csv' | 'gzip' = 'csv',
): Promise<Job> {
  const job: Job = {
    id,
    keyId,
    kind: 'smartmatch',
    filename: `list_${id}`,
    params: {
      webhook: null,
      include: [],
      maxMatches: 1,
      format,
      searchRadiusMiles: null,
      notificationEmail: null,
      mbpOnboarding: false,
      digitalAudienceName: null,
      profileId: 'default',
    },
    state,
    uploadExpiresAt: T0 + 3600_000,
    uploadBlob: `uploads/${id}/upload.csv`,
    uploadBytes: 5,
    resultBlob: state === 'complete' ? `results/${id}/result.csv` : null,
    resultName: state === 'complete' ? `list_${id}.csv` : null,
    error: state === 'failed' ? 'Validation Error: the file has no header' : null,
    summary: null,
    voterVersion: null,
    createdAt: T0,
    updatedAt: finishedAt,
  };
  await jobs.insertJob(job);
  for (const key of [job.uploadBlob, job.resultBlob, state === 'complete' ? deliveryArchiveKey(id) : null])
    if (key !== null) await blobs.put(key, Readable.from([Buffer.from('a,b\n')]));
  return job;
}

describe('Retention', () => {
  it('deletes the files of jobs finished more than N days ago and marks them expired; keeps newer ones', async () => {
    const old = await finishedJob('job_old', 'complete', T0);
    const failed = await finishedJob('job_failed', 'failed', T0 + DAY);
    const recent = await finishedJob('job_recent', 'complete', T0 + 25 * DAY);
    const retention = new Retention({ jobs, blobs, days: 30 });

    assert.equal(await retention.run(T0 + 30 * DAY + 1), 1, 'only the oldest is 30 days old');
    assert.equal(await blobs.stat(old.uploadBlob!), null);
    assert.equal(await blobs.stat(old.resultBlob!), null);
    assert.equal(await blobs.stat(deliveryArchiveKey(old.id)), null);
    const expired = (await jobs.getJob(old.id))!;
    assert.equal(expired.state, 'expired');
    assert.equal(expired.error, publicMessage(retentionExpired(30)));
    assert.equal(expired.resultBlob, null);
    assert.ok(await blobs.stat(failed.uploadBlob!), 'the failed job is one day younger');

    assert.equal(await retention.run(T0 + 31 * DAY + 1), 1);
    assert.equal(await blobs.stat(failed.uploadBlob!), null);
    assert.match(
      (await jobs.getJob(failed.id))!.error!,
      /retention period.*had failed: Validation Error: the file has no header/,
    );
    assert.equal((await jobs.getJob(recent.id))!.state, 'complete');
    assert.ok(await blobs.stat(recent.resultBlob!));
    assert.equal(await retention.run(T0 + 32 * DAY + 1), 0, 'a second pass finds nothing');
  });

  it('expires a job whose files are already gone (a pass cut short after deleting them)', async () => {
    const job = await finishedJob('job_gone', 'complete', T0);
    await blobs.delete(job.resultBlob!);
    await blobs.delete(job.uploadBlob!);
    assert.equal(await new Retention({ jobs, blobs, days: 1 }).run(T0 + 2 * DAY), 1);
    assert.equal((await jobs.getJob(job.id))!.state, 'expired');
  });

  it("also deletes work files a job left behind, whatever its format's layout", async () => {
    // A gzip job writes its every-rank CSV under work/ first; a crash can leave it there.
    const job = await finishedJob('job_work', 'failed', T0, 'gzip');
    const leftovers = [`work/${job.id}/result.csv`, `results/${job.id}/result.csv.gz`];
    for (const key of leftovers) await blobs.put(key, Readable.from([Buffer.from('x\n')]));
    assert.equal(await new Retention({ jobs, blobs, days: 1 }).run(T0 + 2 * DAY), 1);
    for (const key of leftovers) assert.equal(await blobs.stat(key), null, key);
  });

  it("deletes whatever a job left under work/ (staged audiences, sorted id runs), not another job's", async () => {
    const job = await finishedJob('job_onboard', 'failed', T0);
    const staged = [
      `work/${job.id}/audience.tsv`,
      `work/${job.id}/audience-politicaldsp.csv`,
      `work/${job.id}/mbp-dedup/run-1`,
    ];
    for (const key of staged) await blobs.put(key, Readable.from([Buffer.from('hash\n')]));
    const other = 'work/job_other/audience.tsv';
    await blobs.put(other, Readable.from([Buffer.from('hash\n')]));
    assert.equal(await new Retention({ jobs, blobs, days: 1 }).run(T0 + 2 * DAY), 1);
    for (const key of staged) assert.equal(await blobs.stat(key), null, key);
    assert.ok(await blobs.stat(other), "another job's work files stay");
  });

  it("withdraws a revoked key's finished jobs at once: files deleted, jobs expired with the reason", async () => {
    const done = await finishedJob('job_w1', 'complete', T0 + 29 * DAY);
    const failed = await finishedJob('job_w2', 'failed', T0 + 29 * DAY);
    await blobs.put(`work/${done.id}/mbp-ids.txt`, Readable.from([Buffer.from('NC-1\n')]));
    const retention = new Retention({ jobs, blobs, days: 30 });
    assert.equal(await retention.withdrawKey(keyId, T0 + 30 * DAY), 2);
    for (const key of [
      done.uploadBlob!,
      done.resultBlob!,
      deliveryArchiveKey(done.id),
      failed.uploadBlob!,
      `work/${done.id}/mbp-ids.txt`,
    ])
      assert.equal(await blobs.stat(key), null, key);
    for (const id of [done.id, failed.id]) {
      const job = (await jobs.getJob(id))!;
      assert.equal(job.state, 'expired');
      assert.match(job.error!, /^Authorization Error: the API key of this job was revoked/);
    }
    assert.equal(await retention.withdrawKey(keyId, T0 + 30 * DAY), 0, 'nothing left to withdraw');
  });

  it('works through more due jobs than one batch', async () => {
    for (let i = 0; i < 230; i++) await finishedJob(`job_${String(i).padStart(3, '0')}`, 'complete', T0 + i);
    assert.equal(await new Retention({ jobs, blobs, days: 7 }).run(T0 + 8 * DAY), 230);
    assert.equal((await jobs.countByState())['expired'], 230);
  });

  it("deletes files older than the retention period from every key's folder, at most once an hour", async () => {
    const drop = new LocalFileDrop(join(root, 'files'));
    const body = () => Promise.resolve(Readable.from([Buffer.from('zip')]));
    await drop.put(keyId, 'old.zip', body);
    await drop.put(keyId, 'new.zip', body);
    const now = Date.now();
    const old = new Date(now - 31 * DAY);
    await utimes(join(drop.folderOf(keyId), 'old.zip'), old, old);
    const retention = new Retention({
      jobs,
      blobs,
      days: 30,
      folders: { drop, keyIds: async () => [keyId] },
    });
    assert.equal(await retention.sweepFolders(now), 1);
    assert.deepEqual(
      (await drop.list(keyId)).map((file) => file.name),
      ['new.zip'],
    );
    await utimes(join(drop.folderOf(keyId), 'new.zip'), old, old);
    assert.equal(await retention.sweepFolders(now + 60_000), 0, 'not again within the hour');
    assert.equal(await retention.sweepFolders(now + 3600_000), 1);
  });
});
