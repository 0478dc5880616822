import { Buffer } from 'node:buffer';
import { type CsvBlock, parseBlock } from '../../domain/csv/csv-blocks.ts';
import { voterContact } from '../../domain/matching/normalize/person.ts';
import { hash32, hash52 } from '../../domain/voters/id-hash-table.ts';
import { idKey } from '../../domain/voters/id-keys.ts';
import { directoryHashes } from '../../domain/voters/shard-directory.ts';
import { statelessIds } from '../../domain/voters/shard-map.ts';
import { ID_INDEXES, type IdIndexName } from '../../domain/voters/voter-columns.ts';
import { VoterRowChecker } from '../../domain/voters/voter-row-checks.ts';
import { FIELD_SEPARATOR, idPostingsHash } from './snapshot-files.ts';

/**
 * One block of a voter CSV made ready for the snapshot: each row mapped to the snapshot's
 * columns, cleaned and checked, its record line written and its ids hashed. Threads prepare
 * blocks side by side; the import then takes them in order, rejects duplicate voterbase_ids
 * (which needs every earlier row) and writes the records. Plain data: it crosses threads.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: U+001F is our field separator and must never occur in a value.
const UNSAFE_CHAR = /[\x1f\r\n]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
const UNSAFE_CHARS = /[\x1f\r\n]/g;

/** A value as stored: no separator or line break in it, no surrounding white space. */
export const cleanValue = (value: string): string => {
  if (value === '') return value;
  // A non-global regex for the test: a /g one would carry lastIndex from one value to the next.
  const safe = UNSAFE_CHAR.test(value) ? value.replace(UNSAFE_CHARS, ' ') : value;
  // Trim only when an end is white space: most values need nothing.
  return safe.charCodeAt(0) <= 32 || safe.charCodeAt(safe.length - 1) <= 32 ? safe.trim() : safe;
};

/** What preparing a block needs: where the header's columns go in the snapshot. */
export interface VoterBlockPlan {
  /** The CSV header's width. */
  width: number;
  /** The snapshot's columns. */
  columns: string[];
  /** Per header column, its snapshot column (-1: dropped, a repeated name). */
  columnMap: number[];
  maxRowBytes: number;
  /**
   * A sharded import's shard: each kept row's directory hashes are made too (PreparedVoterBlock
   * contactRows). Here, beside the parsing, rather than on the index thread every build waits
   * for, which took 2.8 s of a 1M-voter file's builds there (measured).
   */
  contacts?: boolean;
}

/** A problem of one line for the import report: a rejected row or a cleared value. */
export type ReportEntry = [line: number, reason: string, rejected: boolean];

export interface PreparedVoterBlock {
  index: number;
  /** Data rows the block held (rejected ones included). */
  rowsRead: number;
  /**
   * The kept rows' record lines, each ending in a newline, as UTF-8 in shared memory: the import
   * thread writes them to the records file and hands the same bytes to the index threads, with
   * no copy on the way (as one string they were copied five times, each time into fresh memory).
   */
  records: Uint8Array;
  /** Per kept row: the bytes of its record line, newline included. */
  recordBytes: Uint32Array;
  /** Per kept row: its line in the file, and the two hashes of its voterbase_id. */
  lines: Uint32Array;
  voterbase: Float64Array;
  checks: Uint32Array;
  /** Every id of the kept rows as (row in this block, postings hash, kind in ID_INDEXES). */
  idRows: Uint32Array;
  idHashes: Uint32Array;
  idKinds: Uint8Array;
  /**
   * With the plan's `contacts`: the shard directory's hashes of the kept rows' phones, e-mail and
   * stateless ids (directoryHashes) as (row in this block, hash); else empty.
   */
  contactRows: Uint32Array;
  contactHashes: Uint32Array;
  /** The block's problems in order: the reader's, then each row's. */
  report: ReportEntry[];
}

/** The id keys of a record in snapshot column order (voterbase_id first); null without a voterbase_id. */
export function recordIds(
  values: readonly string[],
  idColumns: Readonly<Record<IdIndexName, number>>,
  stateColumn: number,
): { voterbaseId: string; ids: [IdIndexName, string][] } | null {
  const voterbaseId = idKey('voterbase_id', values[idColumns.voterbase_id] ?? '', '');
  if (voterbaseId === null) return null;
  const state = values[stateColumn] ?? '';
  const ids: [IdIndexName, string][] = [];
  for (const name of ID_INDEXES) {
    const key = name === 'voterbase_id' ? voterbaseId : idKey(name, values[idColumns[name]] ?? '', state);
    if (key !== null) ids.push([name, key]);
  }
  return { voterbaseId, ids };
}

/** Where a record's contact values are (the core columns: every snapshot has them). */
function contactColumns(columns: readonly string[]) {
  const at = (name: string) => {
    const column = columns.indexOf(name);
    if (column < 0) throw new Error(`the snapshot has no ${name} column`);
    return column;
  };
  return {
    wireless: at('wireless_phone'),
    landline: at('landline_phone'),
    voip: at('voip_phone'),
    email: at('email'),
    voterbaseId: at('voterbase_id'),
    exactTrack: at('exact_track'),
  };
}

