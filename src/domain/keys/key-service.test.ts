import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqlKeyStore } from '../../adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../adapters/sqlite/sqlite-database.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { hashApiKey, KeyService, WEBHOOK_SECRET_OVERLAP_MS } from './key-service.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const T0 = 1_700_000_000_000;

let database: SqliteDatabase;
let store: SqlKeyStore;
let keys: KeyService;

async function assertAppError(fn: () => unknown, code: ErrorCode, message: string): Promise<void> {
  await assert.rejects(
    async () => fn(),
    (error: unknown) => {
      assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
      assert.equal(error.code, code);
      assert.equal(error.message, message);
      return true;
    },
  );
}

/** The message of the UNAUTHORIZED error `authenticate` throws for `presented`. */
async function unauthorizedMessage(presented: string | string[] | undefined): Promise<string> {
  try {
    await keys.authenticate(presented);
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'UNAUTHORIZED');
    return error.message;
  }
  assert.fail('authenticate accepted the key');
}

const wellFormedUnknownKey = () => `lm_${randomBytes(32).toString('base64url')}`;

beforeEach(() => {
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  store = new SqlKeyStore(new SqliteRunner(database));
  keys = new KeyService(store);
});

afterEach(() => database.close());

describe('KeyService.createKey', () => {
  it('creates keys of the form lm_ + 43 base64url characters, different every time', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { key } = await keys.createKey({ name: `k${i}` }, T0);
      assert.match(key, /^lm_[A-Za-z0-9_-]{43}$/);
      seen.add(key);
    }
    assert.equal(seen.size, 20);
  });

  it('returns a record with the SHA-256 hash, a display prefix, an id and default entitlements', async () => {
    const { key, record } = await keys.createKey({ name: '  Client One  ' }, T0);
    assert.deepEqual(record, {
      id: record.id,
      name: 'Client One',
      keyHash: createHash('sha256').update(key).digest('hex'),
      displayPrefix: key.slice(0, 9),
      entitlements: { listMatching: true, onboarding: true, directUpload: false },
      createdAt: T0,
      revokedAt: null,
    });
    assert.match(record.id, /^key_[0-9A-Z]{26}$/);
    assert.equal(hashApiKey(key), record.keyHash);
  });

  it('stores only the hash: the key itself appears nowhere in the database', async () => {
    const { key, record } = await keys.createKey({ name: 'client' }, T0);
    const rows = database.db.prepare('SELECT * FROM api_keys').all();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!['key_hash'], createHash('sha256').update(key).digest('hex'));
    assert.equal(rows[0]!['display_prefix'], key.slice(0, 9));
    const secretPart = key.slice(9);
    for (const table of ['api_keys', 'profiles']) {
      const dump = JSON.stringify(database.db.prepare(`SELECT * FROM ${table}`).all());
      assert.equal(dump.includes(key), false, `${table} holds the key`);
      assert.equal(dump.includes(secretPart), false, `${table} holds the secret part of the key`);
    }
    assert.deepEqual(await store.findKeyByHash(hashApiKey(key)), record);
  });

  it('applies entitlement overrides', async () => {
    const { record } = await keys.createKey(
      { name: 'c', entitlements: { listMatching: false, directUpload: true } },
      T0,
    );
    assert.deepEqual(record.entitlements, { listMatching: false, onboarding: true, directUpload: true });
    assert.deepEqual((await store.findKey(record.id))?.entitlements, record.entitlements);
  });

  it('creates an empty default profile', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    assert.deepEqual(await store.listProfiles(record.id), [
      {
        keyId: record.id,
        profileId: 'default',
        appendedFields: [],
        contactFields: [],
        matchThreshold: null,
        maxMatchesCap: null,
        webhookHosts: [],
        delivery: 'folder',
        updatedAt: T0,
      },
    ]);
  });

  for (const name of ['', '   ', 'x'.repeat(101)]) {
    it(`refuses the name ${JSON.stringify(name.length > 10 ? `${name.length} chars` : name)}`, async () => {
      await assertAppError(
        async () => await keys.createKey({ name }, T0),
        'VALIDATION_FAILED',
        'a key name of 1-100 characters is required',
      );
      assert.deepEqual(await store.listKeys(), []);
    });
  }

  it('accepts a name of 100 characters', async () => {
    assert.equal((await keys.createKey({ name: 'x'.repeat(100) }, T0)).record.name.length, 100);
  });
});

