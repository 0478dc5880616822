/**
 * The byte level of the CSV reader: where records begin and end, on which line, which are empty
 * or too long. What happens to a record is its subclass's: the reader decodes and splits it
 * (csv-reader.ts), the block cutter only counts it and cuts the stream into blocks of whole
 * records for worker threads (csv-blocks.ts). Both find exactly the same records.
 *
 * - Record boundaries are found with `indexOf`/`lastIndexOf`: runs of lines without any quote
 *   byte are handed on line by line; only records that contain a quote byte go through the
 *   byte-level state machine.
 * - Flat memory: the only state carried between chunks is the unfinished record, which is never
 *   allowed to grow beyond `maxRowBytes` (longer records are skipped, not buffered).
 * - Records end at LF, CRLF or a lone CR outside quotes (old Mac exports and some mail-merge
 *   tools end lines with CR alone, often mixed with LF lines in one file). A chunk holding a lone
 *   CR goes through the byte-level state machine whole; files without one keep the fast path.
 *   A CR at the very end of a chunk is decided by the next chunk's first byte. Inside quotes, a
 *   lone CR is data and counts as a line break for line numbers, like an LF. Empty lines are
 *   skipped but counted. A UTF-8 BOM at the very start is dropped.
 */
export interface CsvWarning {
  /** 1-based physical line number the problem refers to. */
  line: number;
  kind: 'ragged_row' | 'invalid_utf8' | 'row_too_long' | 'unterminated_quote' | 'malformed_quotes';
  /** Human readable; contains line numbers, counts and sizes only, never data. */
  message: string;
  /**
   * `unterminated_quote` only: the line breaks between the opening quote and the end of the file,
   * that is the lines read into the never-closed cell (0 when it is on the last line).
   */
  linesSwallowed?: number;
}

export const LF = 0x0a;
export const CR = 0x0d;
export const QUOTE = 0x22;
export const COMMA = 0x2c;

/** Scanner states (byte level). */
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
type ScanState = typeof FIELD_START | typeof UNQUOTED | typeof QUOTED | typeof QUOTE_IN_QUOTED;

const INITIAL_PENDING_BYTES = 64 * 1024;

const BOM0 = 0xef;
const BOM1 = 0xbb;
const BOM2 = 0xbf;

function isBomPrefix(buf: Buffer): boolean {
  return (
    (buf.length < 1 || buf[0] === BOM0) &&
    (buf.length < 2 || buf[1] === BOM1) &&
    (buf.length < 3 || buf[2] === BOM2)
  );
}

/**
 * Whether `buf[from..)` holds a CR followed by something other than an LF. A CR on the last byte
 * is not counted: the next chunk decides it. One `indexOf` per CR, so LF files pay one scan per
 * chunk and CRLF files one short scan per line.
 */
function hasLoneCr(buf: Buffer, from: number): boolean {
  const last = buf.length - 1;
  for (let i = buf.indexOf(CR, from); i !== -1 && i < last; i = buf.indexOf(CR, i + 1)) {
    if (buf[i + 1] !== LF) return true;
  }
  return false;
}

export interface RecordScannerOptions {
  /**
   * Maximum size in bytes of one record, excluding its line terminator. Longer records are
   * skipped without being buffered and reported as `row_too_long`.
   */
  maxRowBytes: number;
  onWarning: (warning: CsvWarning) => void;
  /** Line number of the first byte (a block of a larger file starts further on); default 1. */
  firstLine?: number;
  /** The input is a block cut from a file at a record boundary: no BOM to look for. */
  noBom?: boolean;
}

/**
 * Incremental record scanner: `push` chunks, then `finish` once. Subclasses receive each record
 * through `line` (a record without quotes, all of it on one line) or `quoted` (any other), and
 * decide what a too-long record means to them.
 */
export abstract class RecordScanner {
  protected readonly maxRowBytes: number;
  readonly #onWarning: (warning: CsvWarning) => void;

