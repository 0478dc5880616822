import { after, before, describe } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openPgDatabase, type PgDatabase } from '../../../src/adapters/postgres/pg-database.ts';
import { PgRunner } from '../../../src/adapters/sql/pg-runner.ts';
import { SqlKeyStore } from '../../../src/adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../../src/adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.ts';
import { keyStoreContract } from '../../contracts/key-store.contract.ts';
import {
  createTestDatabase,
  postgresSuiteSkip,
  requirePostgres,
  type TestDatabase,
} from '../../support/postgres.ts';

const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));

keyStoreContract('SQLite', async () => {
  const database = new SqliteDatabase(':memory:', SQLITE_MIGRATIONS);
  return { keys: new SqlKeyStore(new SqliteRunner(database)), close: async () => database.close() };
});

// Skipped, with the reason printed, where PostgreSQL is missing on a developer's machine; under
// CI=true the before() fails every test of the suite instead.
describe('PostgreSQL', { skip: await postgresSuiteSkip() }, () => {
  let testDatabase: TestDatabase;
  let database: PgDatabase;

  before(async () => {
    await requirePostgres();
    testDatabase = await createTestDatabase();
    database = await openPgDatabase(testDatabase.url, { migrate: true });
  });

  after(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  keyStoreContract('PostgreSQL', async () => {
    await database.query(
      'TRUNCATE lookup_usage, lookup_grants, onboarding_runs, jobs, webhook_secrets, profiles, api_keys',
    );
    return { keys: new SqlKeyStore(new PgRunner(database)), close: async () => {} };
  });
});
