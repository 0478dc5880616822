import { isUtf8 } from 'node:buffer';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { decodeRecord, hasLineBreak, splitRecord, type Warn } from '../../domain/csv/csv-reader.ts';
import { formatCsvRow } from '../../domain/csv/csv-writer.ts';
import { COMMA, type CsvWarning, RecordScanner } from '../../domain/csv/record-scanner.ts';
import { AppError } from '../../domain/errors.ts';
import { recordShardKey, type ShardPlan, shardOfRecord } from '../../domain/voters/shard-map.ts';

/**
 * The split passes of a sharded voter import, one block of a CSV at a time (on the import's
 * threads: shard-split.worker.ts). The first pass reads the voter file: each record goes to its
 * state's part (counted by state and ZIP3 for the plan); a state the plan cuts into ZIP3 ranges is
 * then split again, its records to their shards' parts. With each part, its records' lines. The
 * import thread takes the blocks in order and appends each part to its file.
 *
 * A split reads only a record's state and ZIP (and counts its fields): everything else about the
 * voters (the directory's phones, e-mails and ids, the shards' areas) is gathered by the shards'
 * builds, which normalize every value anyway (shard-contacts.ts). A record without quotes, in
 * valid UTF-8, is read from its bytes without being decoded or split: most of a voter file.
 */

/** The columns a record's shard is read from, checked as the unsharded import checks the header. */
export interface RoutingColumns {
  state: number;
  zip: number;
}

export function headerColumns(header: readonly string[]): RoutingColumns {
  const names = header.map((name) => name.trim().toLowerCase());
  if (!names.includes('voterbase_id')) {
    throw new AppError('VALIDATION_FAILED', 'the voter file has no voterbase_id column');
  }
  return { state: names.indexOf('state'), zip: names.indexOf('zip') };
}

/**
 * What every block of one pass is split with (the threads' workerData): `plan` null for the first
 * pass over the voter file (records by state, counted by state and ZIP3), a plan to split a
 * state's records among its shards.
 */
export interface SplitPlan {
  plan: ShardPlan | null;
  columns: RoutingColumns;
  /** Fields of the header. */
  width: number;
  maxRowBytes: number;
}

/** The records of a block that go to one shard, or (the first pass) have one state. */
export interface ShardPart {
  /** The shard's number in the plan; -1 in the first pass (`state` says whose records). */
  shard: number;
  /** The records' normalized state ('' for none: the shard of records without one). */
  state: string;
  /**
   * Its records as CSV lines, each ending in a newline: the bytes the voter file has for each
   * (the shard's build reads the same fields), or, where those would not read back alone (not
   * UTF-8, a line break in a cell, a quoting problem), its fields written again (voterLine).
   */
  bytes: Uint8Array;
  /** The line of each record in the file split, in order. */
  lines: Uint32Array;
}

/** Records of a block per state and ZIP3 (the first pass): [state, zip3, records]. */
export type BlockCounts = [string, string, number][];

export interface SplitBlock {
  /** Records read (rejected ones included). */
  records: number;
  /** Rows rejected, in order: [line, reason] (a wrong field count, or a row too long before it). */
  rejected: [number, string][];
  parts: ShardPart[];
  /** The first pass: the records kept, per state and ZIP3 (empty with a plan). */
  counts: BlockCounts;
}

/**
 * A line of a shard's CSV (the header's too): the voter cells as they came, nothing neutralized
 * against spreadsheet formulas (the shard's build reads them back as the voter file had them).
 */
export function voterLine(fields: readonly string[]): string {
  return formatCsvRow(fields, NEUTRALIZE_NONE);
}

/** No field neutralized (formatCsvRow neutralizes a field only where this holds `true`). */
const NEUTRALIZE_NONE: readonly boolean[] = [];

interface PartBuild {
  shard: number;
  state: string;
  records: Uint8Array[];
  bytes: number;
  lines: number[];
}

/** Splits one block (see the file's comment). */
export function splitBlock(block: CsvBlock, split: SplitPlan): SplitBlock {
  const rejected: [number, string][] = [];
  for (const warning of block.leadingWarnings) {
    if (warning.kind === 'row_too_long') rejected.push([warning.line, 'row_too_long']);
  }
  const parts = new Map<string | number, PartBuild>();
  const counts = new Map<string, [string, string, number]>();
  const { plan } = split;
  const scanner = new SplitScanner(split, block.firstLine, {
    reject: (line, reason) => rejected.push([line, reason]),
    take: (line, state, zip, record) => {
      const key = recordShardKey(state, zip);
      const shard = plan === null ? -1 : shardOfRecord(plan, key.state, key.zip3);
      if (plan === null) {
        const name = `${key.state}|${key.zip3}`;
        const counted = counts.get(name);
        if (counted === undefined) counts.set(name, [key.state, key.zip3, 1]);
        else counted[2]++;
      }
      const partKey = plan === null ? key.state : shard;
      let part = parts.get(partKey);
      if (part === undefined) {
        part = { shard, state: key.state, records: [], bytes: 0, lines: [] };
        parts.set(partKey, part);
      }
      part.lines.push(line);
      part.records.push(record);
      part.bytes += record.length + 1;
    },
  });
  scanner.push(Buffer.from(block.bytes.buffer, block.bytes.byteOffset, block.bytes.byteLength));
  scanner.finish();
  rejected.sort((a, b) => a[0] - b[0]);
  return {
    records: scanner.records,
    rejected,
    parts: [...parts.values()].map((part) => ({
      shard: part.shard,
      state: part.state,
      bytes: linesOf(part.records, part.bytes),
      lines: Uint32Array.from(part.lines),
    })),
    counts: [...counts.values()],
  };
}

