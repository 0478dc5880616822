import {
  type ClaimedMessage,
  type ClaimOptions,
  type Queue,
  type QueueMessage,
  type QueueMessageRecord,
  type QueueStats,
  queueStatsFromCounts,
} from '../../domain/ports/queue.ts';
import type { SqliteDatabase } from '../sqlite/sqlite-database.ts';

type Row = Record<string, unknown>;
const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * The embedded job queue: a table in the embedded database. Claiming is one UPDATE … RETURNING
 * inside an IMMEDIATE transaction, so two worker processes never take the same message. A message
 * whose lease ran out (its worker died) is runnable again; deliveries beyond max_attempts go to the
 * dead letter state.
 */
export class SqliteQueue implements Queue {
  private readonly database: SqliteDatabase;
  private readonly defaultMaxAttempts: number;

  constructor(database: SqliteDatabase, options: { maxAttempts?: number } = {}) {
    this.database = database;
    this.defaultMaxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  }

  async enqueue(message: QueueMessage): Promise<void> {
    this.enqueueNow(message);
  }

  /** Inserts at once, inside the caller's transaction (the SQLite stores commit follow-ups this way). */
  enqueueNow(message: QueueMessage): void {
    const now = Date.now();
    this.database.db
      .prepare(
        `INSERT INTO queue (type, payload, state, run_at, attempts, max_attempts, created_at, updated_at, group_key)
         VALUES (?, ?, 'ready', ?, 0, ?, ?, ?, ?)`,
      )
      .run(
        message.type,
        JSON.stringify(message.payload),
        message.runAt ?? now,
        message.maxAttempts ?? this.defaultMaxAttempts,
        now,
        now,
        message.group ?? null,
      );
  }

  async claim(
    owner: string,
    types: readonly string[],
    leaseMs: number,
    options: ClaimOptions = {},
  ): Promise<ClaimedMessage | null> {
    if (types.length === 0) return null;
    const now = Date.now();
    const typeList = types.map(() => '?').join(', ');
    const { maxPerGroup } = options;
    // A group at its limit (running under a live lease, in any process on this database) is
    // skipped: its message stays ready and the claim takes the next one, or none.
    const groupLimit =
      maxPerGroup === undefined
        ? ''
        : `AND (q.group_key IS NULL OR (
                 SELECT COUNT(*) FROM queue r
                 WHERE r.type = q.type AND r.group_key = q.group_key AND r.state = 'running' AND r.lease_until >= ?
               ) < ?)`;
    const limitValues = maxPerGroup === undefined ? [] : [now, maxPerGroup];
    return this.database.transaction(() => {
      const row = this.database.db
        .prepare(
          `UPDATE queue SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_until = ?, updated_at = ?
           WHERE id = (
             SELECT q.id FROM queue q
             WHERE q.type IN (${typeList})
               AND ((q.state = 'ready' AND q.run_at <= ?)
                 OR (q.state = 'running' AND q.lease_until < ? AND q.attempts < q.max_attempts))
               ${groupLimit}
             ORDER BY
               -- Fairness: groups with nothing of this type running (under a live lease) first.
               q.group_key IS NOT NULL AND EXISTS (
                 SELECT 1 FROM queue r
                 WHERE r.type = q.type AND r.group_key = q.group_key AND r.state = 'running' AND r.lease_until >= ?),
               q.run_at, q.id
             LIMIT 1)
           RETURNING id, type, payload, attempts, max_attempts, run_at`,
        )
        .get(owner, now + leaseMs, now, ...types, now, now, ...limitValues, now) as Row | undefined;
      if (row === undefined) return null;
      return {
        id: String(row['id']),
        type: row['type'] as string,
        payload: JSON.parse(row['payload'] as string),
        attempt: row['attempts'] as number,
        maxAttempts: row['max_attempts'] as number,
        runnableAt: row['run_at'] as number,
      };
    });
  }

  async extendLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const now = Date.now();
    return (
      this.database.db
        .prepare(
          `UPDATE queue SET lease_until = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND state = 'running'`,
        )
        .run(now + leaseMs, now, Number(id), owner).changes === 1
    );
  }

  async complete(id: string, owner: string): Promise<void> {
    this.database.db
      .prepare(
        `UPDATE queue SET state = 'done', lease_owner = NULL, lease_until = NULL, updated_at = ?
         WHERE id = ? AND lease_owner = ?`,
      )
      .run(Date.now(), Number(id), owner);
  }

  async fail(id: string, owner: string, reason: string, retryAt: number | null): Promise<void> {
    this.database.db
      .prepare(
        `UPDATE queue SET state = ?, run_at = coalesce(?, run_at), last_error = ?, lease_owner = NULL,
           lease_until = NULL, updated_at = ?
         WHERE id = ? AND lease_owner = ?`,
      )
      .run(
        retryAt === null ? 'dead' : 'ready',
        retryAt,
        reason.slice(0, 2000),
        Date.now(),
        Number(id),
        owner,
      );
  }

  async reapExhausted(types: readonly string[]): Promise<ClaimedMessage[]> {
    if (types.length === 0) return [];
    const now = Date.now();
    const typeList = types.map(() => '?').join(', ');
    const rows = this.database.db
      .prepare(
        `UPDATE queue SET state = 'dead', last_error = coalesce(last_error, 'worker stopped during every attempt'),
           lease_owner = NULL, lease_until = NULL, updated_at = ?
         WHERE state = 'running' AND lease_until < ? AND attempts >= max_attempts AND type IN (${typeList})
         RETURNING id, type, payload, attempts, max_attempts`,
      )
      .all(now, now, ...types) as Row[];
    return rows.map((row) => ({
      id: String(row['id']),
      type: row['type'] as string,
      payload: JSON.parse(row['payload'] as string),
      attempt: row['attempts'] as number,
      maxAttempts: row['max_attempts'] as number,
    }));
  }

  async release(id: string, owner: string): Promise<void> {
    // Hand the message back without counting the interrupted delivery as an attempt.
    this.database.db
      .prepare(
        `UPDATE queue SET state = 'ready', attempts = max(attempts - 1, 0), lease_owner = NULL, lease_until = NULL,
           run_at = ?, updated_at = ?
         WHERE id = ? AND lease_owner = ? AND state = 'running'`,
      )
      .run(Date.now(), Date.now(), Number(id), owner);
  }

  async stats(): Promise<QueueStats> {
    const rows = this.database.db
      .prepare(
        `SELECT type, state, COUNT(*) AS n FROM queue WHERE state IN ('ready', 'running', 'dead') GROUP BY type, state`,
      )
      .all() as Row[];
    return queueStatsFromCounts(
      rows.map((r) => ({ type: r['type'] as string, state: r['state'] as string, count: r['n'] as number })),
    );
  }

  async messagesForJob(jobId: string): Promise<QueueMessageRecord[]> {
    const rows = this.database.db
      .prepare(
        `SELECT id, type, state, attempts, max_attempts, last_error, created_at, updated_at FROM queue
         WHERE json_extract(payload, '$.jobId') = ? ORDER BY id`,
      )
      .all(jobId) as Row[];
    return rows.map((row) => ({
      id: String(row['id']),
      type: row['type'] as string,
      state: row['state'] as QueueMessageRecord['state'],
      attempts: row['attempts'] as number,
      maxAttempts: row['max_attempts'] as number,
      lastError: (row['last_error'] as string | null) ?? null,
      createdAt: row['created_at'] as number,
      updatedAt: row['updated_at'] as number,
    }));
  }
}
