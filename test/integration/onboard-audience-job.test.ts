import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { politicalDsp } from '../../src/adapters/platforms/file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from '../../src/adapters/platforms/http-file-drop-audiences.ts';
import { MetaSocialAudiences } from '../../src/adapters/platforms/meta-social-audiences.ts';
import { ONBOARD_MAX_ATTEMPTS } from '../../src/domain/client-jobs/job-service.ts';
import type { OnboardingJob } from '../../src/domain/client-jobs/job-types.ts';
import { ONBOARD_AUDIENCE_JOB } from '../../src/domain/ports/job-catalog.ts';
import type { JobStore } from '../../src/domain/ports/job-store.ts';
import type { QueueMessage } from '../../src/domain/ports/queue.ts';
import {
  checkAudienceJob,
  type OnboardAudienceDeps,
  onboardAudienceJob,
} from '../../src/jobs/onboard-audience.job.ts';
import { type FakeMetaGraph, serverErrorFault, startFakeMetaGraph } from '../support/fake-meta-graph.ts';
import { type OnboardingHarness, openOnboardingHarness, quietLogger } from '../support/onboarding-harness.ts';
import { PoliticalDspServer } from '../support/politicaldsp-server.ts';

const OPERATOR = '1111111111';
const CLIENT = '2222222222';
/** voter ids of test/fixtures/voters-small.csv. */
const KNOWN = ['NC-000000001', 'NC-000000002', 'NC-000000003'];

const message = (job: OnboardingJob): QueueMessage => ({
  type: ONBOARD_AUDIENCE_JOB,
  payload: { v: 1, jobId: job.id },
  maxAttempts: ONBOARD_MAX_ATTEMPTS,
  group: job.keyId,
});

/** A Pattern #2 file of `rows` distinct e-mail addresses. */
function* emails(rows: number): Generator<string> {
  yield 'EMAIL\n';
  for (let i = 0; i < rows; i += 1000) {
    let chunk = '';
    for (let j = i; j < Math.min(rows, i + 1000); j++) chunk += `person${j}@example.com\n`;
    yield chunk;
  }
}

const pattern2 = { platform: 'social' as const, socialAdid: CLIENT, ownerAdid: OPERATOR };

