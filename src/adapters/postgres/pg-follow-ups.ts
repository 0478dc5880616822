import type pg from 'pg';
import type { QueueMessage } from '../../domain/ports/queue.ts';

/**
 * How the metadata stores' PostgreSQL runner (PgRunner) enqueues the work a state change causes
 * inside the change's own transaction: the PostgreSQL queue adapter implements it by writing the
 * messages with the transaction's client, so the state change and its follow-ups commit (or roll
 * back) together.
 */
export interface PgFollowUpEnqueuer {
  /** Writes `messages`, in order, with `client` (inside the caller's open transaction). */
  enqueueWith(client: pg.ClientBase, messages: readonly QueueMessage[]): Promise<void>;
}