/** Where SplitScanner hands each record: rejected, or taken with its state and ZIP cells and its bytes. */
interface SplitOut {
  reject: (line: number, reason: string) => void;
  take: (line: number, state: string, zip: string, record: Uint8Array) => void;
}

/**
 * The records of a block, each with its state and ZIP cells (trimmed by recordShardKey) and the
 * bytes its shard's CSV gets, or rejected: a wrong field count (as the unsharded import rejects
 * it), a row too long. Reads a record as the voter file's reader does (csv-reader.ts's
 * RecordSplitter: the same records, fields and line numbers); a quote-free line of valid UTF-8 is
 * read from its bytes: its commas counted, its state and ZIP cells decoded, nothing else.
 */
class SplitScanner extends RecordScanner {
  records = 0;
  readonly #width: number;
  readonly #state: number;
  readonly #zip: number;
  readonly #out: SplitOut;
  #warned = false;
  readonly #warn: Warn = (line, kind, message, linesSwallowed) => {
    this.#warned = true;
    this.warn(line, kind, message, linesSwallowed);
  };

  constructor(split: SplitPlan, firstLine: number, out: SplitOut) {
    super({
      maxRowBytes: split.maxRowBytes,
      firstLine,
      noBom: true,
      // Only a row too long matters here; the others (not UTF-8, malformed quotes) concern its
      // cells, which its shard's build reads again from what is written.
      onWarning: (warning: CsvWarning) => {
        if (warning.kind === 'row_too_long') out.reject(warning.line, 'row_too_long');
      },
    });
    this.#width = split.width;
    this.#state = split.columns.state;
    this.#zip = split.columns.zip;
    this.#out = out;
  }

  protected override beginRun(buf: Buffer, start: number, lastLf: number): boolean {
    return isUtf8(buf.subarray(start, lastLf));
  }

  protected override line(buf: Buffer, start: number, end: number, line: number, valid: boolean): void {
    this.records++;
    if (!valid) {
      this.#fields(
        splitRecord(decodeRecord(buf, start, end, line, this.#warn), false, line, this.#warn),
        line,
        null,
      );
      return;
    }
    const stateAt = this.#state;
    const zipAt = this.#zip;
    let field = 0;
    let stateStart = -1;
    let stateEnd = -1;
    let zipStart = -1;
    let zipEnd = -1;
    let cellStart = start;
    // Cell by cell: a tight loop to the next comma (or the line's end), then the cell's bounds.
    for (let i = start; ; i++) {
      while (i < end && buf[i] !== COMMA) i++;
      if (field === stateAt) {
        stateStart = cellStart;
        stateEnd = i;
      }
      if (field === zipAt) {
        zipStart = cellStart;
        zipEnd = i;
      }
      field++;
      cellStart = i + 1;
      if (i >= end) break;
    }
    if (field !== this.#width) {
      this.#out.reject(line, 'wrong_field_count');
      return;
    }
    this.#out.take(
      line,
      textOf(buf, stateStart, stateEnd),
      textOf(buf, zipStart, zipEnd),
      buf.subarray(start, end),
    );
  }

  protected override quoted(buf: Buffer, start: number, end: number, line: number, hasQuote: boolean): void {
    this.records++;
    this.#warned = false;
    const fields = splitRecord(decodeRecord(buf, start, end, line, this.#warn), hasQuote, line, this.#warn);
    const readsBack = !this.#warned && !hasLineBreak(buf, start, end);
    // Copied: a record gathered across pushes sits in a buffer the scanner reuses.
    this.#fields(fields, line, readsBack ? Uint8Array.from(buf.subarray(start, end)) : null);
  }

  /** A record read into fields: its bytes, or (null) its fields written again. */
  #fields(fields: string[], line: number, bytes: Uint8Array | null): void {
    if (fields.length !== this.#width) {
      this.#out.reject(line, 'wrong_field_count');
      return;
    }
    const cell = (at: number) => (at === -1 ? '' : (fields[at] ?? '').trim());
    this.#out.take(
      line,
      cell(this.#state),
      cell(this.#zip),
      bytes ?? Buffer.from(voterLine(fields).slice(0, -1)),
    );
  }
}

/** A cell's text, trimmed; '' for a column the file lacks (-1). */
function textOf(buf: Buffer, start: number, end: number): string {
  if (start < 0) return '';
  // Most state and ZIP cells are a few ASCII characters: no decoder call for them.
  if (end - start <= 12) {
    let text = '';
    for (let i = start; i < end; i++) {
      const byte = buf[i]!;
      if (byte >= 0x80) return buf.toString('utf8', start, end).trim();
      text += String.fromCharCode(byte);
    }
    return text.trim();
  }
  return buf.toString('utf8', start, end).trim();
}

/**
 * Records one after the other, each followed by a newline, in an array of its own (moved to the
 * import's thread, not copied: a pooled Buffer's memory is shared).
 */
function linesOf(records: readonly Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let at = 0;
  for (const record of records) {
    out.set(record, at);
    at += record.length;
    out[at++] = 0x0a;
  }
  return out;
}
