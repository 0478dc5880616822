/**
 * Issue 35, item 3: one client's webhook must not hold up everyone's matching. A receiver that
 * accepts the TCP connection and never answers keeps each call open for WEBHOOK_TIMEOUT_SECONDS;
 * webhook deliveries run in their own slots (WEBHOOK_CONCURRENCY), at most
 * WEBHOOK_CONCURRENCY_PER_KEY of one key's at once, so another key's list is matched as fast as
 * usual and its webhook still gets a slot. Run on the embedded queue and on pg-boss.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  assertNotHeldUp,
  type BackendEnv,
  type HangingServer,
  hangingServer,
  onEachQueueBackend,
  threeOneRowJobs,
  timedMatch,
} from '../support/hanging-peers.ts';
import { startTestService, type TestService, until } from '../support/test-service.ts';

/** Long enough that a hanging call outlasts everything measured below, short enough to bound a failing run. */
const TIMEOUT_SECONDS = 5;

/** A webhook receiver that answers 200 at once and notes when each call came. */
async function answeringReceiver() {
  const calls: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls.push(Date.now());
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hostPort: `127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Uploads the list as `filename`, with `webhook` if given, and returns how long the job took, upload to result, in ms. */
async function timedWebhookMatch(
  t: TestService,
  key: string,
  filename: string,
  webhook?: string,
): Promise<number> {
  const query = webhook === undefined ? '' : `&webhook=${encodeURIComponent(webhook)}`;
  return (await timedMatch(t, key, filename, { query, timeoutMs: 4 * TIMEOUT_SECONDS * 1000 })).ms;
}

function isolationSuite(backend: string, env: BackendEnv) {
  describe(`webhook deliveries beside matching: ${backend}`, () => {
    /** A webhook receiver that accepts every connection and never answers. */
    let hanging: HangingServer;
    let answering: Awaited<ReturnType<typeof answeringReceiver>>;
    let service: TestService | undefined;

    before(async () => {
      hanging = await hangingServer();
      answering = await answeringReceiver();
    });
    after(async () => {
      // Cut the hanging calls first: they fail (to be retried much later) instead of holding the stop.
      await hanging.close();
      await service?.stop();
      await answering.close();
    });

    test("three jobs whose webhook never answers delay another key's 200-row match by under 1 s, and its webhook still goes out", async (t) => {
      const backendEnv = await env(t);
      if (backendEnv === null) return;
      service = await startTestService({
        ...backendEnv,
        RATE_LIMIT_POLL_SECONDS: '0',
        WEBHOOK_ALLOW_HOSTS: `${hanging.hostPort},${answering.hostPort}`,
        WEBHOOK_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        // A failed call comes back much later than this test lasts.
        WEBHOOK_RETRY_BASE_SECONDS: '600',
        // Three delivery slots, two of them at most for one key: key A's three hanging calls
        // can take two, never the third.
        WEBHOOK_CONCURRENCY: '3',
        WEBHOOK_CONCURRENCY_PER_KEY: '2',
        SHUTDOWN_GRACE_SECONDS: '0',
      });
      const a = await service.createKey({ name: 'client with a hanging webhook' });
      const b = await service.createKey({ name: 'another client' });

      await timedWebhookMatch(service, b.key, 'warm_up');
      const usual = await timedWebhookMatch(service, b.key, 'usual');

      const hangingUrl = `http://${hanging.hostPort}/hook`;
      await threeOneRowJobs(service, a.key, 'hung', {
        query: () => `&webhook=${encodeURIComponent(hangingUrl)}`,
      });
      await until(() => hanging.acceptedAt.length >= 1, 'a hanging webhook call', TIMEOUT_SECONDS * 1000);

      const held = await timedWebhookMatch(service, b.key, 'beside_hanging', answering.url);
      t.diagnostic(
        `${usual} ms alone, ${held} ms beside ${hanging.acceptedAt.length} hanging webhook call(s)`,
      );
      assertNotHeldUp(held, usual, 'hanging webhooks');
      const completedAt = Date.now();
      await until(() => answering.calls.length === 1, "key B's webhook call", 2 * TIMEOUT_SECONDS * 1000);
      const late = answering.calls[0]! - completedAt;
      assert.ok(late <= 1000, `key B's webhook went out ${late} ms after its result was ready`);
      assert.equal(hanging.acceptedAt.length, 2, "key A's third call waits in the queue, not in a slot");
    });
  });
}

onEachQueueBackend('webhook-isolation-test-secret-0123456789', isolationSuite);
