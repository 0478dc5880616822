import type { QueueMessage } from '../../domain/ports/queue.ts';
import { type PgDatabase, runQuery, toNullableNumber, toNumber } from '../postgres/pg-database.ts';
import type { PgFollowUpEnqueuer } from '../postgres/pg-follow-ups.ts';
import {
  type CellDecoder,
  checkFollowUps,
  GuardRefused,
  type Row,
  type SqlRunner,
  type SqlStatement,
  type SqlValue,
} from './sql-runner.ts';

/** node-postgres: BIGINT arrives as text, `json` columns arrive parsed, booleans as booleans. */
export const pgCells: CellDecoder = {
  int: toNumber,
  nullableInt: toNullableNumber,
  json: (value) => value,
  nullableJson: (value) => value ?? null,
  bool: (value) => value === true,
};

/**
 * The PostgreSQL dialect of SqlRunner, on the metadata database's pool. Single statements run on
 * a pooled connection; a write batch runs on one connection inside PgDatabase.transaction (retried
 * on a serialization failure or deadlock), and its follow-ups are written with that connection, so
 * they commit or roll back with the batch. Conditional changes race the PostgreSQL way: the second
 * UPDATE waits for the first's row lock and re-checks its WHERE against the committed row.
 */
export class PgRunner implements SqlRunner {
  readonly cells = pgCells;
  private readonly database: PgDatabase;
  private readonly queue: PgFollowUpEnqueuer | null;

  /** `queue`: writes the follow-ups of write batches; without one, batches may have none. */
  constructor(database: PgDatabase, queue: PgFollowUpEnqueuer | null = null) {
    this.database = database;
    this.queue = queue;
  }

  /** Every row of the query, on a pooled connection. */
  async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return (await this.database.query(numberedPlaceholders(sql), [...params])).rows;
  }

  /** The first row of the query, or null. */
  async get(sql: string, params: readonly SqlValue[] = []): Promise<Row | null> {
    return (await this.all(sql, params))[0] ?? null;
  }

  /** Runs one statement on a pooled connection (autocommit); returns how many rows it changed. */
  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return (await this.database.query(numberedPlaceholders(sql), [...params])).rowCount ?? 0;
  }

  /** The batch and its follow-ups in one transaction on one connection (see SqlRunner.write). */
  async write(
    statements: readonly SqlStatement[],
    followUps: readonly QueueMessage[] = [],
  ): Promise<boolean> {
    checkFollowUps(followUps, this.queue !== null);
    try {
      return await this.database.transaction(async (client) => {
        for (const statement of statements) {
          const result = await runQuery(client, numberedPlaceholders(statement.sql), [...statement.params]);
          if (statement.mustChangeOneRow === true && result.rowCount !== 1) throw new GuardRefused();
        }
        if (followUps.length > 0) await this.queue?.enqueueWith(client, followUps);
        return true;
      });
    } catch (error) {
      if (error instanceof GuardRefused) return false;
      throw error;
    }
  }
}

/**
 * The stores write `?` placeholders (SQLite's); PostgreSQL numbers them: `$1`, `$2`, … in order.
 * A `?` inside a string literal, a quoted identifier or a comment is text, not a placeholder.
 */
export function numberedPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const end = textEnd(sql, i);
    if (end > i) {
      out += sql.slice(i, end);
      i = end;
    } else {
      out += sql[i] === '?' ? `$${++n}` : sql[i];
      i++;
    }
  }
  return out;
}

/**
 * Where the string literal, quoted identifier or comment that starts at `i` ends (exclusive), or
 * `i` when none starts there. A doubled quote inside a literal ends it and opens the next at once,
 * which reads the same.
 */
function textEnd(sql: string, i: number): number {
  const c = sql[i];
  let close: string;
  if (c === "'" || c === '"') close = c;
  else if (sql.startsWith('--', i)) close = '\n';
  else if (sql.startsWith('/*', i)) close = '*/';
  else return i;
  const at = sql.indexOf(close, i + (close === '*/' ? 2 : 1));
  return at === -1 ? sql.length : at + close.length;
}
