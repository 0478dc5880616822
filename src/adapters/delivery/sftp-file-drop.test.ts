import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { hostKeyFingerprint, normalizeFingerprint, remotePathOf } from './sftp-file-drop.ts';

const KEY = 'key_01JD0000000000000000000000';

test('remote paths: <root>/<key id>/smartmatch/<name>', () => {
  assert.equal(remotePathOf('.', KEY), `${KEY}/smartmatch`);
  assert.equal(remotePathOf('/deliveries/', KEY, 'list.zip'), `/deliveries/${KEY}/smartmatch/list.zip`);
  assert.equal(remotePathOf('out', KEY, 'list.zip'), `out/${KEY}/smartmatch/list.zip`);
});

test('remote paths: names and key ids that could leave the key folder are refused', () => {
  for (const name of ['../x.zip', '..', 'a/b.zip', '.hidden', '']) {
    assert.throws(() => remotePathOf('/deliveries', KEY, name), { code: 'NOT_FOUND' }, name);
  }
  for (const keyId of ['..', `${KEY}/..`, '/etc', 'key_x']) {
    assert.throws(() => remotePathOf('/deliveries', keyId, 'a.zip'), { code: 'INTERNAL' }, keyId);
  }
});

test('host key fingerprints are compared in OpenSSH form whatever padding or prefix was configured', () => {
  const key = Buffer.from('ssh-ed25519 test blob');
  const digest = createHash('sha256').update(key).digest('base64');
  assert.equal(hostKeyFingerprint(key), `SHA256:${digest.replace(/=+$/, '')}`);
  assert.equal(normalizeFingerprint(digest), hostKeyFingerprint(key));
  assert.equal(normalizeFingerprint(`SHA256:${digest.replace(/=+$/, '')}`), hostKeyFingerprint(key));
});
