/** Where a progress line goes: stderr, or a test's stand-in. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Progress on stderr, only when it is a terminal or `--progress` asked for it: a terminal's line
 * is redrawn (at most every 100 ms), elsewhere a line is written at most once a second. A line
 * held back by that pace is written when the pace allows, even if nothing follows it: the answer
 * of a poll that came just after the upload's last line would otherwise wait for the next poll,
 * 30 seconds later.
 */
export class ProgressLine {
  private readonly enabled: boolean;
  private readonly tty: boolean;
  private readonly pace: number;
  private last = 0;
  private pending: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly stream: ProgressStream;

  constructor(force: boolean | undefined, stream: ProgressStream = process.stderr) {
    this.stream = stream;
    this.tty = stream.isTTY === true;
    this.enabled = force ?? this.tty;
    this.pace = this.tty ? 100 : 1_000;
  }

  show(text: string, final = false): void {
    if (!this.enabled) return;
    this.pending = text;
    const wait = this.last + this.pace - Date.now();
    if (final || wait <= 0) {
      this.write(final);
      return;
    }
    if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        if (this.pending !== null) this.write(false);
      }, wait);
      // A line still held back never keeps the command running.
      this.timer.unref();
    }
  }

  /** Ends the current line (writes what was held back). */
  done(): void {
    if (this.pending !== null) this.show(this.pending, true);
  }

  private write(final: boolean): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    this.last = Date.now();
    const text = this.pending!;
    this.pending = null;
    this.stream.write(this.tty ? `\r\x1b[2K${text}${final ? '\n' : ''}` : `${text}\n`);
  }
}
