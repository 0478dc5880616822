import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import type { Worker } from '../../src/jobs/worker.ts';
import {
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';

describe('a job whose worker died on its last attempt', () => {
  let t: TestService;
  let worker: Worker | null = null;
  before(async () => {
    // api only: this test plays the part of the workers itself.
    t = await startTestService({
      ROLES: 'api',
      RATE_LIMIT_POLL_SECONDS: '0',
      QUEUE_MAX_ATTEMPTS: '1',
      QUEUE_LEASE_SECONDS: '1',
    });
  });
  after(async () => {
    await worker?.stop(0);
    await t.stop();
  });

  test('fails with a client-safe error instead of staying in processing forever', async () => {
    const { key } = await t.createKey();
    const url = await register(t, key, 'filename=orphaned');
    assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200);
    // A worker takes the only attempt and dies without a trace (as under SIGKILL).
    const taken = await t.running.services.queue.claim('wrk_dead', ['match-list'], 1000);
    assert.ok(taken !== null);
    await new Promise((r) => setTimeout(r, 1_100));
    worker = t.running.services.createWorker(pino({ level: 'silent' }) as unknown as FastifyBaseLogger);
    worker.start();
    const result = await waitForResult(t, key, 'orphaned');
    assert.equal(result.status, 'failed');
    assert.match(
      String(result.error),
      /^Internal Error: processing failed repeatedly; the operator can look it up as job_/,
    );
    const { ready, running, dead } = await t.running.services.queue.stats();
    assert.deepEqual({ ready, running, dead }, { ready: 0, running: 0, dead: 1 });
  });
});
