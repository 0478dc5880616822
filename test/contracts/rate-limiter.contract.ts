import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RateLimiter, RateRule } from '../../src/domain/ports/rate-limiter.ts';

/** What the rate-limiter suite needs of a backend: fresh limiters with no buckets for each test. */
export interface RateLimiterBackend {
  limiter: RateLimiter;
  /**
   * Another limiter instance: in another api process (its own connections) for a shared backend,
   * or a second instance of an in-process one.
   */
  peer: RateLimiter;
  /** Whether instances share their buckets (a limit holds across all api processes). */
  shared: boolean;
  close(): Promise<void>;
}

/** A start time far from 0. */
const T = 1_700_000_000_000;
const ALLOWED = { allowed: true, retryAfterMs: 0 };
const refused = (retryAfterMs: number) => ({ allowed: false, retryAfterMs });

/**
 * The RateLimiter contract: GCRA, `limit` requests per `windowMs` as a burst and as the sustained
 * rate, refusals not counted, the wait until the next slot in whole milliseconds.
 */
export function rateLimiterContract(backend: string, open: () => Promise<RateLimiterBackend>): void {
  describe(`RateLimiter contract: ${backend}`, () => {
    let b: RateLimiterBackend;
    let limiter: RateLimiter;

    beforeEach(async () => {
      b = await open();
      limiter = b.limiter;
    });

    afterEach(() => b.close());

    describe('burst', () => {
      const threePerMinute: RateRule = { limit: 3, windowMs: 60_000 };

      it('allows `limit` requests at once, then refuses with the wait until the next slot', async () => {
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), refused(20_000));
      });

      it('does not count refused requests, and frees one slot per windowMs/limit', async () => {
        for (let i = 0; i < 3; i++) await limiter.consume('k', threePerMinute, T);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T + 5_000), refused(15_000));
        assert.deepEqual(await limiter.consume('k', threePerMinute, T + 19_999), refused(1));
        assert.deepEqual(await limiter.consume('k', threePerMinute, T + 20_000), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T + 20_000), refused(20_000));
      });

      it('refills the whole burst after a full window of rest', async () => {
        for (let i = 0; i < 3; i++) await limiter.consume('k', threePerMinute, T);
        for (let i = 0; i < 3; i++)
          assert.deepEqual(await limiter.consume('k', threePerMinute, T + 60_000), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T + 60_000), refused(20_000));
      });

      it('rounds a fractional wait up to whole milliseconds, keeping the fraction in the schedule', async () => {
        const rule: RateRule = { limit: 3, windowMs: 1_000 };
        for (let i = 0; i < 3; i++) await limiter.consume('k', rule, T);
        assert.deepEqual(await limiter.consume('k', rule, T), refused(334));
        assert.deepEqual(await limiter.consume('k', rule, T + 100), refused(234));
        // The next slot is at T + 333.33…: allowed at 334, and the one after at 666.67….
        assert.deepEqual(await limiter.consume('k', rule, T + 333), refused(1));
        assert.deepEqual(await limiter.consume('k', rule, T + 334), ALLOWED);
        assert.deepEqual(await limiter.consume('k', rule, T + 400), refused(267));
      });
    });

    describe('one request per 30 s with 2 s tolerance', () => {
      const poll: RateRule = { limit: 1, windowMs: 30_000, toleranceMs: 2_000 };

      it('allows the second request 28 s after the first', async () => {
        assert.deepEqual(await limiter.consume('poll', poll, T), ALLOWED);
        assert.deepEqual(await limiter.consume('poll', poll, T + 28_000), ALLOWED);
      });

      it('refuses the second request 27 s after the first, with 1 s to wait', async () => {
        assert.deepEqual(await limiter.consume('poll', poll, T), ALLOWED);
        assert.deepEqual(await limiter.consume('poll', poll, T + 27_000), refused(1_000));
        assert.deepEqual(await limiter.consume('poll', poll, T + 28_000), ALLOWED);
      });

      it('refuses an immediate repeat with 28 s to wait', async () => {
        await limiter.consume('poll', poll, T);
        assert.deepEqual(await limiter.consume('poll', poll, T), refused(28_000));
      });

      it('allows a client polling on an exact 30 s timer every time', async () => {
        for (let i = 0; i < 20; i++)
          assert.deepEqual(await limiter.consume('poll', poll, T + i * 30_000), ALLOWED);
      });

      it('without tolerance, refuses at 29.999 s', async () => {
        const strict: RateRule = { limit: 1, windowMs: 30_000 };
        await limiter.consume('poll', strict, T);
        assert.deepEqual(await limiter.consume('poll', strict, T + 29_999), refused(1));
        assert.deepEqual(await limiter.consume('poll', strict, T + 30_000), ALLOWED);
      });
    });

    describe('buckets', () => {
      const one: RateRule = { limit: 1, windowMs: 60_000 };

      it('keeps buckets independent', async () => {
        assert.deepEqual(await limiter.consume('a', one, T), ALLOWED);
        assert.deepEqual(await limiter.consume('a', one, T), refused(60_000));
        assert.deepEqual(await limiter.consume('b', one, T), ALLOWED);
        assert.deepEqual(await limiter.consume('b', one, T + 1), refused(59_999));
        assert.deepEqual(await limiter.consume('a', one, T + 1), refused(59_999));
      });

      it('tells bucket names apart exactly (case, spaces, separators)', async () => {
        for (const bucket of [
          'poll:key_A:list',
          'poll:key_A:List',
          'poll:key_A:list ',
          'poll:key_A:list.csv',
        ]) {
          assert.deepEqual(await limiter.consume(bucket, one, T), ALLOWED, bucket);
        }
        assert.deepEqual(await limiter.consume('poll:key_A:List', one, T), refused(60_000));
      });

      it('gives a bucket at rest its whole burst again, however long it rested', async () => {
        const rule: RateRule = { limit: 2, windowMs: 1_000 };
        await limiter.consume('k', rule, T);
        await limiter.consume('k', rule, T);
        const later = T + 400 * 86_400_000;
        assert.deepEqual(await limiter.consume('k', rule, later), ALLOWED);
        assert.deepEqual(await limiter.consume('k', rule, later), ALLOWED);
        assert.deepEqual(await limiter.consume('k', rule, later), refused(500));
      });

      it('uses its own clock when no time is given', async () => {
        const rule: RateRule = { limit: 2, windowMs: 60_000 };
        assert.deepEqual(await limiter.consume('clock', rule), ALLOWED);
        assert.deepEqual(await limiter.consume('clock', rule), ALLOWED);
        const third = await limiter.consume('clock', rule);
        assert.equal(third.allowed, false);
        // Two slots of 30 s were taken just now: the next frees within 30 s, not much sooner.
        assert.ok(third.retryAfterMs > 25_000 && third.retryAfterMs <= 30_000, String(third.retryAfterMs));
      });
    });

    describe('instances', () => {
      const threePerMinute: RateRule = { limit: 3, windowMs: 60_000 };

      it('holds a limit across instances exactly when the backend is shared', async () => {
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await b.peer.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
        assert.deepEqual(await b.peer.consume('k', threePerMinute, T), b.shared ? refused(20_000) : ALLOWED);
        assert.deepEqual(await limiter.consume('k', threePerMinute, T), b.shared ? refused(20_000) : ALLOWED);
      });

      it('allows exactly `limit` of many simultaneous requests of one bucket', async () => {
        const rule: RateRule = { limit: 10, windowMs: 60_000 };
        const decisions = await Promise.all(
          Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? limiter : b.peer).consume('burst', rule, T)),
        );
        const allowed = decisions.filter((d) => d.allowed).length;
        // Shared: one limit for both instances; otherwise each instance has its own.
        assert.equal(allowed, b.shared ? 10 : 20);
        for (const decision of decisions.filter((d) => !d.allowed))
          assert.equal(decision.retryAfterMs, 6_000);
      });
    });
  });
}
