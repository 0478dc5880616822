/**
 * A revoked key stops working at once, with every URL it obtained: an upload URL refuses the
 * upload, a job uploaded before the revocation is not matched, a result URL handed out earlier
 * no longer downloads (the result's files are deleted), and nothing more is delivered.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const LIST = 'matchback_id,voter_id,state\n1,123456,NC\n';

describe('a revoked key', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
  });
  after(async () => await t.stop());

  test('cannot upload to a URL it obtained before the revocation', async () => {
    const { key, id } = await t.createKey();
    const url = await register(t, key, 'filename=revoked_upload');
    await t.running.services.revokeKey(id);
    const put = await upload(url, LIST);
    assert.equal(put.status, 403);
    const body = JSON.parse(put.text) as { url: unknown; error: string };
    assert.equal(body.url, null);
    assert.match(body.error, /^Authorization Error: the API key of this job was revoked/);
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    assert.equal((await t.running.services.jobStore.getJob(jobId))?.state, 'registered');
    const stored = await readdir(join(t.dataDir, 'blobs', 'uploads', jobId)).catch(() => []);
    assert.deepEqual(stored, [], 'nothing of the upload was kept');
  });

  test("loses the download of a result that was ready, and the result's files", async () => {
    const { key, id } = await t.createKey();
    const url = await register(t, key, 'filename=revoked_result');
    assert.equal((await upload(url, LIST)).status, 200);
    const result = await waitForResult(t, key, 'revoked_result');
    assert.equal((await fetch(result.url)).status, 200, 'downloads before the revocation');

    const { withdrawnJobs } = await t.running.services.revokeKey(id);
    assert.equal(withdrawnJobs, 1);
    const after = await fetch(result.url);
    assert.equal(after.status, 403);
    assert.match(
      ((await after.json()) as { error: string }).error,
      /^Authorization Error: the API key of this job was revoked/,
    );
    const head = await fetch(result.url, { method: 'HEAD' });
    assert.equal(head.status, 403);
    const jobId = /files\/(job_[^/]+)\//.exec(result.url)![1]!;
    const job = await t.running.services.jobStore.getJob(jobId);
    assert.equal(job?.state, 'expired');
    assert.equal(job?.resultBlob, null);
    const results = await readdir(join(t.dataDir, 'blobs', 'results', jobId)).catch(() => []);
    assert.deepEqual(results, [], "the result's files are deleted");
    // Poll needs the key, which no longer authenticates.
    const poll = await getJson(`${t.base}/service/smartmatch/poll?filename=revoked_result`, key);
    assert.equal(poll.status, 401);
  });
});

describe('a key revoked between upload and matching', () => {
  let t: TestService;

  before(async () => {
    // No worker yet: the job waits in `uploaded` until one is started below.
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', ROLES: 'api' });
  });
  after(async () => await t.stop());

  test('gets its job failed by the worker, unmatched and undelivered', async () => {
    const { key, id } = await t.createKey();
    const url = await register(t, key, 'filename=revoked_queued&webhook=https://hooks.example.org/x');
    assert.equal((await upload(url, LIST)).status, 200);
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    assert.equal((await t.running.services.jobStore.getJob(jobId))?.state, 'uploaded');
    await t.running.services.revokeKey(id);

    const worker = t.running.services.createWorker(t.running.app.log);
    worker.start();
    try {
      await until(
        async () => (await t.running.services.jobStore.getJob(jobId))?.state === 'failed',
        'the job failed',
      );
    } finally {
      await worker.stop(1000);
    }
    const job = await t.running.services.jobStore.getJob(jobId);
    assert.match(
      job?.error ?? '',
      /^Authorization Error: the API key of this job was revoked; the list was not matched/,
    );
    assert.equal(job?.resultBlob, null);
    assert.equal(job?.voterVersion, null, 'matching never started');
  });
});