describe('KeyService.authenticate', () => {
  it('returns the record for a valid key', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    assert.deepEqual(await keys.authenticate(key), record);
  });

  it('ignores surrounding whitespace', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    assert.deepEqual(await keys.authenticate(` ${key}\t`), record);
  });

  it('takes the first value of a header array', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    assert.deepEqual(await keys.authenticate([key]), record);
    assert.deepEqual(await keys.authenticate([key, wellFormedUnknownKey()]), record);
    assert.equal(await unauthorizedMessage([wellFormedUnknownKey(), key]), 'invalid API key');
  });

  it('refuses a missing key', async () => {
    assert.equal(await unauthorizedMessage(undefined), 'missing x-api-key header');
    assert.equal(await unauthorizedMessage(''), 'missing x-api-key header');
  });

  it('treats an empty header array as a missing key', async () => {
    assert.equal(await unauthorizedMessage([]), 'missing x-api-key header');
  });

  it('refuses malformed keys', async () => {
    const { key } = await keys.createKey({ name: 'c' }, T0);
    for (const malformed of [
      'lm_short',
      key.slice(3),
      `${key}x`,
      `LM_${key.slice(3)}`,
      `lm_${'!'.repeat(43)}`,
    ]) {
      assert.equal(
        await unauthorizedMessage(malformed),
        'malformed API key: expected lm_ followed by 43 characters',
        malformed,
      );
    }
  });

  it('refuses a well-formed key that does not exist', async () => {
    await keys.createKey({ name: 'c' }, T0);
    assert.equal(await unauthorizedMessage(wellFormedUnknownKey()), 'invalid API key');
  });

  it('refuses a revoked key', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    await keys.revoke(record.id, T0 + 1);
    assert.equal(await unauthorizedMessage(key), 'this API key was revoked');
  });

  it('gives missing, revoked and invalid keys distinct messages', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    await keys.revoke(record.id, T0 + 1);
    const messages = [
      unauthorizedMessage(undefined),
      unauthorizedMessage(wellFormedUnknownKey()),
      unauthorizedMessage(key),
    ];
    assert.equal(new Set(messages).size, 3);
  });

  it('tells a malformed key from a well-formed unknown one', async () => {
    assert.notEqual(await unauthorizedMessage('lm_short'), await unauthorizedMessage(wellFormedUnknownKey()));
  });
});

describe('KeyService.authenticate with maxAgeMs (the person lookups)', () => {
  /** The store's key reads by hash, counted. */
  const countReads = () => {
    const reads = { count: 0 };
    const find = store.findKeyByHash.bind(store);
    store.findKeyByHash = async (hash: string) => {
      reads.count++;
      return await find(hash);
    };
    return reads;
  };

  it('reads a key from the store once within maxAgeMs, and again after it', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    const reads = countReads();
    assert.deepEqual(await keys.authenticate(key, { maxAgeMs: 2000 }, T0), record);
    assert.deepEqual(await keys.authenticate(key, { maxAgeMs: 2000 }, T0 + 1999), record);
    assert.equal(reads.count, 1);
    assert.deepEqual(await keys.authenticate(key, { maxAgeMs: 2000 }, T0 + 2000), record);
    assert.equal(reads.count, 2);
    // Without maxAgeMs (every other route): always read.
    await keys.authenticate(key, {}, T0 + 2001);
    assert.equal(reads.count, 3);
  });

  it('refuses a key revoked here at once, one revoked by another process after maxAgeMs', async () => {
    const here = await keys.createKey({ name: 'here' }, T0);
    const elsewhere = await keys.createKey({ name: 'elsewhere' }, T0);
    for (const { key } of [here, elsewhere]) await keys.authenticate(key, { maxAgeMs: 2000 }, T0);
    await keys.revoke(here.record.id, T0 + 1);
    await assertAppError(
      async () => await keys.authenticate(here.key, { maxAgeMs: 2000 }, T0 + 2),
      'UNAUTHORIZED',
      'this API key was revoked',
    );
    // Another process's service (the CLI's) revokes in the store: remembered until maxAgeMs.
    await new KeyService(store).revoke(elsewhere.record.id, T0 + 1);
    assert.equal(
      (await keys.authenticate(elsewhere.key, { maxAgeMs: 2000 }, T0 + 1999)).id,
      elsewhere.record.id,
    );
    await assertAppError(
      async () => await keys.authenticate(elsewhere.key, { maxAgeMs: 2000 }, T0 + 2000),
      'UNAUTHORIZED',
      'this API key was revoked',
    );
  });

  it('applies changed entitlements here at once', async () => {
    const { key, record } = await keys.createKey({ name: 'c' }, T0);
    await keys.authenticate(key, { maxAgeMs: 2000 }, T0);
    await keys.setEntitlements(record.id, { onboarding: false });
    const now = await keys.authenticate(key, { maxAgeMs: 2000 }, T0 + 1);
    assert.equal(now.entitlements.onboarding, false);
  });

  it('never remembers an unknown key', async () => {
    const reads = countReads();
    const unknown = wellFormedUnknownKey();
    for (let i = 0; i < 3; i++) {
      await assertAppError(
        async () => await keys.authenticate(unknown, { maxAgeMs: 2000 }, T0 + i),
        'UNAUTHORIZED',
        'invalid API key',
      );
    }
    assert.equal(reads.count, 3);
  });
});

