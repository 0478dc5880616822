import { isPlatformError } from '../ports/file-drop-audiences.ts';

/** What an onboarding job does after a failed platform call. */
export type PlatformFailureDecision =
  /** Try again no sooner than `delayMs` (the job's backoff, or longer when the platform asked). */
  | { action: 'retry'; delayMs: number; reason: string }
  /** Give up now: `reason` is client-readable, for the job's error and the status e-mail. */
  | { action: 'fail'; reason: string };

/**
 * Turns a failure into a decision for the job: `fatal` fails at once (retrying a refused token or
 * a rejected file only delays the bad news); `throttle` and `retry` wait the job's backoff or the
 * platform's Retry-After, whichever is longer; on the last attempt everything fails with its
 * reason. Errors that are not PlatformErrors are bugs or local trouble: retried, with a generic
 * reason (their message may hold anything).
 */
export function decidePlatformFailure(
  error: unknown,
  context: { attempt: number; isFinalAttempt: boolean; backoffMs: (attempt: number) => number },
): PlatformFailureDecision {
  if (!isPlatformError(error)) {
    const reason = 'an internal error interrupted the audience upload';
    return context.isFinalAttempt
      ? { action: 'fail', reason }
      : { action: 'retry', delayMs: context.backoffMs(context.attempt), reason };
  }
  if (error.kind === 'fatal' || context.isFinalAttempt) return { action: 'fail', reason: error.message };
  const delayMs = Math.max(context.backoffMs(context.attempt), error.retryAfterMs ?? 0);
  return { action: 'retry', delayMs, reason: error.message };
}