  /** Line on which the next (or the unfinished) record starts. */
  #line: number;
  /** Stream offset of the first byte of the buffer being pushed (BOM included). */
  #offset = 0;

  // BOM detection (the first up to 3 bytes may arrive in separate chunks).
  #bomDone: boolean;
  #head: Buffer | null = null;

  // State of the record that is being scanned / that spans chunk boundaries.
  #state: ScanState = FIELD_START;
  #innerLf = 0;
  #hasQuote = false;
  #inRecord = false;
  #skipping = false;
  #skippedBytes = 0;
  /** Whether the last skipped byte so far was a CR (it may belong to the CRLF ending the skipped record). */
  #skippedLastCr = false;
  /** Stream offset where the unfinished record starts. */
  #recordStart = 0;
  #pending: Buffer | null = null;
  #pendingLen = 0;
  /** Whether the chunk being pushed holds a lone CR (then it is scanned byte by byte). */
  #loneCr = false;

  constructor(options: RecordScannerOptions) {
    const { maxRowBytes, onWarning } = options;
    if (!Number.isSafeInteger(maxRowBytes) || maxRowBytes < 1) {
      throw new RangeError('readCsvRecords: maxRowBytes must be a positive integer');
    }
    if (typeof onWarning !== 'function') throw new TypeError('readCsvRecords: onWarning must be a function');
    this.maxRowBytes = maxRowBytes;
    this.#onWarning = onWarning;
    this.#line = options.firstLine ?? 1;
    this.#bomDone = options.noBom === true;
  }

  /**
   * A record without quote bytes, `buf[start..end)` without its line end, not empty and not too
   * long. `run` is what `beginRun` answered for the run of lines it belongs to.
   */
  protected abstract line(
    buf: Buffer,
    start: number,
    end: number,
    line: number,
    run: boolean,
    endOffset: number,
  ): void;

  /** Any other record (it has quote bytes, or spanned chunks): `buf[start..end)`, not empty, not too long. */
  protected abstract quoted(
    buf: Buffer,
    start: number,
    end: number,
    line: number,
    hasQuote: boolean,
    endOffset: number,
  ): void;

  /** Called once before the lines of a run of quote-free lines `buf[start..lastLf]`; its answer goes to each `line`. */
  protected beginRun(_buf: Buffer, _start: number, _lastLf: number): boolean {
    return true;
  }

  /**
   * A record longer than maxRowBytes. `skipped`: it streamed past the limit and was never
   * buffered (`startOffset..endOffset` in the stream); otherwise it is `buf`-sized and was seen
   * whole. The default reports it.
   */
  protected tooLong(
    line: number,
    bytes: number,
    _skipped: boolean,
    _startOffset: number,
    _endOffset: number,
  ): void {
    this.warn(
      line,
      'row_too_long',
      `line ${line}: row is ${bytes} bytes, more than the limit of ${this.maxRowBytes} bytes; skipped`,
    );
  }

