import { AppError, isAppError } from '../errors.ts';

/**
 * Why a client job failed or expired, as AppErrors. The job stores publicMessage(error) (errors.ts)
 * as its `error`, which poll, notices and the CLI repeat: these messages are public text.
 */

/** A registered job whose upload never came (poll, and the sweep that expires it, say the same). */
export const uploadExpired = () =>
  new AppError('VALIDATION_FAILED', 'no file was uploaded before the upload URL expired; register again');

/**
 * A job still awaiting its upload when its filename was registered again: the later registration
 * replaced it (its upload URL stopped working; poll follows the later job).
 */
export const replacedByLaterRegistration = () =>
  new AppError(
    'VALIDATION_FAILED',
    'a later registration of this filename replaced this job; upload to the URL that registration answered',
  );

/** An upload to the URL of a job that a later registration of its filename replaced. */
export const replacedUploadUrl = () =>
  new AppError(
    'URL_INVALID',
    'this upload URL was replaced by a later registration of the same filename; upload to the URL that registration answered',
  );

/** A registration of a filename whose job is being matched: the client waits for that job. */
export const filenameBeingMatched = (filename: string) =>
  new AppError(
    'VALIDATION_FAILED',
    `the list "${filename}" is still being matched; wait until poll answers its result or error, then register this filename again (or register under another filename)`,
  );

/** An upload object storage received over the size cap. */
export const uploadTooLarge = (maxBytes: number) =>
  new AppError(
    'PAYLOAD_TOO_LARGE',
    `the upload exceeds the maximum of ${maxBytes} bytes; register again with a smaller file`,
  );

/** A finished job whose files retention deleted; a failed one keeps its reason (its public text). */
export const retentionExpired = (days: number, failedWith: string | null = null) =>
  new AppError(
    'VALIDATION_FAILED',
    `the files of this job were deleted after the ${days}-day retention period; register and upload the list again${failedWith === null ? '' : ` (the job had failed: ${failedWith})`}`,
  );

/** A finished job of a revoked key: its files were deleted with the key. */
export const revokedFilesDeleted = () =>
  new AppError('UNAUTHORIZED', 'the API key of this job was revoked and its files were deleted');

/** An upload that reached object storage after its key was revoked. */
export const revokedUploadUnread = () =>
  new AppError('UNAUTHORIZED', 'the API key of this job was revoked; the upload was deleted unread');

/** A list job of a key revoked before its list was matched (its chunks say the same). */
export const revokedBeforeMatching = () =>
  new AppError('UNAUTHORIZED', 'the API key of this job was revoked; the list was not matched');

/** A list job of a key revoked while its list was matched: its result was never published. */
export const revokedBeforeDelivery = () =>
  new AppError(
    'UNAUTHORIZED',
    'the API key of this job was revoked while its list was matched; the result was deleted unpublished',
  );

/** An onboarding job of a revoked key. */
export const revokedBeforeAudience = () =>
  new AppError('UNAUTHORIZED', 'the API key of this job was revoked; no audience was built');

/** A failed job with no recorded reason (poll's answer for it). */
export const failedWithoutReason = () => new AppError('INTERNAL', 'the job failed');

/**
 * A job step given up after its retries: the service's fault. An AppError's message says what
 * (no voter file loaded); anything else says `otherwise`. The job id is what the operator looks
 * it up by.
 */
export const givenUp = (jobId: string, error: unknown, otherwise: string) =>
  new AppError(
    'INTERNAL',
    `${isAppError(error) ? error.message : otherwise}; the operator can look it up as ${jobId}`,
    { cause: error },
  );
