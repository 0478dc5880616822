import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { newId } from '../../src/domain/ids.ts';
import type { ApiKeyRecord, Profile } from '../../src/domain/keys/key-types.ts';
import type { KeyStore } from '../../src/domain/ports/key-store.ts';

/** What the key-store suite needs of a backend: a fresh, empty store for each test. */
export interface KeyStoreBackend {
  keys: KeyStore;
  close(): Promise<void>;
}

const T0 = 1_700_000_000_000;

function key(overrides: Partial<ApiKeyRecord> = {}, now = T0): ApiKeyRecord {
  const id = overrides.id ?? newId('key', now);
  return {
    id,
    name: `client ${id.slice(-6)}`,
    keyHash: `sha256-of-${id}`,
    displayPrefix: 'lm_AbCdEf',
    entitlements: { listMatching: true, onboarding: true, directUpload: false },
    createdAt: now,
    revokedAt: null,
    ...overrides,
  };
}

function profile(keyId: string, profileId: string, overrides: Partial<Profile> = {}): Profile {
  return {
    keyId,
    profileId,
    appendedFields: [],
    contactFields: [],
    matchThreshold: null,
    maxMatchesCap: null,
    webhookHosts: [],
    delivery: 'folder',
    updatedAt: T0,
    ...overrides,
  };
}

