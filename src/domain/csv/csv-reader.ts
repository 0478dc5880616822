/**
 * Streaming CSV reader for uploaded contact lists.
 *
 * Design constraints:
 * - Flat memory: input is processed chunk by chunk; the only state carried between chunks is the unfinished
 *   record, which is never allowed to grow beyond `maxRowBytes` (longer records are skipped, not buffered).
 * - Speed: record boundaries are found at the byte level with `indexOf`/`lastIndexOf`; runs of records without
 *   any quote byte are decoded and split with `String#split(',')`. Only records that contain a quote byte go
 *   through the (still indexOf-based) quote-aware parser.
 * - Never throws on hostile input. Every problem is reported through `onWarning` with a line number. Messages
 *   contain line numbers, counts and byte sizes only, never cell values (the data is PII).
 *
 * Quoting rules (RFC 4180 with lenient recovery, same as Python's csv module):
 * - A quote opens a quoted field only at the very start of a field. Inside it, `""` is a literal quote, commas
 *   and newlines are data.
 * - A quote in the middle of an unquoted field is kept literally (`malformed_quotes`).
 * - Text after a closing quote and before the next comma is kept literally together with that closing quote
 *   (`malformed_quotes`); if that stray text itself ends in a quote, that last quote is taken as the real
 *   closing quote, so `"John "Johnny" Smith"` reads as `John "Johnny" Smith`.
 * - Records end at LF or CRLF outside quotes. A lone CR is ordinary data.
 *
 * Bytes are decoded per record: valid UTF-8 as UTF-8, anything else as Windows-1252 (`invalid_utf8`). A UTF-8
 * BOM at the very start of the input is dropped. Lines that are empty or consist only of CRs are skipped but
 * still counted for line numbers.
 */
import { isUtf8 } from 'node:buffer';

export interface CsvWarning {
  /** 1-based physical line number the problem refers to. */
  line: number;
  kind: 'ragged_row' | 'invalid_utf8' | 'row_too_long' | 'unterminated_quote' | 'malformed_quotes';
  /** Human readable; contains line numbers, counts and sizes only, never data. */
  message: string;
}

export interface CsvRecord {
  /** 1-based physical line number on which the record starts (LFs inside quoted fields are counted). */
  line: number;
  fields: string[];
}

export interface CsvReadOptions {
  /**
   * Maximum size in bytes of one record, excluding its line terminator. Longer records are skipped without
   * being buffered and reported as `row_too_long`.
   */
  maxRowBytes: number;
  onWarning: (warning: CsvWarning) => void;
}

/**
 * Output of {@link readCsvTable}: exactly one `header` event first (if the input contains any record), then
 * zero or more `rows` events. `rows` is never empty, and every row has exactly `header.length` fields.
 */
export type CsvTableEvent =
  | { kind: 'header'; header: string[]; line: number }
  | { kind: 'rows'; rows: CsvRecord[] };

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

/** Scanner states (byte level). */
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
const QUOTE_IN_QUOTED = 3;
type ScanState = typeof FIELD_START | typeof UNQUOTED | typeof QUOTED | typeof QUOTE_IN_QUOTED;

/** Large input chunks are processed in slices of this size, which bounds the size of one yielded batch. */
const MAX_SLICE_BYTES = 256 * 1024;
const INITIAL_PENDING_BYTES = 64 * 1024;

const BOM0 = 0xef;
const BOM1 = 0xbb;
const BOM2 = 0xbf;

function toBuffer(chunk: Uint8Array): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (!(chunk instanceof Uint8Array)) {
    throw new TypeError('readCsvRecords: source must yield Uint8Array chunks');
  }
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

function isBomPrefix(buf: Buffer): boolean {
  return (
    (buf.length < 1 || buf[0] === BOM0) &&
    (buf.length < 2 || buf[1] === BOM1) &&
    (buf.length < 3 || buf[2] === BOM2)
  );
}

function onlyCarriageReturns(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] !== CR) return false;
  return true;
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Incremental record splitter. `push` chunks, then `finish` once. Completed records are appended to the
 * `out` array passed in.
 */
