import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { SqliteDatabase } from '../../../src/adapters/metadata/sqlite-database.ts';
import { SqliteJobStore } from '../../../src/adapters/metadata/sqlite-job-store.ts';
import { SqliteKeyStore } from '../../../src/adapters/metadata/sqlite-key-store.ts';
import { SqliteOnboardingStore } from '../../../src/adapters/metadata/sqlite-onboarding-store.ts';
import { openPgDatabase, type PgDatabase } from '../../../src/adapters/postgres/pg-database.ts';
import type { PgFollowUpEnqueuer } from '../../../src/adapters/postgres/pg-follow-ups.ts';
import { PgJobStore } from '../../../src/adapters/postgres/pg-job-store.ts';
import { PgKeyStore } from '../../../src/adapters/postgres/pg-key-store.ts';
import { PgOnboardingStore } from '../../../src/adapters/postgres/pg-onboarding-store.ts';
import { SqliteQueue } from '../../../src/adapters/queue/sqlite-queue.ts';
import type { QueueMessage } from '../../../src/domain/ports/queue.ts';
import { onboardingStoreContract } from '../../contracts/onboarding-store.contract.ts';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.ts';

const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));

// Embedded: one SQLite file opened twice, with the real SqliteQueue.
onboardingStoreContract('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'listmatch-contract-'));
  const file = join(dir, 'listmatch.db');
  const database = new SqliteDatabase(file, SQLITE_MIGRATIONS);
  const other = new SqliteDatabase(file, SQLITE_MIGRATIONS);
  const queue = new SqliteQueue(database);
  return {
    onboarding: new SqliteOnboardingStore(database, queue),
    otherOnboarding: new SqliteOnboardingStore(other, new SqliteQueue(other)),
    jobs: new SqliteJobStore(database, queue),
    keys: new SqliteKeyStore(database),
    committedFollowUps: async () =>
      database.db
        .prepare('SELECT type, payload FROM queue ORDER BY id')
        .all()
        .map((row) => ({ type: row['type'] as string, payload: JSON.parse(row['payload'] as string) })),
    close: async () => {
      database.close();
      other.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

/**
 * Test stand-in for the PostgreSQL queue adapter (written separately; the lead swaps it in): it
 * INSERTs each message with the transaction's client, so a rolled-back change leaves no message.
 */
class TableFollowUps implements PgFollowUpEnqueuer {
  async enqueueWith(client: pg.ClientBase, messages: readonly QueueMessage[]): Promise<void> {
    for (const message of messages) {
      await client.query('INSERT INTO contract_follow_ups (type, payload) VALUES ($1, $2)', [
        message.type,
        JSON.stringify(message.payload),
      ]);
    }
  }
}

let postgresMissing = false;
await test('PostgreSQL is reachable', async (t) => {
  postgresMissing = await skipWithoutPostgres(t);
});

describe('PostgreSQL', { skip: postgresMissing && 'PostgreSQL is not reachable' }, () => {
  let testDatabase: TestDatabase;
  let first: PgDatabase;
  let second: PgDatabase;

  before(async () => {
    testDatabase = await createTestDatabase();
    first = await openPgDatabase(testDatabase.url, { migrate: true });
    second = await openPgDatabase(testDatabase.url);
    await first.query(
      'CREATE TABLE contract_follow_ups (id BIGSERIAL PRIMARY KEY, type TEXT NOT NULL, payload JSON NOT NULL)',
    );
  });

  after(async () => {
    await first?.close();
    await second?.close();
    await testDatabase?.drop();
  });

  onboardingStoreContract('PostgreSQL', async () => {
    await first.query(
      'TRUNCATE onboarding_runs, jobs, webhook_secrets, profiles, api_keys, contract_follow_ups RESTART IDENTITY',
    );
    const followUps = new TableFollowUps();
    return {
      onboarding: new PgOnboardingStore(first, followUps),
      otherOnboarding: new PgOnboardingStore(second, followUps),
      jobs: new PgJobStore(first, followUps),
      keys: new PgKeyStore(first),
      committedFollowUps: async () =>
        (
          await first.query<{ type: string; payload: unknown }>(
            'SELECT type, payload FROM contract_follow_ups ORDER BY id',
          )
        ).rows,
      close: async () => {},
    };
  });
});
