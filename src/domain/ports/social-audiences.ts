import { createHash } from 'node:crypto';
import { IDENTIFIER_KEYS, type IdentifierKey } from '../onboarding/identifiers/identifier-keys.ts';

/**
 * Customer-list audiences on the social platform (platforms.md, "social"). Backend: the Meta
 * Marketing API over HTTPS. Platform failures reject with a `PlatformError` (platform-error.ts)
 * whose `kind` tells the job to retry, wait or fail, and whose message is safe to show the client;
 * a malformed batch throws RangeError (a caller bug); an aborted `signal` rejects with its reason.
 */
export interface SocialAudiences {
  /** The operator's own ad account (digits, without `act_`): where Pattern #1 audiences are made. */
  readonly operatorAdAccountId: string;
  /**
   * Creates an empty customer-list audience in `adAccountId` (digits, `act_` optional) and
   * resolves with its id. Not idempotent: the caller stores the id before its next step.
   */
  createAudience(request: CreateAudienceRequest, signal?: AbortSignal): Promise<{ audienceId: string }>;
  /**
   * The audience of `adAccountId` with exactly this name and description, or null. A job that
   * crashed between creating its audience and recording the id finds it here instead of making a
   * second one (so the description should name the job). Reads at most the account's first
   * `SOCIAL_FIND_MAX_AUDIENCES` audiences, newest first.
   */
  findAudience(
    adAccountId: string,
    name: string,
    description: string,
    signal?: AbortSignal,
  ): Promise<{ audienceId: string } | null>;
  /**
   * Adds one batch of rows (at most `SOCIAL_MAX_BATCH_ROWS`) to the audience within an upload
   * session. Cells are already normalized and hashed by the caller (lowercase hex SHA-256, `""`
   * when unknown; MADID in clear). Resolves with the counts and `nextBatchSeq`, which is where the
   * caller continues (and what it checkpoints): usually `batchSeq + 1`, more when the platform
   * made us split the batch. After a crash, send the batch after the last checkpoint again under
   * its `batchSeq`: audiences are sets, and a `batchSeq` the session has seen is taken as a retry
   * (the contract server models it so; unconfirmed on the live platform).
   */
  addUsers(
    audienceId: string,
    batch: UserBatch,
    session: UploadSession,
    signal?: AbortSignal,
  ): Promise<AddUsersResult>;
  /**
   * Shares the audience with another ad account (digits, `act_` optional) unless it already is:
   * reads the current shares first, so calling it again is harmless.
   */
  shareWith(
    audienceId: string,
    adAccountId: string,
    signal?: AbortSignal,
  ): Promise<{ alreadyShared: boolean }>;
  /** The audience's processing and delivery state, for polling until it is usable. */
  getStatus(audienceId: string, signal?: AbortSignal): Promise<AudienceStatus>;
}

/** Who supplied the identifiers: our voter file (Pattern #1) or the client's own list (Pattern #2). */
export type CustomerFileSource =
  | 'PARTNER_PROVIDED_ONLY'
  | 'USER_PROVIDED_ONLY'
  | 'BOTH_USER_AND_PARTNER_PROVIDED';

export const customerFileSourceOf = (pattern: 1 | 2): CustomerFileSource =>
  pattern === 1 ? 'PARTNER_PROVIDED_ONLY' : 'USER_PROVIDED_ONLY';

export interface CreateAudienceRequest {
  adAccountId: string;
  name: string;
  description: string;
  customerFileSource: CustomerFileSource;
}

/**
 * The identifier keys the platform accepts, in the platform's spelling (the onboarding identifier
 * keys are Meta's schema names). Only MADID is sent in clear.
 */
export const SOCIAL_SCHEMA_KEYS = IDENTIFIER_KEYS;
export type SocialSchemaKey = IdentifierKey;

/** How many of an account's audiences `findAudience` looks through. */
export const SOCIAL_FIND_MAX_AUDIENCES = 10_000;

/** The platform's limit of rows per add-users request. */
export const SOCIAL_MAX_BATCH_ROWS = 10_000;

export interface UserBatch {
  /** Column keys, in the order of each row's cells. */
  schema: readonly SocialSchemaKey[];
  rows: readonly (readonly string[])[];
}

export interface UploadSession {
  /** From `uploadSessionId`: the same for every attempt of one job's upload. */
  sessionId: number;
  /** 1-based position of this batch in the session. */
  batchSeq: number;
  /** True on the session's final batch. */
  lastBatch: boolean;
  /** Rows the whole session will send (a hint for the platform's progress reporting). */
  estimatedTotal: number;
}

export interface AddUsersResult {
  /** Rows the platform received (0 on a non-empty batch is rejected as an error, never returned). */
  received: number;
  /** Rows the platform found invalid. The platform's samples of them are PII and are dropped. */
  invalid: number;
  /** The `batchSeq` of the caller's next batch. */
  nextBatchSeq: number;
}

/**
 * - `processing`: still being matched or updated; poll again.
 * - `ready`: usable for delivery.
 * - `too_small`: processed, but too few matched people to deliver to.
 * - `unusable`: the platform will not deliver to it (`reason` says why).
 * - `flagged`: held by the platform's policy review.
 */
export type AudienceReadiness = 'processing' | 'ready' | 'too_small' | 'unusable' | 'flagged';

export interface AudienceStatus {
  readiness: AudienceReadiness;
  /** The platform's matched-people range, once it has one. */
  approximateCount: { lower: number; upper: number } | null;
  /** The platform's status codes, for logs. */
  operationCode: number | null;
  deliveryCode: number | null;
  /** A client-readable explanation when not `ready`/`processing`. */
  reason: string | null;
}

/**
 * The upload session id of one job's upload into one audience: a positive integer below 2^53 (the
 * platform takes a 64-bit integer; JSON numbers in JavaScript stay exact below 2^53), derived
 * from both ids so that a resumed job continues the same session and no two uploads share one.
 */
export function uploadSessionId(jobId: string, audienceId: string): number {
  const digest = createHash('sha256').update(`listmatch upload session\0${jobId}\0${audienceId}`).digest();
  const value = digest.readUIntBE(0, 6) * 32 + (digest[6]! >> 3);
  return value === 0 ? 1 : value;
}
