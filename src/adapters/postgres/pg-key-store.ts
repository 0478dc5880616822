import type pg from 'pg';
import type { ApiKeyRecord, Entitlements, Profile } from '../../domain/keys/key-types.ts';
import type { KeySetup, KeyStore } from '../../domain/ports/key-store.ts';
import { keyFromRow, profileFromRow } from '../metadata-rows.ts';
import { pgCells } from '../sql/pg-runner.ts';
import { type PgDatabase, type Row, runQuery, toNullableNumber } from './pg-database.ts';

/** A pool (one statement on its own) or a transaction's client. */
type Queryable = pg.Pool | pg.ClientBase;

/** Keys, profiles and webhook secrets in PostgreSQL. Keys are stored as SHA-256 hashes only. */
export class PgKeyStore implements KeyStore {
  private readonly database: PgDatabase;

  constructor(database: PgDatabase) {
    this.database = database;
  }

  /** Stores a new key record; rejects a duplicate id or hash. */
  async insertKey(key: ApiKeyRecord, setup?: KeySetup): Promise<void> {
    if (setup === undefined) {
      await this.insertKeyWith(this.database.pool, key);
      return;
    }
    await this.database.transaction(async (client) => {
      await this.insertKeyWith(client, key);
      await this.upsertProfileWith(client, setup.profile);
      await this.setWebhookSecretWith(client, key.id, setup.webhookSecret, key.createdAt, null);
    });
  }

  private async insertKeyWith(queryable: Queryable, key: ApiKeyRecord): Promise<void> {
    await runQuery(
      queryable,
      `INSERT INTO api_keys (id, name, key_hash, display_prefix, can_list_match, can_onboard, direct_upload,
         created_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        key.id,
        key.name,
        key.keyHash,
        key.displayPrefix,
        key.entitlements.listMatching,
        key.entitlements.onboarding,
        key.entitlements.directUpload,
        key.createdAt,
        key.revokedAt,
      ],
    );
  }

  /** The key whose SHA-256 hash this is, revoked or not; null when none. */
  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const result = await this.database.query('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
    const row = result.rows[0];
    return row === undefined ? null : toKey(row);
  }

  /** By id or display name; of several, an active one first, then the newest. */
  async findKey(idOrName: string): Promise<ApiKeyRecord | null> {
    const result = await this.database.query(
      'SELECT * FROM api_keys WHERE id = $1 OR name = $1 ORDER BY revoked_at IS NULL DESC, id DESC LIMIT 1',
      [idOrName],
    );
    const row = result.rows[0];
    return row === undefined ? null : toKey(row);
  }

  /** Every key, oldest first. */
  async listKeys(): Promise<ApiKeyRecord[]> {
    const result = await this.database.query('SELECT * FROM api_keys ORDER BY id');
    return result.rows.map(toKey);
  }

  /** Revokes an active key at `at`; false when there is no such active key. */
  async revokeKey(id: string, at: number): Promise<boolean> {
    const result = await this.database.query(
      'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [at, id],
    );
    return result.rowCount === 1;
  }

  /** Replaces the key's entitlements (no-op for an unknown id). */
  async setEntitlements(id: string, e: Entitlements): Promise<void> {
    await this.database.query(
      'UPDATE api_keys SET can_list_match = $1, can_onboard = $2, direct_upload = $3 WHERE id = $4',
      [e.listMatching, e.onboarding, e.directUpload, id],
    );
  }

  /** Inserts or replaces the profile; rejects a profile of an unknown key. */
  async upsertProfile(profile: Profile): Promise<void> {
    await this.upsertProfileWith(this.database.pool, profile);
  }

  private async upsertProfileWith(queryable: Queryable, profile: Profile): Promise<void> {
    const config = JSON.stringify({
      appendedFields: profile.appendedFields,
      contactFields: profile.contactFields,
      matchThreshold: profile.matchThreshold,
      maxMatchesCap: profile.maxMatchesCap,
      webhookHosts: profile.webhookHosts,
      delivery: profile.delivery,
    });
    await runQuery(
      queryable,
      `INSERT INTO profiles (key_id, profile_id, config, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_id, profile_id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
      [profile.keyId, profile.profileId, config, profile.updatedAt],
    );
  }

  /** The key's profile with this id, or null. */
  async findProfile(keyId: string, profileId: string): Promise<Profile | null> {
    const result = await this.database.query('SELECT * FROM profiles WHERE key_id = $1 AND profile_id = $2', [
      keyId,
      profileId,
    ]);
    const row = result.rows[0];
    return row === undefined ? null : toProfile(row);
  }

  /** The key's profiles by id, or every profile by key then id. */
  async listProfiles(keyId?: string): Promise<Profile[]> {
    const result =
      keyId === undefined
        ? await this.database.query('SELECT * FROM profiles ORDER BY key_id, profile_id')
        : await this.database.query('SELECT * FROM profiles WHERE key_id = $1 ORDER BY profile_id', [keyId]);
    return result.rows.map(toProfile);
  }

  /**
   * Stores (or replaces) the key's signing secret in one statement; with `previousValidUntil` the
   * replaced secret keeps signing until then, with null it is dropped.
   */
  async setWebhookSecret(
    keyId: string,
    secret: string,
    at: number,
    previousValidUntil: number | null,
  ): Promise<void> {
    await this.setWebhookSecretWith(this.database.pool, keyId, secret, at, previousValidUntil);
  }

  private async setWebhookSecretWith(
    queryable: Queryable,
    keyId: string,
    secret: string,
    at: number,
    previousValidUntil: number | null,
  ): Promise<void> {
    await runQuery(
      queryable,
      `INSERT INTO webhook_secrets (key_id, secret, created_at) VALUES ($1, $2, $3)
       ON CONFLICT (key_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
         previous_secret = CASE WHEN $4::bigint IS NULL THEN NULL ELSE webhook_secrets.secret END,
         previous_until = $4::bigint`,
      [keyId, secret, at, previousValidUntil],
    );
  }

  /** The current secret, then a replaced one still within its overlap at `now`. */
  async findWebhookSecrets(keyId: string, now: number): Promise<string[]> {
    const result = await this.database.query(
      'SELECT secret, previous_secret, previous_until FROM webhook_secrets WHERE key_id = $1',
      [keyId],
    );
    const row = result.rows[0];
    if (row === undefined) return [];
    const previous = row['previous_secret'] as string | null;
    const until = toNullableNumber(row['previous_until']);
    return previous !== null && until !== null && now < until
      ? [row['secret'] as string, previous]
      : [row['secret'] as string];
  }
}

const toKey = (row: Row): ApiKeyRecord => keyFromRow(row, pgCells);

const toProfile = (row: Row): Profile => profileFromRow(row, pgCells);
