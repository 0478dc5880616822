import type { PgDatabase } from '../adapters/postgres/pg-database.ts';
import type { PgFollowUpEnqueuer } from '../adapters/postgres/pg-follow-ups.ts';
import type { Config } from '../config.ts';
import type { Queue } from '../domain/ports/queue.ts';

/** The scaled-out job queue on the metadata database (filled in when the queue adapter lands). */
export async function openPostgresQueue(
  _config: Config,
  _database: PgDatabase,
): Promise<Queue & PgFollowUpEnqueuer & { close(): Promise<void> }> {
  throw new Error('the PostgreSQL queue adapter is not wired yet');
}

/** Creates or upgrades the queue library's schema (`listmatch migrate`). */
export async function migratePostgresQueue(_config: Config, _database: PgDatabase): Promise<void> {
  throw new Error('the PostgreSQL queue adapter is not wired yet');
}
