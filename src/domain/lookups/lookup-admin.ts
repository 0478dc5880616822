import { AppError } from '../errors.ts';
import type { KeyService } from '../keys/key-service.ts';
import type { LookupStore } from '../ports/lookup-store.ts';
import { type LookupGrant, type LookupRight, type LookupUsageRow, utcDayOf } from './lookup-rights.ts';

/** What an operator does with lookups: grant rights and quotas, and see who looked up how many. */
export class LookupAdmin {
  private readonly store: LookupStore;
  private readonly keys: KeyService;

  constructor(store: LookupStore, keys: KeyService) {
    this.store = store;
    this.keys = keys;
  }

  /**
   * Sets a key's lookup rights and, when given, its daily quota (null: the service default);
   * rights or quota left undefined keep their value.
   */
  async grant(
    idOrName: string,
    changes: { rights?: LookupRight[]; dailyQuota?: number | null },
    now = Date.now(),
  ): Promise<LookupGrant> {
    const key = (await this.keys.list()).find(
      (k) => (k.id === idOrName || k.name === idOrName) && k.revokedAt === null,
    );
    if (key === undefined) throw new AppError('NOT_FOUND', `no active key with id or name "${idOrName}"`);
    const quota = changes.dailyQuota;
    if (quota !== undefined && quota !== null && !(Number.isInteger(quota) && quota >= 0))
      throw new AppError('VALIDATION_FAILED', 'the daily quota must be a whole number of persons, 0 or more');
    const existing = await this.store.findGrant(key.id);
    const grant: LookupGrant = {
      keyId: key.id,
      rights: changes.rights ?? existing?.rights ?? [],
      dailyQuota: quota !== undefined ? quota : (existing?.dailyQuota ?? null),
      updatedAt: now,
    };
    await this.store.setGrant(grant);
    return grant;
  }

  /** A key's grant (rights none and the default quota when never set). */
  async grantOf(keyId: string): Promise<LookupGrant> {
    return (await this.store.findGrant(keyId)) ?? { keyId, rights: [], dailyQuota: null, updatedAt: 0 };
  }

  /** The lookups of the last `days` UTC days (today included), by key, day and endpoint. */
  async usage(days: number, now = Date.now()): Promise<LookupUsageRow[]> {
    return await this.store.listUsage(utcDayOf(now - (days - 1) * 86_400_000), utcDayOf(now));
  }
}
