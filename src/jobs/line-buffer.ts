import type { Writable } from 'node:stream';

/**
 * Buffers small writes into ~64 KiB chunks (a write per row costs far more than the row). Writes
 * come from synchronous callbacks; a producer that can wait between batches awaits `ready` so a
 * slow disk slows it down instead of filling memory. `end` waits until everything is flushed.
 */
export class LineBuffer {
  private readonly out: Writable;
  private pending: string[] = [];
  private size = 0;
  /** Set while the stream is over its high-water mark: one 'drain' listener at a time. */
  private draining: Promise<void> | null = null;

  constructor(out: Writable) {
    this.out = out;
  }

  write(line: string): void {
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= 64 * 1024) this.flush();
  }

  /** Resolves when the stream can take more (at once unless it is over its high-water mark). */
  ready(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  async end(): Promise<void> {
    this.flush();
    await this.draining;
    await new Promise<void>((resolve, reject) => {
      this.out.once('error', reject);
      this.out.end(() => resolve());
    });
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const chunk = this.pending.join('');
    this.pending = [];
    this.size = 0;
    if (!this.out.write(chunk) && this.draining === null) {
      this.draining = new Promise<void>((resolve) =>
        this.out.once('drain', () => {
          this.draining = null;
          resolve();
        }),
      );
    }
  }
}
