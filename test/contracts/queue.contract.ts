import assert from 'node:assert/strict';
import { after, describe, it, type TestContext } from 'node:test';
import type { Queue, QueueMessage } from '../../src/domain/ports/queue.ts';

/** A backend under test, built once per suite. */
export interface QueueFixture {
  /** The queue under test; messages enqueued without maxAttempts get 3 attempts. */
  queue: Queue;
  /** The same queue through its own connections, as another worker process sees it. */
  peer: Queue;
  /** Enqueues inside one metadata transaction that then commits or rolls back. */
  enqueueInTransaction(messages: readonly QueueMessage[], outcome: 'commit' | 'rollback'): Promise<void>;
  /** Deletes every message (run before each test). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The behaviour every Queue backend shares, in real time: leases are LEASE_MS long and a backend
 * may take up to SETTLE_MS after a lease lapsed to make the message runnable again (PostgreSQL
 * finds lapsed leases in a periodic sweep, SQLite at the next claim).
 */
export const LEASE_MS = 1_000;
const SETTLE_MS = 10_000;
const MAX_ATTEMPTS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something other than null/undefined/false, or fails after SETTLE_MS. */
async function eventually<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${SETTLE_MS} ms`);
    await sleep(100);
  }
}

export interface QueueContractOptions {
  /** Builds the backend once, on the first test that runs. */
  createFixture: () => Promise<QueueFixture>;
  /** True when the backend is missing here and the test must skip (and has); may fail under CI. */
  skip?: (t: TestContext) => Promise<boolean>;
}

/** Registers the suite for one backend; the queue test file runs it for every backend. */
export function queueContract(backend: string, options: QueueContractOptions): void {
  describe(`Queue contract: ${backend}`, () => {
    let fixture: Promise<QueueFixture> | null = null;
    let queue: Queue;
    let peer: Queue;

    after(async () => {
      await (await fixture?.catch(() => null))?.close();
    });

    /** Each test starts on an empty queue; a missing backend skips it. */
    const test = (name: string, fn: () => Promise<void>) =>
      it(name, async (t) => {
        if (await options.skip?.(t)) return;
        fixture ??= options.createFixture();
        const ready = await fixture;
        queue = ready.queue;
        peer = ready.peer;
        await ready.reset();
        await fn();
      });

    const inTransaction = async (messages: readonly QueueMessage[], outcome: 'commit' | 'rollback') =>
      (await fixture!).enqueueInTransaction(messages, outcome);

    const claimOrFail = async (owner: string, types: readonly string[] = ['a'], leaseMs = LEASE_MS) => {
      const message = await queue.claim(owner, types, leaseMs);
      assert.ok(message, `${owner} could not claim`);
      return message;
    };

    /** Waits for the lease of a claimed message to lapse, until `owner` can claim it again. */
    const claimAfterLapse = (owner: string, from: Queue = queue) =>
      eventually(`claim by ${owner} after the lease lapsed`, () => from.claim(owner, ['a'], LEASE_MS));

    describe('enqueue and claim', () => {
      test('hands out messages of a type oldest first', async () => {
        for (const n of ['first', 'second', 'third']) await queue.enqueue({ type: 'a', payload: { n } });
        const order: string[] = [];
        for (let i = 0; i < 3; i++) order.push(((await claimOrFail('w1')).payload as { n: string }).n);
        assert.deepEqual(order, ['first', 'second', 'third']);
        assert.equal(await queue.claim('w1', ['a'], LEASE_MS), null);
      });

      test('takes the oldest message among the given types', async () => {
        await queue.enqueue({ type: 'b', payload: 'b-first' });
        await queue.enqueue({ type: 'a', payload: 'a-second' });
        assert.equal((await claimOrFail('w1', ['a', 'b'])).payload, 'b-first');
        assert.equal((await claimOrFail('w1', ['a', 'b'])).payload, 'a-second');
      });

      test('returns the payload as enqueued, the first attempt and the max attempts, with string ids', async () => {
        await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] } });
        await queue.enqueue({ type: 'a', payload: 'plain', maxAttempts: 7 });
        await queue.enqueue({ type: 'a', payload: null });
        const first = await claimOrFail('w1');
        const second = await claimOrFail('w1');
        const third = await claimOrFail('w1');
        assert.deepEqual(
          { ...first, id: typeof first.id, runnableAt: typeof first.runnableAt },
          {
            id: 'string',
            type: 'a',
            payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] },
            attempt: 1,
            maxAttempts: MAX_ATTEMPTS,
            runnableAt: 'number',
          },
        );
        assert.deepEqual(
          { ...second, id: typeof second.id, runnableAt: typeof second.runnableAt },
          {
            id: 'string',
            type: 'a',
            payload: 'plain',
            attempt: 1,
            maxAttempts: 7,
            runnableAt: 'number',
          },
        );
        assert.equal(third.payload, null);
        assert.equal(new Set([first.id, second.id, third.id]).size, 3);
      });

      test('returns null when the queue is empty', async () => {
        assert.equal(await queue.claim('w1', ['a'], LEASE_MS), null);
      });

      test('returns null for other types and when no type is asked for, leaving the message ready', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        assert.equal(await queue.claim('w1', ['b', 'c'], LEASE_MS), null);
        assert.equal(await queue.claim('w1', [], LEASE_MS), null);
        assert.deepEqual(await queue.stats(), {
          ready: 1,
          running: 0,
          dead: 0,
          byType: { a: { ready: 1, running: 0, dead: 0 } },
        });
        assert.equal((await claimOrFail('w1', ['c', 'a'])).type, 'a');
      });

      test('does not hand out a message before its runAt', async () => {
        const runAt = Date.now() + 1_500;
        await queue.enqueue({ type: 'a', payload: null, runAt });
        assert.equal(await queue.claim('w1', ['a'], LEASE_MS), null);
        const message = await eventually('claim after runAt', () => queue.claim('w1', ['a'], LEASE_MS));
        assert.ok(Date.now() >= runAt, 'claimed before runAt');
        assert.equal(message.attempt, 1);
      });
    });

    describe('fairness groups', () => {
      const payloadOf = async (owner: string, from: Queue = queue) =>
        ((await from.claim(owner, ['a'], 60_000))?.payload ?? null) as string | null;

      test('a group with nothing running goes before a busy group, even when the busy one is older', async () => {
        for (const n of ['big-1', 'big-2', 'big-3'])
          await queue.enqueue({ type: 'a', payload: n, group: 'key-big' });
        await queue.enqueue({ type: 'a', payload: 'small-1', group: 'key-small' });
        assert.equal(await payloadOf('w1'), 'big-1');
        // key-big has a message running on another worker process: key-small's goes first.
        assert.equal(await payloadOf('w2', peer), 'small-1');
        // Only busy groups are left: their oldest still takes the free slot (no idle workers).
        assert.equal(await payloadOf('w3'), 'big-2');
        assert.equal(await payloadOf('w4', peer), 'big-3');
        assert.equal(await payloadOf('w5'), null);
      });

      test('messages without a group are never held back, and a finished message frees its group', async () => {
        await queue.enqueue({ type: 'a', payload: 'g-1', group: 'g' });
        await queue.enqueue({ type: 'a', payload: 'g-2', group: 'g' });
        await queue.enqueue({ type: 'a', payload: 'plain', group: undefined });
        await queue.enqueue({ type: 'a', payload: 'h-1', group: 'h' });
        const first = await queue.claim('w1', ['a'], 60_000);
        assert.equal(first?.payload, 'g-1');
        assert.equal(await payloadOf('w2'), 'plain');
        assert.equal(await payloadOf('w3'), 'h-1');
        await queue.complete(first!.id, 'w1');
        await queue.enqueue({ type: 'a', payload: 'h-2', group: 'h' });
        // g has nothing running again, h has h-1 running: g-2 goes before h-2.
        assert.equal(await payloadOf('w4'), 'g-2');
        assert.equal(await payloadOf('w5'), 'h-2');
      });

      test('maxPerGroup: a group at the limit (here or in another process) gets no more until one finishes', async () => {
        const capped = async (owner: string, from: Queue = queue) =>
          (await from.claim(owner, ['a'], 60_000, { maxPerGroup: 2 })) ?? null;
        for (const n of ['g-1', 'g-2', 'g-3']) await queue.enqueue({ type: 'a', payload: n, group: 'g' });
        await queue.enqueue({ type: 'a', payload: 'plain', group: undefined });
        const first = await capped('w1');
        assert.equal(first?.payload, 'g-1');
        // An ungrouped message is never limited (nor held back: it goes before a busy group's).
        assert.equal((await capped('w2', peer))?.payload, 'plain');
        assert.equal((await capped('w3'))?.payload, 'g-2');
        // g has two running: its third stays queued.
        assert.equal(await capped('w4', peer), null);
        // Without the limit the busy group still takes a free slot: g has three running now.
        const third = await queue.claim('w5', ['a'], 60_000);
        assert.equal(third?.payload, 'g-3');
        await queue.enqueue({ type: 'a', payload: 'g-4', group: 'g' });
        await queue.complete(first!.id, 'w1');
        assert.equal(await capped('w6'), null, 'two of g still run');
        await queue.complete(third!.id, 'w5');
        assert.equal((await capped('w6', peer))?.payload, 'g-4');
      });

      test('maxPerGroup 1: a group runs one message at a time', async () => {
        for (const n of ['g-1', 'g-2']) await queue.enqueue({ type: 'a', payload: n, group: 'g' });
        const first = await queue.claim('w1', ['a'], 60_000, { maxPerGroup: 1 });
        assert.equal(first?.payload, 'g-1');
        assert.equal(await queue.claim('w2', ['a'], 60_000, { maxPerGroup: 1 }), null);
        await queue.complete(first!.id, 'w1');
        assert.equal((await queue.claim('w2', ['a'], 60_000, { maxPerGroup: 1 }))?.payload, 'g-2');
      });

      test('groups count per type: a running message of another type does not hold a group back', async () => {
        await queue.enqueue({ type: 'b', payload: 'other-type', group: 'g' });
        assert.equal((await queue.claim('w1', ['b'], 60_000))?.payload, 'other-type');
        await queue.enqueue({ type: 'a', payload: 'g-a', group: 'g' });
        await queue.enqueue({ type: 'a', payload: 'h-a', group: 'h' });
        assert.equal(await payloadOf('w2'), 'g-a');
      });
    });

    describe('leases', () => {
      test('does not let a second owner claim a leased message, here or in another process', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        await claimOrFail('w1', ['a'], 5_000);
        assert.equal(await queue.claim('w2', ['a'], LEASE_MS), null);
        assert.equal(await peer.claim('w3', ['a'], LEASE_MS), null);
        assert.deepEqual(await queue.reapExhausted(['a']), []);
        assert.equal((await queue.stats()).running, 1);
      });

      test('hands a message whose lease lapsed to the next claimant as attempt 2', async () => {
        await queue.enqueue({ type: 'a', payload: { x: 1 } });
        const first = await claimOrFail('w1');
        const second = await claimAfterLapse('w2', peer);
        assert.equal(second.id, first.id);
        assert.equal(second.attempt, 2);
        assert.deepEqual(second.payload, { x: 1 });
      });

      test('extends the lease for its owner only, and the extended lease keeps the message', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const message = await claimOrFail('w1');
        assert.equal(await queue.extendLease(message.id, 'w2', 6_000), false);
        assert.equal(await queue.extendLease(message.id, 'w1', 6_000), true);
        // Well past the first lease (and a sweep or two): nobody else gets it.
        await sleep(LEASE_MS + 2_500);
        assert.equal(await peer.claim('w2', ['a'], LEASE_MS), null);
        assert.equal(await queue.extendLease(message.id, 'w1', 6_000), true);
        assert.equal((await queue.stats()).running, 1);
      });

      test('tells the old owner its lease was lost once another owner took over', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const message = await claimOrFail('w1');
        await claimAfterLapse('w2');
        assert.equal(await queue.extendLease(message.id, 'w1', LEASE_MS), false);
        await queue.complete(message.id, 'w1');
        await queue.fail(message.id, 'w1', 'stale', null);
        assert.equal((await queue.stats()).running, 1, "the old owner's outcome changed nothing");
        await queue.complete(message.id, 'w2');
        assert.equal((await queue.stats()).running, 0);
      });

      test('does not extend a lease on a finished message', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const message = await claimOrFail('w1');
        await queue.complete(message.id, 'w1');
        assert.equal(await queue.extendLease(message.id, 'w1', LEASE_MS), false);
      });

      test('never hands one message to two claimers on separate connections', async () => {
        const count = 120;
        for (let i = 0; i < count; i++) await queue.enqueue({ type: 'a', payload: { i } });
        const seen: string[] = [];
        const byOwner: Record<string, number> = {};
        const loop = async (from: Queue, owner: string) => {
          for (;;) {
            const message = await from.claim(owner, ['a'], 30_000);
            if (message === null) return;
            seen.push(message.id);
            byOwner[owner] = (byOwner[owner] ?? 0) + 1;
            await from.complete(message.id, owner);
          }
        };
        await Promise.all([loop(queue, 'q1'), loop(queue, 'q2'), loop(peer, 'p1'), loop(peer, 'p2')]);
        assert.equal(seen.length, count, 'every message claimed exactly once');
        assert.equal(new Set(seen).size, count);
        assert.ok((byOwner['q1'] ?? 0) + (byOwner['q2'] ?? 0) > 0, 'the first connection claimed some');
        assert.ok((byOwner['p1'] ?? 0) + (byOwner['p2'] ?? 0) > 0, 'the second connection claimed some');
      });
    });

    describe('outcomes', () => {
      test('complete marks the message done for good', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const message = await claimOrFail('w1');
        await queue.complete(message.id, 'w1');
        assert.deepEqual(await queue.stats(), { ready: 0, running: 0, dead: 0, byType: {} });
        await sleep(LEASE_MS + 500);
        assert.equal(await queue.claim('w1', ['a'], LEASE_MS), null);
      });

      test('complete by another owner changes nothing', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const message = await claimOrFail('w1', ['a'], 30_000);
        await queue.complete(message.id, 'w2');
        await peer.complete(message.id, 'w2');
        assert.equal((await queue.stats()).running, 1);
      });

      test('fail with retryAt makes it runnable again at retryAt, keeping the attempt count', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_R' } });
        const message = await claimOrFail('w1');
        const retryAt = Date.now() + 1_500;
        await queue.fail(message.id, 'w1', 'voter file missing', retryAt);
        assert.deepEqual(await queue.stats(), {
          ready: 1,
          running: 0,
          dead: 0,
          byType: { a: { ready: 1, running: 0, dead: 0 } },
        });
        const [record] = await queue.messagesForJob('job_R');
        assert.equal(record?.state, 'ready');
        assert.equal(record?.lastError, 'voter file missing');
        assert.equal(await queue.claim('w2', ['a'], LEASE_MS), null);
        const again = await eventually('claim after retryAt', () => queue.claim('w2', ['a'], LEASE_MS));
        assert.ok(Date.now() >= retryAt, 'claimed before retryAt');
        assert.equal(again.id, message.id);
        assert.equal(again.attempt, 2);
      });

      test('fail with null dead-letters the message, attempts left or not', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_D' } });
        const message = await claimOrFail('w1');
        await queue.fail(message.id, 'w1', 'bad payload', null);
        assert.deepEqual(await queue.stats(), {
          ready: 0,
          running: 0,
          dead: 1,
          byType: { a: { ready: 0, running: 0, dead: 1 } },
        });
        const [record] = await queue.messagesForJob('job_D');
        assert.equal(record?.state, 'dead');
        assert.equal(record?.lastError, 'bad payload');
        await sleep(LEASE_MS + 500);
        assert.equal(await queue.claim('w1', ['a'], LEASE_MS), null);
        assert.deepEqual(await queue.reapExhausted(['a']), [], 'a failure the worker recorded is not reaped');
      });

      test('fail by another owner changes nothing', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_F' } });
        const message = await claimOrFail('w1', ['a'], 30_000);
        await queue.fail(message.id, 'w2', 'not mine', null);
        const [record] = await queue.messagesForJob('job_F');
        assert.equal(record?.state, 'running');
        assert.equal(record?.lastError, null);
      });

      test('fail keeps at most 2000 characters of the reason', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_L' } });
        const message = await claimOrFail('w1');
        await queue.fail(message.id, 'w1', 'x'.repeat(5_000), null);
        const [record] = await queue.messagesForJob('job_L');
        assert.equal(record?.lastError, 'x'.repeat(2_000));
      });

      test('release gives the message back at once without counting the attempt', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_G' } });
        const message = await claimOrFail('w1', ['a'], 30_000);
        await queue.release(message.id, 'w1');
        const [record] = await queue.messagesForJob('job_G');
        assert.equal(record?.state, 'ready');
        assert.equal(record?.attempts, 0);
        const again = await peer.claim('w2', ['a'], LEASE_MS);
        assert.equal(again?.id, message.id);
        assert.equal(again?.attempt, 1);
      });

      test('release of a second attempt counts only the first', async () => {
        await queue.enqueue({ type: 'a', payload: null });
        const first = await claimOrFail('w1');
        await queue.fail(first.id, 'w1', 'try again', Date.now());
        const second = await eventually('second attempt', () => queue.claim('w1', ['a'], 30_000));
        assert.equal(second.attempt, 2);
        await queue.release(second.id, 'w1');
        assert.equal((await claimOrFail('w2', ['a'], 30_000)).attempt, 2);
      });

      test('release by another owner changes nothing', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_H' } });
        const message = await claimOrFail('w1', ['a'], 30_000);
        await queue.release(message.id, 'w2');
        const [record] = await queue.messagesForJob('job_H');
        assert.equal(record?.state, 'running');
        assert.equal(record?.attempts, 1);
      });
    });

    describe('dead letters after crashed deliveries', () => {
      test('reaps, once, a message whose lease lapsed on its last attempt; claim no longer hands it out', async () => {
        await queue.enqueue({ type: 'a', payload: { jobId: 'job_1' }, maxAttempts: 2 });
        const first = await claimOrFail('w1');
        assert.equal((await claimAfterLapse('w2')).attempt, 2);
        assert.deepEqual(await queue.reapExhausted(['b']), [], 'only the given types');
        const reaped = await eventually('reaped after the last lease lapsed', async () => {
          const found = await queue.reapExhausted(['a']);
          return found.length > 0 ? found : null;
        });
        assert.deepEqual(reaped, [
          { id: first.id, type: 'a', payload: { jobId: 'job_1' }, attempt: 2, maxAttempts: 2 },
        ]);
        assert.deepEqual(await queue.reapExhausted(['a']), [], 'reaped once');
        assert.deepEqual(await peer.reapExhausted(['a']), [], 'reaped once, by any process');
        assert.equal(await queue.claim('w3', ['a'], LEASE_MS), null);
        assert.deepEqual(await queue.stats(), {
          ready: 0,
          running: 0,
          dead: 1,
          byType: { a: { ready: 0, running: 0, dead: 1 } },
        });
        const [record] = await queue.messagesForJob('job_1');
        assert.equal(record?.state, 'dead');
        assert.equal(record?.attempts, 2);
        assert.ok(record?.lastError, 'the dead-letter view says why');
      });

      test('does not dead-letter a message whose lease is still running on its last attempt', async () => {
        await queue.enqueue({ type: 'a', payload: null, maxAttempts: 1 });
        await claimOrFail('w1', ['a'], 30_000);
        await sleep(LEASE_MS + 1_500);
        assert.equal(await queue.claim('w2', ['a'], LEASE_MS), null);
        assert.deepEqual(await queue.reapExhausted(['a']), []);
        assert.equal((await queue.stats()).running, 1);
      });
    });

    describe('transactional enqueue', () => {
      test('messages enqueued in a transaction that rolls back leave nothing', async () => {
        await inTransaction(
          [
            { type: 'a', payload: { jobId: 'job_T' } },
            { type: 'b', payload: { jobId: 'job_T' } },
          ],
          'rollback',
        );
        assert.deepEqual(await queue.messagesForJob('job_T'), []);
        assert.deepEqual(await queue.stats(), { ready: 0, running: 0, dead: 0, byType: {} });
        assert.equal(await queue.claim('w1', ['a', 'b'], LEASE_MS), null);
      });

      test('messages enqueued in a transaction that commits are there, with their options', async () => {
        const runAt = Date.now() + 60_000;
        await inTransaction(
          [
            { type: 'a', payload: { jobId: 'job_C', n: 1 }, maxAttempts: 4 },
            { type: 'b', payload: { jobId: 'job_C', n: 2 }, runAt },
          ],
          'commit',
        );
        const records = await queue.messagesForJob('job_C');
        assert.deepEqual(
          records.map((r) => [r.type, r.state, r.maxAttempts]),
          [
            ['a', 'ready', 4],
            ['b', 'ready', MAX_ATTEMPTS],
          ],
        );
        const claimed = await claimOrFail('w1', ['a', 'b']);
        assert.deepEqual(claimed.payload, { jobId: 'job_C', n: 1 });
        assert.equal(await queue.claim('w1', ['a', 'b'], LEASE_MS), null, 'b waits for its runAt');
      });
    });

    describe('stats and messagesForJob', () => {
      test('counts ready, running and dead messages in total and per type', async () => {
        for (const type of ['a', 'a', 'a', 'b']) await queue.enqueue({ type, payload: null });
        const running = await claimOrFail('w1', ['a'], 30_000);
        const dead = await claimOrFail('w1', ['b'], 30_000);
        await queue.fail(dead.id, 'w1', 'gone', null);
        const done = await claimOrFail('w1', ['a'], 30_000);
        await queue.complete(done.id, 'w1');
        assert.ok(running);
        assert.deepEqual(await queue.stats(), {
          ready: 1,
          running: 1,
          dead: 1,
          byType: {
            a: { ready: 1, running: 1, dead: 0 },
            b: { ready: 0, running: 0, dead: 1 },
          },
        });
      });

      test("lists a job's messages oldest first with attempts and last error, and no other job's", async () => {
        const start = Date.now();
        await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_1' }, maxAttempts: 1 });
        await queue.enqueue({ type: 'b', payload: { v: 1, jobId: 'job_1', notice: 'complete' } });
        await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_2' } });
        await queue.enqueue({ type: 'a', payload: { other: true } });
        const first = await claimOrFail('w1', ['a']);
        await queue.fail(first.id, 'w1', 'webhook answered 500', null);
        const records = await queue.messagesForJob('job_1');
        assert.deepEqual(
          records.map(({ createdAt, updatedAt, ...rest }) => rest),
          [
            {
              id: first.id,
              type: 'a',
              state: 'dead',
              attempts: 1,
              maxAttempts: 1,
              lastError: 'webhook answered 500',
            },
            {
              id: records[1]?.id,
              type: 'b',
              state: 'ready',
              attempts: 0,
              maxAttempts: MAX_ATTEMPTS,
              lastError: null,
            },
          ],
        );
        assert.notEqual(records[1]?.id, first.id);
        for (const record of records) {
          assert.ok(
            record.createdAt >= start - 1_000 && record.createdAt <= Date.now(),
            'createdAt is epoch ms',
          );
          assert.ok(record.updatedAt >= record.createdAt, 'updatedAt is not before createdAt');
        }
        assert.deepEqual(await queue.messagesForJob('job_3'), []);
      });
    });
  });
}
