import type { ApiKeyRecord, Entitlements, Profile } from '../../domain/keys/key-types.ts';
import type { KeySetup, KeyStore } from '../../domain/ports/key-store.ts';
import { keyFromRow, profileFromRow } from '../metadata-rows.ts';
import { sqliteCells } from '../sql/sqlite-runner.ts';
import type { SqliteDatabase } from './sqlite-database.ts';

type Row = Record<string, unknown>;

/** Keys and profiles in the embedded SQLite database. */
export class SqliteKeyStore implements KeyStore {
  private readonly database: SqliteDatabase;
  private readonly byHash;

  constructor(database: SqliteDatabase) {
    this.database = database;
    this.byHash = database.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
  }

  async insertKey(key: ApiKeyRecord, setup?: KeySetup): Promise<void> {
    this.database.transaction(() => {
      this.insertKeyNow(key);
      if (setup !== undefined) {
        this.upsertProfileNow(setup.profile);
        this.setWebhookSecretNow(key.id, setup.webhookSecret, key.createdAt, null);
      }
    });
  }

  private insertKeyNow(key: ApiKeyRecord): void {
    this.database.db
      .prepare(
        `INSERT INTO api_keys (id, name, key_hash, display_prefix, can_list_match, can_onboard, direct_upload, created_at, revoked_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        key.id,
        key.name,
        key.keyHash,
        key.displayPrefix,
        Number(key.entitlements.listMatching),
        Number(key.entitlements.onboarding),
        Number(key.entitlements.directUpload),
        key.createdAt,
        key.revokedAt,
      );
  }

  async findKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.byHash.get(keyHash) as Row | undefined;
    return row ? toKey(row) : null;
  }

  async findKey(idOrName: string): Promise<ApiKeyRecord | null> {
    const rows = this.database.db
      .prepare('SELECT * FROM api_keys WHERE id = ? OR name = ? ORDER BY revoked_at IS NULL DESC, id DESC')
      .all(idOrName, idOrName) as Row[];
    return rows[0] ? toKey(rows[0]) : null;
  }

  async listKeys(): Promise<ApiKeyRecord[]> {
    return (this.database.db.prepare('SELECT * FROM api_keys ORDER BY id').all() as Row[]).map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    const result = this.database.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
      .run(at, id);
    return result.changes === 1;
  }

  async setEntitlements(id: string, e: Entitlements): Promise<void> {
    this.database.db
      .prepare('UPDATE api_keys SET can_list_match = ?, can_onboard = ?, direct_upload = ? WHERE id = ?')
      .run(Number(e.listMatching), Number(e.onboarding), Number(e.directUpload), id);
  }

  async upsertProfile(profile: Profile): Promise<void> {
    this.upsertProfileNow(profile);
  }

  private upsertProfileNow(profile: Profile): void {
    const config = JSON.stringify({
      appendedFields: profile.appendedFields,
      contactFields: profile.contactFields,
      matchThreshold: profile.matchThreshold,
      maxMatchesCap: profile.maxMatchesCap,
      webhookHosts: profile.webhookHosts,
      delivery: profile.delivery,
    });
    this.database.db
      .prepare(
        `INSERT INTO profiles (key_id, profile_id, config, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (key_id, profile_id) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
      )
      .run(profile.keyId, profile.profileId, config, profile.updatedAt);
  }

  async findProfile(keyId: string, profileId: string): Promise<Profile | null> {
    const row = this.database.db
      .prepare('SELECT * FROM profiles WHERE key_id = ? AND profile_id = ?')
      .get(keyId, profileId) as Row | undefined;
    return row ? toProfile(row) : null;
  }

  async listProfiles(keyId?: string): Promise<Profile[]> {
    const rows = (
      keyId === undefined
        ? this.database.db.prepare('SELECT * FROM profiles ORDER BY key_id, profile_id').all()
        : this.database.db.prepare('SELECT * FROM profiles WHERE key_id = ? ORDER BY profile_id').all(keyId)
    ) as Row[];
    return rows.map(toProfile);
  }

  async setWebhookSecret(
    keyId: string,
    secret: string,
    at: number,
    previousValidUntil: number | null,
  ): Promise<void> {
    this.setWebhookSecretNow(keyId, secret, at, previousValidUntil);
  }

  private setWebhookSecretNow(
    keyId: string,
    secret: string,
    at: number,
    previousValidUntil: number | null,
  ): void {
    this.database.db
      .prepare(
        `INSERT INTO webhook_secrets (key_id, secret, created_at) VALUES (?, ?, ?)
         ON CONFLICT (key_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
           previous_secret = CASE WHEN ? IS NULL THEN NULL ELSE webhook_secrets.secret END,
           previous_until = ?`,
      )
      .run(keyId, secret, at, previousValidUntil, previousValidUntil);
  }

  async findWebhookSecrets(keyId: string, now: number): Promise<string[]> {
    const row = this.database.db
      .prepare('SELECT secret, previous_secret, previous_until FROM webhook_secrets WHERE key_id = ?')
      .get(keyId) as Row | undefined;
    if (row === undefined) return [];
    const previous = row['previous_secret'] as string | null;
    const until = row['previous_until'] as number | null;
    return previous !== null && until !== null && now < until
      ? [row['secret'] as string, previous]
      : [row['secret'] as string];
  }
}

const toKey = (row: Row): ApiKeyRecord => keyFromRow(row, sqliteCells);

const toProfile = (row: Row): Profile => profileFromRow(row, sqliteCells);
