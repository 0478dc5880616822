import type { LookupGrant, LookupUsageRow } from '../lookups/lookup-rights.ts';

/** Lookup rights, quotas and the count of lookups per key and day. Backends: SQLite, PostgreSQL. */
export interface LookupStore {
  /** The key's lookup rights and quota; null when the operator never granted any. */
  findGrant(keyId: string): Promise<LookupGrant | null>;
  /** Replaces the key's lookup rights and quota. */
  setGrant(grant: LookupGrant): Promise<void>;
  /** Adds requests and persons to each row's (key, day, right) count, in one transaction. */
  addUsage(rows: readonly LookupUsageRow[]): Promise<void>;
  /** Persons the key looked up on this UTC day (YYYY-MM-DD), every endpoint together. */
  personsOn(keyId: string, day: string): Promise<number>;
  /** Every count of the days from `fromDay` to `toDay` (inclusive), by key, day and right. */
  listUsage(fromDay: string, toDay: string): Promise<LookupUsageRow[]>;
}
