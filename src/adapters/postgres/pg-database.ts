import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** The PostgreSQL schema migrations shipped with the service. */
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../migrations/postgres', import.meta.url),
);

export type Row = Record<string, unknown>;

export interface PgDatabaseOptions {
  /** Most connections this process opens (pg.Pool `max`); default 10. */
  poolSize?: number;
  /** Apply pending migrations before the database is handed out (migrate on start); default false. */
  migrate?: boolean;
  migrationsDir?: string;
  /** How long to wait for a connection (new or from a full pool); default 5,000 ms. */
  connectionTimeoutMs?: number;
  /** Server-side limit of one statement; default none. */
  statementTimeoutMs?: number;
  /** The server ends a session left idle inside a transaction this long (a leaked client); default 60,000 ms. */
  idleInTransactionTimeoutMs?: number;
  /** `application_name` in pg_stat_activity; default `listmatch`. */
  applicationName?: string;
  /** How long healthy() waits before answering false; default 2,000 ms. */
  healthTimeoutMs?: number;
  /**
   * Errors of idle pooled connections (server restart, network). The pool drops such a connection
   * either way; without a listener the error would end the process.
   */
  onIdleError?: (error: Error) => void;
}

export interface TransactionOptions {
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /**
   * Extra attempts after a serialization failure or a deadlock (SQLSTATE 40001, 40P01); default 2.
   * `fn` runs again from the start, so it must do nothing outside the transaction's client.
   */
  retries?: number;
}

export interface MigrationReport {
  /** Files applied by this call, in order. */
  applied: string[];
  /** Files found already applied (by an earlier start or by another process). */
  alreadyApplied: string[];
  /** Applied migrations this code does not ship: the database was migrated by a newer version. */
  unknown: string[];
}

/** A driver or server error, rethrown from the caller's stack with the SQLSTATE and without row values. */
export class PostgresError extends Error {
  /** SQLSTATE (`23505`, `40001`, …) when the server sent one. */
  readonly code: string | undefined;

  constructor(message: string, options: { code?: string | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PostgresError';
    this.code = options.code;
  }
}

/**
 * Wraps what the driver threw. The server's `message` names tables and constraints; its `detail`
 * repeats column values (a duplicate key hash, a missing key id) and is removed from the cause so
 * that a logged error never carries them.
 */
export function toPostgresError(error: unknown): PostgresError {
  if (error instanceof PostgresError) return error;
  if (typeof error !== 'object' || error === null) return new PostgresError(`PostgreSQL: ${String(error)}`);
  const fields = error as { code?: unknown; message?: unknown; detail?: unknown };
  if ('detail' in fields) fields.detail = undefined;
  const code = typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code) ? fields.code : undefined;
  const message =
    typeof fields.message === 'string' && fields.message !== '' ? fields.message : 'query failed';
  return new PostgresError(`PostgreSQL: ${message}`, { code, cause: error });
}

/** Runs one statement on a pool or a transaction's client; driver errors become PostgresError. */
export async function runQuery<R extends pg.QueryResultRow = Row>(
  queryable: pg.Pool | pg.ClientBase,
  sql: string,
  values?: unknown[],
): Promise<pg.QueryResult<R>> {
  try {
    return await queryable.query<R>(sql, values);
  } catch (error) {
    throw toPostgresError(error);
  }
}

