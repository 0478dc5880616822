import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPgBossQueue, migrate, type PgBossQueue } from '../../../src/adapters/queue/pg-boss-queue.ts';
import { SqliteQueue } from '../../../src/adapters/queue/sqlite-queue.ts';
import { SqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.ts';
import { LEASE_MS, type QueueFixture, queueContract } from '../../contracts/queue.contract.ts';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const MAX_ATTEMPTS = 3;

queueContract('SqliteQueue (embedded)', {
  async createFixture(): Promise<QueueFixture> {
    // A file, not :memory:, so that the peer is a second connection as a second process would open.
    const dir = await mkdtemp(join(os.tmpdir(), 'listmatch-queue-contract-'));
    const path = join(dir, 'listmatch.db');
    const database = new SqliteDatabase(path, MIGRATIONS);
    const peerDatabase = new SqliteDatabase(path, MIGRATIONS);
    const queue = new SqliteQueue(database, { maxAttempts: MAX_ATTEMPTS });
    return {
      queue,
      peer: new SqliteQueue(peerDatabase, { maxAttempts: MAX_ATTEMPTS }),
      async enqueueInTransaction(messages, outcome) {
        try {
          database.transaction(() => {
            for (const message of messages) queue.enqueueNow(message);
            if (outcome === 'rollback') throw new Error('roll back');
          });
        } catch (error) {
          if (outcome === 'commit') throw error;
        }
      },
      async reset() {
        database.db.exec('DELETE FROM queue');
      },
      async close() {
        database.close();
        peerDatabase.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});

/** Both handles sweep every second, so a lapsed lease is found within about a second. */
async function pgBossFixture(): Promise<QueueFixture> {
  const database = await createTestDatabase();
  const options = {
    connectionString: database.url,
    types: ['a', 'b'],
    maxAttempts: MAX_ATTEMPTS,
    leaseMs: LEASE_MS,
    sweepSeconds: 1,
    poolSize: 4,
  };
  const queue = await createPgBossQueue(options);
  const peer = await createPgBossQueue(options);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await pool.query('CREATE TABLE jobs (id text PRIMARY KEY, state text NOT NULL)');
  return {
    queue,
    peer,
    async enqueueInTransaction(messages, outcome) {
      // As a PostgreSQL metadata store does it: its own state change and the follow-ups, one transaction.
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO jobs (id, state) VALUES ('job_T', 'uploaded')`);
        await queue.enqueueWith(client, messages);
        await client.query(outcome === 'commit' ? 'COMMIT' : 'ROLLBACK');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async reset() {
      // pg-boss's own maintenance (every sweepSeconds) locks the job table's partitions in its
      // order, TRUNCATE in another: PostgreSQL then ends one of the two as a deadlock. The
      // reset is tried again, as a client retries a transaction that lost one.
      for (let attempt = 1; ; attempt++) {
        try {
          await pool.query(`TRUNCATE jobs; TRUNCATE pgboss.job`);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error;
        }
      }
    },
    async close() {
      await Promise.allSettled([queue.close(), peer.close(), pool.end()]);
      await database.drop();
    },
  };
}

queueContract('PgBossQueue (PostgreSQL)', { createFixture: pgBossFixture, skip: skipWithoutPostgres });

describe('PgBossQueue beyond the port', () => {
  let database: TestDatabase | null = null;
  const queues: PgBossQueue[] = [];

  after(async () => {
    await Promise.allSettled(queues.map((queue) => queue.close()));
    await database?.drop();
  });

  const open = async (types: readonly string[] = ['a']) => {
    database ??= await createTestDatabase();
    const queue = await createPgBossQueue({ connectionString: database.url, types, sweepSeconds: 1 });
    queues.push(queue);
    return queue;
  };

  it('migrate creates the schema, and again changes nothing', async (t) => {
    if (await skipWithoutPostgres(t)) return;
    database ??= await createTestDatabase();
    await migrate(database.url);
    await migrate(database.url);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT to_regclass('pgboss.job') AS job`);
      assert.equal(rows[0].job, 'pgboss.job');
    } finally {
      await client.end();
    }
  });

  it('wakes a listener with the type as soon as a message is enqueued, by any process', async (t) => {
    if (await skipWithoutPostgres(t)) return;
    const listening = await open();
    const sending = await open();
    const woken: (string | null)[] = [];
    const stop = await listening.onMessageReady((type) => woken.push(type));
    await sending.enqueue({ type: 'a', payload: null });
    const deadline = Date.now() + 5_000;
    while (!woken.includes('a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await stop();
    assert.ok(woken.includes('a'), `woken with ${JSON.stringify(woken)}`);
  });

  it('declares a type it was not started with on its first enqueue', async (t) => {
    if (await skipWithoutPostgres(t)) return;
    const queue = await open(['a']);
    await queue.enqueue({ type: 'late-type', payload: { jobId: 'job_late' } });
    const message = await queue.claim('w1', ['late-type'], 30_000);
    assert.equal(message?.type, 'late-type');
  });

  it('reports a claim made by another process as not its own', async (t) => {
    if (await skipWithoutPostgres(t)) return;
    const one = await open(['c']);
    const two = await open(['c']);
    await one.enqueue({ type: 'c', payload: null });
    const message = await one.claim('w1', ['c'], 30_000);
    assert.ok(message);
    // The same owner name in another process is another claimant: only the claiming process settles.
    assert.equal(await two.extendLease(message.id, 'w1', 30_000), false);
    await two.complete(message.id, 'w1');
    assert.equal((await one.stats()).byType['c']?.running, 1);
    await one.complete(message.id, 'w1');
    assert.equal((await one.stats()).byType['c']?.running ?? 0, 0);
  });
});