class RecordSplitter {
  readonly #maxRowBytes: number;
  readonly #onWarning: (warning: CsvWarning) => void;
  readonly #cp1252 = new TextDecoder('windows-1252');

  /** Line on which the next (or the unfinished) record starts. */
  #line = 1;

  // BOM detection (the first up to 3 bytes may arrive in separate chunks).
  #bomDone = false;
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
  #pending: Buffer | null = null;
  #pendingLen = 0;

  constructor(options: CsvReadOptions) {
    const { maxRowBytes, onWarning } = options;
    if (!Number.isSafeInteger(maxRowBytes) || maxRowBytes < 1) {
      throw new RangeError('readCsvRecords: maxRowBytes must be a positive integer');
    }
    if (typeof onWarning !== 'function') throw new TypeError('readCsvRecords: onWarning must be a function');
    this.#maxRowBytes = maxRowBytes;
    this.#onWarning = onWarning;
  }

  push(chunk: Buffer, out: CsvRecord[]): void {
    let buf = chunk;
    if (!this.#bomDone) {
      if (this.#head !== null) buf = Buffer.concat([this.#head, buf]);
      if (buf.length < 3 && isBomPrefix(buf)) {
        this.#head = Buffer.from(buf); // copy: the caller may reuse its chunk
        return;
      }
      this.#bomDone = true;
      this.#head = null;
      if (buf[0] === BOM0 && buf[1] === BOM1 && buf[2] === BOM2) buf = buf.subarray(3);
    }
    let p = 0;
    if (this.#inRecord) {
      p = this.#continueRecord(buf, out);
      if (p < 0) return;
    }
    this.#scanChunk(buf, p, out);
  }

  finish(out: CsvRecord[]): void {
    if (!this.#bomDone) {
      this.#bomDone = true;
      const head = this.#head;
      this.#head = null;
      // Fewer than 3 bytes in total that look like the start of a BOM: not a BOM, just data.
      if (head !== null && head.length > 0) this.#scanChunk(head, 0, out);
    }
    if (!this.#inRecord) return;
    const unterminated = this.#state === QUOTED;
    if (this.#skipping) {
      this.#warnTooLong(this.#line, this.#skippedBytes - (this.#skippedLastCr ? 1 : 0));
      if (unterminated) {
        this.#warn(
          this.#line,
          'unterminated_quote',
          `line ${this.#line}: quoted field is never closed; reached end of file`,
        );
      }
    } else if (this.#pending !== null) {
      this.#emitRecord(this.#pending, 0, this.#pendingLen, out);
    }
    this.#resetRecord();
  }

  #warn(line: number, kind: CsvWarning['kind'], message: string): void {
    this.#onWarning({ line, kind, message });
  }

