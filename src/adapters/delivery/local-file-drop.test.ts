import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, test } from 'node:test';
import { LocalFileDrop } from './local-file-drop.ts';

const KEY = 'key_01JD0000000000000000000000';
const OTHER = 'key_01JD0000000000000000000001';
let root: string;
let drop: LocalFileDrop;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-drop-'));
  drop = new LocalFileDrop(join(root, 'files'));
});
after(() => rm(root, { recursive: true, force: true }));

const source = (body: string) => async () => Readable.from([Buffer.from(body)]);

test('put writes DATA_DIR/files/<key id>/smartmatch/<name>; a second put replaces it', async () => {
  assert.deepEqual(await drop.put(KEY, 'list.zip', source('first')), { bytes: 5 });
  assert.equal(await readFile(join(root, 'files', KEY, 'smartmatch', 'list.zip'), 'utf8'), 'first');
  assert.deepEqual(await drop.put(KEY, 'list.zip', source('second!')), { bytes: 7 });
  const read = await drop.read(KEY, 'list.zip');
  assert.equal(read.bytes, 7);
  assert.equal(await text(read.stream), 'second!');
  assert.deepEqual(
    await readdir(join(root, 'files', KEY, 'smartmatch')),
    ['list.zip'],
    'no temporary file left',
  );
});

test('a failed put leaves neither a temporary file nor a changed target', async () => {
  const failing = async () =>
    Readable.from(
      (async function* () {
        yield Buffer.from('partial');
        throw new Error('source broke');
      })(),
    );
  await assert.rejects(drop.put(KEY, 'list.zip', failing), /source broke/);
  assert.deepEqual(await readdir(join(root, 'files', KEY, 'smartmatch')), ['list.zip']);
  assert.equal(await text((await drop.read(KEY, 'list.zip')).stream), 'second!');
});

test('list shows only regular, visible files of the key, newest first; an absent folder is empty', async () => {
  const folder = join(root, 'files', KEY, 'smartmatch');
  await drop.put(KEY, 'newer.zip', source('n'));
  await writeFile(join(folder, '.in-progress.part'), 'x');
  await mkdir(join(folder, 'sub'));
  await symlink('/etc/hostname', join(folder, 'link.zip'));
  const names = (await drop.list(KEY)).map((file) => file.name);
  assert.deepEqual(new Set(names), new Set(['newer.zip', 'list.zip']));
  assert.deepEqual(await drop.list(OTHER), []);
});

test('read refuses traversal, hidden files, symbolic links and other keys', async () => {
  const folder = join(root, 'files', KEY, 'smartmatch');
  await drop.put(OTHER, 'theirs.zip', source('secret'));
  for (const name of [
    `../../${OTHER}/smartmatch/theirs.zip`,
    '..',
    '.in-progress.part',
    'link.zip',
    'sub',
    'theirs.zip',
  ]) {
    await assert.rejects(drop.read(KEY, name), { code: 'NOT_FOUND' }, name);
  }
  await symlink(join(root, 'files', OTHER, 'smartmatch', 'theirs.zip'), join(folder, 'theirs-link.zip'));
  await assert.rejects(drop.read(KEY, 'theirs-link.zip'), { code: 'NOT_FOUND' });
  await assert.rejects(drop.put(KEY, '../escape.zip', source('x')), { code: 'NOT_FOUND' });
  await assert.rejects(drop.list(`../${KEY}`), { code: 'INTERNAL' });
});

test('the sweep removes stale temporary files only: not fresh ones, not files, not other dot-files', async () => {
  const folder = join(root, 'files', KEY, 'smartmatch');
  const stale = join(folder, '.old.zip.0123456789ab.part');
  const fresh = join(folder, '.new.zip.ba9876543210.part');
  const clients = join(folder, '.profile');
  await writeFile(stale, 'x');
  await writeFile(fresh, 'x');
  await writeFile(clients, 'x');
  const old = new Date(Date.now() - 2 * 24 * 3600_000);
  await utimes(stale, old, old);
  await utimes(clients, old, old);
  assert.equal(await drop.sweepTemporary(24 * 3600_000), 1);
  const left = await readdir(folder);
  assert.ok(!left.includes('.old.zip.0123456789ab.part'));
  assert.ok(
    left.includes('.new.zip.ba9876543210.part') && left.includes('.profile') && left.includes('list.zip'),
  );
});

test('health: true while the folder root can be written; false when it cannot be a folder', async () => {
  assert.equal(await drop.healthy(), true);
  const broken = new LocalFileDrop(join(root, 'not-a-folder'));
  await writeFile(join(root, 'not-a-folder'), 'x');
  assert.equal(await broken.healthy(), false);
  assert.equal(await new LocalFileDrop(join(root, 'not-a-folder', 'files')).healthy(), false);
});
