import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect, promisify } from 'node:util';
import {
  openPgDatabase,
  type PgDatabase,
  PostgresError,
} from '../../../src/adapters/postgres/pg-database.ts';
import { SqliteQueue } from '../../../src/adapters/queue/sqlite-queue.ts';
import { PgRunner } from '../../../src/adapters/sql/pg-runner.ts';
import { SqlJobStore } from '../../../src/adapters/sql/sql-job-store.ts';
import { SqlKeyStore } from '../../../src/adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../../src/adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.ts';
import { type JobStoreBackend, jobStoreContract, testKey } from '../../contracts/job-store.contract.ts';
import { openPgStoresFixture, type PgStoresFixture, REFUSED_BY_DATABASE } from '../../support/pg-stores.ts';
import {
  createTestDatabase,
  postgresSuiteSkip,
  requirePostgres,
  type TestDatabase,
} from '../../support/postgres.ts';

const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Embedded: one SQLite file opened twice (two connections, as the api and worker processes have),
// with the real SqliteQueue.

async function openSqlite(): Promise<JobStoreBackend> {
  const dir = await mkdtemp(join(tmpdir(), 'listmatch-contract-'));
  const file = join(dir, 'listmatch.db');
  const database = new SqliteDatabase(file, SQLITE_MIGRATIONS);
  const other = new SqliteDatabase(file, SQLITE_MIGRATIONS);
  const sql = new SqliteRunner(database, new SqliteQueue(database));
  return {
    jobs: new SqlJobStore(sql),
    keys: new SqlKeyStore(sql),
    otherJobs: new SqlJobStore(new SqliteRunner(other, new SqliteQueue(other))),
    committedFollowUps: async () =>
      database.db
        .prepare('SELECT type, payload FROM queue ORDER BY id')
        .all()
        .map((row) => ({ type: row['type'] as string, payload: JSON.parse(row['payload'] as string) })),
    holdFollowUps: null,
    followUpRefusedByDatabase: null,
    close: async () => {
      database.close();
      other.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

jobStoreContract('SQLite', openSqlite);

// ---------------------------------------------------------------------------------------------
// PostgreSQL: a fresh database for this file, two pools (two processes' views of it).

/** Lets every pending promise callback and I/O callback run (setImmediate is never mocked here). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A TCP server that accepts every connection, reads what comes and never answers. */
async function silentServer() {
  const sockets = new Set<Socket>();
  let firstBytesArrived!: () => void;
  const firstBytes = new Promise<void>((resolve) => {
    firstBytesArrived = resolve;
  });
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', () => firstBytesArrived());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    hostPort: `127.0.0.1:${port}`,
    firstBytes,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const TRUNCATE =
  'TRUNCATE lookup_usage, lookup_grants, onboarding_runs, jobs, webhook_secrets, profiles, api_keys RESTART IDENTITY';

// Skipped, with the reason printed, where PostgreSQL is missing on a developer's machine; under
// CI=true the before() fails every test of the suite instead.
describe('PostgreSQL', { skip: await postgresSuiteSkip() }, () => {
  let fixture: PgStoresFixture;
  let testDatabase: TestDatabase;
  let first: PgDatabase;
  let second: PgDatabase;

  before(async () => {
    await requirePostgres();
    fixture = await openPgStoresFixture();
    ({ database: testDatabase, first, second } = fixture);
  });

  after(async () => {
    await fixture?.close();
  });

  // The stores enqueue their follow-ups with the real pg-boss queue, in their own transaction.
  jobStoreContract('PostgreSQL', async () => {
    await fixture.reset();
    const sql = new PgRunner(first, fixture.followUps);
    return {
      jobs: new SqlJobStore(sql),
      keys: new SqlKeyStore(sql),
      otherJobs: new SqlJobStore(new PgRunner(second, fixture.followUps)),
      committedFollowUps: () => fixture.committedFollowUps(),
      holdFollowUps: (ms) => {
        fixture.followUps.holdMs = ms;
      },
      followUpRefusedByDatabase: { type: REFUSED_BY_DATABASE, payload: {} },
      close: async () => {},
    };
  });

  describe('PgDatabase migrations', () => {
    it('applied every shipped migration on start (migrate: true)', async () => {
      const result = await first.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.deepEqual(
        result.rows.map((row) => row.name),
        [
          '001_initial.sql',
          '002_rate_buckets.sql',
          '003_job_progress.sql',
          '004_lookups.sql',
          '005_chunk_rows.sql',
        ],
      );
    });

    it('applies each migration once when several processes start at once', async () => {
      const fresh = await createTestDatabase();
      const databases: PgDatabase[] = [];
      try {
        for (let i = 0; i < 4; i++) databases.push(await openPgDatabase(fresh.url, { poolSize: 2 }));
        const reports = await Promise.all(databases.map((database) => database.migrate()));
        const applied = reports.flatMap((report) => report.applied).sort();
        assert.deepEqual(applied, [
          '001_initial.sql',
          '002_rate_buckets.sql',
          '003_job_progress.sql',
          '004_lookups.sql',
          '005_chunk_rows.sql',
        ]);
        for (const report of reports) {
          assert.deepEqual([...report.applied, ...report.alreadyApplied].sort(), applied);
          assert.deepEqual(report.unknown, []);
        }
        const again = await databases[0]!.migrate();
        assert.deepEqual(again.applied, []);
        assert.deepEqual(again.alreadyApplied, applied);
        await databases[0]!.query(
          "INSERT INTO schema_migrations (name, applied_at) VALUES ('999_future.sql', 0)",
        );
        assert.deepEqual((await databases[0]!.migrate()).unknown, ['999_future.sql']);
      } finally {
        for (const database of databases) await database.close();
        await fresh.drop();
      }
    });

    it('rolls a failing migration back whole, names it, and applies it once fixed', async () => {
      const fresh = await createTestDatabase();
      const dir = await mkdtemp(join(tmpdir(), 'listmatch-migrations-'));
      const database = await openPgDatabase(fresh.url, { poolSize: 1 });
      try {
        await writeFile(join(dir, '001_first.sql'), 'CREATE TABLE first_table (x INTEGER);');
        await writeFile(
          join(dir, '002_broken.sql'),
          'CREATE TABLE half_done (x INTEGER);\nINSERT INTO first_table VALUES (1);\nSELECT * FROM no_such_table;',
        );
        await assert.rejects(database.migrate(dir), (error: unknown) => {
          assert.ok(error instanceof PostgresError);
          assert.match(error.message, /migration 002_broken\.sql failed: .*no_such_table/);
          assert.equal(error.code, '42P01');
          return true;
        });
        const tables = await database.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
        );
        assert.deepEqual(
          tables.rows.map((row) => row.name),
          ['first_table', 'schema_migrations'],
        );
        assert.equal((await database.query('SELECT * FROM first_table')).rowCount, 0);
        await writeFile(join(dir, '002_broken.sql'), 'CREATE TABLE half_done (x INTEGER);');
        assert.deepEqual((await database.migrate(dir)).applied, ['002_broken.sql']);
      } finally {
        await database.close();
        await fresh.drop();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('PgDatabase transactions', () => {
    it('rolls back and rethrows what the callback threw, and releases the connection', async () => {
      // One connection: a connection not given back would make the next transaction time out.
      const database = await openPgDatabase(testDatabase.url, { poolSize: 1, connectionTimeoutMs: 2_000 });
      try {
        await first.query(TRUNCATE);
        const thrown = new Error('callback failed');
        await assert.rejects(
          database.transaction(async (client) => {
            await client.query(
              `INSERT INTO api_keys (id, name, key_hash, display_prefix, can_list_match, can_onboard, direct_upload, created_at)
               VALUES ('key_inside', 'n', 'h', 'p', true, true, false, 0)`,
            );
            throw thrown;
          }),
          (error) => error === thrown,
        );
        assert.equal((await database.query('SELECT id FROM api_keys')).rowCount, 0);
        assert.equal(
          await database.transaction(async (client) => (await client.query('SELECT 1')).rowCount),
          1,
        );
      } finally {
        await database.close();
      }
    });

    it('rolls back after a server-side error and the connection is usable again', async () => {
      const database = await openPgDatabase(testDatabase.url, { poolSize: 1, connectionTimeoutMs: 2_000 });
      try {
        await first.query(TRUNCATE);
        await assert.rejects(
          database.transaction(async (client) => {
            await client.query(
              `INSERT INTO api_keys (id, name, key_hash, display_prefix, can_list_match, can_onboard, direct_upload, created_at)
               VALUES ('key_inside', 'n', 'h', 'p', true, true, false, 0)`,
            );
            await client.query('SELECT * FROM no_such_table');
          }),
          /no_such_table/,
        );
        assert.equal((await database.query('SELECT id FROM api_keys')).rowCount, 0);
        assert.equal(
          await database.transaction(async (client) => (await client.query('SELECT 1')).rowCount),
          1,
        );
      } finally {
        await database.close();
      }
    });

    /** Two serializable transactions that both read the counter, then both increment it. */
    async function racingIncrements(
      retries: number,
    ): Promise<{ results: PromiseSettledResult<void>[]; runs: number }> {
      await first.query('DROP TABLE IF EXISTS contract_counter');
      await first.query('CREATE TABLE contract_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
      await first.query('INSERT INTO contract_counter VALUES (1, 0)');
      let runs = 0;
      let arrived = 0;
      let release!: () => void;
      const bothRead = new Promise<void>((resolve) => {
        release = resolve;
      });
      const increment = (database: PgDatabase) =>
        database.transaction(
          async (client) => {
            runs++;
            const { rows } = await client.query<{ n: number }>('SELECT n FROM contract_counter WHERE id = 1');
            if (++arrived === 2) release();
            await bothRead;
            await client.query('UPDATE contract_counter SET n = $1 WHERE id = 1', [rows[0]!.n + 1]);
          },
          { isolation: 'serializable', retries },
        );
      const results = await Promise.allSettled([increment(first), increment(second)]);
      return { results, runs };
    }

    it('runs a transaction again after a serialization failure', async () => {
      const { results, runs } = await racingIncrements(2);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled'],
      );
      assert.equal(runs, 3);
      const { rows } = await first.query<{ n: number }>('SELECT n FROM contract_counter');
      assert.equal(rows[0]!.n, 2);
    });

    it('reports the serialization failure when no retry is allowed', async () => {
      const { results, runs } = await racingIncrements(0);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      assert.equal(rejected.length, 1);
      assert.equal(runs, 2);
      assert.ok(rejected[0]!.reason instanceof PostgresError);
      assert.equal(rejected[0]!.reason.code, '40001');
      const { rows } = await first.query<{ n: number }>('SELECT n FROM contract_counter');
      assert.equal(rows[0]!.n, 1);
    });
  });

  describe('PgDatabase health and errors', () => {
    it('is healthy while open and not once closed', async () => {
      const database = await openPgDatabase(testDatabase.url);
      assert.equal(await database.healthy(), true);
      await database.close();
      await database.close();
      assert.equal(await database.healthy(), false);
    });

    it('answers unhealthy on its health timeout when the server accepts and never answers', async (t) => {
      // A TCP server that accepts and never answers (no PostgreSQL protocol): the connection is
      // neither refused nor closed, so only healthy()'s own timeout (300 ms here, from the
      // options; the pool's connection timeout is far longer) can answer. Its timer runs on the
      // mocked clock: the answer is pending just before 300 ms and false at 300 ms, where a
      // refused or failed connection would have answered false before any time passed.
      const silent = await silentServer();
      t.mock.timers.enable({ apis: ['setTimeout'] });
      const database = await openPgDatabase(`postgres://listmatch:hunter2-secret@${silent.hostPort}/none`, {
        healthTimeoutMs: 300,
        connectionTimeoutMs: 600_000,
      });
      try {
        let answer: boolean | 'pending' = 'pending';
        const answered = database.healthy().then((healthy) => {
          answer = healthy;
        });
        // The check reaches the server (its startup message arrives, nothing goes back), unless it
        // answers first.
        await Promise.race([silent.firstBytes, answered]);
        await settle();
        assert.equal(answer, 'pending', 'no answer before any time passed: the connection was not refused');
        t.mock.timers.tick(299);
        await settle();
        assert.equal(answer, 'pending', 'still no answer 1 ms before the health timeout');
        t.mock.timers.tick(1);
        await settle();
        assert.equal(answer, false, 'unhealthy at the health timeout');
        await answered;
        assert.equal(silent.connections(), 1);
      } finally {
        t.mock.timers.reset();
        await silent.close(); // the pending connection fails, so that the pool can end
        await database.close();
      }
    });

    it('never puts the password of the URL in an error', async () => {
      const password = 'hunter2-secret';
      await assert.rejects(openPgDatabase(`http://user:${password}@db.example/x`), (error: Error) => {
        assert.equal(inspect(error, { depth: 5 }).includes(password), false);
        return true;
      });
      await assert.rejects(openPgDatabase(`postgres://user:${password}@[bad host/x`), (error: Error) => {
        assert.equal(inspect(error, { depth: 5 }).includes(password), false);
        return true;
      });
      await assert.rejects(
        openPgDatabase(`postgres://listmatch:${password}@127.0.0.1:1/none`, { migrate: true }),
        (error: Error) => {
          assert.equal(inspect(error, { depth: 5 }).includes(password), false);
          return true;
        },
      );
    });

    it('keeps column values out of errors (a duplicate key hash)', async () => {
      await first.query(TRUNCATE);
      const keys = new SqlKeyStore(new PgRunner(first));
      const hash = 'c0ffee'.repeat(10);
      await keys.insertKey(testKey('key_one', { keyHash: hash }));
      await assert.rejects(keys.insertKey(testKey('key_two', { keyHash: hash })), (error: unknown) => {
        assert.ok(error instanceof PostgresError);
        assert.equal(error.code, '23505');
        assert.match(error.message, /api_keys_key_hash_key/);
        assert.equal(inspect(error, { depth: 5 }).includes(hash), false);
        return true;
      });
    });
  });
});

describe('PostgreSQL driver loading', () => {
  it('is not loaded by importing the PostgreSQL adapters, only by opening a database', async () => {
    const script = `
      import { createRequire } from 'node:module';
      const { openPgDatabase } = await import('./src/adapters/postgres/pg-database.ts');
      await import('./src/adapters/sql/pg-runner.ts');
      await import('./src/adapters/sql/sql-job-store.ts');
      await import('./src/adapters/sql/sql-key-store.ts');
      await import('./src/adapters/sql/sql-onboarding-store.ts');
      await import('./src/adapters/rate-limit/pg-rate-limiter.ts');
      const cache = createRequire(import.meta.url).cache;
      const pgLoaded = () => Object.keys(cache).some((path) => path.includes('/node_modules/pg/'));
      const before = pgLoaded();
      const database = await openPgDatabase('postgres://nobody@127.0.0.1:1/none');
      await database.close();
      console.log(JSON.stringify({ before, after: pgLoaded() }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
    });
    assert.deepEqual(JSON.parse(stdout), { before: false, after: true });
  });
});
