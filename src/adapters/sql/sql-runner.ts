import type { QueueMessage } from '../../domain/ports/queue.ts';

/**
 * The metadata stores' one way to their database. The stores write each statement once, with `?`
 * placeholders, in the SQL that SQLite and PostgreSQL both speak (the tables have one shape in both,
 * see migrations/); a runner is the dialect: how it binds values, numbers placeholders, counts
 * changed rows, decodes cells and enqueues follow-ups inside its transaction.
 */
export interface SqlRunner {
  /** How this driver hands back integer, JSON and boolean cells. */
  readonly cells: CellDecoder;
  /** Every row the query returns, outside any transaction. */
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** The query's first row, or null; outside any transaction. */
  get(sql: string, params?: readonly SqlValue[]): Promise<Row | null>;
  /** Runs one statement on its own (it commits alone); returns how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * Runs `statements` in order, then enqueues `followUps` with the runner's queue, all in one
   * transaction: the changes and the work they cause commit (or roll back) together. When a
   * statement marked `mustChangeOneRow` changes no row (its guard refused) or several, nothing of
   * the batch is kept, no follow-up is enqueued, and the answer is false; otherwise true. A runner
   * built without a queue rejects a batch with follow-ups.
   *
   * A batch rather than a callback: SQLite runs it synchronously, so nothing else gets onto the
   * connection between BEGIN and COMMIT (with an async callback another caller's statement could
   * land inside the transaction, and a second connection of this process would block the thread on
   * the write lock the first still holds).
   */
  write(statements: readonly SqlStatement[], followUps?: readonly QueueMessage[]): Promise<boolean>;
}

/** A value bound to a `?` placeholder; each runner stores booleans the way its dialect does. */
export type SqlValue = string | number | boolean | null;

/** A result row by column name, its cells as the driver returned them (decode with CellDecoder). */
export type Row = Record<string, unknown>;

/** One statement of a SqlRunner.write batch. */
export interface SqlStatement {
  sql: string;
  params: readonly SqlValue[];
  /** A conditional change (`UPDATE … WHERE state = …`): the batch goes on only if it changed one row. */
  mustChangeOneRow?: boolean;
}

/** Reads cells whose representation differs between the drivers (the row mappers share the rest). */
export interface CellDecoder {
  /** An INTEGER/BIGINT cell (epoch ms, byte counts, counts). */
  int(value: unknown): number;
  nullableInt(value: unknown): number | null;
  /** A JSON column (text in SQLite, parsed by the driver in PostgreSQL). */
  json(value: unknown): unknown;
  nullableJson(value: unknown): unknown;
  bool(value: unknown): boolean;
}

/**
 * Thrown inside a runner's transaction when a `mustChangeOneRow` statement refused, so that the
 * transaction rolls back; the runner catches it and answers false, it never reaches a store.
 */
export class GuardRefused extends Error {
  constructor() {
    super('a guarded statement changed no row');
    this.name = 'GuardRefused';
  }
}

/** Refuses a batch with follow-ups on a runner that has no queue to enqueue them with. */
export function checkFollowUps(followUps: readonly QueueMessage[], hasQueue: boolean): void {
  if (followUps.length > 0 && !hasQueue) {
    throw new Error('this SqlRunner was built without a queue: it cannot enqueue follow-ups');
  }
}