describe('KeyService.revoke', () => {
  it('revokes by id and by name', async () => {
    const first = (await keys.createKey({ name: 'first' }, T0)).record;
    const second = await keys.createKey({ name: 'second' }, T0);
    assert.deepEqual(await keys.revoke(first.id, T0 + 5), { ...first, revokedAt: T0 + 5 });
    assert.equal((await keys.revoke('second', T0 + 6)).revokedAt, T0 + 6);
    assert.equal((await store.findKey(first.id))?.revokedAt, T0 + 5);
    assert.equal(await unauthorizedMessage(second.key), 'this API key was revoked');
  });

  it('refuses to revoke twice (CONFLICT)', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    await keys.revoke(record.id, T0 + 1);
    await assertAppError(
      async () => await keys.revoke(record.id, T0 + 2),
      'CONFLICT',
      `key ${record.id} is already revoked`,
    );
    assert.equal((await store.findKey(record.id))?.revokedAt, T0 + 1);
  });

  it('refuses an unknown key (NOT_FOUND)', async () => {
    await assertAppError(
      async () => await keys.revoke('nobody', T0),
      'NOT_FOUND',
      'no key with id or name "nobody"',
    );
  });

  it('leaves other keys working', async () => {
    const revoked = (await keys.createKey({ name: 'a' }, T0)).record;
    const { key, record } = await keys.createKey({ name: 'b' }, T0);
    await keys.revoke(revoked.id, T0 + 1);
    assert.deepEqual(await keys.authenticate(key), record);
  });
});

describe('KeyService webhook secrets', () => {
  it('a new key comes with its own whsec_ secret, stored so the service can sign', async () => {
    const a = await keys.createKey({ name: 'a' }, T0);
    const b = await keys.createKey({ name: 'b' }, T0);
    assert.match(a.webhookSecret, /^whsec_/);
    assert.notEqual(a.webhookSecret, b.webhookSecret);
    assert.deepEqual(await keys.webhookSecrets(a.record.id, T0), [a.webhookSecret]);
  });

  it('without --rotate an existing secret is kept (CONFLICT)', async () => {
    const { record, webhookSecret } = await keys.createKey({ name: 'c' }, T0);
    await assertAppError(
      async () => await keys.createWebhookSecret(record.id, { rotate: false }, T0 + 1),
      'CONFLICT',
      `key ${record.id} already has a webhook secret; pass --rotate to replace it`,
    );
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 1), [webhookSecret]);
  });

  it('after a rotation the old secret signs next to the new one for 24 hours, then stops', async () => {
    const { record, webhookSecret: old } = await keys.createKey({ name: 'c' }, T0);
    const rotated = await keys.createWebhookSecret('c', { rotate: true }, T0 + 1);
    assert.notEqual(rotated.webhookSecret, old);
    assert.equal(rotated.previousValidUntil, T0 + 1 + WEBHOOK_SECRET_OVERLAP_MS);
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 2), [rotated.webhookSecret, old]);
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 1 + WEBHOOK_SECRET_OVERLAP_MS), [
      rotated.webhookSecret,
    ]);
  });

  it('a rotation with no overlap drops the old secret at once; a second rotation forgets the first', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    const leaked = await keys.createWebhookSecret(record.id, { rotate: true, overlapMs: 0 }, T0 + 1);
    assert.equal(leaked.previousValidUntil, null);
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 2), [leaked.webhookSecret]);
    const second = await keys.createWebhookSecret(record.id, { rotate: true }, T0 + 3);
    const third = await keys.createWebhookSecret(record.id, { rotate: true }, T0 + 4);
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 5), [
      third.webhookSecret,
      second.webhookSecret,
    ]);
  });

  it('a key without a secret (made before signing existed) gets one on demand, without an overlap', async () => {
    const { record } = await keys.createKey({ name: 'old' }, T0);
    database.db.prepare('DELETE FROM webhook_secrets').run();
    assert.deepEqual(await keys.webhookSecrets(record.id, T0), []);
    const created = await keys.createWebhookSecret(record.id, { rotate: false }, T0 + 1);
    assert.equal(created.previousValidUntil, null);
    assert.deepEqual(await keys.webhookSecrets(record.id, T0 + 2), [created.webhookSecret]);
  });
});

