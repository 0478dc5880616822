/** A durable message for the worker. `payload` is versioned by the job module that owns `type`. */
export interface QueueMessage {
  type: string;
  payload: unknown;
  /** Epoch ms before which the message must not run. */
  runAt?: number;
  maxAttempts?: number;
  /**
   * Fairness group (the client's key id). A runnable message whose group has no message of its type
   * running goes before one whose group already has: every client with work waiting gets a slot
   * before any client gets a second, and when only busy groups have work, they take the free slots.
   */
  group?: string;
}

export interface ClaimedMessage {
  /** Backend-specific id, opaque to callers. */
  id: string;
  type: string;
  payload: unknown;
  /** 1 on the first delivery; counts deliveries including those cut short by a crash. */
  attempt: number;
  maxAttempts: number;
  /** Epoch ms since which the message could run (its runAt), when the backend knows it: queue latency. */
  runnableAt?: number;
}

/** How a claim picks among the runnable messages. */
export interface ClaimOptions {
  /**
   * At most this many messages of one group and type running at once, counted across every worker
   * of the queue: a message whose group is at the limit is not claimed and stays queued, holding
   * no slot, until one of its group's finishes. Messages without a group are not limited.
   * Default: no limit (busy groups take slots nobody else wants).
   */
  maxPerGroup?: number;
}

/** A message as the operator sees it: where it stands and why it last failed. */
export interface QueueMessageRecord {
  id: string;
  type: string;
  state: 'ready' | 'running' | 'done' | 'dead';
  attempts: number;
  maxAttempts: number;
  /** Safe to show: handlers throw messages without secrets, row contents or e-mail addresses. */
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface QueueCounts {
  ready: number;
  running: number;
  dead: number;
}

/** Totals, and the same counts per message type (the `/metrics` view per queue). */
export interface QueueStats extends QueueCounts {
  byType: Record<string, QueueCounts>;
}

/**
 * The job queue: at-least-once delivery with leases. A message whose lease runs out (its worker
 * died) is delivered again. Backends: SQLite table (embedded), PostgreSQL (scaled out).
 */
export interface Queue {
  enqueue(message: QueueMessage): Promise<void>;
  /**
   * Leases to `owner` the oldest runnable message of the given types, preferring messages whose
   * group has none of its type running (see QueueMessage.group), and never one whose group is at
   * `options.maxPerGroup`.
   */
  claim(
    owner: string,
    types: readonly string[],
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<ClaimedMessage | null>;
  /** Extends the lease; returns false when the lease was lost (another worker took over). */
  extendLease(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Marks the message done. */
  complete(id: string, owner: string): Promise<void>;
  /** Schedules another attempt at `retryAt`, or dead-letters it when `retryAt` is null. */
  fail(id: string, owner: string, reason: string, retryAt: number | null): Promise<void>;
  /**
   * Dead-letters messages of these types whose lease ran out on their last attempt (their worker
   * died every time) and returns them, so their job modules can record the failure.
   */
  reapExhausted(types: readonly string[]): Promise<ClaimedMessage[]>;
  /** Gives a leased message back at once, for graceful shutdown. */
  release(id: string, owner: string): Promise<void>;
  stats(): Promise<QueueStats>;
  /** Every message whose payload names this job (`payload.jobId`), oldest first: the dead-letter view. */
  messagesForJob(jobId: string): Promise<QueueMessageRecord[]>;
  /**
   * Optional latency hint: calls `listener` when a runnable message may have been enqueued by any
   * process (with its type, or null when anything may have arrived), so a worker claims at once
   * instead of on its next poll. Resolves to a function that ends the subscription. Backends whose
   * enqueues all happen in this process (embedded) leave it out; workers poll either way.
   */
  onMessageReady?(listener: (type: string | null) => void): Promise<() => Promise<void>>;
}

/** Folds (type, state, count) rows into QueueStats; states other than the three counted are ignored. */
export function queueStatsFromCounts(
  rows: Iterable<{ type: string; state: string; count: number }>,
): QueueStats {
  const stats: QueueStats = { ready: 0, running: 0, dead: 0, byType: {} };
  for (const { type, state, count } of rows) {
    if (state !== 'ready' && state !== 'running' && state !== 'dead') continue;
    stats[state] += count;
    const counts = stats.byType[type] ?? { ready: 0, running: 0, dead: 0 };
    counts[state] += count;
    stats.byType[type] = counts;
  }
  return stats;
}
