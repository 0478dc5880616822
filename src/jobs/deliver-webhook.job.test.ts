import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import type { JobService } from '../domain/client-jobs/job-service.ts';
import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import { newWebhookSecret } from '../domain/webhooks/webhook-signature.ts';
import { deliverWebhookJob } from './deliver-webhook.job.ts';

const context = { attempt: 1, isFinalAttempt: false, signal: new AbortController().signal };

function setup(options: { secret: string | null; failures: number; revoked?: boolean }) {
  const job = {
    id: 'job_01TEST',
    kind: 'smartmatch',
    keyId: 'key_01TEST',
    state: 'complete',
    params: { webhook: 'https://hooks.example/listmatch' },
  } as unknown as SmartmatchJob;
  const calls: { url: string; json: string; headers: Record<string, string> }[] = [];
  const warnings: string[] = [];
  let urls = 0;
  let failures = options.failures;
  let clock = 1_700_000_000_000;
  const module = deliverWebhookJob({
    jobs: { getJob: () => job } as unknown as JobStore,
    // Every attempt signs a fresh presigned URL, as the real JobService does.
    jobService: { downloadUrl: () => `https://lm.example/files/r?sig=${++urls}` } as unknown as JobService,
    keys: {
      webhookSecrets: () => (options.secret === null ? [] : [options.secret]),
      activeKey: async (id: string) => (options.revoked === true ? null : { id }),
    } as unknown as KeyService,
    sender: {
      async postJson(url, json, headers = {}) {
        calls.push({ url, json, headers: { ...headers } });
        if (failures-- > 0) throw new Error('webhook answered 500');
      },
    },
    now: () => (clock += 60_000),
    retryBaseMs: 1000,
    logger: () =>
      ({
        warn: (_: unknown, message: string) => warnings.push(message),
        info: (_: unknown, message: string) => warnings.push(message),
      }) as unknown as FastifyBaseLogger,
  });
  return { module, calls, warnings, clock: () => clock };
}

describe('deliverWebhookJob', () => {
  test("a revoked key's webhook is not called: the result URL would outlive the key", async () => {
    const { module, calls, warnings } = setup({ secret: newWebhookSecret(), failures: 0, revoked: true });
    await module.handle({ v: 1, jobId: 'job_01TEST' }, context);
    assert.deepEqual(calls, []);
    assert.deepEqual(warnings, ['webhook not sent: the API key of the job was revoked']);
  });

  test('signs every attempt with the key secret; the id stays, the timestamp is the attempt time', async () => {
    const secret = newWebhookSecret();
    const { module, calls } = setup({ secret, failures: 1 });
    await assert.rejects(module.handle({ v: 1, jobId: 'job_01TEST' }, context), /500/);
    await module.handle({ v: 1, jobId: 'job_01TEST' }, { ...context, attempt: 2 });
    assert.equal(calls.length, 2);
    const [first, second] = calls as [(typeof calls)[0], (typeof calls)[0]];
    assert.equal(first.headers['webhook-id'], second.headers['webhook-id'], 'same id on retries');
    assert.match(first.headers['webhook-id']!, /job_01TEST/);
    assert.equal(
      Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp']),
      60,
    );
    for (const call of calls) {
      assert.deepEqual(Object.keys(JSON.parse(call.json)), ['callback']);
      // Verified as a receiver would, with its own clock set to the attempt time.
      const verifier = new Webhook(secret);
      const realNow = Date.now;
      Date.now = () => Number(call.headers['webhook-timestamp']) * 1000;
      try {
        assert.deepEqual(verifier.verify(call.json, call.headers), JSON.parse(call.json));
      } finally {
        Date.now = realNow;
      }
    }
  });

  test('a key without a secret still gets the call, unsigned, and the operator is told', async () => {
    const { module, calls, warnings } = setup({ secret: null, failures: 0 });
    await module.handle({ v: 1, jobId: 'job_01TEST' }, context);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.headers['webhook-signature'], undefined);
    assert.match(warnings[0]!, /no webhook secret/);
  });
});
