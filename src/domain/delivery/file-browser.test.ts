import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { SqlKeyStore } from '../../adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../adapters/sqlite/sqlite-database.ts';
import { KeyService } from '../keys/key-service.ts';
import type { FileDrop } from '../ports/file-drop.ts';
import { FileBrowser } from './file-browser.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const T0 = 1_700_000_000_000;
const TTL = 30 * 60_000;
const noFiles: FileDrop = {
  description: 'none',
  put: () => Promise.reject(new Error('unused')),
  list: async () => [],
  read: () => Promise.reject(new Error('unused')),
  forEachFolder: () => Promise.reject(new Error('unused')),
  remove: () => Promise.reject(new Error('unused')),
};

describe('FileBrowser sessions', () => {
  let database: SqliteDatabase;
  let keys: KeyService;
  let browser: FileBrowser;
  beforeEach(() => {
    database = new SqliteDatabase(':memory:', MIGRATIONS);
    keys = new KeyService(new SqlKeyStore(new SqliteRunner(database)));
    browser = new FileBrowser({ keys, drop: noFiles, secret: randomBytes(32), sessionTtlMs: TTL });
  });
  afterEach(() => database.close());

  it('a session names the key id, not the key, and is valid until it expires', async () => {
    const { key, record } = await keys.createKey({ name: 'a' }, T0);
    const { session, maxAgeSeconds } = await browser.signIn(key, T0);
    assert.equal(maxAgeSeconds, 1800);
    assert.ok(session.startsWith(`${record.id}.`));
    assert.ok(!session.includes(key.slice(3)));
    assert.equal((await browser.sessionKey(session, T0 + TTL - 1000))?.id, record.id);
    assert.equal(await browser.sessionKey(session, T0 + TTL), null);
  });

  it('a tampered, foreign or malformed session is refused', async () => {
    const a = await keys.createKey({ name: 'a' }, T0);
    const b = await keys.createKey({ name: 'b' }, T0);
    const { session } = await browser.signIn(a.key, T0);
    const [, expires, mac] = session.split('.');
    assert.equal(await browser.sessionKey(`${b.record.id}.${expires}.${mac}`, T0), null, 'another key id');
    assert.equal(
      await browser.sessionKey(`${a.record.id}.${Number(expires) + 3600}.${mac}`, T0),
      null,
      'a later expiry',
    );
    const other = new FileBrowser({ keys, drop: noFiles, secret: randomBytes(32), sessionTtlMs: TTL });
    assert.equal(await other.sessionKey(session, T0), null, 'signed with another secret');
    for (const bad of [undefined, '', 'x', `${session}.x`, session.slice(0, -2)]) {
      assert.equal(await browser.sessionKey(bad, T0), null, String(bad));
    }
  });

  it('a revoked key ends its sessions at once; a bad key cannot sign in', async () => {
    const { key, record } = await keys.createKey({ name: 'a' }, T0);
    const { session } = await browser.signIn(key, T0);
    await keys.revoke(record.id, T0 + 1);
    assert.equal(await browser.sessionKey(session, T0 + 2), null);
    await assert.rejects(async () => await browser.signIn(key, T0 + 2), { code: 'UNAUTHORIZED' });
    await assert.rejects(async () => await browser.signIn('', T0), { code: 'UNAUTHORIZED' });
  });

  it('form tokens are bound to their nonce or session', () => {
    const nonce = browser.newSignInNonce();
    assert.equal(browser.tokenMatches(browser.signInToken(nonce), browser.signInToken(nonce)), true);
    assert.equal(
      browser.tokenMatches(browser.signInToken(browser.newSignInNonce()), browser.signInToken(nonce)),
      false,
    );
    assert.equal(browser.tokenMatches(undefined, browser.signInToken(nonce)), false);
    assert.notEqual(browser.signOutToken(nonce), browser.signInToken(nonce), 'purposes do not mix');
  });
});
