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
      // loadConfig refuses DATABASE_URL until the PostgreSQL job queue lands.
      throw new Error('DATABASE_URL is not supported by this version');
    });
}
