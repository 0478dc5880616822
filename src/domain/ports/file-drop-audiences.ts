import type { Readable } from 'node:stream';

/**
 * Identifiers an audience file can carry: the platform identifiers of the onboarding spec plus the
 * voter file's own id (the media buying platform matches on it). Each platform profile names the
 * column it uses for each key it accepts.
 */
export const audienceKeys = [
  'VOTERBASE_ID',
  'EXTERN_ID',
  'EMAIL',
  'PHONE',
  'FN',
  'LN',
  'FI',
  'CT',
  'ST',
  'ZIP',
  'COUNTRY',
  'DOBY',
  'DOBM',
  'DOBD',
  'GEN',
  'MADID',
] as const;
export type AudienceKey = (typeof audienceKeys)[number];

/**
 * What a file-drop platform wants in the file, kept as data (see the adapter's profile table) so
 * that a changed column name is a one-line change, not code.
 */
export interface FileDropProfile {
  /** Short name for logs and messages (`politicaldsp`, `mbp`). */
  platform: string;
  /** Human name for client-readable messages. */
  displayName: string;
  /** The platform's column name for each key it accepts; a key missing here cannot be uploaded. */
  columns: Readonly<Partial<Record<AudienceKey, string>>>;
  /**
   * `sha256-hex`: every value of a hashed column is the lowercase hex SHA-256 of the normalized
   * value (the caller hashes: the normalization library renders per platform). `none`: plaintext.
   * A file is one or the other, never mixed.
   */
  hashing: 'sha256-hex' | 'none';
  /** Keys sent as they are even when the profile hashes (platform ids, not personal data). */
  unhashedKeys: readonly AudienceKey[];
  /** `poll`: the platform has a status endpoint. `external`: it tells people (e-mail) instead. */
  readiness: 'poll' | 'external';
  /** Largest file the platform takes, in bytes. */
  maxFileBytes: number;
  /** Longest audience name the platform takes. */
  maxNameLength: number;
}

/** Where the file goes. A presigned URL is a credential: keep it in memory, never log or store it. */
export type UploadTarget =
  | { kind: 'presigned-put'; url: string /** Epoch ms. */; expiresAt: number }
  | { kind: 'multipart' };

export interface CreatedAudience {
  /** The platform's id of the audience: store it, so a retried job uploads instead of creating again. */
  audienceId: string;
  upload: UploadTarget;
}

/** A CSV already staged (written by `writeAudienceCsv` into the blob store), opened again per attempt. */
export interface StagedAudienceFile {
  /** The keys of its columns, in order. */
  keys: readonly AudienceKey[];
  /** Data rows, without the header. */
  rows: number;
  /** Exact size: presigned uploads must declare it up front. */
  bytes: number;
  /** Opens the file from its start; called once per upload attempt. */
  open(): Promise<Readable>;
}

/** An audience found by its name and description. */
export interface FoundAudience {
  audienceId: string;
  /** The platform already holds a file for it (an upload whose answer was lost got through). */
  hasFile: boolean;
}

export interface UploadReceipt {
  /** Rows the platform says it received, when it says so. */
  rowsReceived: number | null;
}

/** Where an audience stands on the platform. */
export type AudienceStatus =
  | { state: 'processing' }
  /** `matchRate` is a fraction 0..1, null when the platform does not report one. */
  | { state: 'ready'; matchRate: number | null }
  /** `reason` is the platform's own explanation, safe to show the client. */
  | { state: 'failed'; reason: string }
  /** No status endpoint: the platform e-mails when ready; the operator marks it ready. */
  | { state: 'awaiting_external_notification' };

export interface CallOptions {
  /** Aborts the call (worker shutdown, lost lease): it rejects with a `retry` PlatformError. */
  signal?: AbortSignal;
}

/**
 * An ad platform that takes audiences as files: create the audience, upload one CSV in the
 * platform's columns, then learn readiness by polling or from outside. Backends: one HTTP adapter
 * per platform shape (presigned PUT, multipart with a column map). Every method rejects only with
 * PlatformError (platform-error.ts): `waitMs` is the platform's Retry-After, `httpStatus` its answer.
 */
export interface FileDropAudiences {
  readonly profile: FileDropProfile;
  /** Creates an empty audience; `name` must already fit the platform (`profile.maxNameLength`). */
  createAudience(
    request: { name: string; description?: string },
    options?: CallOptions,
  ): Promise<CreatedAudience>;
  /**
   * The audience with exactly this name and description, or null when there is none or the
   * platform cannot be searched. A retried job that lost the answer to `createAudience` or
   * `upload` (a crash, a dropped connection) learns here what the platform did, so it neither
   * creates a second audience nor uploads the file twice.
   */
  findAudience(
    request: { name: string; description: string },
    options?: CallOptions,
  ): Promise<FoundAudience | null>;
  /**
   * Streams the staged file to the audience (never holds it whole in memory). `target` is the one
   * `createAudience` returned, when still at hand; a missing, expired or used presigned URL is
   * replaced by a fresh one.
   */
  upload(
    audienceId: string,
    file: StagedAudienceFile,
    target?: UploadTarget,
    options?: CallOptions,
  ): Promise<UploadReceipt>;
  /**
   * Where the audience stands. With `profile.readiness === 'external'` it answers
   * `awaiting_external_notification` without calling the platform.
   */
  status(audienceId: string, options?: CallOptions): Promise<AudienceStatus>;
}