describe('onboard-audience on the social platform (local Graph API server)', () => {
  let meta: FakeMetaGraph;
  let h: OnboardingHarness;
  beforeEach(async () => {
    meta = await startFakeMetaGraph({ adAccounts: [OPERATOR, CLIENT] });
    h = await openOnboardingHarness();
  });
  afterEach(async () => {
    await h.close();
    await meta.close();
  });

  const deps = (overrides: Partial<OnboardAudienceDeps> = {}): OnboardAudienceDeps => ({
    jobs: h.jobs,
    keys: h.keys,
    runs: h.runs,
    blobs: h.blobs,
    voters: h.voters,
    social: new MetaSocialAudiences({
      graphUrl: meta.url,
      apiVersion: meta.version,
      adAccountId: `act_${OPERATOR}`,
      accessToken: () => meta.token,
      timeoutMs: 5_000,
      // No retries inside a call: every injected fault reaches the job.
      retryDelaysMs: [],
    }),
    politicaldsp: null,
    maxRowBytes: 64 * 1024,
    retryBaseMs: 1,
    checkIntervalMs: 5,
    logger: () => quietLogger,
    ...overrides,
  });
  const runToEnd = async (d: OnboardAudienceDeps, job: OnboardingJob) =>
    await h.run([onboardAudienceJob(d), checkAudienceJob(d)], message(job), async () =>
      ['complete', 'failed'].includes((await h.jobs.getJob(job.id))?.state ?? ''),
    );

  test('a 1,000-batch upload survives more transient errors than its attempt budget, spread between batches that went in', async () => {
    const job = await h.onboardingJob({ ...pattern2, audience: 'many_batches' }, emails(1_000));
    // 20 outages (the budget is 12 attempts), each after 45 more batches went in.
    for (let i = 0; i < 20; i++) meta.inject({ ...serverErrorFault(503, 'users'), after: 45 });

    await runToEnd(deps({ socialBatchRows: 1 }), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'complete', String(done.error));
    const failures = meta.requests.filter((r) => r.operation === 'users' && r.status === 503).length;
    assert.equal(failures, 20, 'every outage hit the upload');
    const audience = [...meta.audiences.values()].find((a) => a.name === 'many_batches')!;
    assert.equal(audience.members.size, 1_000);
    assert.equal((await h.runs.get(job.id))!.rowsDone, 1_000);
  });

  test('consecutive failures without progress still exhaust the budget, and the job says the platform could not be reached', async () => {
    const job = await h.onboardingJob({ ...pattern2, audience: 'stuck' }, emails(20));
    meta.inject({ ...serverErrorFault(503, 'users'), after: 5, times: 1_000 });

    await runToEnd(deps({ socialBatchRows: 1 }), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'failed');
    assert.match(String(done.error), /^Platform Error: the platform could not be reached: /);
    assert.equal((await h.runs.get(job.id))!.rowsDone, 5, 'the batches before the outage went in');
  });

  test('staging stops when the attempt is aborted (shutdown, lost lease), and the next attempt stages cleanly', async () => {
    const ROWS = 50_000;
    const job = await h.onboardingJob({ ...pattern2, audience: 'aborted_staging' }, emails(ROWS));
    const controller = new AbortController();
    let linesRead = 0;
    // The upload as staging reads it: the attempt is aborted once 2,000 rows were read.
    const reading: OnboardAudienceDeps['blobs'] = Object.create(h.blobs, {
      read: {
        value: async (key: string) => {
          const source = await h.blobs.read(key);
          if (key !== job.uploadBlob) return source;
          return Readable.from(
            (async function* () {
              for await (const chunk of source) {
                const text = String(chunk);
                for (const c of text) if (c === '\n') linesRead++;
                if (linesRead >= 2_000 && !controller.signal.aborted)
                  controller.abort(new Error('lease lost'));
                yield chunk;
              }
            })(),
            { objectMode: false },
          );
        },
      },
    });
    const module = onboardAudienceJob(deps({ blobs: reading }));
    await assert.rejects(
      module.handle(
        { v: 1, jobId: job.id },
        { attempt: 1, isFinalAttempt: false, signal: controller.signal },
      ),
      /lease lost/,
    );
    assert.ok(linesRead < ROWS / 2, `staging went on reading after the abort: ${linesRead} of ${ROWS} lines`);
    assert.equal(await h.runs.get(job.id), null, 'nothing recorded as staged');
    assert.equal(await h.blobs.stat(`work/${job.id}/audience.tsv`), null, 'no partial staged rows');
    assert.ok(
      !meta.requests.some((r) => r.body?.['name'] === 'aborted_staging'),
      'nothing reached the platform',
    );

    await module.handle(
      { v: 1, jobId: job.id },
      { attempt: 2, isFinalAttempt: false, signal: new AbortController().signal },
    );
    const run = (await h.runs.get(job.id))!;
    assert.equal(run.counts.rows, ROWS);
    assert.equal(run.counts.usable, ROWS);
    assert.equal(run.stage, 'shared');
    const audience = [...meta.audiences.values()].find((a) => a.name === 'aborted_staging')!;
    assert.equal(audience.members.size, ROWS);
  });

  test('Pattern #1 without a voter file fails as the service’s own condition, not as a platform outage', async () => {
    const job = await h.onboardingJob(
      { platform: 'social', audience: 'no_voters', socialAdid: CLIENT },
      `voterbase_id\n${KNOWN.join('\n')}\n`,
    );

    await runToEnd(deps(), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'failed');
    assert.match(String(done.error), /^Internal Error: no voter file is loaded on this service/);
    assert.doesNotMatch(String(done.error), /platform/i);
    assert.ok(!meta.requests.some((r) => r.body?.['name'] === 'no_voters'), 'nothing reached the platform');
  });
});

