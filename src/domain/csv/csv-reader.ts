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
 * - Records end at LF, CRLF or a lone CR outside quotes (old Mac exports mix CR lines with LF ones).
 *
 * Bytes are decoded per record: valid UTF-8 as UTF-8, anything else as Windows-1252 (`invalid_utf8`). A UTF-8
 * BOM at the very start of the input is dropped. Lines that are empty or consist only of CRs are skipped but
 * still counted for line numbers.
 */
import { isUtf8 } from 'node:buffer';
import {
  COMMA,
  CR,
  type CsvWarning,
  LF,
  QUOTE,
  RecordScanner,
  type RecordScannerOptions,
} from './record-scanner.ts';

export type { CsvWarning } from './record-scanner.ts';

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

/** Large input chunks are processed in slices of this size, which bounds the size of one yielded batch. */
const MAX_SLICE_BYTES = 256 * 1024;

export function toBuffer(chunk: Uint8Array): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (!(chunk instanceof Uint8Array)) {
    throw new TypeError('readCsvRecords: source must yield Uint8Array chunks');
  }
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Line breaks (LF, CRLF, lone CR) in `text[from, to)`. */
function countLineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) n++;
  }
  return n;
}

export type Warn = (line: number, kind: CsvWarning['kind'], message: string, linesSwallowed?: number) => void;

const cp1252 = new TextDecoder('windows-1252');

/** The text of one record's bytes: UTF-8 when valid, else Windows-1252 (`invalid_utf8`). */
export function decodeRecord(buf: Buffer, start: number, end: number, line: number, warn: Warn): string {
  const bytes = buf.subarray(start, end);
  if (isUtf8(bytes)) return bytes.toString('utf8');
  warn(line, 'invalid_utf8', `line ${line}: not valid UTF-8; read as Windows-1252`);
  return cp1252.decode(bytes);
}

/** The fields of one decoded record: split on commas, quote-aware when it holds a quote. */
export function splitRecord(text: string, hasQuote: boolean, line: number, warn: Warn): string[] {
  return hasQuote ? parseQuoted(text, line, warn) : text.split(',');
}

/** Split one decoded record that contains at least one quote character. */
function parseQuoted(text: string, line: number, warn: Warn): string[] {
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
          const quoteLine = line + countLineBreaks(text, 0, open);
          warn(
            quoteLine,
            'unterminated_quote',
            quoteLine === line
              ? `line ${quoteLine}: quoted field is never closed; read to end of file`
              : `line ${quoteLine}: quoted field (record starting on line ${line}) is never closed; read to end of file`,
            countLineBreaks(text, open, n),
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
    warn(line, 'malformed_quotes', `line ${line}: malformed quoting; characters kept as written`);
  }
  return fields;
}

/** The record scanner that decodes and splits each record it finds into `out`. */
export class RecordSplitter extends RecordScanner {
  out: CsvRecord[] = [];
  readonly #warn: Warn = (line, kind, message, linesSwallowed) => {
    this.#warned = true;
    this.warn(line, kind, message, linesSwallowed);
  };
  /** With `keepBytes`: the kept records' bytes one after the other, and each record's range there. */
  readonly #kept: KeptBytes | null;
  #warned = false;

  constructor(options: RecordScannerOptions & { keepBytes?: boolean }) {
    super(options);
    this.#kept = options.keepBytes === true ? new KeptBytes() : null;
  }

  /**
   * With `keepBytes`: record `i` of `out` as it was read (its line end left out), to be written
   * elsewhere unchanged; null for a record that would not read back as the same fields on a line
   * of its own (not UTF-8, a line break inside quotes, a quoting problem): write its fields.
   */
  recordBytes(i: number): Uint8Array | null {
    return this.#kept?.at(i) ?? null;
  }

  protected override beginRun(buf: Buffer, start: number, lastLf: number): boolean {
    return isUtf8(buf.subarray(start, lastLf));
  }

  protected override line(buf: Buffer, start: number, end: number, line: number, valid: boolean): void {
    const text = valid ? buf.toString('utf8', start, end) : decodeRecord(buf, start, end, line, this.#warn);
    this.out.push({ line, fields: text.split(',') });
    this.#kept?.add(buf, start, end, valid);
  }

  protected override quoted(buf: Buffer, start: number, end: number, line: number, hasQuote: boolean): void {
    this.#warned = false;
    const text = decodeRecord(buf, start, end, line, this.#warn);
    this.out.push({ line, fields: splitRecord(text, hasQuote, line, this.#warn) });
    this.#kept?.add(buf, start, end, !this.#warned && !hasLineBreak(buf, start, end));
  }
}

/** Whether `buf[start..end)` holds an LF or a CR (searched within it, not the rest of `buf`). */
export function hasLineBreak(buf: Buffer, start: number, end: number): boolean {
  const record = buf.subarray(start, end);
  return record.includes(LF) || record.includes(CR);
}

/**
 * Records' bytes copied one after the other as they are read (the scanner reuses the buffer a
 * record spanning chunks is gathered in), each record's range kept; -1 for one not kept.
 */
class KeptBytes {
  #bytes = Buffer.allocUnsafe(64 * 1024);
  #length = 0;
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];

  add(buf: Buffer, start: number, end: number, keep: boolean): void {
    if (!keep) {
      this.#starts.push(-1);
      this.#ends.push(-1);
      return;
    }
    const need = this.#length + (end - start);
    if (need > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.#bytes.length * 2));
      this.#bytes.copy(grown, 0, 0, this.#length);
      this.#bytes = grown;
    }
    buf.copy(this.#bytes, this.#length, start, end);
    this.#starts.push(this.#length);
    this.#ends.push(need);
    this.#length = need;
  }

  at(i: number): Uint8Array | null {
    const start = this.#starts[i];
    return start === undefined || start < 0 ? null : this.#bytes.subarray(start, this.#ends[i]);
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
  for await (const chunk of source) {
    const buf = toBuffer(chunk);
    for (let off = 0; off < buf.length; off += MAX_SLICE_BYTES) {
      splitter.push(
        off === 0 && buf.length <= MAX_SLICE_BYTES ? buf : buf.subarray(off, off + MAX_SLICE_BYTES),
      );
      if (splitter.out.length > 0) {
        yield splitter.out;
        splitter.out = [];
      }
    }
  }
  splitter.finish();
  if (splitter.out.length > 0) yield splitter.out;
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
