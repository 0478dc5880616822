import { AppError } from '../errors.ts';
import type { LookupStore } from '../ports/lookup-store.ts';
import type { RateLimiter, RateRule } from '../ports/rate-limiter.ts';
import {
  LOOKUP_PATHS,
  type LookupGrant,
  type LookupRight,
  type LookupUsageRow,
  utcDayOf,
} from './lookup-rights.ts';

export interface LookupAccessSettings {
  /** Lookup requests per second one key may make (a burst of as many, then steady). */
  requestsPerSecond: number;
  /** Persons one key may look up per UTC day when its grant sets no quota of its own (0: no limit). */
  dailyQuota: number;
  /** How often counts are written to the store (ms); the quota is enforced on the counts in memory. */
  flushMs: number;
  /** How long a key's grant is cached (ms): a revoked right stops within this. */
  grantTtlMs: number;
}

export const DEFAULT_LOOKUP_ACCESS: LookupAccessSettings = {
  requestsPerSecond: 50,
  dailyQuota: 100_000,
  flushMs: 1000,
  grantTtlMs: 2000,
};

/**
 * Who may look up, how fast and how much, and the count of every lookup per key: the right of
 * the endpoint (403 kind, answered 200 to a valid key: clients.md 30), a per-key rate limit
 * (429 with Retry-After), a daily quota of persons per key (429 until UTC midnight). Counts are
 * kept in memory and added to the store every `flushMs`, so a lookup costs no database write;
 * with several api processes each enforces the quota on the store's total as of its last flush
 * plus its own unflushed counts (it can overshoot by what the others did within one flush).
 */
export class LookupAccess {
  private readonly store: LookupStore;
  private readonly limiter: RateLimiter;
  private readonly settings: LookupAccessSettings;
  private readonly rule: RateRule;
  private readonly grants = new Map<string, { grant: LookupGrant | null; until: number }>();
  /** Per key: the day counted, the store's total of that day, and what this process added since. */
  private readonly today = new Map<string, { day: string; stored: number; added: number }>();
  private pending = new Map<string, LookupUsageRow>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(store: LookupStore, limiter: RateLimiter, settings: Partial<LookupAccessSettings> = {}) {
    this.store = store;
    this.limiter = limiter;
    this.settings = { ...DEFAULT_LOOKUP_ACCESS, ...settings };
    this.rule = { limit: this.settings.requestsPerSecond, windowMs: 1000 };
  }

  /**
   * Admits one request of `persons` persons at the right's endpoint, or throws FORBIDDEN (no
   * right), RATE_LIMITED (too fast, or the day's quota spent). An admitted request is counted.
   */
  async admit(keyId: string, right: LookupRight, persons: number, now = Date.now()): Promise<void> {
    const grant = await this.grantOf(keyId, now);
    if (grant === null || !grant.rights.includes(right)) {
      throw new AppError(
        'FORBIDDEN',
        `this API key may not use ${LOOKUP_PATHS[right]}; ask the operator for the ${right} right`,
      );
    }
    const decision = await this.limiter.consume(`lookup:${keyId}`, this.rule, now);
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `at most ${this.rule.limit} lookup requests per second per key; retry in ${seconds} s`,
        { retryAfterSeconds: seconds },
      );
    }
    const quota = grant.dailyQuota ?? this.settings.dailyQuota;
    const day = utcDayOf(now);
    let counted = this.today.get(keyId);
    if (counted === undefined || counted.day !== day) {
      counted = { day, stored: await this.store.personsOn(keyId, day), added: 0 };
      this.today.set(keyId, counted);
    }
    if (quota > 0 && counted.stored + counted.added + persons > quota) {
      const midnight = Date.parse(`${day}T00:00:00Z`) + 86_400_000;
      const seconds = Math.max(1, Math.ceil((midnight - now) / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `this API key's daily quota of ${quota} persons looked up is spent (${counted.stored + counted.added} today); retry in ${seconds} s`,
        { retryAfterSeconds: seconds },
      );
    }
    counted.added += persons;
    const bucket = `${keyId}|${day}|${right}`;
    const row = this.pending.get(bucket);
    if (row === undefined) this.pending.set(bucket, { keyId, day, right, requests: 1, persons });
    else {
      row.requests++;
      row.persons += persons;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.settings.flushMs).unref();
  }

  /** Writes the counts not yet stored; the quota's totals are read back from the store. */
  async flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.pending.size === 0) return;
      const rows = [...this.pending.values()];
      this.pending = new Map();
      try {
        await this.store.addUsage(rows);
      } catch (error) {
        // Kept for the next flush: a count is never lost to a passing database error.
        for (const row of rows) {
          const bucket = `${row.keyId}|${row.day}|${row.right}`;
          const seen = this.pending.get(bucket);
          if (seen === undefined) this.pending.set(bucket, row);
          else {
            seen.requests += row.requests;
            seen.persons += row.persons;
          }
        }
        throw error;
      }
      const keys = new Set(rows.map((row) => row.keyId));
      for (const keyId of keys) {
        const counted = this.today.get(keyId);
        if (counted === undefined) continue;
        const stored = await this.store.personsOn(keyId, counted.day);
        const flushed = rows
          .filter((row) => row.keyId === keyId && row.day === counted.day)
          .reduce((sum, row) => sum + row.persons, 0);
        // Other processes' lookups are in `stored` now; ours of the rows written too.
        counted.added = Math.max(0, counted.added - flushed);
        counted.stored = stored;
      }
    });
    this.flushing = run.catch(() => {});
    await run;
  }

  /** Stops the flush timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async grantOf(keyId: string, now: number): Promise<LookupGrant | null> {
    const cached = this.grants.get(keyId);
    if (cached !== undefined && cached.until > now) return cached.grant;
    const grant = await this.store.findGrant(keyId);
    this.grants.set(keyId, { grant, until: now + this.settings.grantTtlMs });
    return grant;
  }
}
