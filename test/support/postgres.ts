import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import pg from 'pg';

/**
 * The PostgreSQL server the integration tests use: `TEST_DATABASE_URL`, else the machine's local
 * server (trust auth on 127.0.0.1:5432). Each test file gets its own throwaway database, so files
 * never see each other's rows and a crashed run leaves nothing that the next run trips over.
 */
export const TEST_POSTGRES_URL =
  process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const INSTALL_HINT = 'apt-get install -y postgresql && pg_ctlcluster 15 main start';

export interface TestDatabase {
  /** Connection string of the fresh database. */
  url: string;
  /** Drops the database (closing what still holds it). */
  drop(): Promise<void>;
}

async function serverReachable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why the test server cannot be used (with how to start it), or null when it answers. */
async function unreachableReason(): Promise<string | null> {
  const problem = await serverReachable();
  if (problem === null) return null;
  return `PostgreSQL is not reachable at ${redactUrl(TEST_POSTGRES_URL)} (${problem}; start it with: ${INSTALL_HINT})`;
}

/**
 * True when the test must skip (and has): no PostgreSQL on a developer's machine. Under CI=true a
 * missing server fails the test instead.
 */
export async function skipWithoutPostgres(t: TestContext): Promise<boolean> {
  const reason = await unreachableReason();
  if (reason === null) return false;
  if (process.env['CI'] === 'true') assert.fail(`${reason}; CI must have it`);
  console.log(`skipping the PostgreSQL test: ${reason}`);
  t.skip(reason);
  return true;
}

/**
 * The `skip` option of a describe() whose tests all need PostgreSQL, decided when the file loads
 * (a suite cannot skip itself from a hook): on a developer's machine without the server, the
 * reason, printed; otherwise false. Under CI=true never a skip: the suite's before() calls
 * requirePostgres(), which fails every test of the suite with the reason.
 */
export async function postgresSuiteSkip(): Promise<string | false> {
  if (process.env['CI'] === 'true') return false;
  const reason = await unreachableReason();
  if (reason === null) return false;
  console.log(`skipping the PostgreSQL tests: ${reason}`);
  return reason;
}

/** For the before() of a suite that needs PostgreSQL: fails, with the reason, when it does not answer. */
export async function requirePostgres(): Promise<void> {
  const reason = await unreachableReason();
  if (reason !== null) assert.fail(process.env['CI'] === 'true' ? `${reason}; CI must have it` : reason);
}

/** Creates an empty database named `listmatch_test_<random>` on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `listmatch_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable TEST_DATABASE_URL)';
  }
}
