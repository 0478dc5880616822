import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { QueueCounts, QueueStats } from '../../domain/ports/queue.ts';
import { SqliteDatabase } from '../sqlite/sqlite-database.ts';
import { SqliteQueue } from './sqlite-queue.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
/** Date.now is mocked (no real waits): every test starts at T0 and moves time with tick(). */
const T0 = 1_700_000_000_000;
const LEASE = 1_000;

let database: SqliteDatabase;
let queue: SqliteQueue;

const tick = (ms: number) => mock.timers.tick(ms);

function row(id: string): Record<string, unknown> {
  const found = database.db.prepare('SELECT * FROM queue WHERE id = ?').get(id);
  assert.ok(found, `no queue row ${id}`);
  return { ...found };
}

/** The totals of `stats()`, without the per-type breakdown. */
function totals(stats: QueueStats): QueueCounts {
  return { ready: stats.ready, running: stats.running, dead: stats.dead };
}

async function claimOrFail(owner: string, types: readonly string[] = ['a'], leaseMs = LEASE) {
  const message = await queue.claim(owner, types, leaseMs);
  assert.ok(message, `${owner} could not claim`);
  return message;
}

beforeEach(() => {
  mock.timers.enable({ apis: ['Date'], now: T0 });
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  queue = new SqliteQueue(database, { maxAttempts: 3 });
});

afterEach(() => {
  database.close();
  mock.timers.reset();
});

describe('SqliteQueue enqueue and claim', () => {
  it('claims by run_at, then by id', async () => {
    await queue.enqueue({ type: 'a', payload: { n: 'late' }, runAt: T0 - 100 });
    await queue.enqueue({ type: 'a', payload: { n: 'early-1' }, runAt: T0 - 300 });
    await queue.enqueue({ type: 'a', payload: { n: 'early-2' }, runAt: T0 - 300 });
    await queue.enqueue({ type: 'a', payload: { n: 'now' } });
    const order: string[] = [];
    for (let i = 0; i < 4; i++) order.push(((await claimOrFail('w1')).payload as { n: string }).n);
    assert.deepEqual(order, ['early-1', 'early-2', 'late', 'now']);
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
  });

  it('returns the message with its payload, first attempt and max attempts', async () => {
    await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] } });
    await queue.enqueue({ type: 'a', payload: 'plain', maxAttempts: 7 });
    assert.deepEqual(await queue.claim('w1', ['a'], LEASE), {
      id: '1',
      type: 'a',
      payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] },
      attempt: 1,
      maxAttempts: 3,
      runnableAt: T0,
    });
    assert.deepEqual(await queue.claim('w1', ['a'], LEASE), {
      id: '2',
      type: 'a',
      payload: 'plain',
      attempt: 1,
      maxAttempts: 7,
      runnableAt: T0,
    });
  });

  it('records the lease owner and lease end', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'running');
    assert.equal(stored['lease_owner'], 'w1');
    assert.equal(stored['lease_until'], T0 + LEASE);
    assert.equal(stored['attempts'], 1);
  });

  it('counts messages per type as well as in total', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    await queue.enqueue({ type: 'a', payload: null });
    await queue.enqueue({ type: 'b', payload: null });
    await claimOrFail('w1', ['b']);
    assert.deepEqual(await queue.stats(), {
      ready: 2,
      running: 1,
      dead: 0,
      byType: { a: { ready: 2, running: 0, dead: 0 }, b: { ready: 0, running: 1, dead: 0 } },
    });
  });

  // Empty queue, other types and an empty type list: the queue contract (test/contracts), which
  // runs on this backend with the same assertions.

  it('does not hand out a message before its runAt', async () => {
    await queue.enqueue({ type: 'a', payload: null, runAt: T0 + 5_000 });
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
    tick(4_999);
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
    tick(1);
    assert.equal((await claimOrFail('w1')).attempt, 1);
  });
});

