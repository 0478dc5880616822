import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/**
 * The embedded database: one SQLite file in WAL mode, shared by the key store, the job store and
 * the queue so that a state change and the work it causes commit together. Several processes
 * (ROLES=api and ROLES=worker on one DATA_DIR) may open it; busy_timeout serializes writers.
 */
export class SqliteDatabase {
  readonly db: DatabaseSync;

  constructor(path: string, migrationsDir: string) {
    this.db = new DatabaseSync(path);
    this.db.exec(`
      PRAGMA journal_mode = WAL;
      -- FULL: a committed state change (an accepted upload, a completed job) survives power loss.
      PRAGMA synchronous = FULL;
      PRAGMA busy_timeout = 10000;
      PRAGMA foreign_keys = ON;
    `);
    this.migrate(migrationsDir);
  }

  /** Runs `fn` in an IMMEDIATE transaction (takes the write lock up front: no upgrade deadlocks). */
  transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      // SQLite rolls a transaction back by itself after some errors (a full disk, SQLITE_FULL):
      // rolling back again would fail and hide the error that matters.
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw error;
    }
  }

  healthy(): boolean {
    try {
      return this.db.prepare('SELECT 1 AS ok').get()?.['ok'] === 1;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private migrate(dir: string): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)',
    );
    const files = readdirSync(dir)
      .filter((f) => /^\d+_.*\.sql$/.test(f))
      .sort();
    for (const file of files) {
      this.transaction(() => {
        // Checked inside the write transaction, so two processes starting at once apply it once.
        const done = this.db.prepare('SELECT 1 FROM schema_migrations WHERE name = ?').get(file);
        if (done) return;
        this.db.exec(readFileSync(join(dir, file), 'utf8'));
        this.db
          .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
          .run(file, Date.now());
      });
    }
  }
}
