/**
 * What a job should do after an ad platform refused or failed a call:
 * - `retry`: a transient fault; run the step again with backoff.
 * - `throttle`: the platform asked us to slow down; run it again after at least `waitMs`.
 * - `fatal`: retrying cannot help; fail the job and tell the client `message`.
 */
export type PlatformErrorKind = 'retry' | 'throttle' | 'fatal';

/**
 * An ad platform's error, classified. `message` is written for the client (status e-mails, the
 * job's error): it never holds tokens, hashes, rows or the platform's invalid-entry samples. The
 * platform's own code, subcode and trace id are kept for the operator's logs.
 */
export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  /** Least time to wait before trying again, for `throttle` (and a hint for `retry`). */
  readonly waitMs: number | undefined;
  /** The platform's error code (`null` for transport faults and protocol anomalies). */
  readonly code: number | null;
  readonly subcode: number | null;
  /** The platform's request id for support tickets (safe to log). */
  readonly traceId: string | null;
  readonly httpStatus: number | null;

  constructor(
    kind: PlatformErrorKind,
    message: string,
    details: {
      waitMs?: number;
      code?: number | null;
      subcode?: number | null;
      traceId?: string | null;
      httpStatus?: number | null;
      cause?: unknown;
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PlatformError';
    this.kind = kind;
    this.waitMs = details.waitMs;
    this.code = details.code ?? null;
    this.subcode = details.subcode ?? null;
    this.traceId = details.traceId ?? null;
    this.httpStatus = details.httpStatus ?? null;
  }
}

export const isPlatformError = (error: unknown): error is PlatformError => error instanceof PlatformError;
