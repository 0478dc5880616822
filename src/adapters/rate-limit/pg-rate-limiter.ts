import type { RateDecision, RateLimiter, RateRule } from '../../domain/ports/rate-limiter.ts';
import { type PgDatabase, toPostgresError } from '../postgres/pg-database.ts';

/**
 * "Now" of a statement, epoch ms: the caller's `now` ($2) when given, else the database server's
 * clock, which every api process shares (their own clocks may disagree). statement_timestamp() is
 * fixed for the whole statement, so each use below sees the same instant.
 */
const NOW = '(coalesce($2::float8, extract(epoch FROM statement_timestamp())::float8 * 1000))';

/**
 * The GCRA step of MemoryRateLimiter, as one upsert: $3 is the interval (windowMs / limit) and $4
 * the burst (interval × (limit − 1) + tolerance), both computed in JavaScript so that the float
 * arithmetic is the same as in memory. theoretical = max(tat, now); the request is allowed when
 * theoretical − burst ≤ now, and then tat becomes theoretical + interval; a refusal leaves tat
 * alone and reports ceil(theoretical − burst − now). A new bucket starts at theoretical = now.
 * The row lock the upsert takes serializes concurrent requests of one bucket across processes.
 */
const CONSUME_SQL = `
  INSERT INTO rate_buckets AS b (bucket, tat, last_allowed)
  VALUES (
    $1,
    CASE WHEN ${NOW} - $4::float8 <= ${NOW} THEN ${NOW} + $3::float8 ELSE ${NOW} END,
    ${NOW} - $4::float8 <= ${NOW}
  )
  ON CONFLICT (bucket) DO UPDATE SET
    tat = CASE WHEN greatest(b.tat, ${NOW}) - $4::float8 <= ${NOW}
      THEN greatest(b.tat, ${NOW}) + $3::float8 ELSE b.tat END,
    last_allowed = greatest(b.tat, ${NOW}) - $4::float8 <= ${NOW}
  RETURNING last_allowed AS allowed,
    CASE WHEN last_allowed THEN 0 ELSE ceil(greatest(tat, ${NOW}) - $4::float8 - ${NOW}) END AS retry_after_ms`;

/** Buckets at rest (their next slot has passed) behave exactly like absent ones: they can go. */
const PURGE_SQL = `DELETE FROM rate_buckets WHERE tat <= (coalesce($1::float8, extract(epoch FROM statement_timestamp())::float8 * 1000))`;

/**
 * GCRA rate limiting shared by every api process through the `rate_buckets` table
 * (migrations/postgres/002_rate_buckets.sql): same rules and decisions as MemoryRateLimiter, one
 * statement per request. Pass `now` on every call or on none: without it the database's clock
 * decides. Buckets at rest are deleted by purgeStale (startPurging runs it periodically).
 */
export class PgRateLimiter implements RateLimiter {
  private readonly database: PgDatabase;

  constructor(database: PgDatabase) {
    this.database = database;
  }

  /** Takes one request from `bucket` under `rule`; refused requests do not count. */
  async consume(bucket: string, rule: RateRule, now?: number): Promise<RateDecision> {
    const interval = rule.windowMs / rule.limit;
    const burst = interval * (rule.limit - 1) + (rule.toleranceMs ?? 0);
    let row: { allowed: boolean; retry_after_ms: number } | undefined;
    try {
      // A named statement is parsed and planned once per pooled connection.
      const result = await this.database.pool.query<{ allowed: boolean; retry_after_ms: number }>({
        name: 'listmatch_rate_consume',
        text: CONSUME_SQL,
        values: [bucket, now ?? null, interval, burst],
      });
      row = result.rows[0];
    } catch (error) {
      throw toPostgresError(error);
    }
    if (row === undefined) throw new Error('rate limiter: the upsert returned no row');
    return row.allowed
      ? { allowed: true, retryAfterMs: 0 }
      : { allowed: false, retryAfterMs: row.retry_after_ms };
  }

  /** Deletes the buckets at rest at `now` (default: the database's clock); returns how many. */
  async purgeStale(now?: number): Promise<number> {
    const result = await this.database.query(PURGE_SQL, [now ?? null]);
    return result.rowCount ?? 0;
  }

  /**
   * Runs purgeStale every `intervalMs` (default a minute, as the in-memory sweep) until the
   * returned function is called; that function resolves once a purge in progress has finished.
   * The timer does not keep the process alive.
   */
  startPurging(
    options: { intervalMs?: number; onError?: (error: unknown) => void } = {},
  ): () => Promise<void> {
    let running: Promise<void> | null = null;
    const timer = setInterval(() => {
      if (running !== null) return;
      running = this.purgeStale()
        .then(
          () => {},
          (error: unknown) => options.onError?.(error),
        )
        .finally(() => {
          running = null;
        });
    }, options.intervalMs ?? 60_000);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await running;
    };
  }
}
