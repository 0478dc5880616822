import { AppError } from '../errors.ts';
import type { KeyService } from '../keys/key-service.ts';
import type { AppendedField } from '../keys/key-types.ts';
import type { LookupAccess } from './lookup-access.ts';
import type { LookupRight } from './lookup-rights.ts';
import type { CurrentLookupFile, LookupVoterFile } from './lookup-voter-file.ts';
import { type LookupThresholds, PersonLookups } from './person-lookups.ts';

/** How long a key's profile is cached for lookups (ms): a changed profile applies within this. */
const PROFILE_TTL_MS = 2000;
/** How long a key read from the store authenticates lookups (ms): a revocation elsewhere applies within this. */
const KEY_TTL_MS = 2000;

/**
 * The person and voter lookups of the client API: admits a request (the key's right, rate limit,
 * daily quota, counted), resolves the key's profile (the appended `vb.*` fields) and runs the
 * lookup on the voter file version in use, which the request holds to its end.
 */
export class LookupService {
  private readonly file: CurrentLookupFile;
  private readonly access: LookupAccess;
  private readonly keys: KeyService;
  private readonly thresholds: LookupThresholds;
  private readonly profiles = new Map<string, { fields: AppendedField[]; until: number }>();

  constructor(parts: {
    file: CurrentLookupFile;
    access: LookupAccess;
    keys: KeyService;
    thresholds: LookupThresholds;
  }) {
    this.file = parts.file;
    this.access = parts.access;
    this.keys = parts.keys;
    this.thresholds = parts.thresholds;
  }

  /**
   * Runs one lookup of `persons` persons for the key: `lookup` gets the version's lookups and
   * the version itself. Throws FORBIDDEN, RATE_LIMITED, VALIDATION_FAILED (unknown profile) or
   * UNAVAILABLE (no voter file imported yet).
   */
  async run<T>(
    keyId: string,
    right: LookupRight,
    persons: number,
    profileId: string | undefined,
    lookup: (lookups: PersonLookups, file: LookupVoterFile, now: Date) => Promise<T>,
  ): Promise<{ answer: T; statesUpdated: Readonly<Record<string, string>> }> {
    await this.access.admit(keyId, right, persons);
    const fields = await this.appendedFields(keyId, profileId);
    const file = await this.file.get();
    if (file === null) throw new AppError('UNAVAILABLE', 'no voter file is imported yet; try again later');
    const now = new Date();
    const answer = await lookup(new PersonLookups(file, fields, this.thresholds, now), file, now);
    return { answer, statesUpdated: file.statesUpdated };
  }

  /**
   * The key presented for a lookup (KeyService.authenticate), as read from the store within the
   * last KEY_TTL_MS: the key is remembered as long as its lookup rights and profile are.
   */
  async authenticate(presented: string | string[] | undefined): Promise<{ id: string }> {
    return await this.keys.authenticate(presented, { maxAgeMs: KEY_TTL_MS });
  }

  /** The voter file version lookups answer from now (null: none imported). */
  async voterFile(): Promise<LookupVoterFile | null> {
    return await this.file.get();
  }

  /** Loads the current voter file now (start-up of an api process), so the first lookup is fast. */
  async warm(): Promise<void> {
    await this.file.warm();
  }

  /** Writes the lookup counts not yet stored (they are written every second anyway). */
  async flush(): Promise<void> {
    await this.access.flush();
  }

  /** Stops counting and writes the counts not yet stored; lets the voter file's threads go. */
  async close(): Promise<void> {
    await this.access.close();
    await this.file.close();
  }

  private async appendedFields(keyId: string, profileId: string | undefined): Promise<AppendedField[]> {
    const cacheKey = `${keyId}|${profileId ?? ''}`;
    const now = Date.now();
    const cached = this.profiles.get(cacheKey);
    if (cached !== undefined && cached.until > now) return cached.fields;
    const profile = await this.keys.resolveProfile(keyId, profileId);
    this.profiles.set(cacheKey, { fields: profile.appendedFields, until: now + PROFILE_TTL_MS });
    return profile.appendedFields;
  }
}
