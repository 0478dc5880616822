import { AppError } from '../errors.ts';
import type { RateLimiter, RateRule } from '../ports/rate-limiter.ts';

export interface RateLimitSettings {
  registerPerMinute: number;
  onboardingPerMinute: number;
  pollSeconds: number;
  pollToleranceSeconds: number;
}

/** The per-key limits of the contract; each check throws RATE_LIMITED with the wait in the message. */
export class RateLimits {
  private readonly limiter: RateLimiter;
  private readonly register: RateRule;
  private readonly onboarding: RateRule;
  private readonly poll: RateRule | null;
  private readonly pollSeconds: number;

  constructor(limiter: RateLimiter, settings: RateLimitSettings) {
    this.limiter = limiter;
    this.register = { limit: settings.registerPerMinute, windowMs: 60_000 };
    this.onboarding = { limit: settings.onboardingPerMinute, windowMs: 60_000 };
    this.pollSeconds = settings.pollSeconds;
    this.poll =
      settings.pollSeconds > 0
        ? {
            limit: 1,
            windowMs: settings.pollSeconds * 1000,
            toleranceMs: settings.pollToleranceSeconds * 1000,
          }
        : null;
  }

  async checkRegistration(keyId: string): Promise<void> {
    await this.check(
      `register:${keyId}`,
      this.register,
      `at most ${this.register.limit} registrations per minute per key`,
    );
  }

  async checkOnboarding(keyId: string): Promise<void> {
    await this.check(
      `onboard:${keyId}`,
      this.onboarding,
      `at most ${this.onboarding.limit} onboarding request(s) per minute per key`,
    );
  }

  async checkPoll(keyId: string, filename: string): Promise<void> {
    if (this.poll === null) return;
    await this.check(
      `poll:${keyId}:${filename}`,
      this.poll,
      `poll each filename at most once every ${this.pollSeconds} seconds`,
    );
  }

  private async check(bucket: string, rule: RateRule, what: string): Promise<void> {
    const decision = await this.limiter.consume(bucket, rule);
    if (decision.allowed) return;
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new AppError('RATE_LIMITED', `${what}; retry in ${seconds} s`, { retryAfterSeconds: seconds });
  }
}
