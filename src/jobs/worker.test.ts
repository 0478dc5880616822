import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { SqliteQueue } from '../adapters/queue/sqlite-queue.ts';
import { SqliteDatabase } from '../adapters/sqlite/sqlite-database.ts';
import { JobRegistry } from './registry.ts';
import { Worker, type WorkerOptions } from './worker.ts';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/sqlite', import.meta.url));
const quiet = { warn() {}, error() {}, info() {}, child: () => quiet } as unknown as FastifyBaseLogger;

let database: SqliteDatabase;
let queue: SqliteQueue;
beforeEach(() => {
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  queue = new SqliteQueue(database, { maxAttempts: 5 });
});
afterEach(() => database.close());

/** A worker on the test's queue with one main slot, polling every 10 ms; `options` replaces any of that. */
function testWorker(registry: JobRegistry, options: Partial<WorkerOptions> = {}): Worker {
  return new Worker({
    queue,
    registry,
    logger: quiet,
    leaseMs: 5000,
    pollMs: 10,
    concurrency: 1,
    ...options,
  });
}

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
  const worker = testWorker(registry);
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

/** A registry whose one module, `ping`, records the `n` of every message it handles. */
function pingRegistry(): { handled: number[]; registry: JobRegistry } {
  const handled: number[] = [];
  const registry = new JobRegistry().register({
    type: 'ping',
    payload: z.object({ n: z.number() }),
    backoffMs: () => 10,
    async handle(payload) {
      handled.push(payload.n);
    },
  });
  return { handled, registry };
}

