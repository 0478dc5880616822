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
