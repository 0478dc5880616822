import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqliteDatabase } from '../metadata/sqlite-database.ts';
import { SqliteQueue } from './sqlite-queue.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
/** Date.now is mocked (no real waits): every test starts at T0 and moves time with tick(). */
const T0 = 1_700_000_000_000;
const LEASE = 1_000;

let database: SqliteDatabase;
let queue: SqliteQueue;

const tick = (ms: number) => mock.timers.tick(ms);

function row(id: number): Record<string, unknown> {
  const found = database.db.prepare('SELECT * FROM queue WHERE id = ?').get(id);
  assert.ok(found, `no queue row ${id}`);
  return { ...found };
}

function claimOrFail(owner: string, types: readonly string[] = ['a'], leaseMs = LEASE) {
  const message = queue.claim(owner, types, leaseMs);
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
  it('claims by run_at, then by id', () => {
    queue.enqueue({ type: 'a', payload: { n: 'late' }, runAt: T0 - 100 });
    queue.enqueue({ type: 'a', payload: { n: 'early-1' }, runAt: T0 - 300 });
    queue.enqueue({ type: 'a', payload: { n: 'early-2' }, runAt: T0 - 300 });
    queue.enqueue({ type: 'a', payload: { n: 'now' } });
    const order = [1, 2, 3, 4].map(() => (claimOrFail('w1').payload as { n: string }).n);
    assert.deepEqual(order, ['early-1', 'early-2', 'late', 'now']);
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
  });

  it('returns the message with its payload, first attempt and max attempts', () => {
    queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] } });
    queue.enqueue({ type: 'a', payload: 'plain', maxAttempts: 7 });
    assert.deepEqual(queue.claim('w1', ['a'], LEASE), {
      id: 1,
      type: 'a',
      payload: { v: 1, jobId: 'job_X', nested: [1, 'two', null] },
      attempt: 1,
      maxAttempts: 3,
    });
    assert.deepEqual(queue.claim('w1', ['a'], LEASE), {
      id: 2,
      type: 'a',
      payload: 'plain',
      attempt: 1,
      maxAttempts: 7,
    });
  });

  it('records the lease owner and lease end', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'running');
    assert.equal(stored['lease_owner'], 'w1');
    assert.equal(stored['lease_until'], T0 + LEASE);
    assert.equal(stored['attempts'], 1);
  });

  it('returns null when the queue is empty', () => {
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
  });

  it('returns null for other types and when no type is asked for, leaving the message ready', () => {
    queue.enqueue({ type: 'a', payload: null });
    assert.equal(queue.claim('w1', ['b', 'c'], LEASE), null);
    assert.equal(queue.claim('w1', [], LEASE), null);
    assert.deepEqual(queue.stats(), { ready: 1, running: 0, dead: 0 });
    assert.equal(claimOrFail('w1', ['c', 'a']).type, 'a');
  });

  it('does not hand out a message before its runAt', () => {
    queue.enqueue({ type: 'a', payload: null, runAt: T0 + 5_000 });
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
    tick(4_999);
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
    tick(1);
    assert.equal(claimOrFail('w1').attempt, 1);
  });
});

describe('SqliteQueue leases', () => {
  it('does not let a second owner claim a leased message', () => {
    queue.enqueue({ type: 'a', payload: null });
    claimOrFail('w1');
    assert.equal(queue.claim('w2', ['a'], LEASE), null);
    tick(LEASE - 1);
    assert.equal(queue.claim('w2', ['a'], LEASE), null);
    assert.deepEqual(queue.reapExhausted(['a']), []);
    assert.deepEqual(queue.stats(), { ready: 0, running: 1, dead: 0 });
  });

  it('hands a message whose lease expired to the next claimant as attempt 2', () => {
    queue.enqueue({ type: 'a', payload: { x: 1 } });
    const first = claimOrFail('w1');
    tick(LEASE + 1);
    const second = claimOrFail('w2');
    assert.equal(second.id, first.id);
    assert.equal(second.attempt, 2);
    assert.deepEqual(second.payload, { x: 1 });
    assert.equal(row(first.id)['lease_owner'], 'w2');
    assert.equal(row(first.id)['lease_until'], T0 + LEASE + 1 + LEASE);
  });

  it('extends the lease for its owner only', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    tick(800);
    assert.equal(queue.extendLease(message.id, 'w2', 5_000), false);
    assert.equal(row(message.id)['lease_until'], T0 + LEASE);
    assert.equal(queue.extendLease(message.id, 'w1', 5_000), true);
    assert.equal(row(message.id)['lease_until'], T0 + 800 + 5_000);
    // The extended lease protects the message past the original lease end.
    tick(LEASE);
    assert.equal(queue.claim('w2', ['a'], LEASE), null);
  });

  it('tells the old owner its lease was lost once another owner took over', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    tick(LEASE + 1);
    claimOrFail('w2');
    assert.equal(queue.extendLease(message.id, 'w1', LEASE), false);
    queue.complete(message.id, 'w1');
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['lease_owner'], 'w2');
  });

  it('does not extend a lease on a finished message', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.complete(message.id, 'w1');
    assert.equal(queue.extendLease(message.id, 'w1', LEASE), false);
  });
});

