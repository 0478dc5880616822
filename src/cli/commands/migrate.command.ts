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
        const { SqliteDatabase } = await import('../../adapters/metadata/sqlite-database.ts');
        const { SQLITE_MIGRATIONS_DIR } = await import('../../start/backends.ts');
        const dataDir = resolve(config.DATA_DIR);
        mkdirSync(dataDir, { recursive: true });
        const path = resolve(dataDir, 'listmatch.db');
        new SqliteDatabase(path, SQLITE_MIGRATIONS_DIR).close();
        console.log(`embedded database ${path}: up to date`);
        return;
      }
      const { describeDatabaseUrl, openPgDatabase } = await import('../../adapters/postgres/pg-database.ts');
      const { migratePostgresQueue } = await import('../../start/postgres-queue.ts');
      const database = await openPgDatabase(config.DATABASE_URL, {
        poolSize: 1,
        applicationName: 'listmatch migrate',
      });
      try {
        const report = await database.migrate();
        await migratePostgresQueue(config, database);
        console.log(`PostgreSQL ${describeDatabaseUrl(config.DATABASE_URL)}:`);
        console.log(`  applied now: ${report.applied.length === 0 ? '(none)' : report.applied.join(', ')}`);
        console.log(`  already applied: ${report.alreadyApplied.length}`);
        if (report.unknown.length > 0) {
          console.log(`  applied by a newer version of listmatch: ${report.unknown.join(', ')}`);
        }
        console.log('  job queue schema: up to date');
      } finally {
        await database.close();
      }
    });
}
