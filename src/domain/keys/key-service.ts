import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import type { KeyStore } from '../ports/key-store.ts';
import { newWebhookSecret } from '../webhooks/webhook-signature.ts';
import {
  type ApiKeyRecord,
  type AppendedField,
  type ContactField,
  DEFAULT_PROFILE_ID,
  type Entitlements,
  PROFILE_DEFAULTS,
  type Profile,
  type ProfileDelivery,
} from './key-types.ts';

const KEY_PATTERN = /^lm_[A-Za-z0-9_-]{43}$/;
/** How long a rotated-out webhook secret keeps signing next to its successor. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 3600_000;

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/** `host` or `host:port`: a DNS name or an IP literal (IPv6 in brackets), lower case. */
const WEBHOOK_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Keys remembered by authenticate's `maxAgeMs` before the table is emptied (a bound on memory). */
const RECENT_KEYS_MAX = 10_000;

/** Creates, authenticates and revokes API keys; keeps profiles. Keys are shown once, stored hashed. */
export class KeyService {
  private readonly store: KeyStore;
  /** Keys found by authenticate with a `maxAgeMs`, by hash, with when they were read. */
  private readonly recent = new Map<string, { record: ApiKeyRecord; readAt: number }>();

  constructor(store: KeyStore) {
    this.store = store;
  }

  async createKey(
    input: { name: string; entitlements?: Partial<Entitlements> },
    now = Date.now(),
  ): Promise<{
    key: string;
    record: ApiKeyRecord;
    /** Signs this key's webhook calls; shown once with the key, like the key itself. */
    webhookSecret: string;
  }> {
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
    const webhookSecret = newWebhookSecret();
    // One transaction: a crash cannot leave a key without its default profile or signing secret.
    await this.store.insertKey(record, {
      profile: {
        keyId: record.id,
        profileId: DEFAULT_PROFILE_ID,
        ...PROFILE_DEFAULTS,
        appendedFields: [],
        contactFields: [],
        webhookHosts: [],
        updatedAt: now,
      },
      webhookSecret,
    });
    return { key, record, webhookSecret };
  }

  /**
   * Creates the key's webhook signing secret, or replaces it when `rotate` is set. A replaced
   * secret keeps signing next to the new one for `overlapMs` (calls carry both signatures), so the
   * client can switch without missing a call; 0 drops it at once (a leaked secret). Refuses to
   * replace without `rotate`: a secret is shown only when made.
   */
  async createWebhookSecret(
    idOrName: string,
    options: { rotate: boolean; overlapMs?: number },
    now = Date.now(),
  ): Promise<{ record: ApiKeyRecord; webhookSecret: string; previousValidUntil: number | null }> {
    const record = await this.requireKey(idOrName);
    const existing = (await this.store.findWebhookSecrets(record.id, now)).length > 0;
    if (existing && !options.rotate) {
      throw new AppError(
        'CONFLICT',
        `key ${record.id} already has a webhook secret; pass --rotate to replace it`,
      );
    }
    const overlapMs = options.overlapMs ?? WEBHOOK_SECRET_OVERLAP_MS;
    const previousValidUntil = existing && overlapMs > 0 ? now + overlapMs : null;
    const webhookSecret = newWebhookSecret();
    await this.store.setWebhookSecret(record.id, webhookSecret, now, previousValidUntil);
    return { record, webhookSecret, previousValidUntil };
  }

  /**
   * The secrets that sign this key's webhook calls now: the current one first, then a rotated-out
   * one still in its overlap. Empty for a key made before signing existed.
   */
  async webhookSecrets(keyId: string, now = Date.now()): Promise<string[]> {
    return await this.store.findWebhookSecrets(keyId, now);
  }

  /**
   * The key presented in `x-api-key`, or an UNAUTHORIZED error that says what is wrong. With
   * `maxAgeMs`, a key read from the store within that long is taken as read then (a revocation
   * made by another process applies within it; one made here, at once): the person lookups,
   * thousands a second, whose rights and profiles are cached as long, would otherwise read the
   * store for every request (a fifth of the api's own time per lookup on SQLite; a round trip on
   * PostgreSQL). An unknown key is never remembered.
   */
  async authenticate(
    presented: string | string[] | undefined,
    options: { maxAgeMs?: number } = {},
    now = Date.now(),
  ): Promise<ApiKeyRecord> {
    if (presented === undefined || presented === '') {
      throw new AppError('UNAUTHORIZED', 'missing x-api-key header');
    }
    const key = (Array.isArray(presented) ? presented[0] : presented)?.trim();
    if (key === undefined || key === '') throw new AppError('UNAUTHORIZED', 'missing x-api-key header');
    // A malformed key cannot exist: answer without a lookup.
    if (!KEY_PATTERN.test(key)) {
      throw new AppError('UNAUTHORIZED', 'malformed API key: expected lm_ followed by 43 characters');
    }
    const hash = hashApiKey(key);
    const maxAgeMs = options.maxAgeMs ?? 0;
    const recent = maxAgeMs > 0 ? this.recent.get(hash) : undefined;
    if (recent !== undefined && now - recent.readAt < maxAgeMs) return recent.record;
    const record = await this.store.findKeyByHash(hash);
    if (record === null) throw new AppError('UNAUTHORIZED', 'invalid API key');
    if (record.revokedAt !== null) {
      this.recent.delete(hash);
      throw new AppError('UNAUTHORIZED', 'this API key was revoked');
    }
    if (maxAgeMs > 0) {
      if (this.recent.size >= RECENT_KEYS_MAX) this.recent.clear();
      this.recent.set(hash, { record, readAt: now });
    }
    return record;
  }

