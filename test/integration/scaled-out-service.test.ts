/**
 * The real service composed on the scaled-out backends, as an operator configures them:
 * DATABASE_URL (PostgreSQL for keys, jobs, rate limits and the pg-boss queue) and S3_* (Swift's
 * s3api, presigned SigV4 URLs). A client's list goes through register → PUT into the bucket →
 * arrival → match → poll → download, and the result is byte-identical to the embedded service's.
 * `listmatch migrate` prepares an empty database, and a process with MIGRATE_ON_START=false
 * refuses a database that was never migrated.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { compose } from '../../src/start/compose.ts';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.ts';
import { createTestBucket, skipWithoutS3, TEST_S3, type TestBucket } from '../support/s3-server.ts';
import { scaledOutEnv } from '../support/scaled-out-env.ts';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const CLI = fileURLToPath(new URL('../../bin/listmatch.js', import.meta.url));
const SECRET = 'scaled-out-test-secret-0123456789abcdef';
const LIST = [
  'matchback_id,First_Name,LAST_NAME,voter_id,State,address1,zip,notes',
  '1,Peggy,Smith,123456,nc,,,first',
  'abc-007,Jose,Munoz,777,NC,,,"has, comma"',
  '3,Nobody,Here,999999,NC,,,=cmd()',
  'b,Jose,Munoz,,,400 North Elm Ave Apt 4B,27701,by address',
].join('\r\n');

function testEnv(database: TestDatabase, bucket: TestBucket): Record<string, string> {
  return {
    ...scaledOutEnv(database, bucket, SECRET),
    S3_PREFIX: 'svc/',
    UPLOAD_POLL_MS: '100',
    RATE_LIMIT_POLL_SECONDS: '0',
  };
}

/** Runs one list through a service and returns the downloaded result bytes. */
async function matchThrough(service: TestService, filename: string): Promise<Buffer> {
  const { key } = await service.createKey();
  const url = await register(service, key, `filename=${filename}&include_email=True`);
  const put = await upload(url, LIST);
  assert.equal(put.status, 200, `upload answered ${put.status}`);
  const result = await waitForResult(service, key, filename, 30_000);
  assert.equal(result.error, null);
  assert.equal(result.status, 'complete');
  const response = await fetch(result.url);
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

function listmatch(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('the service on PostgreSQL and S3', () => {
  let database: TestDatabase | undefined;
  let bucket: TestBucket | undefined;
  let dataDir: string | undefined;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'listmatch-scaled-'));
  });
  after(async () => {
    await database?.drop();
    await bucket?.drop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  test('MIGRATE_ON_START=false refuses an unmigrated database; `listmatch migrate` prepares it, twice harmlessly', async (t) => {
    if ((await skipWithoutPostgres(t)) || (await skipWithoutS3(t))) return;
    database = await createTestDatabase();
    bucket = await createTestBucket();
    const env = { ...testEnv(database, bucket), DATA_DIR: dataDir!, MIGRATE_ON_START: 'false' };

    await assert.rejects(compose(loadConfig(env)), (error: Error) => {
      assert.match(error.message, /lacks \d+ migration\(s\) .*run `listmatch migrate` first/);
      assert.doesNotMatch(error.message, new RegExp(SECRET));
      return true;
    });

    const first = listmatch(['migrate'], env);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /applied [1-9]\d* migration\(s\).*job queue schema up to date/);
    assert.doesNotMatch(first.stdout + first.stderr, new RegExp(SECRET));
    const again = listmatch(['migrate'], env);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /applied 0 migration\(s\), [1-9]\d* already applied/);

    const services = await compose(loadConfig(env));
    try {
      assert.equal(services.metadataKind, 'postgres');
      assert.equal(services.storageKind, 's3');
      assert.equal(services.database, null);
      const readiness = await services.readiness();
      assert.equal(readiness.ready, true, JSON.stringify(readiness));
    } finally {
      await services.close();
    }
  });

  test('a list matched on PostgreSQL + S3 is byte-identical to the embedded result', async (t) => {
    if ((await skipWithoutPostgres(t)) || (await skipWithoutS3(t))) return;
    database ??= await createTestDatabase();
    bucket ??= await createTestBucket();

    const embedded = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    let expected: Buffer;
    try {
      expected = await matchThrough(embedded, 'same_list');
    } finally {
      await embedded.stop();
    }

    const scaled = await startTestService(testEnv(database, bucket));
    try {
      assert.equal(scaled.running.services.metadataKind, 'postgres');
      assert.equal(scaled.running.services.storageKind, 's3');
      // The client PUTs straight into the bucket: the upload URL is the store's, signed with SigV4.
      const { key } = await scaled.createKey();
      const url = await register(scaled, key, 'filename=probe');
      assert.ok(url.startsWith(`${TEST_S3.endpoint}/${bucket.name}/svc/incoming/`), 'a bucket URL');
      assert.match(url, /X-Amz-Signature=/);

      const actual = await matchThrough(scaled, 'same_list');
      assert.equal(actual.toString('utf8'), expected.toString('utf8'));
      assert.ok(actual.equals(expected), 'byte for byte');

      // The job, its queue messages and the key live in PostgreSQL, not in DATA_DIR.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const jobs = await client.query("SELECT count(*)::int AS n FROM jobs WHERE state = 'complete'");
        assert.ok(jobs.rows[0].n >= 1);
        const done = await client.query(
          "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'match-list' AND state = 'completed'",
        );
        assert.ok(done.rows[0].n >= 1, 'the match ran as a pg-boss job');
      } finally {
        await client.end();
      }
      const metrics = await fetch(`${scaled.base}/metrics`).then((r) => r.text());
      assert.match(metrics, /listmatch_upload_arrival_wait_seconds_count [1-9]/);
      const ready = await getJson(`${scaled.base}/readyz`);
      assert.equal(ready.status, 200);
    } finally {
      await scaled.stop();
    }
  });

  test("revoking a key ends its bucket URLs: the result's objects are deleted, a later upload is dropped unread", async (t) => {
    if ((await skipWithoutPostgres(t)) || (await skipWithoutS3(t))) return;
    database ??= await createTestDatabase();
    bucket ??= await createTestBucket();
    const scaled = await startTestService(testEnv(database, bucket));
    try {
      const { key, id } = await scaled.createKey();
      const done = await register(scaled, key, 'filename=before_revoke');
      assert.equal((await upload(done, LIST)).status, 200);
      const result = await waitForResult(scaled, key, 'before_revoke', 30_000);
      assert.equal((await fetch(result.url)).status, 200, 'the SigV4 URL works before');
      const pending = await register(scaled, key, 'filename=after_revoke');

      const { withdrawnJobs } = await scaled.running.services.revokeKey(id);
      assert.equal(withdrawnJobs, 1);
      assert.equal((await fetch(result.url)).status, 404, 'the object behind the URL is gone');

      // The bucket still takes the PUT (its URL is signed by the service's credential) ...
      assert.equal((await upload(pending, LIST)).status, 200);
      const jobs = await scaled.running.services.jobStore.listJobs({ keyId: id, limit: 10 });
      const pendingJob = jobs.find((job) => job.filename === 'after_revoke')!;
      // ... and the arrival is dropped unread, the job failed with the reason.
      await until(
        async () => (await scaled.running.services.jobStore.getJob(pendingJob.id))?.state === 'failed',
        'the upload of the revoked key dropped',
        15_000,
      );
      const failed = await scaled.running.services.jobStore.getJob(pendingJob.id);
      assert.match(String(failed?.error), /^Authorization Error: the API key of this job was revoked/);
      assert.equal(failed?.uploadBlob, null);
      // The object is deleted just after the job is failed (only a settled outcome deletes it).
      await until(
        async () => (await scaled.running.services.blobs.list(`incoming/${pendingJob.id}/`)).length === 0,
        'the dropped upload deleted from the bucket',
        15_000,
      );
    } finally {
      await scaled.stop();
    }
  });
});
