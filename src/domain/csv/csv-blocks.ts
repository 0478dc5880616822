/**
 * A CSV list cut into blocks of whole records, so that worker threads parse, match and format
 * the blocks side by side while one thread only reads the stream and writes results in order.
 *
 * The cutter scans the stream with the reader's own record scanner (the same records, empty
 * lines and line numbers), decodes only the header, and hands out each block as its raw bytes
 * with the line and data-row number it starts at. `parseBlock` reads a block exactly as the
 * stream reader would have read those records in place, warnings included. Records that stream
 * past `maxRowBytes` are skipped here, never copied into a block.
 */
import {
  type CsvRecord,
  decodeRecord,
  MAX_BATCH_CELLS,
  RecordSplitter,
  splitRecord,
  toBuffer,
} from './csv-reader.ts';
import { type CsvWarning, RecordScanner, type RecordScannerOptions } from './record-scanner.ts';

/** Target size of a block: about a thousand rows of a contact list, tens of milliseconds of matching. */
export const BLOCK_BYTES = 64 * 1024;

export interface CsvBlock {
  /** 0, 1, …: the order of the blocks in the file. */
  index: number;
  /** Byte offset in the stream of the block's first byte. */
  offset: number;
  /** The records' bytes, from a record start to a record end (an LF, or the end of the file). */
  bytes: Uint8Array;
  /** Line number of the block's first byte. */
  firstLine: number;
  /** Data row number (1-based, the header not counted) of the block's first record. */
  firstRow: number;
  /** Data records in the block. */
  records: number;
  /** Warnings of the stream before this block's records (over-long records skipped here), in order. */
  leadingWarnings: CsvWarning[];
}

export type CsvBlockEvent =
  | { kind: 'header'; header: string[]; line: number; warnings: CsvWarning[] }
  | { kind: 'block'; block: CsvBlock }
  /** Warnings after the last block (over-long records at the end of the file). */
  | { kind: 'end'; warnings: CsvWarning[] };

/**
 * Cuts a stream into the header and blocks. Yields nothing when the input holds no record.
 * `firstTooLongLine` of the result tells a caller whether an over-long record came before the
 * header (then the "header" is some later line).
 */
export async function* cutCsvBlocks(
  source: AsyncIterable<Uint8Array>,
  options: { maxRowBytes: number; blockBytes?: number },
): AsyncGenerator<CsvBlockEvent> {
  const cutter = new BlockCutter({
    maxRowBytes: options.maxRowBytes,
    blockBytes: options.blockBytes ?? BLOCK_BYTES,
  });
  for await (const chunk of source) {
    cutter.pushChunk(toBuffer(chunk));
    yield* cutter.takeEvents();
  }
  cutter.finishStream();
  yield* cutter.takeEvents();
}

/**
 * The records of one block, read as the stream reader reads them: the same fields, warnings and
 * line numbers; rows padded or cut to the header's width (`ragged_row` warnings after the
 * reader's, as a batch of readCsvTable has them).
 */
export function parseBlock(
  block: Pick<CsvBlock, 'bytes' | 'firstLine'>,
  width: number,
  maxRowBytes: number,
  keepBytes = false,
): {
  rows: CsvRecord[];
  warnings: CsvWarning[];
  raggedRows: number;
  /** With `keepBytes`: row i as read, or null (RecordSplitter.recordBytes). */
  recordBytes: (i: number) => Uint8Array | null;
} {
  const warnings: CsvWarning[] = [];
  const splitter = new RecordSplitter({
    maxRowBytes,
    onWarning: (warning) => warnings.push(warning),
    firstLine: block.firstLine,
    noBom: true,
    keepBytes,
  });
  splitter.push(Buffer.from(block.bytes.buffer, block.bytes.byteOffset, block.bytes.byteLength));
  splitter.finish();
  const rows = splitter.out;
  let raggedRows = 0;
  for (const row of rows) {
    const fields = row.fields;
    const count = fields.length;
    if (count === width) continue;
    if (count < width) for (let k = count; k < width; k++) fields.push('');
    else fields.length = width;
    raggedRows++;
    warnings.push({
      line: row.line,
      kind: 'ragged_row',
      message: `line ${row.line}: ${count} fields, header has ${width}`,
    });
  }
  return { rows, warnings, raggedRows, recordBytes: (i) => splitter.recordBytes(i) };
}

/** The stream's bytes kept until they are cut into a block, with their offsets. */
interface Held {
  buf: Buffer;
  offset: number;
}

class BlockCutter extends RecordScanner {
  readonly #blockBytes: number;
  readonly #held: Held[] = [];
  /** Stream offset just after the bytes pushed so far. */
  #streamEnd = 0;
  readonly #events: CsvBlockEvent[] = [];
  #warnings: CsvWarning[] = [];
  #header: string[] | null = null;
  /** Records of the current block. */
  #blockStart = 0;
  #blockFirstLine = 1;
  #blockRecords = 0;
  #rowsBefore = 0;
  /** Where the last record (or the header) ended, and the line that follows it. */
  #lastEnd = 0;
  #lastEndLine = 1;
  #blocks = 0;
  /**
   * Records a block holds at most: parsed rows are padded to the header's width, so a block of
   * short rows under a wide header holds at most MAX_BATCH_CELLS cells, as a reader's batch does.
   */
  #maxRecords = Number.POSITIVE_INFINITY;

