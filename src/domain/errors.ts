/**
 * The one application error. `code` is a closed set; src/http/error-mapping.ts maps each code to
 * an HTTP status and to the public error kind of the wire contract ("Validation Error: …").
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
