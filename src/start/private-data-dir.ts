import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';

/** Permission bits that let other users (group or world) into a file or folder. */
const SHARED_BITS = 0o077;

/**
 * Makes what the service keeps private to the user it runs as. Everything under `DATA_DIR` is
 * personal data or a secret (the database with webhook secrets, uploaded lists, results, voter
 * files, partial uploads), so:
 * - the process umask becomes 077: every file and folder it creates from now on (SQLite's
 *   journal files, blobs, voter versions, the outbox, delivery folders) is 0600 / 0700, whatever
 *   umask it was started with;
 * - each folder given (DATA_DIR, and the outbox when it lies elsewhere) is created 0700, and one
 *   that already lets other users in is closed (0700), which also closes everything inside it to
 *   them. A folder this user cannot close is an error: the service refuses to start.
 *
 * Returns a sentence per folder it had to close, for the start-up log.
 */
export function makeDataDirsPrivate(dirs: readonly string[]): string[] {
  // Only the main thread may set it; worker threads share the process's umask.
  process.umask(0o077);
  const closed: string[] = [];
  for (const dir of new Set(dirs)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const mode = statSync(dir).mode & 0o777;
    if ((mode & SHARED_BITS) === 0) continue;
    try {
      chmodSync(dir, mode & ~SHARED_BITS);
    } catch (error) {
      throw new Error(
        `${dir} is open to other users (mode ${mode.toString(8)}) and cannot be made private; it holds personal data: chmod 700 it, or run the service as its owner`,
        { cause: error },
      );
    }
    closed.push(
      `${dir} was open to other users (mode ${mode.toString(8)}); it is now ${(mode & ~SHARED_BITS).toString(8)}`,
    );
  }
  return closed;
}

/** The folders that hold personal data: DATA_DIR, and the mail outbox when MAIL=outbox sets its own. */
export function privateDirs(config: Pick<Config, 'MAIL' | 'MAIL_OUTBOX_DIR'>, dataDir: string): string[] {
  return [
    dataDir,
    ...(config.MAIL === 'outbox' && config.MAIL_OUTBOX_DIR !== undefined
      ? [resolve(config.MAIL_OUTBOX_DIR)]
      : []),
  ];
}