describe('SqliteQueue outcomes', () => {
  it('complete marks the message done for good', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.complete(message.id, 'w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'done');
    assert.equal(stored['lease_owner'], null);
    assert.equal(stored['lease_until'], null);
    tick(60_000);
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
    assert.deepEqual(queue.stats(), { ready: 0, running: 0, dead: 0 });
  });

  it('complete by another owner changes nothing', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.complete(message.id, 'w2');
    assert.equal(row(message.id)['state'], 'running');
  });

  it('fail with retryAt makes it runnable again at retryAt, keeping the attempt count', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.fail(message.id, 'w1', 'voter file missing', T0 + 10_000);
    const stored = row(message.id);
    assert.equal(stored['state'], 'ready');
    assert.equal(stored['run_at'], T0 + 10_000);
    assert.equal(stored['last_error'], 'voter file missing');
    assert.equal(stored['lease_owner'], null);
    assert.deepEqual(queue.stats(), { ready: 1, running: 0, dead: 0 });
    tick(9_999);
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
    tick(1);
    assert.equal(claimOrFail('w2').attempt, 2);
  });

  it('fail with null dead-letters the message and counts it in stats', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.fail(message.id, 'w1', 'bad payload', null);
    const stored = row(message.id);
    assert.equal(stored['state'], 'dead');
    assert.equal(stored['last_error'], 'bad payload');
    assert.deepEqual(queue.stats(), { ready: 0, running: 0, dead: 1 });
    tick(3_600_000);
    assert.equal(queue.claim('w1', ['a'], LEASE), null);
  });

  it('fail by another owner changes nothing', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.fail(message.id, 'w2', 'not mine', null);
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['last_error'], null);
  });

  it('fail keeps at most 2000 characters of the reason', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.fail(message.id, 'w1', 'x'.repeat(5_000), null);
    assert.equal(row(message.id)['last_error'], 'x'.repeat(2_000));
  });

  it('release gives the message back at once without counting the attempt', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.release(message.id, 'w1');
    const stored = row(message.id);
    assert.equal(stored['state'], 'ready');
    assert.equal(stored['attempts'], 0);
    assert.equal(stored['lease_owner'], null);
    const again = claimOrFail('w2');
    assert.equal(again.id, message.id);
    assert.equal(again.attempt, 1);
  });

  it('release by another owner changes nothing', () => {
    queue.enqueue({ type: 'a', payload: null });
    const message = claimOrFail('w1');
    queue.release(message.id, 'w2');
    assert.equal(row(message.id)['state'], 'running');
    assert.equal(row(message.id)['attempts'], 1);
  });
});

describe('SqliteQueue dead letters after crashed deliveries', () => {
  it('reaps a message whose lease expired on its last attempt; claim no longer hands it out', () => {
    queue.enqueue({ type: 'a', payload: { jobId: 'job_1' }, maxAttempts: 2 });
    claimOrFail('w1');
    tick(LEASE + 1);
    assert.equal(claimOrFail('w2').attempt, 2);
    tick(LEASE + 1);
    assert.equal(queue.claim('w3', ['a'], LEASE), null);
    assert.deepEqual(queue.reapExhausted(['b']), [], 'only the given types');
    assert.deepEqual(queue.reapExhausted(['a']), [
      { id: 1, type: 'a', payload: { jobId: 'job_1' }, attempt: 2, maxAttempts: 2 },
    ]);
    assert.deepEqual(queue.reapExhausted(['a']), [], 'reaped once');
    const stored = row(1);
    assert.equal(stored['state'], 'dead');
    assert.equal(stored['last_error'], 'worker stopped during every attempt');
    assert.equal(stored['lease_owner'], null);
    assert.deepEqual(queue.stats(), { ready: 0, running: 0, dead: 1 });
  });

  it('keeps the last real error and still hands out other messages', () => {
    queue.enqueue({ type: 'a', payload: 'exhausted', maxAttempts: 2 });
    const first = claimOrFail('w1');
    queue.fail(first.id, 'w1', 'timeout talking to storage', T0 + 10);
    tick(10);
    assert.equal(claimOrFail('w1').attempt, 2);
    queue.enqueue({ type: 'a', payload: 'fresh' });
    tick(LEASE + 1);
    const next = claimOrFail('w2');
    assert.equal(next.payload, 'fresh');
    assert.equal(queue.reapExhausted(['a']).length, 1);
    assert.equal(row(first.id)['state'], 'dead');
    assert.equal(row(first.id)['last_error'], 'timeout talking to storage');
  });

  it('does not dead-letter a message whose lease is still running on its last attempt', () => {
    queue.enqueue({ type: 'a', payload: null, maxAttempts: 1 });
    claimOrFail('w1');
    tick(LEASE - 1);
    assert.equal(queue.claim('w2', ['a'], LEASE), null);
    assert.deepEqual(queue.reapExhausted(['a']), []);
    assert.deepEqual(queue.stats(), { ready: 0, running: 1, dead: 0 });
  });
});

describe('SqliteQueue forJob', () => {
  it("lists the messages naming a job, with attempts and the last error, and no other job's", () => {
    queue.enqueue({ type: 'a', payload: { v: 1, jobId: 'job_1' } });
    queue.enqueue({ type: 'b', payload: { v: 1, jobId: 'job_2' } });
    queue.enqueue({ type: 'c', payload: { v: 1, jobId: 'job_1' }, maxAttempts: 1 });
    const claimed = claimOrFail('w1', ['c']);
    queue.fail(claimed.id, 'w1', 'SFTP 127.0.0.1:22: refused', null);
    assert.deepEqual(
      queue.forJob('job_1').map(({ type, state, attempts, maxAttempts, lastError }) => ({
        type,
        state,
        attempts,
        maxAttempts,
        lastError,
      })),
      [
        { type: 'a', state: 'ready', attempts: 0, maxAttempts: 3, lastError: null },
        { type: 'c', state: 'dead', attempts: 1, maxAttempts: 1, lastError: 'SFTP 127.0.0.1:22: refused' },
      ],
    );
    assert.deepEqual(queue.forJob('job_3'), []);
  });
});
