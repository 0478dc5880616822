import { PlatformError } from '../../domain/ports/platform-error.ts';

/** The Graph API's error body: `{error:{message,type,code,error_subcode,fbtrace_id}}`. */
export interface GraphErrorBody {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  fbtrace_id?: string;
}

/** Code 105: too many parameters. The adapter splits the batch and retries once. */
export const TOO_MANY_PARAMETERS = 105;

/** Without any hint from the platform, a throttled call waits this long. */
export const DEFAULT_THROTTLE_WAIT_MS = 60_000;

const RETRY_CODES = new Set([1, 2, 2650]);
const THROTTLE_CODES = new Set([4, 17, 613, 80003, 80004]);

/**
 * Classifies a failed Graph call by the error table of platforms.md. `waitMs` is what the
 * platform asked for (Retry-After, usage headers), used for throttles. The message is written for
 * the client; the platform's own message goes nowhere (it can quote request values) except the
 * code, subcode and trace id.
 */
export function classifyGraphError(
  httpStatus: number,
  body: GraphErrorBody | null,
  context: { adAccountId: string | null; waitMs: number | null },
): PlatformError {
  const code = typeof body?.code === 'number' ? body.code : null;
  const subcode = typeof body?.error_subcode === 'number' ? body.error_subcode : null;
  const details = {
    code,
    subcode,
    traceId: typeof body?.fbtrace_id === 'string' ? body.fbtrace_id : null,
    httpStatus,
  };
  const ref = code === null ? `HTTP ${httpStatus}` : `code ${code}${subcode === null ? '' : `/${subcode}`}`;
  const account = context.adAccountId === null ? 'the ad account' : `ad account act_${context.adAccountId}`;
  if ((code !== null && THROTTLE_CODES.has(code)) || (code === null && httpStatus === 429)) {
    return new PlatformError(
      'throttle',
      `The social platform is rate-limiting our calls (${ref}); the upload resumes when it allows.`,
      { ...details, waitMs: context.waitMs ?? DEFAULT_THROTTLE_WAIT_MS },
    );
  }
  if (code !== null && RETRY_CODES.has(code)) {
    return new PlatformError(
      'retry',
      `The social platform had a temporary problem (${ref}); we will retry.`,
      context.waitMs === null ? details : { ...details, waitMs: context.waitMs },
    );
  }
  const fatal = (message: string) => new PlatformError('fatal', message, details);
  if (code === 190) {
    return fatal(
      `The social platform rejected the operator's access token (${ref}); the operator must issue a new system user token.`,
    );
  }
  if (code === 10 || code === 294 || (code !== null && code >= 200 && code <= 299)) {
    return fatal(
      `The operator's system user lacks permission for this on ${account} (${ref}); the ad account's business must grant it access (ads_management) and then the onboarding can be repeated.`,
    );
  }
  if (code === 2655) {
    return fatal(
      `The business of ${account} has not accepted the social platform's custom audience terms (${ref}); accept them in Business Manager, then repeat the onboarding.`,
    );
  }
  if (code === 100 && subcode === 33) {
    return fatal(
      `${capitalize(account)} (or the audience) does not exist or the operator's system user has no access to it (${ref}).`,
    );
  }
  if (code === 100 && subcode === 1713230) {
    return fatal(`The social platform flagged this audience in its policy review (${ref}).`);
  }
  if (code === 368) {
    return fatal(`The social platform blocked this action as against its policies (${ref}).`);
  }
  if (code === 1487301) {
    return fatal(`The audience is not available: it was deleted or is not shared with ${account} (${ref}).`);
  }
  if (code === TOO_MANY_PARAMETERS) {
    return fatal(`The social platform refused a batch as too large even after splitting it (${ref}).`);
  }
  if (code === 2635) {
    return fatal(
      `The social platform has retired the API version we call (${ref}); the operator must set a current META_API_VERSION.`,
    );
  }
  if (code === 100) return fatal(`The social platform rejected a request parameter (${ref}).`);
  // Unlisted: a server-side fault is worth retrying; anything else is a refusal.
  if (httpStatus >= 500 || httpStatus === 0) {
    return new PlatformError(
      'retry',
      `The social platform is unavailable (${ref}); we will retry.`,
      context.waitMs === null ? details : { ...details, waitMs: context.waitMs },
    );
  }
  return fatal(`The social platform refused the request (${ref}).`);
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
