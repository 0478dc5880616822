import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BackgroundReader } from './background-reader.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'listmatch-background-read-'));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('BackgroundReader', () => {
  it('reads whole files into shared memory, several at once, byte for byte', async () => {
    const reader = new BackgroundReader();
    // Past one 8 MiB piece, an empty file and a small one.
    const files = [randomBytes(9 * 1024 * 1024 + 17), Buffer.alloc(0), Buffer.from('abc')];
    const paths = await Promise.all(
      files.map(async (bytes, i) => {
        const path = join(dir, `file-${i}.bin`);
        await writeFile(path, bytes);
        return path;
      }),
    );
    const read = await Promise.all(paths.map((path) => reader.read(path)));
    read.forEach((bytes, i) => {
      assert.ok(bytes.buffer instanceof SharedArrayBuffer, `file ${i} in shared memory`);
      assert.equal(bytes.byteOffset, 0, 'aligned for typed views');
      assert.ok(bytes.equals(files[i]!), `file ${i} read whole`);
    });
  });

  it('rejects a missing file with the reason, and goes on reading others', async () => {
    const reader = new BackgroundReader();
    await assert.rejects(reader.read(join(dir, 'missing.bin')), /ENOENT/);
    const path = join(dir, 'after.bin');
    await writeFile(path, 'after');
    assert.equal((await reader.read(path)).toString(), 'after');
  });

  it('reads on a thread at the lowest priority on Linux (the process keeps its own)', async () => {
    const reader = new BackgroundReader();
    const { getPriority } = await import('node:os');
    const priority = await reader.priority();
    if (process.platform === 'linux') assert.equal(priority, 19);
    else assert.equal(priority, getPriority(0));
    assert.equal(getPriority(0), getPriority(), 'this thread unchanged');
  });
});
