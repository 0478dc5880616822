import { isPlatformError, type PlatformError } from './ports/platform-error.ts';

/**
 * The one application error. `code` is a closed set; each code has a public error kind of the
 * wire contract (below), src/http/error-mapping.ts maps it to an HTTP status, and publicMessage
 * writes the text a client reads ("Validation Error: …"), in an HTTP answer or a job's `error`.
 * `message` must be safe to show a client: no row contents, keys, tokens or paths.
 */
export const errorCodes = [
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'URL_INVALID',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'STORAGE_FULL',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Seconds the client should wait, for RATE_LIMITED. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** The error kinds of the wire contract: every public error text starts with one of them. */
export type ErrorKind = 'Validation Error' | 'Authorization Error' | 'Rate Limit Error' | 'Internal Error';

const KINDS: Readonly<Record<ErrorCode, ErrorKind>> = {
  VALIDATION_FAILED: 'Validation Error',
  UNAUTHORIZED: 'Authorization Error',
  FORBIDDEN: 'Authorization Error',
  URL_INVALID: 'Authorization Error',
  NOT_FOUND: 'Validation Error',
  METHOD_NOT_ALLOWED: 'Validation Error',
  CONFLICT: 'Validation Error',
  PAYLOAD_TOO_LARGE: 'Validation Error',
  REQUEST_TIMEOUT: 'Validation Error',
  RATE_LIMITED: 'Rate Limit Error',
  UNAVAILABLE: 'Internal Error',
  // The disk or quota under the blob store or the database: the service's fault, so no client
  // is told to fix or resend anything.
  STORAGE_FULL: 'Internal Error',
  INTERNAL: 'Internal Error',
};

/** The public error kind of a code. */
export const errorKind = (code: ErrorCode): ErrorKind => KINDS[code];

/** What publicMessage says of an error that is neither an AppError nor a platform's. */
export const UNEXPECTED_MESSAGE = 'the service failed unexpectedly';

/**
 * The one place that writes a public error text, "<kind>: <message>": the `error` of an HTTP
 * answer and the stored `error` of a failed or expired job (which poll and notices repeat).
 * An AppError by its code's kind; an ad platform's refusal of an onboarding job as a
 * `Platform Error`; anything else (a bug, a driver's error, whose message may hold paths or rows)
 * says nothing of itself: callers that know more (a request id, a job id) pass an INTERNAL
 * AppError instead.
 */
export function publicMessage(error: AppError | PlatformError | unknown): string {
  if (isAppError(error)) return `${errorKind(error.code)}: ${error.message}`;
  if (isPlatformError(error)) return `Platform Error: ${error.message}`;
  return `${errorKind('INTERNAL')}: ${UNEXPECTED_MESSAGE}`;
}

/** The message of STORAGE_FULL: the service's fault, never the client's (a retry later may work). */
export const STORAGE_FULL_MESSAGE = "the service's storage is full";

/**
 * True when `error` (or one of its causes) says the disk or the quota is full: ENOSPC or EDQUOT
 * from the file system, SQLITE_FULL (13, also as the base of an extended code) from node:sqlite,
 * SQLSTATE 53100 (disk_full) from PostgreSQL.
 */
export function isStorageFull(error: unknown): boolean {
  let current = error;
  // Causes are followed a few levels deep: adapters wrap driver errors once or twice.
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (isAppError(current) && current.code === 'STORAGE_FULL') return true;
    const { code, errcode } = current as { code?: unknown; errcode?: unknown };
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === '53100') return true;
    if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && (errcode & 0xff) === 13) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** `error` as STORAGE_FULL when it says the storage is full (see isStorageFull), else unchanged. */
export function storageFullOr(error: unknown): unknown {
  if (!isStorageFull(error) || (isAppError(error) && error.code === 'STORAGE_FULL')) return error;
  return new AppError('STORAGE_FULL', STORAGE_FULL_MESSAGE, { cause: error });
}
