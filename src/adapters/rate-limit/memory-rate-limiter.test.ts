import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RateRule } from '../../domain/ports/rate-limiter.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';

/** A start time far from 0, so the first call also runs the sweep. */
const T = 1_700_000_000_000;
const ALLOWED = { allowed: true, retryAfterMs: 0 };
const refused = (retryAfterMs: number) => ({ allowed: false, retryAfterMs });

describe('MemoryRateLimiter burst', () => {
  const threePerMinute: RateRule = { limit: 3, windowMs: 60_000 };

  it('allows `limit` requests at once, then refuses with the wait until the next slot', async () => {
    const limiter = new MemoryRateLimiter();
    assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T), ALLOWED);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T), refused(20_000));
  });

  it('does not count refused requests, and frees one slot per windowMs/limit', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 3; i++) await limiter.consume('k', threePerMinute, T);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T + 5_000), refused(15_000));
    assert.deepEqual(await limiter.consume('k', threePerMinute, T + 19_999), refused(1));
    assert.deepEqual(await limiter.consume('k', threePerMinute, T + 20_000), ALLOWED);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T + 20_000), refused(20_000));
  });

  it('refills the whole burst after a full window of rest', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 3; i++) await limiter.consume('k', threePerMinute, T);
    for (let i = 0; i < 3; i++)
      assert.deepEqual(await limiter.consume('k', threePerMinute, T + 60_000), ALLOWED);
    assert.deepEqual(await limiter.consume('k', threePerMinute, T + 60_000), refused(20_000));
  });

  it('rounds a fractional wait up to whole milliseconds', async () => {
    const limiter = new MemoryRateLimiter();
    const rule: RateRule = { limit: 3, windowMs: 1_000 };
    for (let i = 0; i < 3; i++) await limiter.consume('k', rule, T);
    assert.deepEqual(await limiter.consume('k', rule, T), refused(334));
  });
});

describe('MemoryRateLimiter one request per 30 s with 2 s tolerance', () => {
  const poll: RateRule = { limit: 1, windowMs: 30_000, toleranceMs: 2_000 };

  it('allows the second request 28 s after the first', async () => {
    const limiter = new MemoryRateLimiter();
    assert.deepEqual(await limiter.consume('poll', poll, T), ALLOWED);
    assert.deepEqual(await limiter.consume('poll', poll, T + 28_000), ALLOWED);
  });

  it('refuses the second request 27 s after the first, with 1 s to wait', async () => {
    const limiter = new MemoryRateLimiter();
    assert.deepEqual(await limiter.consume('poll', poll, T), ALLOWED);
    assert.deepEqual(await limiter.consume('poll', poll, T + 27_000), refused(1_000));
    assert.deepEqual(await limiter.consume('poll', poll, T + 28_000), ALLOWED);
  });

  it('refuses an immediate repeat with 28 s to wait', async () => {
    const limiter = new MemoryRateLimiter();
    await limiter.consume('poll', poll, T);
    assert.deepEqual(await limiter.consume('poll', poll, T), refused(28_000));
  });

  it('allows a client polling on an exact 30 s timer every time', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 20; i++)
      assert.deepEqual(await limiter.consume('poll', poll, T + i * 30_000), ALLOWED);
  });

  it('without tolerance, refuses at 29.999 s', async () => {
    const limiter = new MemoryRateLimiter();
    const strict: RateRule = { limit: 1, windowMs: 30_000 };
    await limiter.consume('poll', strict, T);
    assert.deepEqual(await limiter.consume('poll', strict, T + 29_999), refused(1));
    assert.deepEqual(await limiter.consume('poll', strict, T + 30_000), ALLOWED);
  });
});

describe('MemoryRateLimiter buckets', () => {
  const one: RateRule = { limit: 1, windowMs: 60_000 };

  it('keeps buckets independent', async () => {
    const limiter = new MemoryRateLimiter();
    assert.deepEqual(await limiter.consume('a', one, T), ALLOWED);
    assert.deepEqual(await limiter.consume('a', one, T), refused(60_000));
    assert.deepEqual(await limiter.consume('b', one, T), ALLOWED);
    assert.deepEqual(await limiter.consume('b', one, T + 1), refused(59_999));
    assert.deepEqual(await limiter.consume('a', one, T + 1), refused(59_999));
  });

  it('keeps limiter instances independent', async () => {
    const first = new MemoryRateLimiter();
    const second = new MemoryRateLimiter();
    await first.consume('a', one, T);
    assert.deepEqual(await second.consume('a', one, T), ALLOWED);
  });

  it('sweeps buckets at rest but not active ones', async () => {
    const limiter = new MemoryRateLimiter();
    const slow: RateRule = { limit: 1, windowMs: 120_000 };
    const fast: RateRule = { limit: 1, windowMs: 1_000 };
    assert.deepEqual(await limiter.consume('active', slow, T), ALLOWED);
    assert.deepEqual(await limiter.consume('idle', fast, T), ALLOWED);
    assert.equal(limiter['arrivals'].size, 2);
    // 61 s later a sweep runs: 'idle' is at rest (its next slot has passed), 'active' is not.
    assert.deepEqual(await limiter.consume('other', fast, T + 61_000), ALLOWED);
    assert.deepEqual([...limiter['arrivals'].keys()].sort(), ['active', 'other']);
    assert.deepEqual(await limiter.consume('active', slow, T + 61_000), refused(59_000));
    assert.deepEqual(await limiter.consume('idle', fast, T + 61_000), ALLOWED);
  });

  it('does not sweep more than once a minute', async () => {
    const limiter = new MemoryRateLimiter();
    const fast: RateRule = { limit: 1, windowMs: 1_000 };
    await limiter.consume('first', fast, T);
    await limiter.consume('second', fast, T + 30_000);
    assert.equal(limiter['arrivals'].size, 2);
    await limiter.consume('third', fast, T + 60_000);
    assert.deepEqual([...limiter['arrivals'].keys()], ['third']);
  });
});
