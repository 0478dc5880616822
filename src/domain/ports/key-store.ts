import type { ApiKeyRecord, Entitlements, Profile } from '../keys/key-types.ts';

/** Keys and profiles. Backends: SQLite (embedded), PostgreSQL. */
export interface KeyStore {
  /**
   * Stores a new key record (hash only). With `setup`, its first profile and webhook signing secret
   * are stored in the same transaction: a key is never left without them.
   */
  insertKey(key: ApiKeyRecord, setup?: KeySetup): Promise<void>;
  /** Looks a key up by the SHA-256 hash of the presented key. */
  findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Finds a key by id or by display name. */
  findKey(idOrName: string): Promise<ApiKeyRecord | null>;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked at `at`; returns false when no such active key exists. */
  revokeKey(id: string, at: number): Promise<boolean>;
  setEntitlements(id: string, entitlements: Entitlements): Promise<void>;
  upsertProfile(profile: Profile): Promise<void>;
  findProfile(keyId: string, profileId: string): Promise<Profile | null>;
  listProfiles(keyId?: string): Promise<Profile[]>;
  /**
   * Stores (or replaces) the key's webhook signing secret; it must be readable to sign with. With
   * `previousValidUntil`, a replaced secret keeps signing until then; with null it is dropped.
   */
  setWebhookSecret(
    keyId: string,
    secret: string,
    at: number,
    previousValidUntil: number | null,
  ): Promise<void>;
  /**
   * The secrets that sign the key's webhook calls at `now`: the current one, then a replaced one
   * still within its overlap. Empty for a key made before signing existed.
   */
  findWebhookSecrets(keyId: string, now: number): Promise<string[]>;
}

/** What a new key starts with, stored with it (KeyStore.insertKey). */
export interface KeySetup {
  profile: Profile;
  webhookSecret: string;
}
