import type { SQLInputValue, StatementSync } from 'node:sqlite';
import type { QueueMessage } from '../../domain/ports/queue.ts';
import type { SqliteDatabase } from '../sqlite/sqlite-database.ts';
import {
  type CellDecoder,
  checkFollowUps,
  GuardRefused,
  type Row,
  type SqlRunner,
  type SqlStatement,
  type SqlValue,
} from './sql-runner.ts';

/** node:sqlite: integers are numbers, JSON is text, booleans are 0/1. */
export const sqliteCells: CellDecoder = {
  int: (value) => value as number,
  nullableInt: (value) => (value as number | null) ?? null,
  json: (value) => JSON.parse(value as string),
  nullableJson: (value) => (value ? JSON.parse(value as string) : null),
  bool: (value) => value === 1,
};

/**
 * How the SQLite runner enqueues follow-ups: at once, on the connection it shares with the stores,
 * so inside the batch's transaction (SqliteQueue).
 */
export interface SqliteFollowUpEnqueuer {
  enqueueNow(message: QueueMessage): void;
}

/** Prepared statements kept per runner: the stores' SQL is a bounded set, this keeps the hot ones. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * The SQLite dialect of SqlRunner, on the embedded database's one connection. node:sqlite is
 * synchronous: every call finishes before it returns, and a write batch runs from BEGIN IMMEDIATE
 * to COMMIT without yielding, so no other caller's statement can land inside its transaction.
 */
export class SqliteRunner implements SqlRunner {
  readonly cells = sqliteCells;
  private readonly database: SqliteDatabase;
  private readonly queue: SqliteFollowUpEnqueuer | null;
  private readonly statements = new Map<string, StatementSync>();

  /** `queue`: enqueues the follow-ups of write batches; without one, batches may have none. */
  constructor(database: SqliteDatabase, queue: SqliteFollowUpEnqueuer | null = null) {
    this.database = database;
    this.queue = queue;
  }

  /** Every row of the query. */
  async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    return this.prepared(sql).all(...bind(params)) as Row[];
  }

  /** The first row of the query, or null. */
  async get(sql: string, params: readonly SqlValue[] = []): Promise<Row | null> {
    return (this.prepared(sql).get(...bind(params)) as Row | undefined) ?? null;
  }

  /** Runs one statement (autocommit); returns how many rows it changed. */
  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.runNow(sql, params);
  }

  /** The batch and its follow-ups in one IMMEDIATE transaction, run synchronously (see SqlRunner.write). */
  async write(
    statements: readonly SqlStatement[],
    followUps: readonly QueueMessage[] = [],
  ): Promise<boolean> {
    checkFollowUps(followUps, this.queue !== null);
    try {
      return this.database.transaction(() => {
        for (const statement of statements) {
          const changed = this.runNow(statement.sql, statement.params);
          if (statement.mustChangeOneRow === true && changed !== 1) throw new GuardRefused();
        }
        for (const message of followUps) this.queue?.enqueueNow(message);
        return true;
      });
    } catch (error) {
      if (error instanceof GuardRefused) return false;
      throw error;
    }
  }

  private runNow(sql: string, params: readonly SqlValue[]): number {
    return Number(this.prepared(sql).run(...bind(params)).changes);
  }

  private prepared(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.database.db.prepare(sql);
      // Map order is insertion order: the first key is the one prepared longest ago.
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        this.statements.delete(this.statements.keys().next().value as string);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/** SQLite has no boolean type: the schema stores them as INTEGER 0/1. */
function bind(params: readonly SqlValue[]): SQLInputValue[] {
  return params.map((value) => (typeof value === 'boolean' ? Number(value) : value));
}