describe('KeyService.setEntitlements', () => {
  it('changes only the given entitlements', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    assert.deepEqual((await keys.setEntitlements('c', { directUpload: true })).entitlements, {
      listMatching: true,
      onboarding: true,
      directUpload: true,
    });
    assert.deepEqual((await store.findKey(record.id))?.entitlements, {
      listMatching: true,
      onboarding: true,
      directUpload: true,
    });
  });
});

describe('KeyService.setProfile', () => {
  it('stores a new profile with its fields', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    const profile = await keys.setProfile(
      record.id,
      'vip.2024-A_1',
      { appendedFields: [{ source: 'party_code', as: 'party' }], contactFields: ['email'] },
      T0 + 1,
    );
    assert.deepEqual(profile, {
      keyId: record.id,
      profileId: 'vip.2024-A_1',
      appendedFields: [{ source: 'party_code', as: 'party' }],
      contactFields: ['email'],
      matchThreshold: null,
      maxMatchesCap: null,
      webhookHosts: [],
      delivery: 'folder',
      updatedAt: T0 + 1,
    });
    assert.deepEqual(await store.findProfile(record.id, 'vip.2024-A_1'), profile);
  });

  it('keeps the fields it is not given', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    await keys.setProfile(
      record.id,
      'p',
      { appendedFields: [{ source: 'a', as: 'a' }], contactFields: ['voip'] },
      T0,
    );
    const updated = await keys.setProfile('c', 'p', { contactFields: ['email', 'wireless'] }, T0 + 1);
    assert.deepEqual(updated.appendedFields, [{ source: 'a', as: 'a' }]);
    assert.deepEqual(updated.contactFields, ['email', 'wireless']);
    assert.deepEqual(await store.findProfile(record.id, 'p'), updated);
  });

  for (const profileId of ['', 'has space', 'a/b', 'x'.repeat(65), 'ünï']) {
    it(`refuses the profile id ${JSON.stringify(profileId.length > 10 ? `${profileId.length} chars` : profileId)}`, async () => {
      const { record } = await keys.createKey({ name: 'c' }, T0);
      await assertAppError(
        async () => await keys.setProfile(record.id, profileId, {}, T0),
        'VALIDATION_FAILED',
        'profile ids are 1-64 letters, digits, _, . or -',
      );
    });
  }

  it('accepts a profile id of 64 characters', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    assert.equal((await keys.setProfile(record.id, 'p'.repeat(64), {}, T0)).profileId, 'p'.repeat(64));
  });

  for (const as of ['Party', 'party-code', '', 'x'.repeat(65), 'vb.party']) {
    it(`refuses the output name ${JSON.stringify(as.length > 10 ? `${as.length} chars` : as)}`, async () => {
      const { record } = await keys.createKey({ name: 'c' }, T0);
      await assertAppError(
        async () => await keys.setProfile(record.id, 'p', { appendedFields: [{ source: 'party', as }] }, T0),
        'VALIDATION_FAILED',
        `output name "${as}" must be 1-64 lower-case letters, digits or _`,
      );
      assert.equal(await store.findProfile(record.id, 'p'), null);
    });
  }

  it('refuses an unknown key (NOT_FOUND)', async () => {
    await assertAppError(
      async () => await keys.setProfile('nobody', 'p', {}, T0),
      'NOT_FOUND',
      'no key with id or name "nobody"',
    );
  });
});

