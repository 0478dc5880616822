import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { ConstructorOptions, Db, JobInsert, JobWithMetadata, PgBoss } from 'pg-boss';
import {
  type ClaimedMessage,
  type ClaimOptions,
  type Queue,
  type QueueMessage,
  type QueueMessageRecord,
  type QueueStats,
  queueStatsFromCounts,
} from '../../domain/ports/queue.ts';
import type { PgFollowUpEnqueuer } from '../postgres/pg-follow-ups.ts';

/** What a message is stored as: pg-boss wants an object, the port allows any JSON payload. */
interface StoredData {
  payload: unknown;
  /**
   * Enqueue order within this process. Messages enqueued in one transaction share pg-boss's
   * `created_on` (the transaction's now()), so this breaks the tie where the port promises order.
   */
  order?: number;
}

let lastOrder = 0;
/** Strictly increasing per process, and close to epoch microseconds, so it also roughly orders processes. */
function nextOrder(): number {
  lastOrder = Math.max(lastOrder + 1, Date.now() * 1000);
  return lastOrder;
}

export interface PgBossQueueOptions {
  connectionString: string;
  /** PostgreSQL schema of pg-boss's tables (created on start). Lower-case letters, digits, `_`. */
  schema?: string;
  /** Job types declared at start (the registry's); any other type is declared on its first enqueue. */
  types?: readonly string[];
  /** Attempts of a message enqueued without `maxAttempts`. */
  maxAttempts?: number;
  /**
   * The lease queues are declared with (the worker's QUEUE_LEASE_SECONDS). A claim or an extension
   * with another length costs one more statement. PostgreSQL keeps it in whole seconds.
   */
  leaseMs?: number;
  /**
   * How often lapsed leases are found (pg-boss's supervisor and monitor interval): a message whose
   * worker died is runnable again at most this long after its lease ran out.
   */
  sweepSeconds?: number;
  /** Whether this process takes part in that sweep (one process of the cluster does it per pass). */
  supervise?: boolean;
  /** Connections in pg-boss's pool. */
  poolSize?: number;
  /**
   * Create or migrate pg-boss's schema on start (default true). With false, start fails unless the
   * schema is already at this pg-boss version (`listmatch migrate` ran).
   */
  migrate?: boolean;
  /** How long done and dead messages are kept for the dead-letter view. */
  keepFinishedSeconds?: number;
  /** pg-boss reports background failures (a sweep that could not reach the database) here. */
  onError?: (error: Error) => void;
}

const DEFAULT_SCHEMA = 'pgboss';
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_SWEEP_SECONDS = 5;
const DEFAULT_KEEP_FINISHED_SECONDS = 14 * 24 * 3600;
/** pg-boss's own cap on a job's total run time (expireInSeconds); the heartbeat is the real lease. */
const MAX_RUN_SECONDS = 24 * 3600;
/** A queued message is deleted by pg-boss after this long unclaimed: far beyond any real wait. */
const KEEP_QUEUED_SECONDS = 365 * 24 * 3600;
const REASON_LIMIT = 2000;
/** Marks the `output` our own fail() wrote, and a dead message whose crash was already reported. */
const MARK = 'listmatch';

/**
 * Creates the pg-boss schema (tables, functions) if missing and migrates it to this pg-boss version.
 * Idempotent; for `listmatch migrate`. The adapter does the same on start.
 */
