import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { KeyStore } from '../ports/key-store.ts';
import {
  type ApiKeyRecord,
  type AppendedField,
  type ContactField,
  DEFAULT_PROFILE_ID,
  type Entitlements,
  type Profile,
} from './key-types.ts';

const KEY_PATTERN = /^lm_[A-Za-z0-9_-]{43}$/;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** Creates, authenticates and revokes API keys; keeps profiles. Keys are shown once, stored hashed. */
export class KeyService {
  private readonly store: KeyStore;

  constructor(store: KeyStore) {
    this.store = store;
  }

  createKey(
    input: { name: string; entitlements?: Partial<Entitlements> },
    now = Date.now(),
  ): {
    key: string;
    record: ApiKeyRecord;
  } {
    const name = input.name.trim();
    if (name === '' || name.length > 100)
      throw new AppError('VALIDATION_FAILED', 'a key name of 1-100 characters is required');
    const key = `lm_${randomBytes(32).toString('base64url')}`;
    const record: ApiKeyRecord = {
      id: newId('key', now),
      name,
      keyHash: hashApiKey(key),
      displayPrefix: key.slice(0, 9),
      entitlements: { listMatching: true, onboarding: true, directUpload: false, ...input.entitlements },
      createdAt: now,
      revokedAt: null,
    };
    this.store.insertKey(record);
    this.store.upsertProfile({
      keyId: record.id,
      profileId: DEFAULT_PROFILE_ID,
      appendedFields: [],
      contactFields: [],
      matchThreshold: null,
      updatedAt: now,
    });
    return { key, record };
  }

  /** The key presented in `x-api-key`, or an UNAUTHORIZED error that says what is wrong. */
  authenticate(presented: string | string[] | undefined): ApiKeyRecord {
    if (presented === undefined || presented === '') {
      throw new AppError('UNAUTHORIZED', 'missing x-api-key header');
    }
    const key = (Array.isArray(presented) ? presented[0] : presented)?.trim();
    if (key === undefined || key === '') throw new AppError('UNAUTHORIZED', 'missing x-api-key header');
    // A malformed key cannot exist: answer without a lookup.
    if (!KEY_PATTERN.test(key)) {
      throw new AppError('UNAUTHORIZED', 'malformed API key: expected lm_ followed by 43 characters');
    }
    const record = this.store.findKeyByHash(hashApiKey(key));
    if (record === null) throw new AppError('UNAUTHORIZED', 'invalid API key');
    if (record.revokedAt !== null) throw new AppError('UNAUTHORIZED', 'this API key was revoked');
    return record;
  }

  /** The key with exactly this id, unless it is unknown or revoked (sessions carry a key id, never the key). */
  activeKey(id: string): ApiKeyRecord | null {
    const record = this.store.findKey(id);
    return record !== null && record.id === id && record.revokedAt === null ? record : null;
  }

  revoke(idOrName: string, now = Date.now()): ApiKeyRecord {
    const record = this.requireKey(idOrName);
    if (!this.store.revokeKey(record.id, now))
      throw new AppError('CONFLICT', `key ${record.id} is already revoked`);
    return { ...record, revokedAt: now };
  }

  list(): ApiKeyRecord[] {
    return this.store.listKeys();
  }

  setEntitlements(idOrName: string, changes: Partial<Entitlements>): ApiKeyRecord {
    const record = this.requireKey(idOrName);
    const entitlements = { ...record.entitlements, ...changes };
    this.store.setEntitlements(record.id, entitlements);
    return { ...record, entitlements };
  }

  setProfile(
    idOrName: string,
    profileId: string,
    changes: {
      appendedFields?: AppendedField[];
      contactFields?: ContactField[];
      matchThreshold?: number | null;
    },
    now = Date.now(),
  ): Profile {
    const record = this.requireKey(idOrName);
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(profileId)) {
      throw new AppError('VALIDATION_FAILED', 'profile ids are 1-64 letters, digits, _, . or -');
    }
    const names = (changes.appendedFields ?? []).map((field) => field.as);
    const repeated = names.find((name, i) => names.indexOf(name) !== i);
    if (repeated !== undefined)
      throw new AppError('VALIDATION_FAILED', `output name "${repeated}" is used twice`);
    for (const field of changes.appendedFields ?? []) {
      if (!/^[a-z0-9_]{1,64}$/.test(field.as)) {
        throw new AppError(
          'VALIDATION_FAILED',
          `output name "${field.as}" must be 1-64 lower-case letters, digits or _`,
        );
      }
    }
    const threshold = changes.matchThreshold;
    if (threshold !== undefined && threshold !== null && !(threshold >= 0 && threshold <= 100)) {
      throw new AppError('VALIDATION_FAILED', 'the match threshold must be a number from 0 to 100');
    }
    const existing = this.store.findProfile(record.id, profileId);
    const profile: Profile = {
      keyId: record.id,
      profileId,
      appendedFields: changes.appendedFields ?? existing?.appendedFields ?? [],
      contactFields: changes.contactFields ?? existing?.contactFields ?? [],
      matchThreshold: threshold !== undefined ? threshold : (existing?.matchThreshold ?? null),
      updatedAt: now,
    };
    this.store.upsertProfile(profile);
    return profile;
  }

  /** The profile a job uses: the named one (which must exist) or the key's default. */
  resolveProfile(keyId: string, profileId: string | undefined): Profile {
    const id = profileId ?? DEFAULT_PROFILE_ID;
    const profile = this.store.findProfile(keyId, id);
    if (profile !== null) return profile;
    if (profileId === undefined) {
      return {
        keyId,
        profileId: DEFAULT_PROFILE_ID,
        appendedFields: [],
        contactFields: [],
        matchThreshold: null,
        updatedAt: 0,
      };
    }
    throw new AppError('VALIDATION_FAILED', `profile_id "${profileId}" is not a profile of this API key`);
  }

  listProfiles(idOrName?: string): Profile[] {
    return this.store.listProfiles(idOrName === undefined ? undefined : this.requireKey(idOrName).id);
  }

  private requireKey(idOrName: string): ApiKeyRecord {
    const record = this.store.findKey(idOrName);
    if (record === null) throw new AppError('NOT_FOUND', `no key with id or name "${idOrName}"`);
    return record;
  }
}
