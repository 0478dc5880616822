export interface RateRule {
  /** Requests allowed per window, as a burst and as the sustained rate. */
  limit: number;
  windowMs: number;
  /** Extra slack for clients whose timers fire a little early. */
  toleranceMs?: number;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: milliseconds until the next request would be allowed. */
  retryAfterMs: number;
}

/** Per-bucket rate limiting. Backends: in memory (embedded), PostgreSQL (shared by all api processes). */
export interface RateLimiter {
  consume(bucket: string, rule: RateRule, now?: number): Promise<RateDecision>;
}
