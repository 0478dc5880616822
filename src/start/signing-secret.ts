import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';

/** URL_SIGNING_SECRET, else a random secret generated once into DATA_DIR/secrets (mode 0600). */
export function signingSecret(config: Pick<Config, 'URL_SIGNING_SECRET'>, dataDir: string): string | Buffer {
  if (config.URL_SIGNING_SECRET !== undefined) return config.URL_SIGNING_SECRET;
  const dir = join(dataDir, 'secrets');
  const path = join(dir, 'url-signing.key');
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(path, randomBytes(32), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(path);
}
