import type { ApiKeyRecord, Entitlements, Profile } from '../keys/key-types.ts';

/** Keys and profiles. Backends: SQLite (embedded). */
export interface KeyStore {
  /** Stores a new key record (hash only). */
  insertKey(key: ApiKeyRecord): void;
  /** Looks a key up by the SHA-256 hash of the presented key. */
  findKeyByHash(keyHash: string): ApiKeyRecord | null;
  /** Finds a key by id or by display name. */
  findKey(idOrName: string): ApiKeyRecord | null;
  listKeys(): ApiKeyRecord[];
  /** Marks the key revoked at `at`; returns false when no such active key exists. */
  revokeKey(id: string, at: number): boolean;
  setEntitlements(id: string, entitlements: Entitlements): void;
  upsertProfile(profile: Profile): void;
  findProfile(keyId: string, profileId: string): Profile | null;
  listProfiles(keyId?: string): Profile[];
  /** Stores (or replaces) the key's webhook signing secret; it must be readable to sign with. */
  setWebhookSecret(keyId: string, secret: string, at: number): void;
  /** The key's webhook signing secret, or null when it has none (keys made before signing existed). */
  findWebhookSecret(keyId: string): string | null;
}