  protected warn(line: number, kind: CsvWarning['kind'], message: string, linesSwallowed?: number): void {
    this.#onWarning(
      linesSwallowed === undefined ? { line, kind, message } : { line, kind, message, linesSwallowed },
    );
  }

  /** Whether the unfinished record is being skipped as too long (nothing of it is buffered). */
  get skipping(): boolean {
    return this.#skipping;
  }

  /** Stream offset where the unfinished record (if any) starts. */
  get recordStart(): number {
    return this.#recordStart;
  }

  /** Line on which the next (or the unfinished) record starts. */
  get nextLine(): number {
    return this.#line;
  }

  push(chunk: Buffer): void {
    let buf = chunk;
    if (!this.#bomDone) {
      if (this.#head !== null) {
        buf = Buffer.concat([this.#head, buf]);
        this.#offset -= this.#head.length;
      }
      if (buf.length < 3 && isBomPrefix(buf)) {
        this.#head = Buffer.from(buf); // copy: the caller may reuse its chunk
        this.#offset += buf.length;
        return;
      }
      this.#bomDone = true;
      this.#head = null;
      if (buf[0] === BOM0 && buf[1] === BOM1 && buf[2] === BOM2) {
        buf = buf.subarray(3);
        this.#offset += 3;
      }
    }
    this.#loneCr = hasLoneCr(buf, 0);
    let p = 0;
    if (this.#inRecord) p = this.#continueRecord(buf);
    if (p >= 0) this.#scanChunk(buf, p);
    this.#offset += buf.length;
  }

  finish(): void {
    if (!this.#bomDone) {
      this.#bomDone = true;
      const head = this.#head;
      this.#head = null;
      // Fewer than 3 bytes in total that look like the start of a BOM: not a BOM, just data.
      if (head !== null && head.length > 0) {
        this.#offset -= head.length;
        this.#loneCr = hasLoneCr(head, 0);
        this.#scanChunk(head, 0);
        this.#offset += head.length;
      }
    }
    if (!this.#inRecord) return;
    const unterminated = this.#state === QUOTED;
    if (this.#skipping) {
      this.tooLong(
        this.#line,
        this.#skippedBytes - (this.#skippedLastCr ? 1 : 0),
        true,
        this.#recordStart,
        this.#offset,
      );
      if (unterminated) {
        this.warn(
          this.#line,
          'unterminated_quote',
          `line ${this.#line}: quoted field is never closed; reached end of file`,
          this.#innerLf,
        );
      }
    } else if (this.#pending !== null) {
      this.#emitRecord(this.#pending, 0, this.#pendingLen, this.#offset);
    }
    this.#resetRecord();
  }

  #resetRecord(): void {
    this.#inRecord = false;
    this.#skipping = false;
    this.#skippedBytes = 0;
    this.#skippedLastCr = false;
    this.#pendingLen = 0;
    this.#hasQuote = false;
    this.#innerLf = 0;
    this.#state = FIELD_START;
  }

  /**
   * Scan complete records of `buf` starting at `p` (a record start). The unfinished tail, if any, becomes the
   * pending record.
   */
  #scanChunk(buf: Buffer, start: number): void {
    if (this.#loneCr) {
      this.#scanBytes(buf, start);
      return;
    }
    const len = buf.length;
    let p = start;
    let nextQuote = -1;
    while (p < len) {
      if (nextQuote < p) {
        nextQuote = buf.indexOf(QUOTE, p);
        if (nextQuote === -1) nextQuote = len;
      }
      // Lines between p and the next quote byte contain no quotes: fast path.
      if (nextQuote > p) {
        const lastLf = buf.lastIndexOf(LF, nextQuote - 1);
        if (lastLf >= p) {
          this.#plainLines(buf, p, lastLf);
          p = lastLf + 1;
          continue;
        }
      }
      // The record starting at p has no LF before nextQuote.
      this.#hasQuote = false;
      this.#innerLf = 0;
      if (nextQuote === len) {
        // No quote and no LF in the rest of the chunk: an unfinished plain record.
        this.#state = buf[len - 1] === COMMA ? FIELD_START : UNQUOTED;
        this.#startPending(buf, p, len);
        return;
      }
      // Bytes p..nextQuote-1 contain neither a quote nor an LF: start the byte scanner at the quote.
      this.#state = nextQuote === p || buf[nextQuote - 1] === COMMA ? FIELD_START : UNQUOTED;
      const end = this.#scan(buf, nextQuote, len);
      if (end === -1) {
        this.#startPending(buf, p, len);
        return;
      }
      this.#emitRecord(buf, p, end, this.#offset + end + 1);
      p = end + 1;
    }
  }

  /** Every record of `buf` from `start` through the byte-level state machine (the chunk has a lone CR). */
  #scanBytes(buf: Buffer, start: number): void {
    const len = buf.length;
    let p = start;
    while (p < len) {
      this.#hasQuote = false;
      this.#innerLf = 0;
      this.#state = FIELD_START;
      const end = this.#scan(buf, p, len);
      if (end === -1) {
        this.#startPending(buf, p, len);
        return;
      }
      this.#emitRecord(buf, p, end, this.#offset + end + 1);
      p = end + 1;
    }
  }

  /**
   * Byte-level state machine from `from` with the current state. Returns the index of the LF or lone CR that
   * ends the record, or -1 when `to` is reached first. Updates state, quote flag and the count of line breaks
   * inside quotes. A CR on the last byte ends nothing yet (`#continueRecord` decides it).
   */
  #scan(buf: Buffer, from: number, to: number): number {
    let state = this.#state;
    let innerLf = this.#innerLf;
    let hasQuote = this.#hasQuote;
    let end = -1;
    for (let i = from; i < to; i++) {
      const c = buf[i];
      if (state === QUOTED) {
        if (c === QUOTE) state = QUOTE_IN_QUOTED;
        else if (c === LF) innerLf++;
        else if (c === CR && i + 1 < to && buf[i + 1] !== LF) innerLf++;
      } else if (c === LF || (c === CR && i + 1 < to && buf[i + 1] !== LF)) {
        end = i;
        break;
      } else if (c === COMMA) {
        state = FIELD_START;
      } else if (c === QUOTE) {
        hasQuote = true;
        // FIELD_START: opening quote. QUOTE_IN_QUOTED: "" escape. UNQUOTED: stray literal quote.
        state = state === UNQUOTED ? UNQUOTED : QUOTED;
      } else {
        state = UNQUOTED;
      }
    }
    this.#state = state;
    this.#innerLf = innerLf;
    this.#hasQuote = hasQuote;
    return end;
  }

  /** The unfinished record `buf[p..len)` is carried over to the next chunk (or skipped if too long already). */
  #startPending(buf: Buffer, p: number, len: number): void {
    this.#inRecord = true;
    this.#pendingLen = 0;
    this.#recordStart = this.#offset + p;
    const size = len - p;
    // +1: the record may still end with the CR of a CRLF, which does not count.
    if (size > this.maxRowBytes + 1) {
      this.#skipping = true;
      this.#skippedBytes = size;
      this.#skippedLastCr = buf[len - 1] === CR;
    } else {
      this.#skipping = false;
      this.#append(buf, p, len);
    }
  }

  #append(buf: Buffer, start: number, end: number): void {
    const need = this.#pendingLen + (end - start);
    let pending = this.#pending;
    if (pending === null || need > pending.length) {
      const size = Math.max(
        need,
        Math.min(this.maxRowBytes + 1, Math.max(INITIAL_PENDING_BYTES, 2 * (pending?.length ?? 0))),
      );
      const grown = Buffer.allocUnsafe(size);
      if (pending !== null) pending.copy(grown, 0, 0, this.#pendingLen);
      this.#pending = pending = grown;
    }
    buf.copy(pending, this.#pendingLen, start, end);
    this.#pendingLen = need;
  }

  /**
   * Continue the record carried over from previous chunks. Returns the position after its terminating LF, or
   * -1 if the whole chunk belongs to the record.
   */
  #continueRecord(buf: Buffer): number {
    const len = buf.length;
    let end: number;
    const state = this.#state;
    if (len > 0 && buf[0] !== LF && this.#endsWithCr()) {
      // The carried record's last byte is a CR that no LF follows: a lone CR.
      if (state !== QUOTED) return this.#endCarried(buf, -1);
      this.#innerLf++;
    }
    if (state === QUOTED || state === QUOTE_IN_QUOTED || this.#loneCr) {
      end = this.#scan(buf, 0, len);
    } else {
      const lf = buf.indexOf(LF);
      const quote = buf.indexOf(QUOTE);
      if (quote === -1 || (lf !== -1 && lf < quote)) {
        end = lf;
        if (lf === -1 && len > 0) this.#state = buf[len - 1] === COMMA ? FIELD_START : UNQUOTED;
      } else {
        end = this.#scan(buf, 0, len);
      }
    }

    if (end === -1) {
      if (this.#skipping) {
        this.#skippedBytes += len;
        if (len > 0) this.#skippedLastCr = buf[len - 1] === CR;
      } else if (this.#pendingLen + len > this.maxRowBytes + 1) {
        this.#skipping = true;
        this.#skippedBytes = this.#pendingLen + len;
        this.#skippedLastCr = buf[len - 1] === CR;
        this.#pendingLen = 0;
      } else {
        this.#append(buf, 0, len);
      }
      return -1;
    }

    return this.#endCarried(buf, end);
  }

  /** Whether the carried record's last byte so far is a CR. */
  #endsWithCr(): boolean {
    if (this.#skipping) return this.#skippedLastCr;
    return this.#pendingLen > 0 && this.#pending![this.#pendingLen - 1] === CR;
  }

  /**
   * Ends the carried record at `buf[end]` (its LF or lone CR), or, with `end` -1, just before
   * `buf` (the lone CR was the carried record's last byte). Returns where the next record starts.
   */
  #endCarried(buf: Buffer, end: number): number {
    const endOffset = this.#offset + end + 1;
    const taken = Math.max(end, 0);
    if (this.#skipping) {
      let bytes = this.#skippedBytes + taken;
      if (end > 0 ? buf[end - 1] === CR : this.#skippedLastCr) bytes--;
      const line = this.#line;
      this.#line += 1 + this.#innerLf;
      this.tooLong(line, bytes, true, this.#recordStart, endOffset);
    } else if (this.#pendingLen + taken > this.maxRowBytes + 1) {
      const line = this.#line;
      let bytes = this.#pendingLen + taken;
      if (end > 0 && buf[end - 1] === CR) bytes--;
      this.#line += 1 + this.#innerLf;
      // Streamed past the limit only with this chunk: nothing more of it was buffered.
      this.tooLong(line, bytes, true, this.#recordStart, endOffset);
    } else {
      this.#append(buf, 0, taken);
      this.#emitRecord(this.#pending!, 0, this.#pendingLen, endOffset);
    }
    this.#resetRecord();
    return end + 1;
  }

  /**
   * Emit all lines of `buf[start..lastLf]` (ends at an LF; no quote bytes inside): every line is one record.
   */
  #plainLines(buf: Buffer, start: number, lastLf: number): void {
    const max = this.maxRowBytes;
    const run = this.beginRun(buf, start, lastLf);
    const offset = this.#offset;
    let line = this.#line;
    let s = start;
    for (;;) {
      const lf = buf.indexOf(LF, s);
      let e = lf;
      if (e > s && buf[e - 1] === CR) e--;
      if (e > s) {
        if (e - s > max) {
          this.tooLong(line, e - s, false, offset + s, offset + lf + 1);
        } else {
          this.line(buf, s, e, line, run, offset + lf + 1);
        }
      }
      line++;
      if (lf >= lastLf) break;
      s = lf + 1;
    }
    this.#line = line;
  }

  /** Emit the record `buf[start..end)` (end = index of its LF, or the end of input). */
  #emitRecord(buf: Buffer, start: number, end: number, endOffset: number): void {
    const line = this.#line;
    this.#line += 1 + this.#innerLf;
    let e = end;
    if (e > start && buf[e - 1] === CR) e--;
    if (e === start) return;
    if (e - start > this.maxRowBytes) {
      this.tooLong(line, e - start, false, endOffset - (end - start) - 1, endOffset);
      return;
    }
    this.quoted(buf, start, e, line, this.#hasQuote, endOffset);
  }
}
