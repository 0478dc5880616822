import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openPgDatabase, type PgDatabase } from '../../../src/adapters/postgres/pg-database.ts';
import { MemoryRateLimiter } from '../../../src/adapters/rate-limit/memory-rate-limiter.ts';
import { PgRateLimiter } from '../../../src/adapters/rate-limit/pg-rate-limiter.ts';
import type { RateRule } from '../../../src/domain/ports/rate-limiter.ts';
import { rateLimiterContract } from '../../contracts/rate-limiter.contract.ts';
import {
  createTestDatabase,
  postgresSuiteSkip,
  requirePostgres,
  type TestDatabase,
} from '../../support/postgres.ts';

// Embedded: in memory, per process.
rateLimiterContract('memory', async () => ({
  limiter: new MemoryRateLimiter(),
  peer: new MemoryRateLimiter(),
  shared: false,
  close: async () => {},
}));

// Skipped, with the reason printed, where PostgreSQL is missing on a developer's machine; under
// CI=true the before() fails every test of the suite instead.
describe('PostgreSQL', { skip: await postgresSuiteSkip() }, () => {
  let testDatabase: TestDatabase;
  let first: PgDatabase;
  let second: PgDatabase;

  before(async () => {
    await requirePostgres();
    testDatabase = await createTestDatabase();
    first = await openPgDatabase(testDatabase.url, { migrate: true });
    // Another api process: its own pool.
    second = await openPgDatabase(testDatabase.url);
  });

  after(async () => {
    await first?.close();
    await second?.close();
    await testDatabase?.drop();
  });

  rateLimiterContract('PostgreSQL', async () => {
    await first.query('TRUNCATE rate_buckets');
    return {
      limiter: new PgRateLimiter(first),
      peer: new PgRateLimiter(second),
      shared: true,
      close: async () => {},
    };
  });

  describe('PgRateLimiter purge', () => {
    const T = 1_700_000_000_000;
    const slow: RateRule = { limit: 1, windowMs: 120_000 };
    const fast: RateRule = { limit: 1, windowMs: 1_000 };
    let limiter: PgRateLimiter;
    const buckets = async () =>
      (await first.query<{ bucket: string }>('SELECT bucket FROM rate_buckets ORDER BY bucket')).rows.map(
        (row) => row.bucket,
      );

    beforeEach(async () => {
      await first.query('TRUNCATE rate_buckets');
      limiter = new PgRateLimiter(first);
    });

    it('deletes buckets at rest but not active ones, and a purged bucket starts afresh', async () => {
      assert.deepEqual(await limiter.consume('active', slow, T), { allowed: true, retryAfterMs: 0 });
      assert.deepEqual(await limiter.consume('idle', fast, T), { allowed: true, retryAfterMs: 0 });
      // 'idle' is at rest from T + 1 s (its next slot has come); 'active' not before T + 120 s.
      assert.equal(await limiter.purgeStale(T + 999), 0);
      assert.equal(await limiter.purgeStale(T + 61_000), 1);
      assert.deepEqual(await buckets(), ['active']);
      assert.deepEqual(await limiter.consume('active', slow, T + 61_000), {
        allowed: false,
        retryAfterMs: 59_000,
      });
      assert.deepEqual(await limiter.consume('idle', fast, T + 61_000), { allowed: true, retryAfterMs: 0 });
    });

    it('uses the database clock when no time is given', async () => {
      await limiter.consume('past', fast, T);
      await limiter.consume('now', fast);
      assert.equal(await limiter.purgeStale(), 1);
      assert.deepEqual(await buckets(), ['now']);
    });

    it('purges periodically until stopped', async (t) => {
      // The interval runs on the mocked clock; each purge it starts is a real DELETE, awaited
      // through the spy on purgeStale.
      t.mock.timers.enable({ apis: ['setInterval'] });
      const purges = t.mock.method(limiter, 'purgeStale');
      const purged = async (call: number) => await purges.mock.calls[call]!.result;
      await limiter.consume('past', fast, T);
      const errors: unknown[] = [];
      const stop = limiter.startPurging({ intervalMs: 20, onError: (error) => errors.push(error) });

      t.mock.timers.tick(19);
      assert.equal(purges.mock.callCount(), 0, 'no purge before the first interval');
      t.mock.timers.tick(1);
      assert.equal(purges.mock.callCount(), 1, 'one purge at the first interval');
      assert.equal(await purged(0), 1);
      assert.deepEqual(await buckets(), []);

      await limiter.consume('past', fast, T);
      t.mock.timers.tick(20);
      assert.equal(purges.mock.callCount(), 2, 'another purge at the next interval');
      assert.equal(await purged(1), 1);
      assert.deepEqual(await buckets(), []);

      await stop();
      await limiter.consume('past', fast, T);
      t.mock.timers.tick(20 * 10);
      assert.equal(purges.mock.callCount(), 2, 'no purge once stopped');
      assert.deepEqual(await buckets(), ['past']);
      assert.deepEqual(errors, []);
    });
  });
});