/** The SQLSTATE of an error from runQuery or from the driver directly. */
export function sqlState(error: unknown): string | undefined {
  if (error instanceof PostgresError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** An error the server sent (node-postgres' DatabaseError), not yet wrapped. */
function isServerError(error: unknown): boolean {
  return (
    error instanceof Error &&
    !(error instanceof PostgresError) &&
    'severity' in error &&
    /^[0-9A-Z]{5}$/.test(String((error as { code?: unknown }).code))
  );
}

/** Serialization failure and deadlock: the transaction lost a race and may be run again. */
export function isRetryableTransactionError(error: unknown): boolean {
  const code = sqlState(error);
  return code === '40001' || code === '40P01';
}

/** BIGINT (and COUNT) columns arrive as strings: epoch ms and byte counts fit a double exactly. */
export function toNumber(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new PostgresError('PostgreSQL: an integer column is out of range');
  return n;
}

export function toNullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

/**
 * The migration files of `files` in the order they apply: `NNN_name.sql`, sorted by name. Two
 * files with one number would apply in an order nobody chose: refused.
 */
export function migrationOrder(files: readonly string[]): string[] {
  const migrations = files.filter((f) => /^\d+_.*\.sql$/.test(f)).sort();
  const seen = new Map<number, string>();
  for (const file of migrations) {
    const number = Number(file.slice(0, file.indexOf('_')));
    const other = seen.get(number);
    if (other !== undefined) throw new Error(`migrations ${other} and ${file} share the number ${number}`);
    seen.set(number, file);
  }
  return migrations;
}

/**
 * Describes a database URL for logs and messages (which database a process uses): scheme, host,
 * port and database, never the user's password (nor the query string, which may carry one).
 */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const host = parsed.host === '' ? '(socket)' : parsed.host;
    return `${parsed.protocol}//${host}${parsed.pathname}`;
  } catch {
    return '(unparsable database URL)';
  }
}

/** Checks the URL's shape without echoing it: `new URL`'s own error carries the whole input. */
function checkDatabaseUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database)');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// or postgresql:// (got ${parsed.protocol}//)`);
  }
}

/** Hashed to the 64-bit advisory lock key: every listmatch process on one database takes the same lock. */
const MIGRATION_LOCK = 'listmatch schema_migrations';

/**
 * The scaled-out metadata database: a connection pool that the key, job and onboarding stores and
 * the queue share, so that a state change and the work it causes commit in one transaction.
 */
export class PgDatabase {
  readonly pool: pg.Pool;
  private readonly healthTimeoutMs: number;
  private closing: Promise<void> | null = null;

  constructor(pool: pg.Pool, options: { healthTimeoutMs?: number } = {}) {
    this.pool = pool;
    this.healthTimeoutMs = options.healthTimeoutMs ?? 2_000;
  }

  /** Runs one statement on a pooled connection, outside any transaction. */
  query<R extends pg.QueryResultRow = Row>(sql: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    return runQuery<R>(this.pool, sql, values);
  }

