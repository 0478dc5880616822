import { AppError, type ErrorCode, isAppError, publicMessage } from '../domain/errors.ts';

/** The one place that maps application error codes to HTTP status (the kind is the code's, errors.ts). */
function statusOf(code: ErrorCode): number {
  switch (code) {
    case 'VALIDATION_FAILED':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
    case 'URL_INVALID':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'METHOD_NOT_ALLOWED':
      return 405;
    case 'CONFLICT':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'REQUEST_TIMEOUT':
      return 408;
    case 'RATE_LIMITED':
      return 429;
    case 'UNAVAILABLE':
      return 503;
    // The disk or quota under the blob store or the database: the service's fault; the same
    // request may work once the operator made room.
    case 'STORAGE_FULL':
    case 'INTERNAL':
      return 500;
  }
}

/** The code whose kind a framework error (body parsing, limits) of this status has. */
function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 429) return 'RATE_LIMITED';
  if (status >= 500) return 'INTERNAL';
  return 'VALIDATION_FAILED';
}

/**
 * A failed request's answer: status, the body's `error` (publicMessage) and `code`. An AppError
 * as its code says; a framework's 4xx error (body parsing, limits) by its status; anything else
 * is a 500 that names only the request (the error itself goes to the log).
 */
export function errorAnswer(
  error: unknown,
  requestId: string,
): { status: number; error: string; code: string } {
  if (isAppError(error)) {
    return { status: statusOf(error.code), error: publicMessage(error), code: error.code };
  }
  const { statusCode, code, message } = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return {
      status: statusCode,
      error: publicMessage(new AppError(codeForStatus(statusCode), String(message))),
      code: typeof code === 'string' ? code : 'BAD_REQUEST',
    };
  }
  return {
    status: 500,
    error: publicMessage(new AppError('INTERNAL', `the request failed; quote ${requestId} to the operator`)),
    code: 'INTERNAL',
  };
}

/** The answer to a request Node's HTTP parser or the router refused before any handler ran. */
export function refusedRequestError(text: string): string {
  return publicMessage(new AppError('VALIDATION_FAILED', text));
}
