import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mailer, MailMessage } from '../../domain/ports/mailer.ts';
import { buildMime } from './mime-message.ts';

/**
 * The embedded mailer: each message becomes one RFC 5322 `.eml` file in a folder (default
 * `DATA_DIR/outbox/`), for an operator to read or for a relay to pick up. Files appear atomically:
 * written under a hidden temporary name, flushed, then renamed, so a reader never sees half a
 * message. The file name is the notice's stable id, so a retried notice replaces its own file
 * instead of adding a second one.
 */
/** `.<id>.eml.<uuid>.tmp`: a message being written (see send). */
const TEMPORARY = /^\..+\.eml\.[0-9a-f-]{36}\.tmp$/;

export class OutboxMailer implements Mailer {
  private readonly dir: string;
  private readonly from: string;
  private readonly now: () => Date;

  constructor(options: { dir: string; from: string; now?: () => Date }) {
    this.dir = options.dir;
    this.from = options.from;
    this.now = options.now ?? (() => new Date());
  }

  /** Writes `<id>.eml` into the outbox; see {@link Mailer.send}. */
  async send(message: MailMessage): Promise<void> {
    const raw = await buildMime(message, this.from, this.now());
    await mkdir(this.dir, { recursive: true, mode: 0o750 });
    const name = `${message.id.replace(/[^A-Za-z0-9._-]/g, '_')}.eml`;
    // Dot-prefixed and .tmp-suffixed: pickup scripts that take *.eml never see it.
    const temporary = join(this.dir, `.${name}.${randomUUID()}.tmp`);
    const file = await open(temporary, 'wx', 0o640);
    try {
      await file.writeFile(raw);
      await file.sync();
    } catch (error) {
      await file.close();
      await rm(temporary, { force: true });
      throw new Error(`could not write to the mail outbox: ${(error as Error).message}`);
    }
    await file.close();
    await rename(temporary, join(this.dir, name));
    // The rename itself survives a crash only once the directory entry is flushed.
    const dir = await open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Nothing to release. */
  async close(): Promise<void> {}

  async sweepTemporary(maxAgeMs: number, now = Date.now()): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      if (!TEMPORARY.test(name)) continue;
      const info = await stat(join(this.dir, name)).catch(() => null);
      if (info !== null && now - info.mtimeMs > maxAgeMs) {
        await rm(join(this.dir, name), { force: true });
        removed++;
      }
    }
    return removed;
  }
}