describe('SqliteQueue leases', () => {
  it('does not let a second owner claim a leased message', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    await claimOrFail('w1');
    assert.equal(await queue.claim('w2', ['a'], LEASE), null);
    tick(LEASE - 1);
    assert.equal(await queue.claim('w2', ['a'], LEASE), null);
    assert.deepEqual(await queue.reapExhausted(['a']), []);
    assert.deepEqual(totals(await queue.stats()), { ready: 0, running: 1, dead: 0 });
  });

  it('hands a message whose lease expired to the next claimant as attempt 2', async () => {
    await queue.enqueue({ type: 'a', payload: { x: 1 } });
    const first = await claimOrFail('w1');
    tick(LEASE + 1);
    const second = await claimOrFail('w2');
    assert.equal(second.id, first.id);
    assert.equal(second.attempt, 2);
    assert.deepEqual(second.payload, { x: 1 });
    assert.equal(row(first.id)['lease_owner'], 'w2');
    assert.equal(row(first.id)['lease_until'], T0 + LEASE + 1 + LEASE);
  });

  it('extends the lease for its owner only', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    tick(800);
    assert.equal(await queue.extendLease(message.id, 'w2', 5_000), false);
    assert.equal(row(message.id)['lease_until'], T0 + LEASE);
    assert.equal(await queue.extendLease(message.id, 'w1', 5_000), true);
    assert.equal(row(message.id)['lease_until'], T0 + 800 + 5_000);
    // The extended lease protects the message past the original lease end.
    tick(LEASE);
    assert.equal(await queue.claim('w2', ['a'], LEASE), null);
  });

  it('tells the old owner its lease was lost once another owner took over', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    tick(LEASE + 1);
    await claimOrFail('w2');
    assert.equal(await queue.extendLease(message.id, 'w1', LEASE), false);
    await queue.complete(message.id, 'w1');
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['lease_owner'], 'w2');
  });

  it('does not extend a lease on a finished message', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.complete(message.id, 'w1');
    assert.equal(await queue.extendLease(message.id, 'w1', LEASE), false);
  });
});

describe('SqliteQueue outcomes', () => {
  it('complete marks the message done for good', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.complete(message.id, 'w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'done');
    assert.equal(stored['lease_owner'], null);
    assert.equal(stored['lease_until'], null);
    tick(60_000);
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
    assert.deepEqual(totals(await queue.stats()), { ready: 0, running: 0, dead: 0 });
  });

  it('complete by another owner changes nothing', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.complete(message.id, 'w2');
    assert.equal(row(message.id)['state'], 'running');
  });

  it('fail with retryAt makes it runnable again at retryAt, keeping the attempt count', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.fail(message.id, 'w1', 'voter file missing', T0 + 10_000);
    const stored = row(message.id);
    assert.equal(stored['state'], 'ready');
    assert.equal(stored['run_at'], T0 + 10_000);
    assert.equal(stored['last_error'], 'voter file missing');
    assert.equal(stored['lease_owner'], null);
    assert.deepEqual(totals(await queue.stats()), { ready: 1, running: 0, dead: 0 });
    tick(9_999);
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
    tick(1);
    assert.equal((await claimOrFail('w2')).attempt, 2);
  });

  it('fail with null dead-letters the message and counts it in stats', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.fail(message.id, 'w1', 'bad payload', null);
    const stored = row(message.id);
    assert.equal(stored['state'], 'dead');
    assert.equal(stored['last_error'], 'bad payload');
    assert.deepEqual(totals(await queue.stats()), { ready: 0, running: 0, dead: 1 });
    tick(3_600_000);
    assert.equal(await queue.claim('w1', ['a'], LEASE), null);
  });

  it('fail by another owner changes nothing', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.fail(message.id, 'w2', 'not mine', null);
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['last_error'], null);
  });

  it('fail keeps at most 2000 characters of the reason', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.fail(message.id, 'w1', 'x'.repeat(5_000), null);
    assert.equal(row(message.id)['last_error'], 'x'.repeat(2_000));
  });

  it('release gives the message back at once without counting the attempt', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.release(message.id, 'w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'ready');
    assert.equal(stored['attempts'], 0);
    assert.equal(stored['lease_owner'], null);
    const again = await claimOrFail('w2');
    assert.equal(again.id, message.id);
    assert.equal(again.attempt, 1);
  });

  it('release by another owner changes nothing', async () => {
    await queue.enqueue({ type: 'a', payload: null });
    const message = await claimOrFail('w1');
    await queue.release(message.id, 'w2');
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['attempts'], 1);
  });
});

