import type { RateDecision, RateLimiter, RateRule } from '../../domain/ports/rate-limiter.ts';

/**
 * In-memory GCRA (generic cell rate algorithm): one number per bucket, the theoretical arrival
 * time of the next request. `limit` requests per `windowMs` are allowed as a burst, then one
 * every windowMs/limit. Buckets at rest are swept so memory stays proportional to active clients.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly arrivals = new Map<string, number>();
  private lastSweep = 0;

  async consume(bucket: string, rule: RateRule, now = Date.now()): Promise<RateDecision> {
    this.sweep(now);
    const interval = rule.windowMs / rule.limit;
    const burst = interval * (rule.limit - 1) + (rule.toleranceMs ?? 0);
    const theoretical = Math.max(this.arrivals.get(bucket) ?? now, now);
    const allowedAt = theoretical - burst;
    if (now < allowedAt) return { allowed: false, retryAfterMs: Math.ceil(allowedAt - now) };
    this.arrivals.set(bucket, theoretical + interval);
    return { allowed: true, retryAfterMs: 0 };
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [bucket, theoretical] of this.arrivals) {
      if (theoretical <= now) this.arrivals.delete(bucket);
    }
  }
}
