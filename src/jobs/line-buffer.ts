import type { Writable } from 'node:stream';

/** Buffers small writes into ~64 KiB chunks (a write per row costs far more than the row). */
export class LineBuffer {
  private readonly out: Writable;
  private pending: string[] = [];
  private size = 0;
  private waiting: Promise<void> = Promise.resolve();

  constructor(out: Writable) {
    this.out = out;
  }

  write(line: string): void {
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= 64 * 1024) this.flush();
  }

  async end(): Promise<void> {
    this.flush();
    await this.waiting;
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
    if (!this.out.write(chunk)) {
      const drained = new Promise<void>((resolve) => this.out.once('drain', () => resolve()));
      this.waiting = this.waiting.then(() => drained);
    }
  }
}