  /**
   * Runs `fn` inside BEGIN … COMMIT on one pooled connection; rolls back and rethrows when `fn`
   * throws. A serialization failure or deadlock runs `fn` again (see TransactionOptions.retries).
   */
  async transaction<T>(
    fn: (client: pg.PoolClient) => Promise<T>,
    options: TransactionOptions = {},
  ): Promise<T> {
    const retries = options.retries ?? 2;
    const begin = options.isolation === undefined ? 'BEGIN' : `BEGIN ISOLATION LEVEL ${options.isolation}`;
    for (let attempt = 0; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw toPostgresError(error);
      }
      // A connection whose ROLLBACK failed is in an unknown state: it is destroyed, not reused.
      let broken: Error | undefined;
      try {
        await runQuery(client, begin);
        const result = await fn(client);
        await runQuery(client, 'COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          broken = rollbackError instanceof Error ? rollbackError : new Error('ROLLBACK failed');
        }
        if (attempt >= retries || !isRetryableTransactionError(error)) {
          // A server error from a raw client.query in `fn` (a queue adapter's) is wrapped like the rest.
          throw isServerError(error) ? toPostgresError(error) : error;
        }
      } finally {
        client.release(broken);
      }
      // Jittered back-off so that the transactions that collided do not collide again.
      await sleep(5 * 2 ** attempt + Math.random() * 10);
    }
  }

  /** For /readyz: true when a pooled connection answers `SELECT 1` within the health timeout. */
  async healthy(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), this.healthTimeoutMs);
    });
    const check = this.pool.query<{ ok: number }>('SELECT 1 AS ok').then(
      (result) => result.rows[0]?.ok === 1,
      () => false,
    );
    try {
      return await Promise.race([check, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Applies the pending migrations of `dir` in order, each file in its own transaction that first
   * takes a transaction-scoped advisory lock: processes starting at once queue on the lock and
   * each file is applied once. A file must not use statements that cannot run in a transaction
   * (CREATE INDEX CONCURRENTLY).
   */
  async migrate(dir: string = POSTGRES_MIGRATIONS_DIR): Promise<MigrationReport> {
    const files = migrationOrder(await readdir(dir));
    const report: MigrationReport = { applied: [], alreadyApplied: [], unknown: [] };
    for (const file of files) {
      const sql = await readFile(join(dir, file), 'utf8');
      const applied = await this.transaction(
        async (client) => {
          await runQuery(client, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK]);
          await runQuery(
            client,
            'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)',
          );
          const done = await runQuery(client, 'SELECT 1 FROM schema_migrations WHERE name = $1', [file]);
          if (done.rowCount === 1) return false;
          try {
            // No parameters: the simple query protocol, which runs every statement of the file.
            await client.query(sql);
          } catch (error) {
            const wrapped = toPostgresError(error);
            throw new PostgresError(`migration ${file} failed: ${wrapped.message}`, {
              code: wrapped.code,
              cause: wrapped.cause,
            });
          }
          await runQuery(client, 'INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [
            file,
            Date.now(),
          ]);
          return true;
        },
        { retries: 0 },
      );
      (applied ? report.applied : report.alreadyApplied).push(file);
    }
    const recorded = await this.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    report.unknown = recorded.rows.map((row) => row.name).filter((name) => !files.includes(name));
    return report;
  }

  /** Migrations of `dir` this database has not applied yet (all of them on an empty database). */
  async pendingMigrations(dir: string = POSTGRES_MIGRATIONS_DIR): Promise<string[]> {
    const files = migrationOrder(await readdir(dir));
    const table = await this.query<{ present: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
    );
    if (table.rows[0]?.present !== true) return files;
    const recorded = await this.query<{ name: string }>('SELECT name FROM schema_migrations');
    const applied = new Set(recorded.rows.map((row) => row.name));
    return files.filter((file) => !applied.has(file));
  }

  /** Closes the pool once in-flight queries finish; later calls wait for the same close. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}

/**
 * Opens the PostgreSQL database at `url` (DATABASE_URL). The driver is imported here, on first
 * use, so that the embedded mode never loads it. Connections open lazily, except that
 * `migrate: true` applies pending migrations (and so connects) before returning.
 */
export async function openPgDatabase(url: string, options: PgDatabaseOptions = {}): Promise<PgDatabase> {
  checkDatabaseUrl(url);
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: options.applicationName ?? 'listmatch',
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
  });
  pool.on('error', options.onIdleError ?? (() => {}));
  const database = new PgDatabase(
    pool,
    options.healthTimeoutMs === undefined ? {} : { healthTimeoutMs: options.healthTimeoutMs },
  );
  if (options.migrate === true) {
    try {
      await database.migrate(options.migrationsDir);
    } catch (error) {
      await database.close().catch(() => {});
      throw error;
    }
  }
  return database;
}

/**
 * `listmatch migrate`: applies the pending migrations of the database at `url` on one connection
 * and closes it. Safe to run while other processes start (they wait on the same lock).
 */
export async function runPostgresMigrations(
  url: string,
  options: { migrationsDir?: string; connectionTimeoutMs?: number } = {},
): Promise<MigrationReport> {
  const database = await openPgDatabase(url, {
    poolSize: 1,
    applicationName: 'listmatch migrate',
    ...(options.connectionTimeoutMs === undefined
      ? {}
      : { connectionTimeoutMs: options.connectionTimeoutMs }),
  });
  try {
    return await database.migrate(options.migrationsDir);
  } finally {
    await database.close();
  }
}
