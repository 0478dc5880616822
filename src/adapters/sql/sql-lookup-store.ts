import type { LookupGrant, LookupRight, LookupUsageRow } from '../../domain/lookups/lookup-rights.ts';
import type { LookupStore } from '../../domain/ports/lookup-store.ts';
import type { SqlRunner } from './sql-runner.ts';

/** Lookup rights, quotas and usage counts in the metadata database (SQLite or PostgreSQL). */
export class SqlLookupStore implements LookupStore {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  /** The key's grant, or null when none was ever set. */
  async findGrant(keyId: string): Promise<LookupGrant | null> {
    const row = await this.sql.get('SELECT * FROM lookup_grants WHERE key_id = ?', [keyId]);
    if (row === null) return null;
    const rights = String(row['rights']);
    return {
      keyId,
      rights: rights === '' ? [] : (rights.split(',') as LookupRight[]),
      dailyQuota: this.sql.cells.nullableInt(row['daily_quota']),
      updatedAt: this.sql.cells.int(row['updated_at']),
    };
  }

  /** Inserts or replaces the grant; rejects one of an unknown key (foreign key). */
  async setGrant(grant: LookupGrant): Promise<void> {
    await this.sql.run(
      `INSERT INTO lookup_grants (key_id, rights, daily_quota, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET rights = excluded.rights, daily_quota = excluded.daily_quota,
         updated_at = excluded.updated_at`,
      [grant.keyId, grant.rights.join(','), grant.dailyQuota, grant.updatedAt],
    );
  }

  /** Adds each row's counts to its (key, day, endpoint) in one transaction. */
  async addUsage(rows: readonly LookupUsageRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.sql.write(
      rows.map((row) => ({
        sql: `INSERT INTO lookup_usage (key_id, day, endpoint, requests, persons) VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (key_id, day, endpoint) DO UPDATE SET
                requests = lookup_usage.requests + excluded.requests,
                persons = lookup_usage.persons + excluded.persons`,
        params: [row.keyId, row.day, row.right, row.requests, row.persons],
      })),
    );
  }

  /** Persons of every endpoint on the day. */
  async personsOn(keyId: string, day: string): Promise<number> {
    const row = await this.sql.get(
      'SELECT COALESCE(SUM(persons), 0) AS persons FROM lookup_usage WHERE key_id = ? AND day = ?',
      [keyId, day],
    );
    return row === null ? 0 : this.sql.cells.int(row['persons']);
  }

  /** Counts of the days in the range, by key, day and endpoint. */
  async listUsage(fromDay: string, toDay: string): Promise<LookupUsageRow[]> {
    const rows = await this.sql.all(
      `SELECT key_id, day, endpoint, requests, persons FROM lookup_usage WHERE day >= ? AND day <= ?
       ORDER BY key_id, day, endpoint`,
      [fromDay, toDay],
    );
    return rows.map((row) => ({
      keyId: row['key_id'] as string,
      day: row['day'] as string,
      right: row['endpoint'] as LookupRight,
      requests: this.sql.cells.int(row['requests']),
      persons: this.sql.cells.int(row['persons']),
    }));
  }
}
