import { resolve } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../config.ts';

/**
 * `listmatch migrate`: applies pending schema migrations and says what it did. With DATABASE_URL:
 * the metadata tables and the queue library's own schema in PostgreSQL (safe while other
 * processes start: they wait on the same lock). Without it: the embedded SQLite database, which
 * every process also migrates when it opens it.
 */
export function migrateCommand(program: Command): void {
  program
    .command('migrate')
    .description(
      'apply pending database migrations (PostgreSQL with DATABASE_URL, else the embedded SQLite file)',
    )
    .action(async () => {
      const config = loadConfig();
      if (config.DATABASE_URL === undefined) {
        const { mkdirSync } = await import('node:fs');
        const { SqliteDatabase } = await import('../../adapters/sqlite/sqlite-database.ts');
        const { SQLITE_MIGRATIONS_DIR } = await import('../../start/backends.ts');
        const dataDir = resolve(config.DATA_DIR);
        mkdirSync(dataDir, { recursive: true });
        const path = resolve(dataDir, 'listmatch.db');
        new SqliteDatabase(path, SQLITE_MIGRATIONS_DIR).close();
        console.log(`embedded database ${path}: up to date`);
        return;
      }
      const { runPostgresMigrations, describeDatabaseUrl } = await import(
        '../../adapters/postgres/pg-database.ts'
      );
      const { migrate: migrateQueue } = await import('../../adapters/queue/pg-boss-queue.ts');
      const where = describeDatabaseUrl(config.DATABASE_URL);
      const report = await runPostgresMigrations(config.DATABASE_URL);
      await migrateQueue(config.DATABASE_URL);
      console.log(
        `database ${where}: applied ${report.applied.length} migration(s)` +
          (report.applied.length > 0 ? ` (${report.applied.join(', ')})` : '') +
          `, ${report.alreadyApplied.length} already applied; job queue schema up to date`,
      );
      if (report.unknown.length > 0) {
        console.log(
          `warning: the database has migrations this version does not know (${report.unknown.join(', ')}): it was migrated by a newer listmatch`,
        );
      }
    });
}
