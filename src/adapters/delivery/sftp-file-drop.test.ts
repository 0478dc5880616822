import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import {
  hostKeyFingerprint,
  normalizeFingerprint,
  remotePathOf,
  type UploadSession,
  uploadDurably,
} from './sftp-file-drop.ts';

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

type Done = (error?: Error | null) => void;

/**
 * An in-memory SFTP session: records the requests it gets. `fsync` says what fsync@openssh.com
 * does: `missing` throws as ssh2 does when the server did not advertise it, `fails` answers an
 * I/O error.
 */
function fakeSession(fsync: 'ok' | 'missing' | 'fails') {
  const calls: string[] = [];
  const data: Buffer[] = [];
  const handle = Buffer.from([7]);
  const session = {
    open(path: string, flags: string, attrs: { mode: number }, cb: (e: Error | null, h: Buffer) => void) {
      calls.push(`open ${path} ${flags} ${attrs.mode.toString(8)}`);
      setImmediate(() => cb(null, handle));
    },
    write(_h: Buffer, chunk: Buffer, offset: number, length: number, position: number, cb: Done) {
      calls.push(`write ${position} ${length}`);
      data.push(chunk.subarray(offset, offset + length));
      setImmediate(() => cb(null));
    },
    ext_openssh_fsync(_h: Buffer, cb: Done) {
      if (fsync === 'missing') throw new Error('Server does not support this extended request');
      calls.push('fsync');
      setImmediate(() => cb(fsync === 'ok' ? null : Object.assign(new Error('Failure'), { code: 4 })));
    },
    close(_h: Buffer, cb: Done) {
      calls.push('close');
      setImmediate(() => cb(null));
    },
  };
  return { session: session as unknown as UploadSession, calls, data };
}

const chunks = () => Readable.from([Buffer.from('abc'), Buffer.from('defgh')]);

test('uploads write at absolute offsets over one handle, fsync it, then close it', async () => {
  const { session, calls, data } = fakeSession('ok');
  assert.deepEqual(await uploadDurably(session, '/d/.a.zip.0123456789ab.part', chunks()), { synced: true });
  assert.deepEqual(calls, [
    'open /d/.a.zip.0123456789ab.part wx 644',
    'write 0 3',
    'write 3 5',
    'fsync',
    'close',
  ]);
  assert.equal(Buffer.concat(data).toString(), 'abcdefgh');
});

test('a server without fsync@openssh.com still gets the file, unsynced', async () => {
  const { session, calls } = fakeSession('missing');
  assert.deepEqual(await uploadDurably(session, '/d/x.part', chunks()), { synced: false });
  assert.deepEqual(calls.slice(-2), ['write 3 5', 'close']);
});

test('an fsync error fails the upload and the handle is closed once', async () => {
  const { session, calls } = fakeSession('fails');
  await assert.rejects(uploadDurably(session, '/d/x.part', chunks()), /Failure/);
  assert.deepEqual(calls.slice(-2), ['fsync', 'close']);
});

test('a source error fails the upload: no fsync, the handle is closed once', async () => {
  const { session, calls } = fakeSession('ok');
  const broken = Readable.from(
    (async function* () {
      yield Buffer.from('abc');
      throw new Error('source broke');
    })(),
  );
  await assert.rejects(uploadDurably(session, '/d/x.part', broken), /source broke/);
  assert.deepEqual(calls.slice(1), ['write 0 3', 'close']);
});
