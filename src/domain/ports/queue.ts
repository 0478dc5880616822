/** A durable message for the worker. `payload` is versioned by the job module that owns `type`. */
export interface QueueMessage {
  type: string;
  payload: unknown;
  /** Epoch ms before which the message must not run. */
  runAt?: number;
  maxAttempts?: number;
}

export interface ClaimedMessage {
  id: number;
  type: string;
  payload: unknown;
  /** 1 on the first delivery; counts deliveries including those cut short by a crash. */
  attempt: number;
  maxAttempts: number;
}

export interface QueueStats {
  ready: number;
  running: number;
  dead: number;
}

/** A queue message as operators inspect it. */
export interface QueueEntry {
  id: number;
  type: string;
  state: 'ready' | 'running' | 'done' | 'dead';
  attempts: number;
  maxAttempts: number;
  /** Reason of the last failed attempt (vendor error text: never row contents or secrets). */
  lastError: string | null;
  /** Epoch ms of the next attempt when ready. */
  runAt: number;
  updatedAt: number;
}

/**
 * The job queue: at-least-once delivery with leases. A message whose lease runs out (its worker
 * died) is delivered again. Backends: SQLite table (embedded).
 */
export interface Queue {
  enqueue(message: QueueMessage): void;
  /** Takes the oldest runnable message of the given types and leases it to `owner`. */
  claim(owner: string, types: readonly string[], leaseMs: number): ClaimedMessage | null;
  /** Extends the lease; returns false when the lease was lost (another worker took over). */
  extendLease(id: number, owner: string, leaseMs: number): boolean;
  /** Marks the message done. */
  complete(id: number, owner: string): void;
  /** Schedules another attempt at `retryAt`, or dead-letters it when `retryAt` is null. */
  fail(id: number, owner: string, reason: string, retryAt: number | null): void;
  /**
   * Dead-letters messages of these types whose lease ran out on their last attempt (their worker
   * died every time) and returns them, so their job modules can record the failure.
   */
  reapExhausted(types: readonly string[]): ClaimedMessage[];
  /** Gives a leased message back at once, for graceful shutdown. */
  release(id: number, owner: string): void;
  stats(): QueueStats;
  /** Messages whose payload names this job (its matching, deliveries, notices), oldest first. */
  forJob(jobId: string): QueueEntry[];
}
