/**
 * Issue 35, item 3: one client's webhook must not hold up everyone's matching. A receiver that
 * accepts the TCP connection and never answers keeps each call open for WEBHOOK_TIMEOUT_SECONDS;
 * webhook deliveries run in their own slots (WEBHOOK_CONCURRENCY), at most
 * WEBHOOK_CONCURRENCY_PER_KEY of one key's at once, so another key's list is matched as fast as
 * usual and its webhook still gets a slot. Run on the embedded queue and on pg-boss.
 */
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../support/postgres.ts';
import {
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

/** Long enough that a hanging call outlasts everything measured below, short enough to bound a failing run. */
const TIMEOUT_SECONDS = 5;
/** 200 rows: some of the fixture's voters, the rest unknown ids. */
const LIST = [
  'voterbase_id',
  ...Array.from({ length: 200 }, (_, i) =>
    i % 4 === 0 ? `NC-00000000${(i % 3) + 1}` : `NC-9${String(i).padStart(8, '0')}`,
  ),
].join('\n');

/** A webhook receiver that accepts every connection and never answers. */
async function hangingReceiver() {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    hostPort: `127.0.0.1:${port}`,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A webhook receiver that answers 200 at once and notes when each call came. */
async function answeringReceiver() {
  const calls: number[] = [];
  const server = createHttpServer((req, res) => {
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

/** Uploads the list as `filename` and returns how long the job took, upload to result, in ms. */
async function timedMatch(t: TestService, key: string, filename: string, webhook?: string): Promise<number> {
  const query = `filename=${filename}${webhook === undefined ? '' : `&webhook=${encodeURIComponent(webhook)}`}`;
  const url = await register(t, key, query);
  const started = Date.now();
  assert.equal((await upload(url, LIST)).status, 200);
  // Bounded: a run held up by hanging webhooks fails here or at the assertion, never hangs.
  const result = await waitForResult(t, key, filename, 4 * TIMEOUT_SECONDS * 1000);
  assert.equal(result.error, null);
  return Date.now() - started;
}

function isolationSuite(
  backend: string,
  env: (t: Parameters<typeof skipWithoutPostgres>[0]) => Promise<Record<string, string> | null>,
) {
  describe(`webhook deliveries beside matching: ${backend}`, () => {
    let hanging: Awaited<ReturnType<typeof hangingReceiver>>;
    let answering: Awaited<ReturnType<typeof answeringReceiver>>;
    let service: TestService | undefined;

    before(async () => {
      hanging = await hangingReceiver();
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

      await timedMatch(service, b.key, 'warm_up');
      const usual = await timedMatch(service, b.key, 'usual');

      for (const n of [1, 2, 3]) {
        const url = await register(
          service,
          a.key,
          `filename=hung_${n}&webhook=${encodeURIComponent(hanging.url)}`,
        );
        assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200);
      }
      for (const n of [1, 2, 3]) assert.equal((await waitForResult(service, a.key, `hung_${n}`)).error, null);
      await until(() => hanging.accepted() >= 1, 'a hanging webhook call', TIMEOUT_SECONDS * 1000);

      const held = await timedMatch(service, b.key, 'beside_hanging', answering.url);
      t.diagnostic(`${usual} ms alone, ${held} ms beside ${hanging.accepted()} hanging webhook call(s)`);
      assert.ok(
        held <= usual + 1000,
        `the match took ${held} ms beside hanging webhooks, ${usual} ms without (at most 1 s more allowed)`,
      );
      const completedAt = Date.now();
      await until(() => answering.calls.length === 1, "key B's webhook call", 2 * TIMEOUT_SECONDS * 1000);
      const late = answering.calls[0]! - completedAt;
      assert.ok(late <= 1000, `key B's webhook went out ${late} ms after its result was ready`);
      assert.equal(hanging.accepted(), 2, "key A's third call waits in the queue, not in a slot");
    });
  });
}

isolationSuite('embedded', async () => ({}));

let database: TestDatabase | undefined;
after(async () => {
  await database?.drop();
});
isolationSuite('PostgreSQL (pg-boss)', async (t) => {
  if (await skipWithoutPostgres(t)) return null;
  database = await createTestDatabase();
  return {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    URL_SIGNING_SECRET: 'webhook-isolation-test-secret-0123456789',
  };
});
