import type { ApiKeyRecord, Entitlements, Profile } from '../../domain/keys/key-types.ts';
import type { KeySetup, KeyStore } from '../../domain/ports/key-store.ts';
import { keyFromRow, profileFromRow } from './metadata-rows.ts';
import type { Row, SqlRunner, SqlStatement } from './sql-runner.ts';

/** Keys, profiles and webhook secrets in the metadata database. Keys are stored as SHA-256 hashes only. */
export class SqlKeyStore implements KeyStore {
  private readonly sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.sql = sql;
  }

  /**
   * Stores a new key record, with `setup`'s first profile and signing secret in the same
   * transaction; rejects a duplicate id or hash.
   */
  async insertKey(key: ApiKeyRecord, setup?: KeySetup): Promise<void> {
    const statements = [insertKey(key)];
    if (setup !== undefined) {
      statements.push(
        upsertProfile(setup.profile),
        setWebhookSecret(key.id, setup.webhookSecret, key.createdAt, null),
      );
    }
    await this.sql.write(statements);
  }

  /** The key whose SHA-256 hash this is, revoked or not; null when none. */
  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.get('SELECT * FROM api_keys WHERE key_hash = ?', [keyHash]);
    return row === null ? null : this.toKey(row);
  }

  /** By id or display name; of several, an active one first, then the newest. */
  async findKey(idOrName: string): Promise<ApiKeyRecord | null> {
    const row = await this.sql.get(
      'SELECT * FROM api_keys WHERE id = ? OR name = ? ORDER BY revoked_at IS NULL DESC, id DESC LIMIT 1',
      [idOrName, idOrName],
    );
    return row === null ? null : this.toKey(row);
  }

  /** Every key, oldest first. */
  async listKeys(): Promise<ApiKeyRecord[]> {
    return (await this.sql.all('SELECT * FROM api_keys ORDER BY id')).map((row) => this.toKey(row));
  }

  /** Revokes an active key at `at`; false when there is no such active key. */
  async revokeKey(id: string, at: number): Promise<boolean> {
    const changed = await this.sql.run(
      'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
      [at, id],
    );
    return changed === 1;
  }

  /** Replaces the key's entitlements (no-op for an unknown id). */
  async setEntitlements(id: string, e: Entitlements): Promise<void> {
    await this.sql.run(
      'UPDATE api_keys SET can_list_match = ?, can_onboard = ?, direct_upload = ? WHERE id = ?',
      [e.listMatching, e.onboarding, e.directUpload, id],
    );
  }

  /** Inserts or replaces the profile; rejects a profile of an unknown key. */
  async upsertProfile(profile: Profile): Promise<void> {
    const { sql, params } = upsertProfile(profile);
    await this.sql.run(sql, params);
  }

  /** The key's profile with this id, or null. */
  async findProfile(keyId: string, profileId: string): Promise<Profile | null> {
    const row = await this.sql.get('SELECT * FROM profiles WHERE key_id = ? AND profile_id = ?', [
      keyId,
      profileId,
    ]);
    return row === null ? null : this.toProfile(row);
  }

  /** The key's profiles by id, or every profile by key then id. */
  async listProfiles(keyId?: string): Promise<Profile[]> {
    const rows =
      keyId === undefined
        ? await this.sql.all('SELECT * FROM profiles ORDER BY key_id, profile_id')
        : await this.sql.all('SELECT * FROM profiles WHERE key_id = ? ORDER BY profile_id', [keyId]);
    return rows.map((row) => this.toProfile(row));
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
    const { sql, params } = setWebhookSecret(keyId, secret, at, previousValidUntil);
    await this.sql.run(sql, params);
  }

  /** The current secret, then a replaced one still within its overlap at `now`. */
  async findWebhookSecrets(keyId: string, now: number): Promise<string[]> {
    const row = await this.sql.get(
      'SELECT secret, previous_secret, previous_until FROM webhook_secrets WHERE key_id = ?',
      [keyId],
    );
    if (row === null) return [];
    const previous = row['previous_secret'] as string | null;
    const until = this.sql.cells.nullableInt(row['previous_until']);
    return previous !== null && until !== null && now < until
      ? [row['secret'] as string, previous]
      : [row['secret'] as string];
  }

  private toKey(row: Row): ApiKeyRecord {
    return keyFromRow(row, this.sql.cells);
  }

  private toProfile(row: Row): Profile {
    return profileFromRow(row, this.sql.cells);
  }
}

/** Entitlements are booleans: the runner binds them as its dialect stores them. */
function insertKey(key: ApiKeyRecord): SqlStatement {
  return {
    sql: `INSERT INTO api_keys (id, name, key_hash, display_prefix, can_list_match, can_onboard, direct_upload,
            created_at, revoked_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
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
  };
}

/** The profile's settings are one JSON column, so new settings need no migration. */
function upsertProfile(profile: Profile): SqlStatement {
  const config = JSON.stringify({
    appendedFields: profile.appendedFields,
    contactFields: profile.contactFields,
    matchThreshold: profile.matchThreshold,
    maxMatchesCap: profile.maxMatchesCap,
    webhookHosts: profile.webhookHosts,
    delivery: profile.delivery,
  });
  return {
    sql: `INSERT INTO profiles (key_id, profile_id, config, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (key_id, profile_id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    params: [profile.keyId, profile.profileId, config, profile.updatedAt],
  };
}

/** With `previousValidUntil`, the replaced secret moves to previous_secret; with null it is dropped. */
function setWebhookSecret(
  keyId: string,
  secret: string,
  at: number,
  previousValidUntil: number | null,
): SqlStatement {
  // The CAST types the bare parameter for PostgreSQL, which cannot infer it from `? IS NULL`.
  return {
    sql: `INSERT INTO webhook_secrets (key_id, secret, created_at) VALUES (?, ?, ?)
          ON CONFLICT (key_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
            previous_secret = CASE WHEN CAST(? AS BIGINT) IS NULL THEN NULL ELSE webhook_secrets.secret END,
            previous_until = ?`,
    params: [keyId, secret, at, previousValidUntil, previousValidUntil],
  };
}