  #warnTooLong(line: number, bytes: number): void {
    this.#warn(
      line,
      'row_too_long',
      `line ${line}: row is ${bytes} bytes, more than the limit of ${this.#maxRowBytes} bytes; skipped`,
    );
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
  #scanChunk(buf: Buffer, start: number, out: CsvRecord[]): void {
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
          this.#plainLines(buf, p, lastLf, out);
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
      this.#emitRecord(buf, p, end, out);
      p = end + 1;
    }
  }

  /**
   * Byte-level state machine from `from` with the current state. Returns the index of the LF that ends the
   * record, or -1 when `to` is reached first. Updates state, quote flag and the count of LFs inside quotes.
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
      } else if (c === LF) {
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
    const size = len - p;
    // +1: the record may still end with the CR of a CRLF, which does not count.
    if (size > this.#maxRowBytes + 1) {
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
        Math.min(this.#maxRowBytes + 1, Math.max(INITIAL_PENDING_BYTES, 2 * (pending?.length ?? 0))),
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
  #continueRecord(buf: Buffer, out: CsvRecord[]): number {
    const len = buf.length;
    let end: number;
    const state = this.#state;
    if (state === QUOTED || state === QUOTE_IN_QUOTED) {
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
      } else if (this.#pendingLen + len > this.#maxRowBytes + 1) {
        this.#skipping = true;
        this.#skippedBytes = this.#pendingLen + len;
        this.#skippedLastCr = buf[len - 1] === CR;
        this.#pendingLen = 0;
      } else {
        this.#append(buf, 0, len);
      }
      return -1;
    }

    if (this.#skipping) {
      let bytes = this.#skippedBytes + end;
      if (end > 0 ? buf[end - 1] === CR : this.#skippedLastCr) bytes--;
      const line = this.#line;
      this.#line += 1 + this.#innerLf;
      this.#warnTooLong(line, bytes);
    } else if (this.#pendingLen + end > this.#maxRowBytes + 1) {
      const line = this.#line;
      let bytes = this.#pendingLen + end;
      if (end > 0 && buf[end - 1] === CR) bytes--;
      this.#line += 1 + this.#innerLf;
      this.#warnTooLong(line, bytes);
    } else {
      this.#append(buf, 0, end);
      this.#emitRecord(this.#pending!, 0, this.#pendingLen, out);
    }
    this.#resetRecord();
    return end + 1;
  }

  /**
   * Emit all lines of `buf[start..lastLf]` (ends at an LF; no quote bytes inside): every line is one record.
   */
  #plainLines(buf: Buffer, start: number, lastLf: number, out: CsvRecord[]): void {
    const max = this.#maxRowBytes;
    const valid = isUtf8(buf.subarray(start, lastLf));
    let line = this.#line;
    let s = start;
    for (;;) {
      const lf = buf.indexOf(LF, s);
      let e = lf;
      if (e > s && buf[e - 1] === CR) e--;
      if (e > s) {
        if (e - s > max) {
          this.#warnTooLong(line, e - s);
        } else if (buf[s] !== CR || !onlyCarriageReturns(buf, s, e)) {
          const text = valid ? buf.toString('utf8', s, e) : this.#decode(buf, s, e, line);
          out.push({ line, fields: text.split(',') });
        }
      }
      line++;
      if (lf >= lastLf) break;
      s = lf + 1;
    }
    this.#line = line;
  }

  /** Emit the record `buf[start..end)` (end = index of its LF, or the end of input). */
  #emitRecord(buf: Buffer, start: number, end: number, out: CsvRecord[]): void {
    const line = this.#line;
    this.#line += 1 + this.#innerLf;
    let e = end;
    if (e > start && buf[e - 1] === CR) e--;
    if (e === start) return;
    if (e - start > this.#maxRowBytes) {
      this.#warnTooLong(line, e - start);
      return;
    }
    if (buf[start] === CR && onlyCarriageReturns(buf, start, e)) return;
    const text = this.#decode(buf, start, e, line);
    out.push({ line, fields: this.#hasQuote ? this.#parseQuoted(text, line) : text.split(',') });
  }

  #decode(buf: Buffer, start: number, end: number, line: number): string {
    const bytes = buf.subarray(start, end);
    if (isUtf8(bytes)) return bytes.toString('utf8');
    this.#warn(line, 'invalid_utf8', `line ${line}: not valid UTF-8; read as Windows-1252`);
    return this.#cp1252.decode(bytes);
  }

  /** Split one decoded record that contains at least one quote character. */
  #parseQuoted(text: string, line: number): string[] {
    const fields: string[] = [];
    const n = text.length;
    let malformed = false;
    let i = 0;
    for (;;) {
      let field: string;
      if (text.charCodeAt(i) === QUOTE) {
        const open = i;
        field = '';
        let j = i + 1;
        for (;;) {
          const q = text.indexOf('"', j);
          if (q === -1) {
            field += text.slice(j);
            i = n;
            const quoteLine = line + countNewlines(text, open);
            this.#warn(
              quoteLine,
              'unterminated_quote',
              quoteLine === line
                ? `line ${quoteLine}: quoted field is never closed; read to end of file`
                : `line ${quoteLine}: quoted field (record starting on line ${line}) is never closed; read to end of file`,
            );
            break;
          }
          if (text.charCodeAt(q + 1) === QUOTE) {
            field += text.slice(j, q + 1);
            j = q + 2;
            continue;
          }
          field += text.slice(j, q);
          i = q + 1;
          if (i < n && text.charCodeAt(i) !== COMMA) {
            // Stray text after the closing quote: keep the quote and the text literally.
            malformed = true;
            let c = text.indexOf(',', i);
            if (c === -1) c = n;
            const rest = text.charCodeAt(c - 1) === QUOTE ? text.slice(i, c - 1) : text.slice(i, c);
            field += `"${rest}`;
            i = c;
          }
          break;
        }
      } else {
        let c = text.indexOf(',', i);
        if (c === -1) c = n;
        field = text.slice(i, c);
        if (!malformed && field.includes('"')) malformed = true;
        i = c;
      }
      fields.push(field);
      if (i >= n) break;
      i++; // the comma
    }
    if (malformed) {
      this.#warn(line, 'malformed_quotes', `line ${line}: malformed quoting; characters kept as written`);
    }
    return fields;
  }
}