describe('KeyService.resolveProfile', () => {
  it("returns the key's default profile when no profile id is given", async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    await keys.setProfile(record.id, 'default', { contactFields: ['email'] }, T0 + 1);
    assert.deepEqual(await keys.resolveProfile(record.id, undefined), {
      keyId: record.id,
      profileId: 'default',
      appendedFields: [],
      contactFields: ['email'],
      matchThreshold: null,
      maxMatchesCap: null,
      webhookHosts: [],
      delivery: 'folder',
      updatedAt: T0 + 1,
    });
  });

  it('stores a match threshold, keeps it when not given, resets it with null, refuses one outside 0-100', async () => {
    const { record } = await keys.createKey({ name: 'thresholds' }, T0);
    await keys.setProfile(record.id, 'strict', { matchThreshold: 90 }, T0 + 1);
    await keys.setProfile(record.id, 'strict', { contactFields: ['email'] }, T0 + 2);
    assert.equal((await keys.resolveProfile(record.id, 'strict')).matchThreshold, 90);
    await keys.setProfile(record.id, 'strict', { matchThreshold: null }, T0 + 3);
    assert.equal((await keys.resolveProfile(record.id, 'strict')).matchThreshold, null);
    await assert.rejects(
      async () => await keys.setProfile(record.id, 'strict', { matchThreshold: 101 }),
      /from 0 to 100/,
    );
    await assert.rejects(
      async () => await keys.setProfile(record.id, 'strict', { matchThreshold: Number.NaN }),
      /from 0 to 100/,
    );
  });

  it('stores a max_matches cap, webhook hosts and delivery; keeps them when not given; refuses bad ones', async () => {
    const { record } = await keys.createKey({ name: 'limits' }, T0);
    await keys.setProfile(
      record.id,
      'capped',
      { maxMatchesCap: 3, webhookHosts: ['Hooks.Example.com', 'ops.example.org:8443'], delivery: 'none' },
      T0 + 1,
    );
    await keys.setProfile(record.id, 'capped', { contactFields: ['email'] }, T0 + 2);
    const profile = await keys.resolveProfile(record.id, 'capped');
    assert.equal(profile.maxMatchesCap, 3);
    assert.deepEqual(profile.webhookHosts, ['hooks.example.com', 'ops.example.org:8443']);
    assert.equal(profile.delivery, 'none');
    await keys.setProfile(record.id, 'capped', { maxMatchesCap: null, webhookHosts: [] }, T0 + 3);
    assert.equal((await keys.resolveProfile(record.id, 'capped')).maxMatchesCap, null);
    assert.deepEqual((await keys.resolveProfile(record.id, 'capped')).webhookHosts, []);
    for (const cap of [0, 11, 2.5, Number.NaN])
      await assert.rejects(
        async () => await keys.setProfile(record.id, 'capped', { maxMatchesCap: cap }),
        /from 1 to 10/,
      );
    for (const host of ['https://hooks.example.com', 'a b', 'hooks.example.com/path', 'x:port', ''])
      await assert.rejects(
        async () => await keys.setProfile(record.id, 'capped', { webhookHosts: [host] }),
        /host name or host:port/,
      );
  });

  it('reads a profile stored before the limits existed with their defaults', async () => {
    const { record } = await keys.createKey({ name: 'legacy' }, T0);
    database.db
      .prepare('UPDATE profiles SET config = ? WHERE key_id = ?')
      .run(JSON.stringify({ appendedFields: [], contactFields: ['email'] }), record.id);
    const profile = await keys.resolveProfile(record.id, undefined);
    assert.deepEqual(
      [
        profile.contactFields,
        profile.matchThreshold,
        profile.maxMatchesCap,
        profile.webhookHosts,
        profile.delivery,
      ],
      [['email'], null, null, [], 'folder'],
    );
  });

  it('returns the named profile', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    await keys.setProfile(record.id, 'vip', { contactFields: ['voip'] }, T0 + 1);
    assert.deepEqual((await keys.resolveProfile(record.id, 'vip')).contactFields, ['voip']);
  });

  it('falls back to an empty default when the key has no stored default profile', async () => {
    await store.insertKey({
      id: 'key_LEGACY',
      name: 'legacy',
      keyHash: 'h',
      displayPrefix: 'lm_legacy',
      entitlements: { listMatching: true, onboarding: true, directUpload: false },
      createdAt: T0,
      revokedAt: null,
    });
    assert.deepEqual(await keys.resolveProfile('key_LEGACY', undefined), {
      keyId: 'key_LEGACY',
      profileId: 'default',
      appendedFields: [],
      contactFields: [],
      matchThreshold: null,
      maxMatchesCap: null,
      webhookHosts: [],
      delivery: 'folder',
      updatedAt: 0,
    });
  });

  it('refuses a named profile that does not exist', async () => {
    const { record } = await keys.createKey({ name: 'c' }, T0);
    await assertAppError(
      async () => await keys.resolveProfile(record.id, 'missing'),
      'VALIDATION_FAILED',
      'profile_id "missing" is not a profile of this API key',
    );
  });

  it("does not resolve another key's profile", async () => {
    const owner = (await keys.createKey({ name: 'owner' }, T0)).record;
    const other = (await keys.createKey({ name: 'other' }, T0)).record;
    await keys.setProfile(owner.id, 'vip', {}, T0);
    await assert.rejects(async () => await keys.resolveProfile(other.id, 'vip'), {
      code: 'VALIDATION_FAILED',
    });
  });
});