export async function migrate(connectionString: string, options: { schema?: string } = {}): Promise<void> {
  const { PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString,
    schema: checkSchema(options.schema ?? DEFAULT_SCHEMA),
    supervise: false,
    schedule: false,
    migrate: true,
    max: 2,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

/** Starts pg-boss (creating or migrating its schema) and declares the queues of `options.types`. */
export async function createPgBossQueue(options: PgBossQueueOptions): Promise<PgBossQueue> {
  const { PgBoss } = await import('pg-boss');
  const schema = checkSchema(options.schema ?? DEFAULT_SCHEMA);
  const sweepSeconds = Math.max(1, Math.round(options.sweepSeconds ?? DEFAULT_SWEEP_SECONDS));
  const config: ConstructorOptions = {
    connectionString: options.connectionString,
    schema,
    max: options.poolSize ?? 10,
    application_name: 'listmatch-queue',
    migrate: options.migrate ?? true,
    schedule: false,
    supervise: options.supervise ?? true,
    // Lapsed heartbeats are failed (and so retried) in the monitor pass, which runs at the longer of
    // these two intervals: both are the sweep interval (the monitor's default is 60 s).
    superviseIntervalSeconds: sweepSeconds,
    monitorIntervalSeconds: sweepSeconds,
  };
  const boss = new PgBoss(config);
  const onError = options.onError ?? ((error: Error) => process.stderr.write(`pg-boss: ${error.message}\n`));
  boss.on('error', onError);
  try {
    await boss.start();
  } catch (error) {
    // A start that failed part-way (schema missing with migrate: false) may hold connections.
    await boss.stop({ graceful: false, close: true }).catch(() => {});
    throw new Error(`starting the PostgreSQL queue failed: ${(error as Error).message}`, { cause: error });
  }
  const queue = new PgBossQueue(boss, schema, options);
  try {
    await queue.declare(options.types ?? []);
  } catch (error) {
    await queue.close();
    throw error;
  }
  return queue;
}

/** A claim this process holds: what pg-boss needs to settle exactly that attempt, and who holds it. */
interface Claim {
  type: string;
  owner: string;
  /** pg-boss's retry_count when claimed: settling with it touches only this attempt (its fence). */
  retryCount: number;
  leaseSeconds: number;
}

/**
 * The scaled-out job queue on pg-boss (PostgreSQL): one pg-boss queue per message type, so each type
 * is FIFO on its own; many worker processes claim with FOR UPDATE SKIP LOCKED, so a message never has
 * two live owners. The lease is pg-boss's heartbeat: a message whose worker stops renewing it is
 * failed by pg-boss's monitor within `sweepSeconds` after the lease ran out, and so retried (or,
 * on its last attempt, kept as failed until reapExhausted reports it).
 *
 * pg-boss has no lease owner: the owner of a claim is kept in this process (only the claimant
 * settles it), and every settling call carries the claimed attempt, which pg-boss checks, so a
 * worker that lost its lease can never settle the next attempt. Where pg-boss's API has no call
 * for what the port asks, one fenced statement on pg-boss's own job table fills the gap (a lease of
 * another length, a retry at a given time, dead-lettering with attempts left, release without
 * counting the attempt, reaping); each is marked below.
 */
export class PgBossQueue implements Queue, PgFollowUpEnqueuer {
  private readonly boss: PgBoss;
  private readonly schema: string;
  private readonly defaultMaxAttempts: number;
  private readonly defaultLeaseSeconds: number;
  private readonly keepFinishedSeconds: number;
  private readonly declared = new Map<string, Promise<void>>();
  private readonly claims = new Map<string, Claim>();
  private readonly listeners = new Set<{ close(): Promise<void> }>();

  constructor(boss: PgBoss, schema: string, options: Omit<PgBossQueueOptions, 'connectionString'> = {}) {
    this.boss = boss;
    this.schema = schema;
    this.defaultMaxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.defaultLeaseSeconds = leaseSeconds(options.leaseMs ?? DEFAULT_LEASE_MS);
    this.keepFinishedSeconds = options.keepFinishedSeconds ?? DEFAULT_KEEP_FINISHED_SECONDS;
  }

  /** Declares (creates, or brings up to date) the pg-boss queue of each type. */
  async declare(types: readonly string[]): Promise<void> {
    await Promise.all(types.map((type) => this.ensureQueue(type)));
  }

  async enqueue(message: QueueMessage): Promise<void> {
    await this.insert(this.db(), [message]);
  }

  /** Writes the messages with the caller's client, so they commit or roll back with its transaction. */
  async enqueueWith(client: pg.ClientBase, messages: readonly QueueMessage[]): Promise<void> {
    await this.insert({ executeSql: (text, values) => client.query(text, values) }, messages);
  }

  async claim(
    owner: string,
    types: readonly string[],
    leaseMs: number,
    options: ClaimOptions = {},
  ): Promise<ClaimedMessage | null> {
    if (types.length === 0) return null;
    const { maxPerGroup } = options;
    // The oldest runnable message among the types decides which pg-boss queue to fetch from (fetch
    // takes one queue). Each type's head is one step down pg-boss's fetch index (job_i11: name,
    // priority DESC, created_on WHERE state < 'active' AND NOT blocked), however long the backlog.
    // Another worker may take the message first: then look again.
    let candidates = [...types];
    for (let tries = 0; tries < 3 && candidates.length > 0; tries++) {
      const { rows } = await this.db().executeSql(
        `SELECT t.name FROM unnest($1::text[]) AS t(name)
         CROSS JOIN LATERAL (
           SELECT j.priority, j.created_on FROM ${this.schema}.job j
           WHERE j.name = t.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= now()
           ORDER BY j.priority DESC, j.created_on LIMIT 1
         ) AS head
         ORDER BY head.priority DESC, head.created_on LIMIT 1`,
        [candidates],
      );
      const type = rows[0]?.['name'] as string | undefined;
      if (type === undefined) return null;
      // Fairness (QueueMessage.group): first a message whose group has none of this type active
      // (pg-boss counts active messages per group in the database, across every worker), else the
      // oldest, so that busy groups still take slots nobody else wants; with maxPerGroup, the oldest
      // whose group is below it (pg-boss's groupConcurrency, counted the same way but without a lock:
      // workers claiming in the same instant may each take one, briefly going past it).
      const [fair] = await this.boss.fetch<StoredData>(type, { includeMetadata: true, groupConcurrency: 1 });
      const job =
        fair ??
        (maxPerGroup === 1
          ? undefined
          : (
              await this.boss.fetch<StoredData>(type, {
                includeMetadata: true,
                ...(maxPerGroup === undefined ? {} : { groupConcurrency: maxPerGroup }),
              })
            )[0]);
      if (job === undefined) {
        // Taken by another worker meanwhile: look again, at the other types first. With a group
        // limit the head may also be held back by it, so a type that gave nothing is not asked
        // again in this claim (the worker's next poll or wake-up looks again).
        candidates = candidates.filter((candidate) => candidate !== type);
        if (candidates.length === 0 && maxPerGroup === undefined) candidates = [...types];
        continue;
      }
      return this.claimed(owner, type, job, leaseSeconds(leaseMs));
    }
    return null;
  }

  async extendLease(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const claim = this.claimOf(id, owner);
    if (claim === null) return false;
    const seconds = leaseSeconds(leaseMs);
    let extended: boolean;
    if (seconds === claim.leaseSeconds) {
      const result = await this.boss.touch(claim.type, { id, retryCount: claim.retryCount });
      extended = affected(result) === 1;
    } else {
      // Gap: touch() keeps the lease length the message was claimed with.
      extended = await this.setLease(claim, id, seconds, true);
      if (extended) claim.leaseSeconds = seconds;
    }
    if (!extended) this.claims.delete(id);
    return extended;
  }

  async complete(id: string, owner: string): Promise<void> {
    const claim = this.claimOf(id, owner);
    if (claim === null) return;
    await this.boss.complete(claim.type, { id, retryCount: claim.retryCount });
    this.claims.delete(id);
  }

  async fail(id: string, owner: string, reason: string, retryAt: number | null): Promise<void> {
    const claim = this.claimOf(id, owner);
    if (claim === null) return;
    this.claims.delete(id);
    const tx = await this.beginTransaction();
    try {
      const output = { message: reason.slice(0, REASON_LIMIT), [MARK]: 'failed' };
      const result = await this.boss.fail(claim.type, { id, retryCount: claim.retryCount }, output, {
        db: tx.db,
      });
      if (affected(result) === 1) {
        // Gap: pg-boss retries after the queue's fixed retryDelay; the job module picks the time
        // (its backoff, a platform's Retry-After), or none at all. Same transaction: no other worker
        // sees the message between pg-boss's fail and this.
        await tx.db.executeSql(
          retryAt === null
            ? `UPDATE ${this.schema}.job SET state = 'failed', completed_on = now()
               WHERE name = $1 AND id = $2::uuid AND state = 'retry'`
            : `UPDATE ${this.schema}.job SET start_after = to_timestamp($3::double precision / 1000)
               WHERE name = $1 AND id = $2::uuid AND state = 'retry'`,
          retryAt === null ? [claim.type, id] : [claim.type, id, retryAt],
        );
      }
      await tx.commit();
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }

  async reapExhausted(types: readonly string[]): Promise<ClaimedMessage[]> {
    if (types.length === 0) return [];
    // Gap: pg-boss fails a message whose heartbeat lapsed on its last attempt by itself; such a
    // message is the only dead one without our mark. Marking it reported is a conditional UPDATE,
    // so of two workers reaping at once only one returns it.
    const { rows } = await this.db().executeSql(
      `UPDATE ${this.schema}.job
       SET output = jsonb_build_object(
         'message', 'the lease lapsed on the last attempt: ' || coalesce(output #>> '{value,message}', 'worker stopped'),
         '${MARK}', 'reaped')
       WHERE name = ANY($1::text[]) AND state = 'failed' AND NOT coalesce(output ? '${MARK}', false)
       RETURNING id, name, data, retry_count, retry_limit`,
      [types],
    );
    return rows.map((row) => ({
      id: row['id'] as string,
      type: row['name'] as string,
      payload: (row['data'] as StoredData | null)?.payload ?? null,
      attempt: (row['retry_count'] as number) + 1,
      maxAttempts: (row['retry_limit'] as number) + 1,
    }));
  }

  async release(id: string, owner: string): Promise<void> {
    const claim = this.claimOf(id, owner);
    if (claim === null) return;
    this.claims.delete(id);
    // Gap: pg-boss's restore() is internal and counts the attempt. A claim adds 1 to retry_count
    // only when started_on is set, so undoing it takes 1 off, or clears started_on on a first
    // attempt.
    await this.db().executeSql(
      `UPDATE ${this.schema}.job
       SET state = 'created', start_after = now(), heartbeat_on = NULL,
         started_on = CASE WHEN retry_count = 0 THEN NULL ELSE started_on END,
         retry_count = greatest(retry_count - 1, 0)
       WHERE name = $1 AND id = $2::uuid AND state = 'active' AND retry_count = $3`,
      [claim.type, id, claim.retryCount],
    );
  }

  async stats(): Promise<QueueStats> {
    const { rows } = await this.db().executeSql(
      `SELECT name, state::text AS state, count(*)::int AS n FROM ${this.schema}.job
       WHERE state IN ('created', 'retry', 'active', 'failed') GROUP BY name, state`,
    );
    return queueStatsFromCounts(
      rows.map((row) => ({
        type: row['name'] as string,
        state: portState(row['state'] as string),
        count: row['n'] as number,
      })),
    );
  }

  async messagesForJob(jobId: string): Promise<QueueMessageRecord[]> {
    const { rows } = await this.db().executeSql(
      `SELECT id, name, state::text AS state, retry_count, retry_limit, started_on IS NOT NULL AS started,
         output #>> '{message}' AS message, output #>> '{value,message}' AS library_message,
         created_on, greatest(created_on, started_on, completed_on) AS updated_on
       FROM ${this.schema}.job WHERE data -> 'payload' ->> 'jobId' = $1
       ORDER BY created_on, (data ->> 'order')::bigint NULLS FIRST, id`,
      [jobId],
    );
    return rows.map((row) => {
      return {
        id: row['id'] as string,
        type: row['name'] as string,
        state: portState(row['state'] as string),
        // retry_count counts claims after the first; a message never claimed has made no attempt.
        attempts: row['started'] ? (row['retry_count'] as number) + 1 : 0,
        maxAttempts: (row['retry_limit'] as number) + 1,
        lastError: (row['message'] as string | null) ?? (row['library_message'] as string | null) ?? null,
        createdAt: (row['created_on'] as Date).getTime(),
        updatedAt: (row['updated_on'] as Date).getTime(),
      };
    });
  }

  /**
   * Calls `listener` with a message type as soon as a runnable message of that type is enqueued
   * anywhere (pg-boss's NOTIFY), or with null after a reconnect (anything may have arrived): a
   * worker can claim at once instead of on its next poll. Not part of the Queue port yet.
   */
  async onMessageReady(listener: (type: string | null) => void): Promise<() => Promise<void>> {
    const db = this.db();
    if (db.listen === undefined) throw new Error('this pg-boss database adapter cannot LISTEN');
    const handle = await db.listen(
      notifyChannel(this.schema),
      (type) => listener(type),
      () => listener(null),
    );
    this.listeners.add(handle);
    return async () => {
      this.listeners.delete(handle);
      await handle.close();
    };
  }

  /** Stops pg-boss's sweep and closes its connections; claims still held lapse and are retried. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.listeners].map((listener) => listener.close()));
    this.listeners.clear();
    await this.boss.stop({ graceful: false, close: true });
  }

  private db(): Db {
    return this.boss.getDb();
  }

  private async beginTransaction() {
    const db = this.db();
    if (db.beginTransaction === undefined)
      throw new Error('this pg-boss database adapter has no transactions');
    return db.beginTransaction();
  }

  private ensureQueue(type: string): Promise<void> {
    let declared = this.declared.get(type);
    if (declared === undefined) {
      const options = {
        retryLimit: this.defaultMaxAttempts - 1,
        retryDelay: 0,
        retryBackoff: false,
        heartbeatSeconds: Math.max(10, this.defaultLeaseSeconds),
        expireInSeconds: MAX_RUN_SECONDS,
        retentionSeconds: KEEP_QUEUED_SECONDS,
        deleteAfterSeconds: this.keepFinishedSeconds,
        notify: true,
      };
      // createQueue leaves an existing queue as it is; updateQueue brings its settings up to date.
      declared = this.boss
        .createQueue(type, options)
        .then(() => this.boss.updateQueue(type, options))
        .catch((error: unknown) => {
          this.declared.delete(type);
          throw new Error(`declaring queue ${type} failed: ${(error as Error).message}`, { cause: error });
        });
      this.declared.set(type, declared);
    }
    return declared;
  }

  private async insert(db: Db, messages: readonly QueueMessage[]): Promise<void> {
    const byType = new Map<string, JobInsert<StoredData>[]>();
    for (const message of messages) {
      const jobs = byType.get(message.type) ?? [];
      jobs.push({
        data: { payload: message.payload ?? null, order: nextOrder() },
        retryLimit: (message.maxAttempts ?? this.defaultMaxAttempts) - 1,
        ...(message.group === undefined ? {} : { group: { id: message.group } }),
        ...(message.runAt === undefined ? {} : { startAfter: new Date(message.runAt) }),
      });
      byType.set(message.type, jobs);
    }
    // Declaring a queue commits on pg-boss's own connection, never inside the caller's transaction.
    await this.declare([...byType.keys()]);
    for (const [type, jobs] of byType) await this.boss.insert(type, jobs, { db });
  }

  private async claimed(
    owner: string,
    type: string,
    job: JobWithMetadata<StoredData>,
    seconds: number,
  ): Promise<ClaimedMessage> {
    const claim: Claim = { type, owner, retryCount: job.retryCount, leaseSeconds: job.heartbeatSeconds ?? 0 };
    this.claims.set(job.id, claim);
    // Gap: fetch() leases for the heartbeat the message was enqueued with; the worker asks for its own.
    if (claim.leaseSeconds !== seconds && (await this.setLease(claim, job.id, seconds, false))) {
      claim.leaseSeconds = seconds;
    }
    return {
      id: job.id,
      type,
      payload: job.data?.payload ?? null,
      attempt: job.retryCount + 1,
      maxAttempts: job.retryLimit + 1,
      runnableAt: job.startAfter.getTime(),
    };
  }

  /** Sets the lease length of a claimed attempt (and renews it when `renew`); false when it is gone. */
  private async setLease(claim: Claim, id: string, seconds: number, renew: boolean): Promise<boolean> {
    const { rows } = await this.db().executeSql(
      `UPDATE ${this.schema}.job SET heartbeat_seconds = $4${renew ? ', heartbeat_on = now()' : ''}
       WHERE name = $1 AND id = $2::uuid AND state = 'active' AND retry_count = $3
       RETURNING id`,
      [claim.type, id, claim.retryCount, seconds],
    );
    return rows.length === 1;
  }

  private claimOf(id: string, owner: string): Claim | null {
    const claim = this.claims.get(id);
    return claim !== undefined && claim.owner === owner ? claim : null;
  }
}

function checkSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error('the queue schema must be lower-case letters, digits and underscores');
  }
  return schema;
}

/** Whole seconds (pg-boss keeps heartbeats in seconds), rounded up so a lease never shrinks. */
function leaseSeconds(leaseMs: number): number {
  return Math.max(1, Math.ceil(leaseMs / 1000));
}

function affected(result: unknown): number {
  return (result as { affected?: number }).affected ?? 0;
}

/** pg-boss job states as the port counts them; `completed` and `cancelled` are done. */
function portState(state: string): QueueMessageRecord['state'] {
  switch (state) {
    case 'created':
    case 'retry':
      return 'ready';
    case 'active':
      return 'running';
    case 'failed':
      return 'dead';
    default:
      return 'done';
  }
}

/**
 * pg-boss's NOTIFY channel for a schema: `'pgboss_' || left(encode(sha224(schema), 'hex'), 24)`
 * (its notifyChannelSql). Only a latency hint: if a pg-boss upgrade renamed it, workers would
 * still find messages on their next poll.
 */
function notifyChannel(schema: string): string {
  return `pgboss_${createHash('sha224').update(schema).digest('hex').slice(0, 24)}`;
}
