import { execFile } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A tmpfs of a few MiB, to fill up for real: a full disk without filling the machine's. */
export interface SmallTmpfs {
  path: string;
  /** Writes a file that takes every byte left (tmpfs answers ENOSPC once it is full); returns its path. */
  fill(): Promise<string>;
  /** Unmounts it and removes the mount point. */
  remove(): Promise<void>;
}

/**
 * Mounts a tmpfs of `bytes` in a fresh temporary folder (`mount` needs root, or CAP_SYS_ADMIN).
 * Where that is refused the test is skipped with the reason, unless CI is set: CI must run it.
 * Returns null when skipped.
 */
export async function mountSmallTmpfs(t: TestContext, bytes: number): Promise<SmallTmpfs | null> {
  const path = await mkdtemp(join(tmpdir(), 'listmatch-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', path]);
  } catch (error) {
    await rm(path, { recursive: true, force: true });
    const reason = `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}; CI must run this test`);
    process.stdout.write(`# skipped: ${reason}\n`);
    t.skip(reason);
    return null;
  }
  return {
    path,
    async fill() {
      const filler = join(path, 'filler');
      const handle = await open(filler, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) await handle.write(chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        await handle.close();
      }
      return filler;
    },
    async remove() {
      await run('umount', [path]).catch(() => run('umount', ['-l', path]));
      await rm(path, { recursive: true, force: true });
    },
  };
}
