import type { Writable } from 'node:stream';

/**
 * Buffers small writes into ~64 KiB chunks (a write per row costs far more than the row). Writes
 * come from synchronous callbacks; a producer that can wait between batches awaits `ready` so a
 * slow disk slows it down instead of filling memory. `end` waits until everything is flushed. A
 * stream error (disk full) is kept and rejects `ready` and `end`: it never goes unhandled.
 */
export class LineBuffer {
  private readonly out: Writable;
  private pending: (string | Uint8Array)[] = [];
  /** Whether `pending` holds bytes (then it is written as bytes). */
  private holdsBytes = false;
  private size = 0;
  /** Set while the stream is over its high-water mark: one 'drain' listener at a time. */
  private draining: Promise<void> | null = null;
  private failure: Error | null = null;

  constructor(out: Writable) {
    this.out = out;
    out.on('error', (error) => {
      this.failure ??= error;
    });
  }

  write(line: string): void {
    if (this.failure !== null) return;
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= 64 * 1024) this.flush();
  }

  /** Bytes that are lines already (each ending in a newline), after what `write` was given. */
  writeBytes(bytes: Uint8Array): void {
    if (this.failure !== null) return;
    this.pending.push(bytes);
    this.holdsBytes = true;
    this.size += bytes.length;
    if (this.size >= 64 * 1024) this.flush();
  }

  /** Resolves when the stream can take more (at once unless it is over its high-water mark). */
  async ready(): Promise<void> {
    if (this.failure !== null) throw this.failure;
    await this.draining;
    if (this.failure !== null) throw this.failure;
  }

  async end(): Promise<void> {
    this.flush();
    await this.ready();
    await new Promise<void>((resolve, reject) => {
      this.out.once('error', reject);
      this.out.end(() => resolve());
    });
    if (this.failure !== null) throw this.failure;
  }

  private flush(): void {
    if (this.pending.length === 0 || this.failure !== null) return;
    const chunk = this.holdsBytes
      ? Buffer.concat(this.pending.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)))
      : this.pending.join('');
    this.pending = [];
    this.holdsBytes = false;
    this.size = 0;
    if (!this.out.write(chunk) && this.draining === null) {
      this.draining = new Promise<void>((resolve) => {
        const done = () => {
          this.out.off('drain', done);
          this.out.off('error', done);
          this.out.off('close', done);
          this.draining = null;
          resolve();
        };
        this.out.on('drain', done);
        this.out.on('error', done);
        this.out.on('close', done);
      });
    }
  }
}