/** The KeyStore contract: keys by hash, id and name, revocation, entitlements, profiles, webhook secrets. */
export function keyStoreContract(backend: string, open: () => Promise<KeyStoreBackend>): void {
  describe(`KeyStore contract: ${backend}`, () => {
    let b: KeyStoreBackend;
    let store: KeyStore;

    const inserted = async (record: ApiKeyRecord): Promise<ApiKeyRecord> => {
      await store.insertKey(record);
      return record;
    };

    beforeEach(async () => {
      b = await open();
      store = b.keys;
    });

    afterEach(() => b.close());

    describe('keys', () => {
      it('finds a key by its hash, with every field as stored', async () => {
        const record = await inserted(key());
        assert.deepEqual(await store.findKeyByHash(record.keyHash), record);
        assert.equal(await store.findKeyByHash('sha256-of-someone-else'), null);
      });

      it('round-trips each entitlement on its own', async () => {
        const combos = [
          { listMatching: true, onboarding: false, directUpload: false },
          { listMatching: false, onboarding: true, directUpload: false },
          { listMatching: false, onboarding: false, directUpload: true },
          { listMatching: false, onboarding: false, directUpload: false },
        ];
        for (const [i, entitlements] of combos.entries()) {
          const record = await inserted(key({ entitlements }, T0 + i));
          assert.deepEqual((await store.findKeyByHash(record.keyHash))?.entitlements, entitlements);
        }
      });

      it('round-trips a revoked key', async () => {
        const record = await inserted(key({ revokedAt: T0 + 5 }));
        assert.deepEqual(await store.findKey(record.id), record);
      });

      it('refuses a second key with the same hash or id', async () => {
        const record = await inserted(key());
        await assert.rejects(store.insertKey(key({ keyHash: record.keyHash }, T0 + 1)));
        await assert.rejects(store.insertKey({ ...record, keyHash: 'another-hash' }));
        assert.deepEqual(await store.listKeys(), [record]);
      });

      it('stores a new key with its first profile and webhook secret in one go', async () => {
        const record = key();
        const first = profile(record.id, 'default', { appendedFields: [{ source: 'party', as: 'party' }] });
        await store.insertKey(record, { profile: first, webhookSecret: 'whsec_first' });
        assert.deepEqual(await store.findKey(record.id), record);
        assert.deepEqual(await store.findProfile(record.id, 'default'), first);
        assert.deepEqual(await store.findWebhookSecrets(record.id, T0), ['whsec_first']);
      });

      it('stores nothing of a new key when a part of it is refused', async () => {
        const record = key();
        // A profile that names another, unknown key: refused after the key row was written.
        await assert.rejects(
          store.insertKey(record, { profile: profile('key_unknown', 'default'), webhookSecret: 'whsec_x' }),
        );
        assert.equal(await store.findKey(record.id), null);
        assert.deepEqual(await store.listKeys(), []);
        assert.deepEqual(await store.findWebhookSecrets(record.id, T0), []);
      });

      it('finds a key by id or by name', async () => {
        const record = await inserted(key({ name: 'Client One' }));
        assert.deepEqual(await store.findKey(record.id), record);
        assert.deepEqual(await store.findKey('Client One'), record);
        assert.equal(await store.findKey('client one'), null);
        assert.equal(await store.findKey('nobody'), null);
      });

      it('prefers an active key to revoked ones of the same name, then the newest', async () => {
        const revokedNewest = await inserted(key({ name: 'shared', revokedAt: T0 + 50 }, T0 + 30));
        const activeOld = await inserted(key({ name: 'shared' }, T0));
        const activeNew = await inserted(key({ name: 'shared' }, T0 + 10));
        assert.equal((await store.findKey('shared'))?.id, activeNew.id);
        assert.equal(await store.revokeKey(activeNew.id, T0 + 60), true);
        assert.equal((await store.findKey('shared'))?.id, activeOld.id);
        assert.equal(await store.revokeKey(activeOld.id, T0 + 70), true);
        assert.equal((await store.findKey('shared'))?.id, revokedNewest.id);
      });

      it('lists keys oldest first (by id), whatever the insert order', async () => {
        const a = key({}, T0);
        const b2 = key({}, T0 + 1);
        const c = key({}, T0 + 2);
        for (const record of [c, a, b2]) await store.insertKey(record);
        assert.deepEqual(await store.listKeys(), [a, b2, c]);
      });

      it('lists nothing in an empty store', async () => {
        assert.deepEqual(await store.listKeys(), []);
      });

      it('revokes an active key once', async () => {
        const record = await inserted(key());
        assert.equal(await store.revokeKey(record.id, T0 + 5), true);
        assert.equal((await store.findKeyByHash(record.keyHash))?.revokedAt, T0 + 5);
        assert.equal(await store.revokeKey(record.id, T0 + 6), false);
        assert.equal((await store.findKey(record.id))?.revokedAt, T0 + 5);
        assert.equal(await store.revokeKey('key_NOPE', T0), false);
      });

      it('replaces entitlements and nothing else', async () => {
        const record = await inserted(key());
        const other = await inserted(key({}, T0 + 1));
        const entitlements = { listMatching: false, onboarding: true, directUpload: true };
        await store.setEntitlements(record.id, entitlements);
        assert.deepEqual(await store.findKey(record.id), { ...record, entitlements });
        assert.deepEqual(await store.findKey(other.id), other);
        await store.setEntitlements('key_NOPE', entitlements);
        assert.equal((await store.listKeys()).length, 2);
      });
    });

    describe('profiles', () => {
      let keyId: string;
      beforeEach(async () => {
        keyId = (await inserted(key())).id;
      });

      it('round-trips a profile with every setting', async () => {
        const stored = profile(keyId, 'vip.2024-A_1', {
          appendedFields: [
            { source: 'party', as: 'party' },
            { source: 'age', as: 'age_years' },
          ],
          contactFields: ['email', 'wireless'],
          matchThreshold: 0,
          maxMatchesCap: 3,
          webhookHosts: ['hooks.example.com', 'hooks.example.org:8443'],
          delivery: 'none',
          updatedAt: T0 + 9,
        });
        await store.upsertProfile(stored);
        assert.deepEqual(await store.findProfile(keyId, 'vip.2024-A_1'), stored);
      });

      it('replaces a profile with the same key and id', async () => {
        await store.upsertProfile(profile(keyId, 'p', { contactFields: ['email'], matchThreshold: 80 }));
        const replaced = profile(keyId, 'p', { contactFields: ['voip'], updatedAt: T0 + 1 });
        await store.upsertProfile(replaced);
        assert.deepEqual(await store.findProfile(keyId, 'p'), replaced);
        assert.deepEqual(await store.listProfiles(keyId), [replaced]);
      });

      it('returns null for an unknown profile or key', async () => {
        await store.upsertProfile(profile(keyId, 'p'));
        assert.equal(await store.findProfile(keyId, 'q'), null);
        assert.equal(await store.findProfile('key_NOPE', 'p'), null);
      });

      it("lists a key's profiles by id, or every profile by key then id", async () => {
        const otherKey = (await inserted(key({}, T0 - 1))).id;
        for (const [k, p] of [
          [keyId, 'b'],
          [otherKey, 'z'],
          [keyId, 'a'],
          [keyId, 'B'],
          [otherKey, 'a'],
        ] as const) {
          await store.upsertProfile(profile(k, p));
        }
        assert.deepEqual(
          (await store.listProfiles(keyId)).map((p) => p.profileId),
          ['B', 'a', 'b'],
        );
        assert.deepEqual(
          (await store.listProfiles()).map((p) => `${p.keyId === keyId ? 'mine' : 'other'}/${p.profileId}`),
          ['other/a', 'other/z', 'mine/B', 'mine/a', 'mine/b'],
        );
        assert.deepEqual(await store.listProfiles('key_NOPE'), []);
      });

      it('refuses a profile of an unknown key', async () => {
        await assert.rejects(store.upsertProfile(profile('key_NOPE', 'p')), /foreign key/i);
        assert.deepEqual(await store.listProfiles(), []);
      });
    });

    describe('webhook secrets', () => {
      let keyId: string;
      beforeEach(async () => {
        keyId = (await inserted(key())).id;
      });

      it('has none for a key made before signing existed', async () => {
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0), []);
        assert.deepEqual(await store.findWebhookSecrets('key_NOPE', T0), []);
      });

      it('signs with the stored secret', async () => {
        await store.setWebhookSecret(keyId, 'whsec_first', T0, null);
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0 + 1), ['whsec_first']);
      });

      it('keeps a replaced secret signing until the end of its overlap, then drops it', async () => {
        const until = T0 + 86_400_000;
        await store.setWebhookSecret(keyId, 'whsec_first', T0, null);
        await store.setWebhookSecret(keyId, 'whsec_second', T0 + 1, until);
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0 + 2), ['whsec_second', 'whsec_first']);
        assert.deepEqual(await store.findWebhookSecrets(keyId, until - 1), ['whsec_second', 'whsec_first']);
        assert.deepEqual(await store.findWebhookSecrets(keyId, until), ['whsec_second']);
      });

      it('drops the replaced secret at once without an overlap', async () => {
        await store.setWebhookSecret(keyId, 'whsec_first', T0, null);
        await store.setWebhookSecret(keyId, 'whsec_leaked', T0 + 1, T0 + 1_000);
        await store.setWebhookSecret(keyId, 'whsec_fresh', T0 + 2, null);
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0 + 3), ['whsec_fresh']);
      });

      it('keeps only the secret it replaced, not older ones', async () => {
        await store.setWebhookSecret(keyId, 'whsec_1', T0, null);
        await store.setWebhookSecret(keyId, 'whsec_2', T0 + 1, T0 + 1_000);
        await store.setWebhookSecret(keyId, 'whsec_3', T0 + 2, T0 + 1_000);
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0 + 3), ['whsec_3', 'whsec_2']);
      });

      it('keeps secrets per key', async () => {
        const otherKey = (await inserted(key({}, T0 + 1))).id;
        await store.setWebhookSecret(keyId, 'whsec_mine', T0, null);
        await store.setWebhookSecret(otherKey, 'whsec_theirs', T0, null);
        assert.deepEqual(await store.findWebhookSecrets(keyId, T0), ['whsec_mine']);
        assert.deepEqual(await store.findWebhookSecrets(otherKey, T0), ['whsec_theirs']);
      });

      it('refuses a secret for an unknown key', async () => {
        await assert.rejects(store.setWebhookSecret('key_NOPE', 'whsec_x', T0, null), /foreign key/i);
      });
    });
  });
}
