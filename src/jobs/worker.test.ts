import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { SqliteDatabase } from '../adapters/metadata/sqlite-database.ts';
import { SqliteQueue } from '../adapters/queue/sqlite-queue.ts';
import { JobRegistry } from './registry.ts';
import { Worker } from './worker.ts';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/sqlite', import.meta.url));
const quiet = { warn() {}, error() {}, info() {}, child: () => quiet } as unknown as FastifyBaseLogger;

let database: SqliteDatabase;
let queue: SqliteQueue;
beforeEach(() => {
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  queue = new SqliteQueue(database, { maxAttempts: 5 });
});
afterEach(() => database.close());

/** Runs one message of `type` through a worker whose module throws `error`; returns its next run time. */
async function retryTimeAfter(error: Error): Promise<{ before: number; runAt: number }> {
  const registry = new JobRegistry().register({
    type: 'flaky',
    payload: z.object({ v: z.literal(1) }),
    backoffMs: () => 10,
    async handle() {
      throw error;
    },
  });
  await queue.enqueue({ type: 'flaky', payload: { v: 1 } });
  const worker = new Worker({ queue, registry, logger: quiet, leaseMs: 5000, pollMs: 10, concurrency: 1 });
  const before = Date.now();
  worker.start();
  for (let i = 0; i < 200 && readState() !== 'failed-once'; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  await worker.stop(1000);
  const row = database.db.prepare('SELECT run_at FROM queue').get() as { run_at: number };
  return { before, runAt: row.run_at };
}

function readState(): string {
  const row = database.db.prepare('SELECT state, attempts FROM queue').get() as {
    state: string;
    attempts: number;
  };
  return row.state === 'ready' && row.attempts === 1 ? 'failed-once' : row.state;
}

describe('Worker retries', () => {
  it('waits at least the waitMs an error asks for (a throttled platform), else the backoff', async () => {
    const throttled = Object.assign(new Error('throttled: wait a minute'), { waitMs: 60_000 });
    const slow = await retryTimeAfter(throttled);
    assert.ok(slow.runAt >= slow.before + 60_000, `runs again ${slow.runAt - slow.before} ms later`);
  });

  it('uses the module backoff for an error without a wait', async () => {
    const quick = await retryTimeAfter(new Error('connection reset'));
    assert.ok(quick.runAt < quick.before + 5_000, `runs again ${quick.runAt - quick.before} ms later`);
  });
});