  constructor(options: { maxRowBytes: number; blockBytes: number }) {
    const scanner: RecordScannerOptions = {
      maxRowBytes: options.maxRowBytes,
      onWarning: (warning) => this.#warnings.push(warning),
    };
    super(scanner);
    this.#blockBytes = options.blockBytes;
  }

  pushChunk(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#held.push({ buf: chunk, offset: this.#streamEnd });
    this.#streamEnd += chunk.length;
    this.push(chunk);
    if (this.skipping) {
      // An over-long record streams on: the current block ends before it, and nothing of it is kept.
      this.#cut(this.#lastEnd);
      this.#held.length = 0;
    } else {
      this.#release(this.#blockStart);
    }
  }

  finishStream(): void {
    this.finish();
    this.#cut(this.#lastEnd);
    if (this.#warnings.length > 0) this.#events.push({ kind: 'end', warnings: this.#takeWarnings() });
  }

  *takeEvents(): Generator<CsvBlockEvent> {
    while (this.#events.length > 0) yield this.#events.shift()!;
  }

  protected override line(
    buf: Buffer,
    start: number,
    end: number,
    line: number,
    _run: boolean,
    endOffset: number,
  ): void {
    // A record without quotes is one line.
    if (this.#header === null) this.#takeHeader(buf, start, end, line, false, endOffset, line + 1);
    else this.#record(endOffset, line + 1);
  }

  protected override quoted(
    buf: Buffer,
    start: number,
    end: number,
    line: number,
    hasQuote: boolean,
    endOffset: number,
  ): void {
    // The scanner counted the record's lines before handing it on.
    if (this.#header === null) this.#takeHeader(buf, start, end, line, hasQuote, endOffset, this.nextLine);
    else this.#record(endOffset, this.nextLine);
  }

  protected override tooLong(
    line: number,
    bytes: number,
    skipped: boolean,
    startOffset: number,
    endOffset: number,
  ): void {
    if (this.#header !== null && !skipped) {
      // Seen whole, so bounded by one chunk: it stays in its block, whose reader reports it.
      return;
    }
    super.tooLong(line, bytes, skipped, startOffset, endOffset);
    if (this.#header === null) return;
    this.#cut(this.#lastEnd);
    // The next block starts after the skipped record (whose lines the scanner has counted).
    this.#blockStart = endOffset;
    this.#lastEnd = endOffset;
    this.#lastEndLine = this.nextLine;
    this.#blockFirstLine = this.nextLine;
  }

  #takeHeader(
    buf: Buffer,
    start: number,
    end: number,
    line: number,
    hasQuote: boolean,
    endOffset: number,
    lineAfter: number,
  ): void {
    const warn = (at: number, kind: CsvWarning['kind'], message: string, swallowed?: number) =>
      this.warn(at, kind, message, swallowed);
    const text = decodeRecord(buf, start, end, line, warn);
    const header = splitRecord(text, hasQuote, line, warn);
    this.#header = header;
    this.#maxRecords = Math.max(1, Math.floor(MAX_BATCH_CELLS / Math.max(header.length, 1)));
    this.#events.push({ kind: 'header', header, line, warnings: this.#takeWarnings() });
    this.#blockStart = endOffset;
    this.#lastEnd = endOffset;
    this.#lastEndLine = lineAfter;
    this.#blockFirstLine = lineAfter;
  }

  /** A data record ending at `endOffset`: it joins the current block, or starts the next one. */
  #record(endOffset: number, lineAfter: number): void {
    this.#blockRecords++;
    this.#lastEnd = endOffset;
    this.#lastEndLine = lineAfter;
    if (endOffset - this.#blockStart >= this.#blockBytes || this.#blockRecords >= this.#maxRecords)
      this.#cut(endOffset);
  }

  /** Makes `[blockStart, end)` a block when it holds records. */
  #cut(end: number): void {
    if (this.#blockRecords === 0) return;
    const block: CsvBlock = {
      index: this.#blocks++,
      offset: this.#blockStart,
      bytes: this.#bytes(this.#blockStart, end),
      firstLine: this.#blockFirstLine,
      firstRow: this.#rowsBefore + 1,
      records: this.#blockRecords,
      leadingWarnings: this.#takeWarnings(),
    };
    this.#events.push({ kind: 'block', block });
    this.#rowsBefore += this.#blockRecords;
    this.#blockRecords = 0;
    // Cuts are made at the last record end only.
    this.#blockStart = end;
    this.#blockFirstLine = this.#lastEndLine;
  }

  #takeWarnings(): CsvWarning[] {
    const warnings = this.#warnings;
    this.#warnings = [];
    return warnings;
  }

  /** A copy of the stream's bytes [from, to), in memory of its own (it is handed to another thread). */
  #bytes(from: number, to: number): Uint8Array {
    const out = new Uint8Array(new ArrayBuffer(to - from));
    let at = 0;
    for (const { buf, offset } of this.#held) {
      const start = Math.max(from, offset);
      const end = Math.min(to, offset + buf.length);
      if (start >= end) continue;
      out.set(buf.subarray(start - offset, end - offset), at);
      at += end - start;
    }
    if (at !== to - from) throw new Error('csv blocks: the bytes of a block were not all kept');
    return out;
  }

  /** Lets go of the chunks wholly before `offset`. */
  #release(offset: number): void {
    while (this.#held.length > 0 && this.#held[0]!.offset + this.#held[0]!.buf.length <= offset)
      this.#held.shift();
  }
}