  /** The key with exactly this id, unless it is unknown or revoked (sessions carry a key id, never the key). */
  async activeKey(id: string): Promise<ApiKeyRecord | null> {
    const record = await this.store.findKey(id);
    return record !== null && record.id === id && record.revokedAt === null ? record : null;
  }

  async revoke(idOrName: string, now = Date.now()): Promise<ApiKeyRecord> {
    const record = await this.requireKey(idOrName);
    if (!(await this.store.revokeKey(record.id, now)))
      throw new AppError('CONFLICT', `key ${record.id} is already revoked`);
    this.recent.delete(record.keyHash);
    return { ...record, revokedAt: now };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return await this.store.listKeys();
  }

  async setEntitlements(idOrName: string, changes: Partial<Entitlements>): Promise<ApiKeyRecord> {
    const record = await this.requireKey(idOrName);
    const entitlements = { ...record.entitlements, ...changes };
    await this.store.setEntitlements(record.id, entitlements);
    this.recent.delete(record.keyHash);
    return { ...record, entitlements };
  }

  async setProfile(
    idOrName: string,
    profileId: string,
    changes: {
      appendedFields?: AppendedField[];
      contactFields?: ContactField[];
      matchThreshold?: number | null;
      maxMatchesCap?: number | null;
      webhookHosts?: string[];
      delivery?: ProfileDelivery;
    },
    now = Date.now(),
  ): Promise<Profile> {
    const record = await this.requireKey(idOrName);
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
    const cap = changes.maxMatchesCap;
    if (cap !== undefined && cap !== null && !(Number.isInteger(cap) && cap >= 1 && cap <= 10)) {
      throw new AppError('VALIDATION_FAILED', 'the max_matches cap must be a whole number from 1 to 10');
    }
    const webhookHosts = changes.webhookHosts?.map((host) => host.trim().toLowerCase());
    for (const host of webhookHosts ?? []) {
      if (!WEBHOOK_HOST.test(host))
        throw new AppError('VALIDATION_FAILED', `webhook host "${host}" must be a host name or host:port`);
    }
    const existing = await this.store.findProfile(record.id, profileId);
    const profile: Profile = {
      keyId: record.id,
      profileId,
      appendedFields: changes.appendedFields ?? existing?.appendedFields ?? [],
      contactFields: changes.contactFields ?? existing?.contactFields ?? [],
      matchThreshold: threshold !== undefined ? threshold : (existing?.matchThreshold ?? null),
      maxMatchesCap: cap !== undefined ? cap : (existing?.maxMatchesCap ?? null),
      webhookHosts: webhookHosts ?? existing?.webhookHosts ?? [],
      delivery: changes.delivery ?? existing?.delivery ?? PROFILE_DEFAULTS.delivery,
      updatedAt: now,
    };
    await this.store.upsertProfile(profile);
    return profile;
  }

  /** The profile a job uses: the named one (which must exist) or the key's default. */
  async resolveProfile(keyId: string, profileId: string | undefined): Promise<Profile> {
    const id = profileId ?? DEFAULT_PROFILE_ID;
    const profile = await this.store.findProfile(keyId, id);
    if (profile !== null) return profile;
    if (profileId === undefined) {
      return {
        keyId,
        profileId: DEFAULT_PROFILE_ID,
        ...PROFILE_DEFAULTS,
        appendedFields: [],
        contactFields: [],
        webhookHosts: [],
        updatedAt: 0,
      };
    }
    throw new AppError('VALIDATION_FAILED', `profile_id "${profileId}" is not a profile of this API key`);
  }

  async listProfiles(idOrName?: string): Promise<Profile[]> {
    return await this.store.listProfiles(
      idOrName === undefined ? undefined : (await this.requireKey(idOrName)).id,
    );
  }

  private async requireKey(idOrName: string): Promise<ApiKeyRecord> {
    const record = await this.store.findKey(idOrName);
    if (record === null) throw new AppError('NOT_FOUND', `no key with id or name "${idOrName}"`);
    return record;
  }
}