export function prepareVoterBlock(block: CsvBlock, plan: VoterBlockPlan): PreparedVoterBlock {
  const { columns, columnMap } = plan;
  const report: ReportEntry[] = [];
  for (const warning of block.leadingWarnings) report.push([warning.line, warning.kind, true]);
  const parsed = parseBlock(block, plan.width, plan.maxRowBytes);
  const ragged = new Set<number>();
  for (const warning of parsed.warnings) {
    if (warning.kind === 'ragged_row') ragged.add(warning.line);
    else report.push([warning.line, warning.kind, warning.kind === 'row_too_long']);
  }
  const checker = new VoterRowChecker(columns);
  const idColumns = Object.fromEntries(ID_INDEXES.map((name) => [name, columns.indexOf(name)])) as Record<
    IdIndexName,
    number
  >;
  const stateColumn = columns.indexOf('state');
  const emptyValues = new Array<string>(columns.length).fill('');
  const records = blockLines;
  records.take();
  const lines: number[] = [];
  const voterbase: number[] = [];
  const checks: number[] = [];
  const idRows: number[] = [];
  const idHashes: number[] = [];
  const idKinds: number[] = [];
  const contactRows: number[] = [];
  const contactHashes: number[] = [];
  const contact = plan.contacts === true ? contactColumns(columns) : null;
  for (const row of parsed.rows) {
    if (ragged.has(row.line)) {
      // A voter row with a wrong field count has shifted columns: importing it would attach
      // values to the wrong fields.
      report.push([row.line, 'wrong_field_count', true]);
      continue;
    }
    const values = emptyValues.slice();
    for (let i = 0; i < row.fields.length; i++) {
      const target = columnMap[i];
      if (target !== undefined && target >= 0) values[target] = cleanValue(row.fields[i]!);
    }
    for (const problem of checker.check(values)) report.push([row.line, problem, false]);
    const keys = recordIds(values, idColumns, stateColumn);
    if (keys === null) {
      report.push([row.line, 'missing_voterbase_id', true]);
      continue;
    }
    const kept = lines.length;
    lines.push(row.line);
    voterbase.push(hash52(keys.voterbaseId));
    checks.push(hash32(keys.voterbaseId));
    for (const [name, key] of keys.ids) {
      idRows.push(kept);
      idHashes.push(idPostingsHash(name, key));
      idKinds.push(ID_INDEXES.indexOf(name));
    }
    if (contact !== null) {
      // The values the index thread normalizes this record from (match-index-build.worker.ts).
      const { phones, email } = voterContact({
        wireless_phone: values[contact.wireless]!,
        landline_phone: values[contact.landline]!,
        voip_phone: values[contact.voip]!,
        email: values[contact.email]!,
      });
      const ids = statelessIds(values[contact.voterbaseId]!, values[contact.exactTrack]!);
      for (const hash of directoryHashes(phones, email, ids)) {
        contactRows.push(kept);
        contactHashes.push(hash);
      }
    }
    records.add(values.join(FIELD_SEPARATOR));
  }
  return {
    index: block.index,
    rowsRead: parsed.rows.length,
    ...records.take(),
    lines: Uint32Array.from(lines),
    voterbase: Float64Array.from(voterbase),
    checks: Uint32Array.from(checks),
    idRows: Uint32Array.from(idRows),
    idHashes: Uint32Array.from(idHashes),
    idKinds: Uint8Array.from(idKinds),
    contactRows: Uint32Array.from(contactRows),
    contactHashes: Uint32Array.from(contactHashes),
    report,
  };
}

/**
 * Record lines written as UTF-8 one after the other into a scratch buffer the instance keeps
 * from one batch to the next (memory touched before: no page faults), then copied once into
 * shared memory of their size (`take`, which starts the next batch).
 */
export class RecordLines {
  lengths: number[] = [];
  #scratch = Buffer.allocUnsafeSlow(512 * 1024);
  #used = 0;

  /** Bytes of the lines added since the last take. */
  get size(): number {
    return this.#used;
  }

  /** Adds a line (without its newline, which is added). */
  add(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8; and the newline.
    const most = line.length * 3 + 1;
    if (this.#scratch.length - this.#used < most) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.#scratch.length * 2, this.#used + most));
      this.#scratch.copy(grown, 0, 0, this.#used);
      this.#scratch = grown;
    }
    const written = this.#scratch.write(line, this.#used, 'utf8') + 1;
    this.#scratch[this.#used + written - 1] = 0x0a;
    this.#used += written;
    this.lengths.push(written);
  }

  /** The lines added since the last take, in shared memory, with each one's bytes. */
  take(): { records: Uint8Array; recordBytes: Uint32Array } {
    const records = new Uint8Array(new SharedArrayBuffer(this.#used));
    records.set(this.#scratch.subarray(0, this.#used));
    const recordBytes = Uint32Array.from(this.lengths);
    this.#used = 0;
    this.lengths = [];
    return { records, recordBytes };
  }
}

/** A preparing thread's lines: one block at a time. */
const blockLines = new RecordLines();