describe('SqliteQueue dead letters after crashed deliveries', () => {
  it('reaps a message whose lease expired on its last attempt; claim no longer hands it out', async () => {
    await queue.enqueue({ type: 'a', payload: { jobId: 'job_1' }, maxAttempts: 2 });
    await claimOrFail('w1');
    tick(LEASE + 1);
    assert.equal((await claimOrFail('w2')).attempt, 2);
    tick(LEASE + 1);
    assert.equal(await queue.claim('w3', ['a'], LEASE), null);
    assert.deepEqual(await queue.reapExhausted(['b']), [], 'only the given types');
    assert.deepEqual(await queue.reapExhausted(['a']), [
      { id: '1', type: 'a', payload: { jobId: 'job_1' }, attempt: 2, maxAttempts: 2 },
    ]);
    assert.deepEqual(await queue.reapExhausted(['a']), [], 'reaped once');
    const stored = row('1');
    assert.equal(stored['state'], 'dead');
    assert.equal(stored['last_error'], 'worker stopped during every attempt');
    assert.equal(stored['lease_owner'], null);
    assert.deepEqual(totals(await queue.stats()), { ready: 0, running: 0, dead: 1 });
  });

  it('keeps the last real error and still hands out other messages', async () => {
    await queue.enqueue({ type: 'a', payload: 'exhausted', maxAttempts: 2 });
    const first = await claimOrFail('w1');
    await queue.fail(first.id, 'w1', 'timeout talking to storage', T0 + 10);
    tick(10);
    assert.equal((await claimOrFail('w1')).attempt, 2);
    await queue.enqueue({ type: 'a', payload: 'fresh' });
    tick(LEASE + 1);
    const next = await claimOrFail('w2');
    assert.equal(next.payload, 'fresh');
    assert.equal((await queue.reapExhausted(['a'])).length, 1);
    assert.equal(row(first.id)['state'], 'dead');
    assert.equal(row(first.id)['last_error'], 'timeout talking to storage');
  });

  it('does not dead-letter a message whose lease is still running on its last attempt', async () => {
    await queue.enqueue({ type: 'a', payload: null, maxAttempts: 1 });
    await claimOrFail('w1');
    tick(LEASE - 1);
    assert.equal(await queue.claim('w2', ['a'], LEASE), null);
    assert.deepEqual(await queue.reapExhausted(['a']), []);
    assert.deepEqual(totals(await queue.stats()), { ready: 0, running: 1, dead: 0 });
  });
});

describe('SqliteQueue messagesForJob (the dead-letter view)', () => {
  it("lists a job's messages with attempts and last error, dead ones included, and no other job's", async () => {
    await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_1' }, maxAttempts: 1 });
    await queue.enqueue({ type: 'b', payload: { v: 1, jobId: 'job_1', notice: 'complete' } });
    await queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_2' } });
    await queue.enqueue({ type: 'a', payload: { other: true } });
    const first = await claimOrFail('w1', ['a']);
    await queue.fail(first.id, 'w1', 'webhook answered 500', null);
    tick(5);
    assert.deepEqual(await queue.messagesForJob('job_1'), [
      {
        id: first.id,
        type: 'a',
        state: 'dead',
        attempts: 1,
        maxAttempts: 1,
        lastError: 'webhook answered 500',
        createdAt: T0,
        updatedAt: T0,
      },
      {
        id: String(Number(first.id) + 1),
        type: 'b',
        state: 'ready',
        attempts: 0,
        maxAttempts: 3,
        lastError: null,
        createdAt: T0,
        updatedAt: T0,
      },
    ]);
    assert.deepEqual(await queue.messagesForJob('job_3'), []);
  });
});
