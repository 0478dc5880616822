import type { ErrorCode } from '../domain/errors.ts';

/** The error kinds of the wire contract: every error string starts with one of them. */
type ErrorKind = 'Authorization Error' | 'Validation Error' | 'Rate Limit Error' | 'Internal Error';

/** The one place that maps application error codes to HTTP status and public error kind. */
export function mapErrorCode(code: ErrorCode): { status: number; kind: ErrorKind } {
  switch (code) {
    case 'VALIDATION_FAILED':
      return { status: 400, kind: 'Validation Error' };
    case 'UNAUTHORIZED':
      return { status: 401, kind: 'Authorization Error' };
    case 'FORBIDDEN':
    case 'URL_INVALID':
      return { status: 403, kind: 'Authorization Error' };
    case 'NOT_FOUND':
      return { status: 404, kind: 'Validation Error' };
    case 'METHOD_NOT_ALLOWED':
      return { status: 405, kind: 'Validation Error' };
    case 'CONFLICT':
      return { status: 409, kind: 'Validation Error' };
    case 'PAYLOAD_TOO_LARGE':
      return { status: 413, kind: 'Validation Error' };
    case 'REQUEST_TIMEOUT':
      return { status: 408, kind: 'Validation Error' };
    case 'RATE_LIMITED':
      return { status: 429, kind: 'Rate Limit Error' };
    case 'UNAVAILABLE':
      return { status: 503, kind: 'Internal Error' };
    // The disk or quota under the blob store or the database: the service's fault, so no client
    // is told to fix or resend anything; the same request may work once the operator made room.
    case 'STORAGE_FULL':
    case 'INTERNAL':
      return { status: 500, kind: 'Internal Error' };
  }
}

/** Maps the status of a framework error (body parsing, limits) to a kind. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'Authorization Error';
  if (status === 429) return 'Rate Limit Error';
  if (status >= 500) return 'Internal Error';
  return 'Validation Error';
}