describe('Worker wake-ups', () => {
  it('claims at once when the queue says a message is ready, not at the next poll', async () => {
    let notify: ((type: string | null) => void) | null = null;
    let unsubscribed = false;
    const notifying = Object.assign(Object.create(queue) as SqliteQueue, {
      async onMessageReady(listener: (type: string | null) => void) {
        notify = listener;
        return async () => {
          unsubscribed = true;
        };
      },
    });
    const { handled, registry } = pingRegistry();
    // A poll an hour away: only the wake-up can start the second message in time.
    const worker = testWorker(registry, { queue: notifying, pollMs: 3_600_000 });
    worker.start();
    for (let i = 0; i < 100 && notify === null; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(notify, 'the worker subscribed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await queue.enqueue({ type: 'ping', payload: { n: 1 } });
    const wake = notify as (type: string | null) => void;
    wake('ping');
    for (let i = 0; i < 200 && handled.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop(1000);
    assert.deepEqual(handled, [1]);
    assert.equal(unsubscribed, true, 'stop ends the subscription');
  });

  it('keeps polling when the queue cannot notify', async () => {
    const failing = Object.assign(Object.create(queue) as SqliteQueue, {
      onMessageReady: async () => {
        throw new Error('LISTEN refused');
      },
    });
    const { handled, registry } = pingRegistry();
    const warnings: string[] = [];
    const logger = { ...quiet, warn: (_: unknown, msg: string) => warnings.push(msg), child: () => logger };
    const worker = testWorker(registry, { queue: failing, logger: logger as unknown as FastifyBaseLogger });
    worker.start();
    await queue.enqueue({ type: 'ping', payload: { n: 2 } });
    for (let i = 0; i < 200 && handled.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await worker.stop(1000);
    assert.deepEqual(handled, [2]);
    assert.ok(warnings.some((w) => /polling only/.test(w)));
  });
});

describe('Worker claim tiers', () => {
  it('claims from a later tier only when the earlier ones have nothing, and runs family types', async () => {
    const ran: string[] = [];
    const module = (type: string) => ({
      type,
      payload: z.object({ n: z.number() }),
      backoffMs: () => 10,
      async handle({ n }: { n: number }) {
        ran.push(`${type}:${n}`);
      },
    });
    const registry = new JobRegistry().register(module('other')).registerFamily(module('chunk'));
    // Oldest first across tiers would run chunk.b first; the held shard's chunk must go first.
    await queue.enqueue({ type: 'chunk.b', payload: { n: 1 } });
    await queue.enqueue({ type: 'chunk.a', payload: { n: 2 } });
    await queue.enqueue({ type: 'chunk.a', payload: { n: 3 } });
    const worker = testWorker(registry, {
      claimTiers: async () => [
        ['other', 'chunk.a'],
        ['chunk.a', 'chunk.b'],
      ],
    });
    worker.start();
    for (let i = 0; i < 300 && ran.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop(1000);
    assert.deepEqual(ran, ['chunk:2', 'chunk:3', 'chunk:1']);
  });

  it('finds a family module by the type before the dot only', () => {
    const registry = new JobRegistry().registerFamily({
      type: 'chunk',
      payload: z.object({}),
      backoffMs: () => 1,
      async handle() {},
    });
    assert.equal(registry.get('chunk.nc')?.type, 'chunk');
    assert.equal(registry.get('chunk'), undefined);
    assert.equal(registry.get('chunkx.nc'), undefined);
    assert.deepEqual(registry.types(), []);
  });
});

describe('Worker lanes', () => {
  /** `slow` messages run until `finish()`; `ping` messages finish at once. */
  function laneRegistry() {
    const started: string[] = [];
    const pinged: number[] = [];
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const registry = new JobRegistry()
      .register({
        type: 'slow',
        payload: z.object({ name: z.string() }),
        backoffMs: () => 10,
        async handle({ name }) {
          started.push(name);
          await finished;
        },
      })
      .register({
        type: 'ping',
        payload: z.object({ n: z.number() }),
        backoffMs: () => 10,
        async handle({ n }) {
          pinged.push(n);
        },
      });
    return { registry, started, pinged, finish };
  }

  const stateOf = (name: string) =>
    (
      database.db.prepare("SELECT state FROM queue WHERE json_extract(payload, '$.name') = ?").get(name) as {
        state: string;
      }
    ).state;

  it("runs a lane's types in its own slots, at most maxPerGroup of a group, while the main slot stays free", async () => {
    const { registry, started, pinged, finish } = laneRegistry();
    for (const name of ['a-1', 'a-2', 'a-3'])
      await queue.enqueue({ type: 'slow', payload: { name }, group: 'a' });
    await queue.enqueue({ type: 'slow', payload: { name: 'b-1' }, group: 'b' });
    await queue.enqueue({ type: 'ping', payload: { n: 1 } });
    const worker = testWorker(registry, {
      lanes: [{ name: 'slow calls', types: ['slow'], concurrency: 3, maxPerGroup: 2 }],
    });
    worker.start();
    try {
      for (let i = 0; i < 200 && (started.length < 3 || pinged.length < 1); i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      // Before the lane, the one slot would hold a slow message and the ping would wait for it.
      assert.deepEqual(pinged, [1], 'the main slot ran the ping beside three slow messages');
      assert.deepEqual([...started].sort(), ['a-1', 'a-2', 'b-1'], 'group a got two slots, b the third');
      assert.equal(stateOf('a-3'), 'ready', 'the third of group a waits in the queue, in no slot');
      assert.equal(worker.busy, 3);
      finish();
      for (let i = 0; i < 200 && started.length < 4; i++)
        await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(started.includes('a-3'), 'it runs once its group has a free place');
    } finally {
      finish();
      await worker.stop(1000);
    }
  });

  it('refuses a lane type without a handler, or in two lanes', () => {
    const { registry } = laneRegistry();
    assert.throws(
      () => testWorker(registry, { lanes: [{ name: 'x', types: ['missing'], concurrency: 1 }] }),
      /worker lane x: no handler registered for job type missing/,
    );
    assert.throws(
      () =>
        testWorker(registry, {
          lanes: [
            { name: 'x', types: ['slow'], concurrency: 1 },
            { name: 'y', types: ['slow'], concurrency: 1 },
          ],
        }),
      /job type slow is in two lanes/,
    );
  });
});

describe('Worker stop', () => {
  it('gives back a message whose claim was on its way when it stopped, and runs no job after', async () => {
    let ran = 0;
    const registry = new JobRegistry().register({
      type: 'late',
      payload: z.object({ v: z.literal(1) }),
      backoffMs: () => 10,
      async handle() {
        ran++;
      },
    });
    await queue.enqueue({ type: 'late', payload: { v: 1 } });
    // A claim that answers only after stop() was called (a slow database round trip).
    let answer: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let claims = 0;
    const slowQueue = Object.create(queue) as SqliteQueue;
    slowQueue.claim = async (...args: Parameters<SqliteQueue['claim']>) => {
      claims++;
      await gate;
      return queue.claim(...args);
    };
    const worker = testWorker(registry, { queue: slowQueue });
    worker.start();
    for (let i = 0; i < 200 && claims === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(claims, 1);
    const stopped = worker.stop(1000);
    answer();
    await stopped;
    assert.equal(ran, 0, 'no job started after stop');
    const row = database.db.prepare('SELECT state FROM queue').get() as { state: string };
    assert.equal(row.state, 'ready', 'the message went back to the queue');
  });
});

describe('Worker onFinished', () => {
  it("tells each message's type, outcome and the step its payload names ('' for none)", async () => {
    const registry = new JobRegistry().register({
      type: 'stepped',
      payload: z.object({ step: z.string().optional() }),
      backoffMs: () => 10,
      async handle() {},
    });
    const finished: string[] = [];
    await queue.enqueue({ type: 'stepped', payload: { step: 'place' } });
    await queue.enqueue({ type: 'stepped', payload: {} });
    // Not a step name (it would become a metric label): none.
    await queue.enqueue({ type: 'stepped', payload: { step: 'Jane Doe, 12 Main St' } });
    const worker = testWorker(registry, {
      onFinished: (type, outcome, ms, step) => {
        assert.ok(ms >= 0);
        finished.push(`${type} ${outcome} ${step === '' ? '(none)' : step}`);
      },
    });
    worker.start();
    for (let i = 0; i < 200 && finished.length < 3; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await worker.stop(1000);
    assert.deepEqual(finished.sort(), ['stepped done (none)', 'stepped done (none)', 'stepped done place']);
  });
});
