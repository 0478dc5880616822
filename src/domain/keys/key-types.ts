/** An API key as stored: never the key itself, only its SHA-256 hash and a display prefix. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  keyHash: string;
  /** First characters of the key (`lm_AbCd…`) so an operator can tell keys apart. */
  displayPrefix: string;
  entitlements: Entitlements;
  createdAt: number;
  revokedAt: number | null;
}

export interface Entitlements {
  listMatching: boolean;
  onboarding: boolean;
  /** Approved for Pattern #2 direct upload (`owner_adid`). */
  directUpload: boolean;
}

export const contactFields = ['email', 'landline', 'wireless', 'voip'] as const;
export type ContactField = (typeof contactFields)[number];

/** One appended voter-file field: `source` column of the voter file, written as `vb.<as>`. */
export interface AppendedField {
  source: string;
  as: string;
}

/** Per key and profile id: what the client gets appended and may ask for. */
export interface Profile {
  keyId: string;
  profileId: string;
  appendedFields: AppendedField[];
  /** Contact fields the client may request with include_email, include_landline, …. */
  contactFields: ContactField[];
  /** Lowest match score (0-100) this profile accepts; null: the service default (MATCH_THRESHOLD). */
  matchThreshold: number | null;
  /** Highest `max_matches` (1-10) this profile may ask for; null: 10, the API's own limit. */
  maxMatchesCap: number | null;
  /**
   * Hosts (`host` or `host:port`, lower case) a webhook of this profile may call; empty: any
   * public host. Keeps a leaked key from sending result links to a stranger's server.
   */
  webhookHosts: string[];
  /** Where completed results are dropped besides poll and webhook: the key's file-transfer folder, or nowhere. */
  delivery: ProfileDelivery;
  updatedAt: number;
}

export const profileDeliveries = ['folder', 'none'] as const;
export type ProfileDelivery = (typeof profileDeliveries)[number];

/** What a profile holds before the operator sets anything. */
export const PROFILE_DEFAULTS = {
  appendedFields: [],
  contactFields: [],
  matchThreshold: null,
  maxMatchesCap: null,
  webhookHosts: [],
  delivery: 'folder',
} as const satisfies Omit<Profile, 'keyId' | 'profileId' | 'updatedAt'>;

export const DEFAULT_PROFILE_ID = 'default';
