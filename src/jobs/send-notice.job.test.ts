import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Job, SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { MailMessage } from '../domain/ports/mailer.ts';
import { sendNoticeJob } from './send-notice.job.ts';

const context = { attempt: 1, isFinalAttempt: false, signal: new AbortController().signal };

function setup(notificationEmail: string | null) {
  const job = {
    id: 'job_01N',
    kind: 'smartmatch',
    filename: 'fall_list',
    state: 'failed',
    error: 'Validation Error: the file is empty',
    uploadBytes: 10,
    summary: null,
    params: { notificationEmail },
  } as unknown as SmartmatchJob;
  const sent: MailMessage[] = [];
  const warnings: Record<string, unknown>[] = [];
  const module = sendNoticeJob({
    jobs: { getJob: (id: string) => (id === job.id ? job : null) } as unknown as JobStore,
    mailer: {
      async send(message) {
        sent.push(message);
      },
      async close() {},
    },
    publicUrl: 'https://lm.example',
    retryBaseMs: 1000,
    logger: () =>
      ({ warn: (fields: Record<string, unknown>) => warnings.push(fields) }) as unknown as FastifyBaseLogger,
  });
  return { module, sent, warnings };
}

describe('sendNoticeJob', () => {
  test('sends the rendered notice to notification_email with an id stable across retries', async () => {
    const { module, sent } = setup('ops@client.example');
    await module.handle({ v: 1, jobId: 'job_01N', notice: 'failed' }, context);
    await module.handle({ v: 1, jobId: 'job_01N', notice: 'failed' }, { ...context, attempt: 2 });
    assert.equal(sent.length, 2);
    assert.equal(sent[0]!.to, 'ops@client.example');
    assert.equal(sent[0]!.id, 'job_01N.failed');
    assert.equal(sent[1]!.id, sent[0]!.id);
    assert.match(sent[0]!.text, /the file is empty/);
  });

  test('nothing is sent for a job without notification_email or an unknown job', async () => {
    const { module, sent } = setup(null);
    await module.handle({ v: 1, jobId: 'job_01N', notice: 'received' }, context);
    await module.handle({ v: 1, jobId: 'job_GONE', notice: 'received' }, context);
    assert.equal(sent.length, 0);
  });

  test('a complete notice is not sent for a job that is no longer complete (its key revoked as it completed)', async () => {
    const { module, sent } = setup('ops@client.example');
    // The job in setup() is failed: its files are gone, nothing is ready.
    await module.handle({ v: 1, jobId: 'job_01N', notice: 'complete' }, context);
    assert.equal(sent.length, 0);
  });

  test('a dead-lettered notice is logged with the reason, the address redacted', async () => {
    const { module, warnings } = setup('ops@client.example');
    await module.onGiveUp?.(
      { v: 1, jobId: 'job_01N', notice: 'complete' },
      new Error('SMTP send failed: EENVELOPE 550: <ops@client.example> rejected'),
    );
    assert.deepEqual(warnings, [
      {
        jobId: 'job_01N',
        notice: 'complete',
        reason: 'SMTP send failed: EENVELOPE 550: <o***@client.example> rejected',
      },
    ]);
  });

  test('retries back off exponentially up to 30 minutes', () => {
    const { module } = setup(null);
    assert.deepEqual([1, 2, 3, 12].map(module.backoffMs), [1000, 2000, 4000, 30 * 60_000]);
  });
});

describe('sendNoticeJob for onboarding jobs', () => {
  const onboarding = {
    id: 'job_01ONB',
    kind: 'onboarding',
    filename: null,
    state: 'processing',
    error: null,
    params: {
      platform: 'social',
      audience: 'gotv',
      statusEmail: 'status@client.example',
      socialAdid: '42',
      ownerAdid: null,
    },
  } as unknown as Job;

  function onboardingSetup() {
    const sent: MailMessage[] = [];
    const module = sendNoticeJob({
      jobs: { getJob: (id: string) => (id === onboarding.id ? onboarding : null) } as unknown as JobStore,
      mailer: {
        async send(message) {
          sent.push(message);
        },
        async close() {},
      },
      publicUrl: 'https://lm.example',
      retryBaseMs: 1000,
      logger: () => ({ warn: () => undefined }) as unknown as FastifyBaseLogger,
    });
    return { module, sent };
  }

  test('sends to status_email with the counts the message carries', async () => {
    const { module, sent } = onboardingSetup();
    const counts = { rows: 1000, usable: 950, unknownIds: 40, malformed: 10, sent: 950 };
    await module.handle({ v: 1, jobId: onboarding.id, notice: 'uploaded', facts: { counts } }, context);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.to, 'status@client.example');
    assert.equal(sent[0]!.id, 'job_01ONB.uploaded');
    assert.match(sent[0]!.text, /Rows sent to the platform:\s+950/);
    assert.match(sent[0]!.text, /Ids not in the voter file:\s+40/);
  });

  test('a list-matching notice kind is not sent for an onboarding job, nor the reverse', async () => {
    const { module, sent } = onboardingSetup();
    await module.handle({ v: 1, jobId: onboarding.id, notice: 'complete' }, context);
    assert.equal(sent.length, 0);
    const { module: smartmatch, sent: smartmatchSent } = setup('ops@client.example');
    await smartmatch.handle({ v: 1, jobId: 'job_01N', notice: 'shared' }, context);
    assert.equal(smartmatchSent.length, 0);
  });

  test('the payload refuses counts that are not whole non-negative numbers', () => {
    const { module } = onboardingSetup();
    const parsed = module.payload.safeParse({
      v: 1,
      jobId: onboarding.id,
      notice: 'uploaded',
      facts: { counts: { rows: -1, usable: 0, unknownIds: 0, malformed: 0, sent: 0 } },
    });
    assert.equal(parsed.success, false);
  });
});
