import { type CsvBlock, parseBlock } from '../../domain/csv/csv-blocks.ts';
import { formatCsvRow } from '../../domain/csv/csv-writer.ts';
import { AppError } from '../../domain/errors.ts';
import { normalizeLatLong } from '../../domain/matching/normalize/contact.ts';
import { voterContact } from '../../domain/matching/normalize/person.ts';
import { directoryHashes } from '../../domain/voters/shard-directory.ts';
import {
  extendBox,
  recordShardKey,
  type ShardPlan,
  shardOfRecord,
  statelessIds,
} from '../../domain/voters/shard-map.ts';

/**
 * The split passes of a sharded voter import, one block of a CSV at a time (on the import's
 * threads: shard-split.worker.ts). The first pass reads the voter file: each record goes to its
 * state's part (counted by state and ZIP3 for the plan); a state the plan cuts into ZIP3 ranges is
 * then split again, its records to their shards' parts. With each part, its records' lines, its
 * area and the directory's hashes of its phones, e-mail and ids. The import thread takes the
 * blocks in order and appends each part to its file.
 */

/** The columns a record's shard is read from, checked as the unsharded import checks the header. */
export interface RoutingColumns {
  state: number;
  zip: number;
  latitude: number;
  longitude: number;
  /** The phone columns, the e-mail column and the ids that may name no state, for the directory (-1: absent). */
  wireless: number;
  landline: number;
  voip: number;
  email: number;
  voterbaseId: number;
  exactTrack: number;
}

export function headerColumns(header: readonly string[]): RoutingColumns {
  const names = header.map((name) => name.trim().toLowerCase());
  if (!names.includes('voterbase_id')) {
    throw new AppError('VALIDATION_FAILED', 'the voter file has no voterbase_id column');
  }
  return {
    state: names.indexOf('state'),
    zip: names.indexOf('zip'),
    latitude: names.indexOf('latitude'),
    longitude: names.indexOf('longitude'),
    wireless: names.indexOf('wireless_phone'),
    landline: names.indexOf('landline_phone'),
    voip: names.indexOf('voip_phone'),
    email: names.indexOf('email'),
    voterbaseId: names.indexOf('voterbase_id'),
    exactTrack: names.indexOf('exact_track'),
  };
}

export const cell = (fields: readonly string[], at: number) => (at === -1 ? '' : (fields[at] ?? '').trim());

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
  box: [number, number, number, number] | null;
  /** Directory hashes of its records' phones, e-mail addresses and ids (directoryHashes). */
  hashes: Uint32Array;
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
  box: ShardPart['box'];
  hashes: number[];
}

/** Splits one block (see the file's comment). */
export function splitBlock(block: CsvBlock, split: SplitPlan): SplitBlock {
  const rejected: [number, string][] = [];
  for (const warning of block.leadingWarnings) {
    if (warning.kind === 'row_too_long') rejected.push([warning.line, 'row_too_long']);
  }
  const parsed = parseBlock(block, split.width, split.maxRowBytes, true);
  const ragged = new Set<number>();
  const tooLong: [number, string][] = [];
  for (const warning of parsed.warnings) {
    if (warning.kind === 'ragged_row') ragged.add(warning.line);
    else if (warning.kind === 'row_too_long') tooLong.push([warning.line, 'row_too_long']);
  }
  const parts = new Map<string | number, PartBuild>();
  const counts = new Map<string, [string, string, number]>();
  const { columns, plan } = split;
  for (const [i, row] of parsed.rows.entries()) {
    if (ragged.has(row.line)) {
      rejected.push([row.line, 'wrong_field_count']);
      continue;
    }
    const key = recordShardKey(cell(row.fields, columns.state), cell(row.fields, columns.zip));
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
      part = { shard, state: key.state, records: [], bytes: 0, lines: [], box: null, hashes: [] };
      parts.set(partKey, part);
    }
    part.lines.push(row.line);
    const point = normalizeLatLong(cell(row.fields, columns.latitude), cell(row.fields, columns.longitude));
    if (point !== null) part.box = extendBox(part.box, point[0], point[1]);
    const contact = voterContact({
      wireless_phone: cell(row.fields, columns.wireless),
      landline_phone: cell(row.fields, columns.landline),
      voip_phone: cell(row.fields, columns.voip),
      email: cell(row.fields, columns.email),
    });
    const ids = statelessIds(cell(row.fields, columns.voterbaseId), cell(row.fields, columns.exactTrack));
    for (const hash of directoryHashes(contact.phones, contact.email, ids)) part.hashes.push(hash);
    // Without a line end (one is written after each).
    const record = parsed.recordBytes(i) ?? Buffer.from(voterLine(row.fields).slice(0, -1));
    part.records.push(record);
    part.bytes += record.length + 1;
  }
  rejected.push(...tooLong);
  rejected.sort((a, b) => a[0] - b[0]);
  return {
    records: parsed.rows.length,
    rejected,
    parts: [...parts.values()].map((part) => ({
      shard: part.shard,
      state: part.state,
      bytes: linesOf(part.records, part.bytes),
      lines: Uint32Array.from(part.lines),
      box: part.box,
      hashes: Uint32Array.from(part.hashes),
    })),
    counts: [...counts.values()],
  };
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
