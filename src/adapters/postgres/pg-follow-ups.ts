import type pg from 'pg';
import type { QueueMessage } from '../../domain/ports/queue.ts';

/**
 * How the PostgreSQL metadata stores enqueue the work a state change causes inside their own
 * transaction: the PostgreSQL queue adapter implements it by writing the messages with the
 * transaction's client, so the state change and its follow-ups commit (or roll back) together.
 */
export interface PgFollowUpEnqueuer {
  enqueueWith(client: pg.ClientBase, messages: readonly QueueMessage[]): Promise<void>;
}
