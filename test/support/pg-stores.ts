import type pg from 'pg';
import { openPgDatabase, type PgDatabase } from '../../src/adapters/postgres/pg-database.ts';
import type { PgFollowUpEnqueuer } from '../../src/adapters/postgres/pg-follow-ups.ts';
import { createPgBossQueue, type PgBossQueue } from '../../src/adapters/queue/pg-boss-queue.ts';
import type { QueueMessage } from '../../src/domain/ports/queue.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

/** A message type whose enqueue fails on the server, inside the store's transaction. */
export const REFUSED_BY_DATABASE = 'refused-by-database';

/**
 * The real PostgreSQL queue (pg-boss) as the stores' follow-up enqueuer, with two test hooks
 * around it: hold the store's transaction open after enqueueing (to race two connections), and a
 * message type that makes the server refuse the statement (to see the change roll back with it).
 */
export class TestFollowUps implements PgFollowUpEnqueuer {
  holdMs = 0;
  private readonly queue: PgBossQueue;

  constructor(queue: PgBossQueue) {
    this.queue = queue;
  }

  async enqueueWith(client: pg.ClientBase, messages: readonly QueueMessage[]): Promise<void> {
    if (messages.some((message) => message.type === REFUSED_BY_DATABASE)) {
      await client.query('SELECT * FROM no_such_table_refuses_the_follow_up');
    }
    await this.queue.enqueueWith(client, messages);
    if (this.holdMs > 0) await new Promise((resolve) => setTimeout(resolve, this.holdMs));
  }
}

/**
 * A fresh, migrated database for one test file, seen through two pools (two processes' views of
 * it), with the pg-boss queue the scaled-out service uses.
 */
export interface PgStoresFixture {
  database: TestDatabase;
  first: PgDatabase;
  second: PgDatabase;
  followUps: TestFollowUps;
  /** Empties every metadata table and the queue (before each test). */
  reset(): Promise<void>;
  /** Messages the queue holds, in enqueue order, as the stores handed them over. */
  committedFollowUps(): Promise<{ type: string; payload: unknown }[]>;
  close(): Promise<void>;
}

export async function openPgStoresFixture(): Promise<PgStoresFixture> {
  const database = await createTestDatabase();
  const first = await openPgDatabase(database.url, { migrate: true });
  const second = await openPgDatabase(database.url);
  const queue = await createPgBossQueue({ connectionString: database.url, poolSize: 2, supervise: false });
  const followUps = new TestFollowUps(queue);
  return {
    database,
    first,
    second,
    followUps,
    async reset() {
      followUps.holdMs = 0;
      await first.query(
        'TRUNCATE lookup_usage, lookup_grants, onboarding_runs, jobs, webhook_secrets, profiles, api_keys; TRUNCATE pgboss.job',
      );
    },
    async committedFollowUps() {
      const { rows } = await first.query<{ type: string; payload: unknown }>(
        `SELECT name AS type, data -> 'payload' AS payload FROM pgboss.job
         ORDER BY created_on, (data ->> 'order')::bigint, id`,
      );
      return rows;
    },
    async close() {
      await Promise.allSettled([queue.close(), first.close(), second.close()]);
      await database.drop();
    },
  };
}
