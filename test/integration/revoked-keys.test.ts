/**
 * A revoked key stops working at once, with every URL it obtained: an upload URL refuses the
 * upload (also one streaming in as the key is revoked), a job uploaded before the revocation is
 * not matched, a job running then stops at its next step, a result URL handed out earlier no
 * longer downloads (the result's files are deleted), and nothing more is delivered.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Job } from '../../src/domain/client-jobs/job-types.ts';
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

  test('gets its job failed by the worker, unmatched and undelivered, and its upload deleted', async () => {
    const { key, id } = await t.createKey();
    const url = await register(t, key, 'filename=revoked_queued&webhook=https://hooks.example.org/x');
    assert.equal((await upload(url, LIST)).status, 200);
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    assert.equal((await t.running.services.jobStore.getJob(jobId))?.state, 'uploaded');
    await t.running.services.revokeKey(id);

    const worker = t.running.services.createWorker(t.running.app.log);
    worker.start();
    try {
      await until(async () => stopped(await t.running.services.jobStore.getJob(jobId)), 'the job stopped');
    } finally {
      await worker.stop(1000);
    }
    const job = await t.running.services.jobStore.getJob(jobId);
    // Failed, then withdrawn with the key's other jobs: expired, its files deleted.
    assert.equal(job?.state, 'expired');
    assert.match(job?.error ?? '', /^Authorization Error: the API key of this job was revoked/);
    assert.equal(job?.resultBlob, null);
    assert.equal(job?.voterVersion, null, 'matching never started');
    assert.deepEqual(await filesOfJob(t, jobId), [], 'the upload was deleted');
  });
});

/** A job that ran to its end, whatever end (complete included: the test asserts which). */
const stopped = (job: Job | null) => job !== null && ['complete', 'failed', 'expired'].includes(job.state);

/** Every file the job has in storage: upload, result, work files, and any partial write. */
async function filesOfJob(t: TestService, jobId: string): Promise<string[]> {
  const blobs = join(t.dataDir, 'blobs');
  const found: string[] = [];
  for (const folder of ['uploads', 'results', 'work']) {
    const names = await readdir(join(blobs, folder, jobId), { recursive: true }).catch(() => []);
    found.push(...names.map((name) => `${folder}/${jobId}/${name}`));
  }
  found.push(...(await readdir(join(blobs, '.tmp')).catch(() => [])).map((name) => `.tmp/${name}`));
  return found;
}

/** The e-mail notices written for the job (DATA_DIR/outbox, `<jobId>.<notice>.eml`): notice names. */
async function noticesOf(t: TestService, jobId: string): Promise<string[]> {
  const names = await readdir(join(t.dataDir, 'outbox')).catch(() => [] as string[]);
  return names
    .filter((name) => name.startsWith(`${jobId}.`) && name.endsWith('.eml'))
    .map((name) => name.slice(jobId.length + 1, -'.eml'.length))
    .sort();
}

describe('a key revoked while its job runs', () => {
  let t: TestService;

  before(async () => {
    // No worker of its own: each test starts one once the upload is in, so that the job's looks
    // at its key are counted from the first.
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', ROLES: 'api' });
  });
  after(async () => await t.stop());

  /**
   * Uploads a list for a new key, then runs a worker on it; the key is revoked when the job looks
   * at it for the `check`-th time (1: as the worker takes the job). Returns the job once it ended.
   */
  async function revokedAtCheck(check: number): Promise<{ job: Job; checks: number }> {
    const { key, id } = await t.createKey();
    const url = await register(
      t,
      key,
      `filename=revoked_at_${check}&notification_email=${encodeURIComponent('lists@client.example.org')}`,
    );
    assert.equal((await upload(url, LIST)).status, 200);
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    const keys = t.running.services.keys;
    const activeKey = keys.activeKey;
    let checks = 0;
    keys.activeKey = async (keyId) => {
      if (keyId === id && ++checks === check) await t.running.services.revokeKey(id);
      return await activeKey.call(keys, keyId);
    };
    const worker = t.running.services.createWorker(t.running.app.log);
    worker.start();
    try {
      await until(async () => stopped(await t.running.services.jobStore.getJob(jobId)), 'the job ended');
      // Its notices are sent by the queue after the job's own end: wait until every notice
      // message of the job is done (one revoked as the job completed sends nothing for it).
      await until(async () => {
        const notices = (await t.running.services.queue.messagesForJob(jobId)).filter(
          (m) => m.type === 'send-notice',
        );
        return notices.length >= 2 && notices.every((m) => m.state === 'done');
      }, 'its notices handled');
      // Follow-ups of a completion (a folder delivery) may still look at the key.
      await new Promise((settled) => setTimeout(settled, 300));
    } finally {
      await worker.stop(1000);
      keys.activeKey = activeKey;
    }
    return { job: (await t.running.services.jobStore.getJob(jobId))!, checks };
  }

  for (const [check, step] of [
    [2, 'after the worker took the job, before its list is matched'],
    [3, 'while its list is matched, before the result is published'],
    [4, 'after its result was written, before the job completes'],
  ] as const) {
    test(`revoked ${step}: the job stops, keeps no file and sends no "complete"`, async () => {
      const { job, checks } = await revokedAtCheck(check);
      assert.ok(checks >= check, `the job looked at its key ${checks} time(s)`);
      assert.notEqual(job.state, 'complete');
      assert.match(job.error ?? '', /^Authorization Error: the API key of this job was revoked/);
      assert.equal(job.summary, null, 'the job never completed');
      assert.equal(job.resultBlob, null);
      assert.deepEqual(await filesOfJob(t, job.id), [], 'neither the upload nor any result is kept');
      assert.deepEqual(await noticesOf(t, job.id), ['failed', 'received']);
    });
  }

  test('revoked just as the job completes: its files are deleted at once', async () => {
    const { job } = await revokedAtCheck(5);
    assert.equal(job.state, 'expired');
    assert.match(job.error ?? '', /^Authorization Error: the API key of this job was revoked/);
    assert.equal(job.resultBlob, null);
    assert.deepEqual(await filesOfJob(t, job.id), []);
    // The completion queued its notice in the same transaction: sent while the job was still
    // complete (its mail lane may be that quick), or not at all once it is not
    // (send-notice.job.test.ts); never a failure notice.
    const notices = await noticesOf(t, job.id);
    assert.ok(notices.join() === 'received' || notices.join() === 'complete,received', notices.join());
  });
});

describe('a key revoked while an upload streams in', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
  });
  after(async () => await t.stop());

  test('gets the upload refused as a revoked key is, and nothing of it kept', async () => {
    const { key, id } = await t.createKey();
    const url = await register(t, key, 'filename=revoked_mid_upload');
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(Buffer.from(LIST));
        await finished;
        controller.enqueue(Buffer.from('2,654321,NC\n'));
        controller.close();
      },
    });
    const answer = fetch(url, { method: 'PUT', body, duplex: 'half' } as RequestInit);
    const tmp = join(t.dataDir, 'blobs', '.tmp');
    await until(async () => (await readdir(tmp).catch(() => [])).length > 0, 'the upload streaming in');
    await t.running.services.revokeKey(id);
    finish();
    const response = await answer;
    assert.equal(response.status, 403);
    const refused = (await response.json()) as { url: unknown; error: string };
    assert.equal(refused.url, null);
    assert.equal(
      refused.error,
      'Authorization Error: the API key of this job was revoked; this URL no longer works',
    );
    assert.deepEqual(await filesOfJob(t, jobId), [], 'nothing of the upload was kept');
    assert.equal((await t.running.services.jobStore.getJob(jobId))?.state, 'registered');
  });
});
