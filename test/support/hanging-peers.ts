/**
 * For the tests that one key's follow-ups never answered by their server (webhook, SMTP, SFTP, ad
 * platform) do not hold up another key's matching (issue 35): a TCP server that accepts and never
 * answers, one-row jobs to call it, the timing of a key's 200-row list, and the run of a suite on
 * both queue backends.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, type TestContext } from 'node:test';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from './postgres.ts';
import { register, type TestService, upload, waitForResult } from './test-service.ts';

/** 200 rows: some of the fixture's voters, the rest unknown ids. */
export const LIST_200_ROWS = [
  'voterbase_id',
  ...Array.from({ length: 200 }, (_, i) =>
    i % 4 === 0 ? `NC-00000000${(i % 3) + 1}` : `NC-9${String(i).padStart(8, '0')}`,
  ),
].join('\n');

/**
 * A server for any TCP protocol that accepts every connection and never answers, so that each call
 * waits out its timeout; notes when each such connection came. With `refuseFirst` it starts by
 * refusing (closing each connection at once: the call fails fast and is retried much later) until
 * `stall()`.
 */
export async function hangingServer(options: { refuseFirst?: boolean } = {}) {
  const sockets = new Set<Socket>();
  const acceptedAt: number[] = [];
  let stalling = options.refuseFirst !== true;
  const server = createServer((socket) => {
    if (!stalling) {
      socket.destroy();
      return;
    }
    acceptedAt.push(Date.now());
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    hostPort: `127.0.0.1:${port}`,
    acceptedAt,
    stall: () => {
      stalling = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type HangingServer = Awaited<ReturnType<typeof hangingServer>>;

/** The job id in a registration's upload URL. */
export const jobIdOf = (url: string) => /files\/(job_[^/]+)\//.exec(url)![1]!;

/**
 * Uploads LIST_200_ROWS for `key` as `filename`, with `query` (`&name=value…`) added to the
 * registration; returns its job and how long it took, upload to result, in ms.
 */
export async function timedMatch(
  t: TestService,
  key: string,
  filename: string,
  options: { query?: string; timeoutMs: number },
): Promise<{ ms: number; jobId: string }> {
  const url = await register(t, key, `filename=${filename}${options.query ?? ''}`);
  const started = Date.now();
  assert.equal((await upload(url, LIST_200_ROWS)).status, 200);
  // Bounded: a run held up by hanging calls fails here or at the assertion, never hangs.
  const result = await waitForResult(t, key, filename, options.timeoutMs);
  assert.equal(result.error, null);
  return { ms: Date.now() - started, jobId: jobIdOf(url) };
}

/**
 * Makes three one-row jobs for `key`, `${prefix}_1` to `${prefix}_3`, the nth registered with
 * `query(n)` (`&name=value…`), and waits for their results (`timeoutMs` each). Each job's id goes
 * into `made` as soon as it is registered, so that a test's clean-up knows it even if a wait fails.
 */
export async function threeOneRowJobs(
  t: TestService,
  key: string,
  prefix: string,
  options: { query: (n: number) => string; timeoutMs?: number; made?: string[] },
): Promise<void> {
  for (const n of [1, 2, 3]) {
    const url = await register(t, key, `filename=${prefix}_${n}${options.query(n)}`);
    assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200);
    options.made?.push(jobIdOf(url));
  }
  for (const n of [1, 2, 3])
    assert.equal((await waitForResult(t, key, `${prefix}_${n}`, options.timeoutMs)).error, null);
}

/** Fails unless the match `beside` something took at most 1 s more than `usual`, both in ms. */
export function assertNotHeldUp(held: number, usual: number, beside: string): void {
  assert.ok(
    held <= usual + 1000,
    `the match took ${held} ms beside ${beside}, ${usual} ms without (at most 1 s more allowed)`,
  );
}

/** A backend's service environment, or null where the test was skipped. */
export type BackendEnv = (t: TestContext) => Promise<Record<string, string> | null>;

/**
 * Defines `suite` on the embedded queue and on PostgreSQL (pg-boss): there, skipped without a
 * PostgreSQL server, on a database of its own that is dropped after the file.
 */
export function onEachQueueBackend(
  signingSecret: string,
  suite: (backend: string, env: BackendEnv) => void,
): void {
  suite('embedded', async () => ({}));

  let database: TestDatabase | undefined;
  after(async () => {
    await database?.drop();
  });
  suite('PostgreSQL (pg-boss)', async (t) => {
    if (await skipWithoutPostgres(t)) return null;
    database = await createTestDatabase();
    return {
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: '4',
      URL_SIGNING_SECRET: signingSecret,
    };
  });
}
