import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../adapters/rate-limit/memory-rate-limiter.ts';
import { AppError } from '../errors.ts';
import type { LookupStore } from '../ports/lookup-store.ts';
import { LookupAccess } from './lookup-access.ts';
import { type LookupGrant, type LookupUsageRow, parseLookupRights } from './lookup-rights.ts';

/** The store in memory, as the SQL store behaves. */
class MemoryLookupStore implements LookupStore {
  grants = new Map<string, LookupGrant>();
  usage = new Map<string, LookupUsageRow>();
  async findGrant(keyId: string) {
    return this.grants.get(keyId) ?? null;
  }
  async setGrant(grant: LookupGrant) {
    this.grants.set(grant.keyId, grant);
  }
  async addUsage(rows: readonly LookupUsageRow[]) {
    for (const row of rows) {
      const at = `${row.keyId}|${row.day}|${row.right}`;
      const seen = this.usage.get(at);
      this.usage.set(
        at,
        seen === undefined
          ? { ...row }
          : { ...seen, requests: seen.requests + row.requests, persons: seen.persons + row.persons },
      );
    }
  }
  async personsOn(keyId: string, day: string) {
    return [...this.usage.values()]
      .filter((r) => r.keyId === keyId && r.day === day)
      .reduce((sum, r) => sum + r.persons, 0);
  }
  async listUsage(from: string, to: string) {
    return [...this.usage.values()].filter((r) => r.day >= from && r.day <= to);
  }
}

const NOON = Date.parse('2026-03-01T12:00:00Z');
const refused = async (promise: Promise<unknown>, code: string): Promise<AppError> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError && error.code === code, String(error));
    return error;
  }
  assert.fail(`expected ${code}`);
};

describe('lookup access: rights, rate limit, daily quota, counts', () => {
  const setup = async (grant: Partial<LookupGrant> = {}, settings = {}) => {
    const store = new MemoryLookupStore();
    await store.setGrant({
      keyId: 'k',
      rights: ['registration_check'],
      dailyQuota: null,
      updatedAt: 0,
      ...grant,
    });
    return {
      store,
      access: new LookupAccess(store, new MemoryRateLimiter(), { flushMs: 60_000, ...settings }),
    };
  };

  it('a key needs the endpoint right; a key with no grant has none', async () => {
    const { access } = await setup();
    await access.admit('k', 'registration_check', 1, NOON);
    const error = await refused(access.admit('k', 'phone_search', 1, NOON), 'FORBIDDEN');
    assert.match(error.message, /may not use \/person\/phone-search/);
    await refused(access.admit('other', 'registration_check', 1, NOON), 'FORBIDDEN');
  });

  it('a revoked right stops within the grant cache (2 s)', async () => {
    const { store, access } = await setup();
    await access.admit('k', 'registration_check', 1, NOON);
    await store.setGrant({ keyId: 'k', rights: [], dailyQuota: null, updatedAt: 1 });
    await access.admit('k', 'registration_check', 1, NOON + 1000);
    await refused(access.admit('k', 'registration_check', 1, NOON + 2500), 'FORBIDDEN');
  });

  it('rate limit per key: a burst of requestsPerSecond, then Retry-After', async () => {
    const { access } = await setup({}, { requestsPerSecond: 3 });
    for (let i = 0; i < 3; i++) await access.admit('k', 'registration_check', 1, NOON);
    const error = await refused(access.admit('k', 'registration_check', 1, NOON), 'RATE_LIMITED');
    assert.equal(error.retryAfterSeconds, 1);
    await access.admit('k', 'registration_check', 1, NOON + 400);
  });

  it('daily quota of persons, the key own or the default; resets at UTC midnight; refusals are not counted', async () => {
    const { store, access } = await setup(
      { rights: ['phone_search'], dailyQuota: 10 },
      { requestsPerSecond: 1000 },
    );
    await access.admit('k', 'phone_search', 8, NOON);
    const error = await refused(access.admit('k', 'phone_search', 3, NOON), 'RATE_LIMITED');
    assert.match(error.message, /daily quota of 10 persons looked up is spent \(8 today\)/);
    assert.equal(error.retryAfterSeconds, 12 * 3600);
    await access.admit('k', 'phone_search', 2, NOON);
    await access.flush();
    assert.equal(await store.personsOn('k', '2026-03-01'), 10);
    await access.admit('k', 'phone_search', 10, NOON + 12 * 3600_000);
    const defaulted = new LookupAccess(store, new MemoryRateLimiter(), { dailyQuota: 1 });
    await store.setGrant({ keyId: 'd', rights: ['phone_search'], dailyQuota: null, updatedAt: 0 });
    await defaulted.admit('d', 'phone_search', 1, NOON);
    await refused(defaulted.admit('d', 'phone_search', 1, NOON), 'RATE_LIMITED');
    await defaulted.close();
  });

  it('the quota holds across processes: each counts what the store holds', async () => {
    const { store } = await setup({ rights: ['phone_search'], dailyQuota: 5 });
    const a = new LookupAccess(store, new MemoryRateLimiter(), { flushMs: 60_000 });
    const b = new LookupAccess(store, new MemoryRateLimiter(), { flushMs: 60_000 });
    await a.admit('k', 'phone_search', 4, NOON);
    await a.flush();
    await refused(b.admit('k', 'phone_search', 2, NOON), 'RATE_LIMITED');
    await b.admit('k', 'phone_search', 1, NOON);
  });

  it('counts requests and persons per key, day and endpoint; a failed write is kept for the next flush', async () => {
    const { store, access } = await setup({ rights: ['phone_search', 'registration_check'] });
    await access.admit('k', 'phone_search', 500, NOON);
    await access.admit('k', 'phone_search', 2, NOON);
    await access.admit('k', 'registration_check', 1, NOON);
    const add = store.addUsage.bind(store);
    store.addUsage = async () => {
      throw new Error('database away');
    };
    await assert.rejects(access.flush(), /database away/);
    store.addUsage = add;
    await access.flush();
    assert.deepEqual(await store.listUsage('2026-03-01', '2026-03-01'), [
      { keyId: 'k', day: '2026-03-01', right: 'phone_search', requests: 2, persons: 502 },
      { keyId: 'k', day: '2026-03-01', right: 'registration_check', requests: 1, persons: 1 },
    ]);
  });

  it('parses rights as the CLI takes them', () => {
    assert.deepEqual(parseLookupRights('phone-search, registration_check'), [
      'phone_search',
      'registration_check',
    ]);
    assert.equal(parseLookupRights('all').length, 5);
    assert.deepEqual(parseLookupRights('none'), []);
    assert.throws(() => parseLookupRights('ssn_search'), /unknown lookup right/);
  });
});