/**
 * Parse CSV from a byte stream into batches of records (one batch per input chunk, or per 256 KiB of a larger
 * chunk). Batches are never empty. Never throws because of the input's content (only for invalid options or a
 * source that throws or yields non-bytes).
 */
export async function* readCsvRecords(
  source: AsyncIterable<Uint8Array>,
  options: CsvReadOptions,
): AsyncGenerator<CsvRecord[]> {
  const splitter = new RecordSplitter(options);
  let out: CsvRecord[] = [];
  for await (const chunk of source) {
    const buf = toBuffer(chunk);
    for (let off = 0; off < buf.length; off += MAX_SLICE_BYTES) {
      splitter.push(
        off === 0 && buf.length <= MAX_SLICE_BYTES ? buf : buf.subarray(off, off + MAX_SLICE_BYTES),
        out,
      );
      if (out.length > 0) {
        yield out;
        out = [];
      }
    }
  }
  splitter.finish(out);
  if (out.length > 0) yield out;
}

/**
 * Parse CSV whose first record is a header. Yields `{ kind: 'header' }` once, then `{ kind: 'rows' }` batches
 * whose rows are normalized to the header's width: missing fields are padded with `''`, extra fields are
 * dropped; both are reported as `ragged_row`. Yields nothing at all if the input has no record (empty file, or
 * only empty lines), so the caller can report an empty file.
 */
export async function* readCsvTable(
  source: AsyncIterable<Uint8Array>,
  options: CsvReadOptions,
): AsyncGenerator<CsvTableEvent> {
  const { onWarning } = options;
  let width = -1;
  for await (const batch of readCsvRecords(source, options)) {
    let rows = batch;
    if (width < 0) {
      const first = batch[0]!;
      width = first.fields.length;
      yield { kind: 'header', header: first.fields, line: first.line };
      if (batch.length === 1) continue;
      rows = batch.slice(1);
    }
    // Padding short rows to a wide header multiplies memory: yield in slices of at most
    // MAX_BATCH_CELLS cells, so a small file of one-field rows under a wide header stays bounded.
    const rowsPerSlice = Math.max(1, Math.floor(MAX_BATCH_CELLS / Math.max(width, 1)));
    for (let from = 0; from < rows.length; from += rowsPerSlice) {
      const slice = from === 0 && rows.length <= rowsPerSlice ? rows : rows.slice(from, from + rowsPerSlice);
      for (let i = 0; i < slice.length; i++) {
        const row = slice[i]!;
        const fields = row.fields;
        const count = fields.length;
        if (count === width) continue;
        if (count < width) {
          for (let k = count; k < width; k++) fields.push('');
        } else {
          fields.length = width;
        }
        onWarning({
          line: row.line,
          kind: 'ragged_row',
          message: `line ${row.line}: ${count} fields, header has ${width}`,
        });
      }
      yield { kind: 'rows', rows: slice };
    }
  }
}

/** Most field slots one yielded batch of readCsvTable holds (rows × header width). */
export const MAX_BATCH_CELLS = 1 << 20;