describe('onboard-audience on the political DSP (local file-drop server)', () => {
  const TOKEN = 'pdsp-test-token';
  let dsp: PoliticalDspServer;
  let h: OnboardingHarness;
  before(async () => {
    dsp = new PoliticalDspServer({ token: TOKEN, processingMs: 5 });
    await dsp.start();
  });
  after(async () => await dsp.stop());
  beforeEach(async () => {
    h = await openOnboardingHarness({ voters: true });
  });
  afterEach(async () => await h.close());

  const deps = (jobs: JobStore = h.jobs): OnboardAudienceDeps => ({
    jobs,
    keys: h.keys,
    runs: h.runs,
    blobs: h.blobs,
    voters: h.voters,
    social: null,
    politicaldsp: new HttpFileDropAudiences({
      platform: politicalDsp,
      baseUrl: dsp.url,
      token: tokenSource({ token: TOKEN }),
      timeoutMs: 5_000,
    }),
    maxRowBytes: 64 * 1024,
    retryBaseMs: 1,
    checkIntervalMs: 5,
    logger: () => quietLogger,
  });
  const runToEnd = async (d: OnboardAudienceDeps, job: OnboardingJob) =>
    await h.run([onboardAudienceJob(d)], message(job), async () =>
      ['complete', 'failed'].includes((await h.jobs.getJob(job.id))?.state ?? ''),
    );
  const dspJob = (audience: string) =>
    h.onboardingJob({ platform: 'politicaldsp', audience }, `voterbase_id\n${KNOWN.join('\n')}\n`);
  const segmentsNamed = (name: string) => [...dsp.segments.values()].filter((s) => s.name === name);

  test("a revoked key's upload becomes no audience: the job fails before the platform is called", async () => {
    const job = await dspJob('dsp_revoked');
    await h.keys.revoke(h.keyId);
    const uploads = dsp.storedUploads;

    await runToEnd(deps(), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'failed');
    assert.match(
      String(done.error),
      /^Authorization Error: the API key of this job was revoked; no audience was built/,
    );
    assert.deepEqual(segmentsNamed('dsp_revoked'), []);
    assert.equal(dsp.storedUploads, uploads);
  });

  test('a segment created before its answer was lost is found on the retry, not created a second time', async () => {
    const job = await dspJob('dsp_lost_create');
    dsp.loseNextAnswer('create');
    const uploads = dsp.storedUploads;

    await runToEnd(deps(), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'complete', String(done.error));
    const segments = segmentsNamed('dsp_lost_create');
    assert.equal(segments.length, 1);
    assert.equal((await h.runs.get(job.id))!.audienceId, segments[0]!.id);
    assert.equal(segments[0]!.rowCount, KNOWN.length);
    assert.equal(dsp.storedUploads - uploads, 1);
  });

  test('a file stored before the upload’s answer was lost is not uploaded again', async () => {
    const job = await dspJob('dsp_lost_upload');
    dsp.loseNextAnswer('upload');
    const uploads = dsp.storedUploads;

    await runToEnd(deps(), job);

    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'complete', String(done.error));
    assert.equal(segmentsNamed('dsp_lost_upload').length, 1);
    assert.equal(dsp.storedUploads - uploads, 1, 'one upload');
    assert.equal((await h.runs.get(job.id))!.counts.sent, KNOWN.length);
  });

  test('a retry after the upload was recorded goes on from there: no second upload', async () => {
    const job = await dspJob('dsp_crash_after_upload');
    // The first attempt fails after the upload, when it completes the job (a database hiccup).
    let failed = false;
    const flaky: JobStore = Object.create(h.jobs, {
      transition: {
        value: async (...args: Parameters<JobStore['transition']>) => {
          if (args[2] === 'complete' && !failed) {
            failed = true;
            throw new Error('database unavailable');
          }
          return await h.jobs.transition(...args);
        },
      },
    });
    const uploads = dsp.storedUploads;

    await runToEnd(deps(flaky), job);

    assert.ok(failed);
    const done = (await h.jobs.getJob(job.id))!;
    assert.equal(done.state, 'complete', String(done.error));
    assert.equal(dsp.storedUploads - uploads, 1, 'one upload');
    assert.equal(segmentsNamed('dsp_crash_after_upload').length, 1);
  });
});
