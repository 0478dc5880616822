import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openPgDatabase, type PgDatabase } from '../../../src/adapters/postgres/pg-database.ts';
import { PgKeyStore } from '../../../src/adapters/postgres/pg-key-store.ts';
import { SqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.ts';
import { SqliteKeyStore } from '../../../src/adapters/sqlite/sqlite-key-store.ts';
import { keyStoreContract } from '../../contracts/key-store.contract.ts';
import { createTestDatabase, skipWithoutPostgres, type TestDatabase } from '../../support/postgres.ts';

const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));

keyStoreContract('SQLite', async () => {
  const database = new SqliteDatabase(':memory:', SQLITE_MIGRATIONS);
  return { keys: new SqliteKeyStore(database), close: async () => database.close() };
});

let postgresMissing = false;
await test('PostgreSQL is reachable', async (t) => {
  postgresMissing = await skipWithoutPostgres(t);
});

describe('PostgreSQL', { skip: postgresMissing && 'PostgreSQL is not reachable' }, () => {
  let testDatabase: TestDatabase;
  let database: PgDatabase;

  before(async () => {
    testDatabase = await createTestDatabase();
    database = await openPgDatabase(testDatabase.url, { migrate: true });
  });

  after(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  keyStoreContract('PostgreSQL', async () => {
    await database.query('TRUNCATE onboarding_runs, jobs, webhook_secrets, profiles, api_keys');
    return { keys: new PgKeyStore(database), close: async () => {} };
  });
});
