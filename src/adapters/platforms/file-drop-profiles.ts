import type { AudienceKey, FileDropProfile } from '../../domain/ports/file-drop-audiences.ts';

/**
 * The file-drop platforms as data: what goes in the file (the domain's profile) and how it gets
 * there (the wire shape). A renamed column or endpoint is an edit here, not in the adapter. The
 * local test servers keep their own copy of these names on purpose, so a wrong name here fails
 * the tests instead of agreeing with itself.
 */

/** create-segment → presigned URL → PUT the file; no status endpoint (the platform e-mails). */
export interface PresignedPutWire {
  shape: 'presigned-put';
  /** POST `{name, description}` → `{id, upload: {url, expires_at}}`. */
  createPath: string;
  /** POST → `{url, expires_at}`: a fresh single-use URL for the segment (`{id}` is replaced). */
  uploadUrlPath: string;
  /**
   * GET `path?name=…` → `{[itemsKey]: [{id, name, description, status}]}`: the segments of that
   * name; `awaitingFileStatus` is the status of one that has no file yet.
   */
  list: { path: string; itemsKey: string; awaitingFileStatus: string };
}

/** create → multipart upload with a column map → GET status with a match rate. */
export interface MultipartWire {
  shape: 'multipart';
  /** POST `{name, description}` → `{id}`. */
  createPath: string;
  /** POST multipart/form-data: `columnMap` (JSON, header → field type), then `file`. */
  uploadPath: string;
  /** GET → `{status, matchRate, failureReason}`. */
  statusPath: string;
  /** The platform's field type for each key, for the column map. */
  fieldTypes: Readonly<Partial<Record<AudienceKey, string>>>;
}

export interface FileDropPlatform {
  profile: FileDropProfile;
  wire: PresignedPutWire | MultipartWire;
  /** How the token is presented: `header: scheme + token`. */
  auth: { header: string; scheme: string };
}

/**
 * politicaldsp: the create-segment → presigned PUT shape, SHA-256 hex of every personal value
 * (device ids stay as they are), and no status endpoint: it e-mails when the audience is ready.
 */
export const politicalDsp: FileDropPlatform = {
  profile: {
    platform: 'politicaldsp',
    displayName: 'the political DSP',
    columns: {
      EMAIL: 'email_sha256',
      PHONE: 'phone_sha256',
      FN: 'first_name_sha256',
      LN: 'last_name_sha256',
      CT: 'city_sha256',
      ST: 'state_sha256',
      ZIP: 'zip_sha256',
      DOBY: 'birth_year_sha256',
      GEN: 'gender_sha256',
      MADID: 'maid',
    },
    hashing: 'sha256-hex',
    unhashedKeys: ['MADID'],
    readiness: 'external',
    // One PUT to object storage takes at most 5 GiB.
    maxFileBytes: 5 * 1024 ** 3,
    maxNameLength: 128,
  },
  wire: {
    shape: 'presigned-put',
    createPath: '/v1/segments',
    uploadUrlPath: '/v1/segments/{id}/upload-url',
    list: { path: '/v1/segments', itemsKey: 'segments', awaitingFileStatus: 'awaiting_file' },
  },
  auth: { header: 'authorization', scheme: 'Bearer ' },
};

/**
 * The media buying platform: multipart upload with a column map, plaintext values (it matches on
 * the voter file's own id first), and a status endpoint with a match rate.
 */
export const mediaBuyingPlatform: FileDropPlatform = {
  profile: {
    platform: 'mbp',
    displayName: 'the media buying platform',
    columns: {
      VOTERBASE_ID: 'voterbase_id',
      EMAIL: 'email',
      PHONE: 'phone',
      FN: 'first_name',
      LN: 'last_name',
      CT: 'city',
      ST: 'state',
      ZIP: 'zip',
    },
    hashing: 'none',
    unhashedKeys: [],
    readiness: 'poll',
    maxFileBytes: 1024 ** 3,
    maxNameLength: 255,
  },
  wire: {
    shape: 'multipart',
    createPath: '/api/v1/audiences',
    uploadPath: '/api/v1/audiences/{id}/files',
    statusPath: '/api/v1/audiences/{id}',
    fieldTypes: {
      VOTERBASE_ID: 'VOTER_ID',
      EMAIL: 'EMAIL',
      PHONE: 'PHONE',
      FN: 'FIRST_NAME',
      LN: 'LAST_NAME',
      CT: 'CITY',
      ST: 'REGION',
      ZIP: 'POSTAL_CODE',
    },
  },
  auth: { header: 'x-api-key', scheme: '' },
};
