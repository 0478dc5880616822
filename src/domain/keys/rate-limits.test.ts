import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../adapters/rate-limit/memory-rate-limiter.ts';
import { AppError } from '../errors.ts';
import type { RateDecision, RateLimiter, RateRule } from '../ports/rate-limiter.ts';
import { type RateLimitSettings, RateLimits } from './rate-limits.ts';

const SETTINGS: RateLimitSettings = {
  registerPerMinute: 2,
  onboardingPerMinute: 1,
  pollSeconds: 30,
  pollToleranceSeconds: 2,
};

/** A limiter that records what it was asked and answers with a fixed decision. */
class RecordingLimiter implements RateLimiter {
  readonly calls: { bucket: string; rule: RateRule }[] = [];
  decision: RateDecision = { allowed: true, retryAfterMs: 0 };
  async consume(bucket: string, rule: RateRule): Promise<RateDecision> {
    this.calls.push({ bucket, rule });
    return this.decision;
  }
}

async function assertRateLimited(
  fn: () => Promise<unknown>,
  message: string,
  retryAfterSeconds: number,
): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'RATE_LIMITED');
    assert.equal(error.message, message);
    assert.equal(error.retryAfterSeconds, retryAfterSeconds);
    return true;
  });
}

describe('RateLimits buckets and rules', () => {
  it('asks the limiter with one bucket per key for registrations', async () => {
    const limiter = new RecordingLimiter();
    await new RateLimits(limiter, SETTINGS).checkRegistration('key_A');
    assert.deepEqual(limiter.calls, [{ bucket: 'register:key_A', rule: { limit: 2, windowMs: 60_000 } }]);
  });

  it('asks the limiter with one bucket per key for onboarding', async () => {
    const limiter = new RecordingLimiter();
    await new RateLimits(limiter, SETTINGS).checkOnboarding('key_A');
    assert.deepEqual(limiter.calls, [{ bucket: 'onboard:key_A', rule: { limit: 1, windowMs: 60_000 } }]);
  });

  it('asks the limiter with one bucket per key and filename for polls, with the tolerance', async () => {
    const limiter = new RecordingLimiter();
    await new RateLimits(limiter, SETTINGS).checkPoll('key_A', 'list_1');
    assert.deepEqual(limiter.calls, [
      { bucket: 'poll:key_A:list_1', rule: { limit: 1, windowMs: 30_000, toleranceMs: 2_000 } },
    ]);
  });

  it('does not consult the limiter for polls when pollSeconds is 0', async () => {
    const limiter = new RecordingLimiter();
    limiter.decision = { allowed: false, retryAfterMs: 5_000 };
    const limits = new RateLimits(limiter, { ...SETTINGS, pollSeconds: 0 });
    for (let i = 0; i < 5; i++) await limits.checkPoll('key_A', 'list_1');
    assert.deepEqual(limiter.calls, []);
  });
});

describe('RateLimits refusals', () => {
  const waits: [retryAfterMs: number, seconds: number][] = [
    [0, 1],
    [1, 1],
    [999, 1],
    [1_000, 1],
    [1_001, 2],
    [28_000, 28],
    [59_999, 60],
  ];
  for (const [retryAfterMs, seconds] of waits) {
    it(`turns a wait of ${retryAfterMs} ms into ${seconds} s`, async () => {
      const limiter = new RecordingLimiter();
      limiter.decision = { allowed: false, retryAfterMs };
      await assertRateLimited(
        async () => await new RateLimits(limiter, SETTINGS).checkRegistration('key_A'),
        `at most 2 registrations per minute per key; retry in ${seconds} s`,
        seconds,
      );
    });
  }

  it('names the onboarding limit and the wait', async () => {
    const limiter = new RecordingLimiter();
    limiter.decision = { allowed: false, retryAfterMs: 42_500 };
    await assertRateLimited(
      async () => await new RateLimits(limiter, SETTINGS).checkOnboarding('key_A'),
      'at most 1 onboarding request(s) per minute per key; retry in 43 s',
      43,
    );
  });
});

describe('RateLimits with the in-memory limiter', () => {
  it('allows registerPerMinute registrations, then refuses with about 30 s to wait', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), SETTINGS);
    await limits.checkRegistration('key_A');
    await limits.checkRegistration('key_A');
    await assertRateLimited(
      async () => await limits.checkRegistration('key_A'),
      'at most 2 registrations per minute per key; retry in 30 s',
      30,
    );
    await limits.checkRegistration('key_B');
  });

  it('allows one onboarding request per minute per key', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), SETTINGS);
    await limits.checkOnboarding('key_A');
    await assertRateLimited(
      async () => await limits.checkOnboarding('key_A'),
      'at most 1 onboarding request(s) per minute per key; retry in 60 s',
      60,
    );
    await limits.checkOnboarding('key_B');
  });

  it('refuses a second poll of the same key and filename, naming the 28 s wait', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), SETTINGS);
    await limits.checkPoll('key_A', 'list_1');
    await assertRateLimited(
      async () => await limits.checkPoll('key_A', 'list_1'),
      'poll each filename at most once every 30 seconds; retry in 28 s',
      28,
    );
  });

  it('keeps poll buckets per key and per filename', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), SETTINGS);
    await limits.checkPoll('key_A', 'list_1');
    await limits.checkPoll('key_A', 'list_2');
    await limits.checkPoll('key_B', 'list_1');
    await assert.rejects(async () => await limits.checkPoll('key_B', 'list_1'), { code: 'RATE_LIMITED' });
    await assert.rejects(async () => await limits.checkPoll('key_A', 'list_2'), { code: 'RATE_LIMITED' });
  });

  it('keeps registration, onboarding and poll limits apart', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), { ...SETTINGS, registerPerMinute: 1 });
    await limits.checkRegistration('key_A');
    await limits.checkOnboarding('key_A');
    await limits.checkPoll('key_A', 'key_A');
    await assert.rejects(async () => await limits.checkRegistration('key_A'), { code: 'RATE_LIMITED' });
  });

  it('never refuses polls when pollSeconds is 0', async () => {
    const limits = new RateLimits(new MemoryRateLimiter(), { ...SETTINGS, pollSeconds: 0 });
    for (let i = 0; i < 10; i++) await limits.checkPoll('key_A', 'list_1');
  });
});
