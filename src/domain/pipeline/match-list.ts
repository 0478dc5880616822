import type { Writable } from 'node:stream';
import { type CsvWarning, readCsvTable } from '../csv/csv-reader.ts';
import { CsvChunkWriter, formatCsvRow, needsFormulaNeutralization } from '../csv/csv-writer.ts';
import { AppError } from '../errors.ts';
import type { FormulaCells, JobSummary } from '../jobs/job-types.ts';
import type { AppendedField } from '../keys/key-types.ts';
import {
  IDENTIFIER_COLUMNS,
  type IdentifierColumn,
  type Matcher,
  type MatchInput,
  type MatchOutcome,
} from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';

/** Columns the service adds after the input columns, before the appended voter fields. */
export const MATCH_COLUMNS = [
  'sm.input_row',
  'sm.rank',
  'sm.match',
  'sm.score',
  'sm.method',
  'sm.explain',
  'vb.voterbase_id',
] as const;
const MAX_WARNING_MESSAGES = 100;
/** Width of the bands of {@link JobSummary.bestScoreHistogram}: 0-4, …, 90-94, and 95-100. */
const SCORE_BAND_WIDTH = 5;
/** Widest header accepted: contact lists have tens of columns; thousands means a broken file. */
export const MAX_LIST_COLUMNS = 1000;
/** Ragged rows tolerated before the file is judged not to be a consistent CSV (beyond 1% of rows). */
const RAGGED_ROWS_ALLOWED = 1000;

export interface MatchListInput {
  source: AsyncIterable<Uint8Array>;
  /** Receives the result CSV with every rank (UTF-8, no BOM, LF line ends); absent: not written. */
  output?: Writable;
  /**
   * Receives the same lines split in two CSVs with the same header: `best` one line per input
   * row (its best match, or its unmatched line) and, for a couple row (`first_name_combined`)
   * with max_matches ≥ 2, the second person's own best match too; `additional` every later
   * rank. In input order.
   */
  split?: { best: Writable; additional: Writable };
  matcher: Matcher;
  voters: VoterSnapshot | null;
  /** Voter-file fields to append, each written as `vb.<as>`. */
  appendedFields: readonly AppendedField[];
  /** Most lines written per input row (spec 2.4: an upper bound, whatever the matcher returns). */
  maxMatches: number;
  searchRadiusMiles: number | null;
  maxRowBytes: number;
  asOf: Date;
  onProgress?: (rows: number) => void;
  /** Called with the `voterbase_id` of every best match (a media-buying audience is built from them). */
  onBestMatch?: (voterbaseId: string) => void;
}

export type ListSummary = Omit<
  JobSummary,
  'voterFileVersion' | 'matchThreshold' | 'startedAt' | 'completedAt' | 'durationMs' | 'formulaCells'
> & { formulaCells: FormulaCells };

/**
 * Streams one contact list through parse → match → write with memory flat in the list's size.
 * Every input row appears in the output: once per match (ranks 1..k, k ≤ maxMatches), or once
 * with empty match columns and `sm.match` = N. The client's cells (the header's too) are written
 * as they came (newlines aside), formula-like ones counted; the columns the service adds are
 * neutralized against spreadsheet formulas. Problems of single rows become warnings; a file that
 * cannot be a contact list (empty, no identifier column) throws a VALIDATION_FAILED AppError.
 */
export async function matchList(input: MatchListInput): Promise<ListSummary> {
  const warnings = new WarningLog();
  const all = input.output ? new CsvChunkWriter(input.output) : null;
  const best = input.split ? new CsvChunkWriter(input.split.best) : null;
  const additional = input.split ? new CsvChunkWriter(input.split.additional) : null;
  const everyWriter = [all, best, additional].filter((w) => w !== null);
  /** Writes one line to the every-rank CSV and to the best or the additional one. */
  const writeLine = async (fields: string[], neutralize: boolean[], isBest: boolean): Promise<void> => {
    const line = formatCsvRow(fields, neutralize);
    for (const writer of [all, isBest ? best : additional]) {
      const wait = writer?.writeFormatted(line);
      if (wait) await wait;
    }
  };
  const matchesByMethod: Record<string, number> = {};
  const matchesByState: Record<string, number> = {};
  const bestScores = new Array<number>(100 / SCORE_BAND_WIDTH).fill(0);
  const unmatchedReasons: Record<string, number> = {};
  const inputProblems: Record<string, number> = {};
  let ambiguousMatches = 0;
  let layout: Layout | null = null;
  /** Per client column: its cells a spreadsheet would read as a formula (header included). */
  let formulaCells: number[] = [];
  let rows = 0;
  let matchedRows = 0;
  let outputRows = 0;
  // Line of the first over-long record: it is the header's only when no header came before it.
  let firstTooLongLine: number | null = null;
  let raggedRows = 0;
  let written = 0;
  let inFlight: BatchInFlight | null = null;

  /** Writes one matched batch: a line per match (ranks 1..k), or one unmatched line. */
  const writeBatch = async (done: BatchInFlight, current: Layout): Promise<void> => {
    const outcomes = await done.outcomes;
    for (let i = 0; i < done.records.length; i++) {
      const fields = done.records[i]!.fields;
      countFormulaCells(fields, formulaCells);
      const outcome = outcomes[i]!;
      const rowNumber = String(done.batch[i]!.row);
      if (outcome.problems) {
        for (const problem of outcome.problems) inputProblems[problem] = (inputProblems[problem] ?? 0) + 1;
      }
      if (outcome.candidates.length === 0) {
        const reason = outcome.unmatchedReason ?? 'no_match';
        unmatchedReasons[reason] = (unmatchedReasons[reason] ?? 0) + 1;
        await writeLine(
          [...fields, rowNumber, '', 'N', '', '', '', '', ...current.emptyAppended],
          current.neutralize,
          true,
        );
        outputRows++;
        continue;
      }
      matchedRows++;
      const top = outcome.candidates[0]!;
      matchesByMethod[top.method] = (matchesByMethod[top.method] ?? 0) + 1;
      if (top.explain?.endsWith(' ambiguous')) ambiguousMatches++;
      const score = Math.round(top.score);
      bestScores[Math.min(Math.floor(score / SCORE_BAND_WIDTH), bestScores.length - 1)]!++;
      // A couple row's matcher outcome holds each person's matches (up to maxMatches each):
      // the row still gets at most maxMatches lines, both people's best matches first.
      const lines = Math.min(outcome.candidates.length, input.maxMatches);
      const bestCount = Math.min(outcome.bestCount ?? 1, lines);
      for (let rank = 0; rank < lines; rank++) {
        const candidate = outcome.candidates[rank]!;
        // vb.voterbase_id and the appended fields (and for rank 1 the voter's state, for the
        // summary), read in one pass over the record.
        const voterValues =
          candidate.values === undefined
            ? input.voters!.fields(
                candidate.voter,
                rank === 0 ? current.voterColumnsAndState : current.voterColumns,
              )
            : rank === 0
              ? candidate.values.slice()
              : candidate.values.slice(0, -1);
        if (rank === 0) {
          const state = voterValues.pop() || 'unknown';
          matchesByState[state] = (matchesByState[state] ?? 0) + 1;
        }
        if (rank < bestCount && voterValues[0]) input.onBestMatch?.(voterValues[0]);
        await writeLine(
          [
            ...fields,
            rowNumber,
            String(rank + 1),
            'Y',
            String(Math.round(candidate.score)),
            candidate.method,
            candidate.explain ?? '',
            ...voterValues,
          ],
          current.neutralize,
          rank < bestCount,
        );
        outputRows++;
      }
    }
    written += done.records.length;
    input.onProgress?.(written);
  };

  for await (const event of readCsvTable(input.source, {
    maxRowBytes: input.maxRowBytes,
    onWarning: (w) => {
      if (w.kind === 'row_too_long') firstTooLongLine ??= w.line;
      if (w.kind === 'ragged_row') raggedRows++;
      warnings.add(w);
    },
  })) {
    if (event.kind === 'header') {
      // The reader skips an over-long first record and would take the next one as the header.
      if (firstTooLongLine !== null && firstTooLongLine < event.line)
        throw headerTooLongError(input.maxRowBytes);
      if (event.header.length > MAX_LIST_COLUMNS) {
        throw new AppError(
          'VALIDATION_FAILED',
          `the header has ${event.header.length} columns; at most ${MAX_LIST_COLUMNS} are accepted`,
        );
      }
      layout = planLayout(event.header, input.appendedFields, input.voters, warnings);
      formulaCells = event.header.map(() => 0);
      countFormulaCells(event.header, formulaCells);
      const header = formatCsvRow(
        [...event.header, ...MATCH_COLUMNS, ...layout.appendedHeaders],
        layout.neutralize,
      );
      for (const writer of everyWriter) await writer.writeFormatted(header);
      continue;
    }
    // Padding short rows multiplies the output: a file where they are common is not a usable CSV.
    const seen = rows + event.rows.length;
    if (raggedRows > RAGGED_ROWS_ALLOWED && raggedRows > seen / 100) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${raggedRows} of the first ${seen} rows have a different number of fields than the header; the file is not a consistent CSV`,
      );
    }
    const current = layout!;
    const batch: MatchInput[] = event.rows.map((record, i) => ({
      row: rows + i + 1,
      fields: pickIdentifiers(record.fields, current.identifiers),
    }));
    rows += event.rows.length;
    // The matcher works on this batch (on its threads) while the previous one is written and
    // the next one parsed: one batch in flight keeps every core busy and memory bounded.
    const next = {
      records: event.rows,
      batch,
      outcomes: Promise.resolve(
        input.matcher.matchBatch(batch, {
          maxMatches: input.maxMatches,
          searchRadiusMiles: input.searchRadiusMiles,
          asOf: input.asOf,
        }),
      ),
    };
    next.outcomes.catch(() => {});
    if (inFlight !== null) await writeBatch(inFlight, current);
    inFlight = next;
  }
  if (inFlight !== null) await writeBatch(inFlight, layout!);
  if (layout === null && firstTooLongLine !== null) throw headerTooLongError(input.maxRowBytes);
  if (layout === null) throw new AppError('VALIDATION_FAILED', 'the uploaded file is empty');
  if (rows === 0) warnings.note('no_data_rows', 'the file has a header but no data rows');
  for (const writer of everyWriter) await writer.end();
  return {
    rows,
    matchedRows,
    outputRows,
    matchRate: rows === 0 ? 0 : Math.round((matchedRows / rows) * 10_000) / 10_000,
    matchesByMethod,
    matchesByState,
    bestScoreHistogram: bestScores.map((count, band) => ({
      from: band * SCORE_BAND_WIDTH,
      to: band === bestScores.length - 1 ? 100 : (band + 1) * SCORE_BAND_WIDTH - 1,
      count,
    })),
    unmatchedReasons,
    inputProblems,
    ambiguousMatches,
    identifierColumns: layout.identifierNames,
    passthroughColumns: layout.passthroughNames,
    formulaCells: formulaCellsByName(layout.columnNames, formulaCells),
    warnings: warnings.toJSON(),
  };
}

/** Adds the row's formula-like cells to the per-column counts (a row has the header's width). */
function countFormulaCells(fields: readonly string[], counts: number[]): void {
  for (let i = 0; i < counts.length; i++) {
    const value = fields[i];
    if (value !== undefined && needsFormulaNeutralization(value)) counts[i]!++;
  }
}

/** The counts by column name (columns of the same name added up), and their total. */
function formulaCellsByName(names: readonly string[], counts: readonly number[]): FormulaCells {
  // A Map, then own properties: a column may be named `__proto__`.
  const byColumn = new Map<string, number>();
  let total = 0;
  counts.forEach((count, i) => {
    if (count === 0) return;
    total += count;
    const name = names[i]!;
    byColumn.set(name, (byColumn.get(name) ?? 0) + count);
  });
  return { total, byColumn: Object.fromEntries(byColumn) };
}

/** A batch handed to the matcher: its parsed records, the matcher's input, its outcomes to come. */
interface BatchInFlight {
  records: { fields: string[] }[];
  batch: MatchInput[];
  outcomes: Promise<MatchOutcome[]>;
}

const headerTooLongError = (maxRowBytes: number) =>
  new AppError(
    'VALIDATION_FAILED',
    `the first line is longer than ${maxRowBytes} bytes, so it cannot be a CSV header; is this a CSV file?`,
  );

interface Layout {
  identifiers: [IdentifierColumn, number][];
  identifierNames: string[];
  passthroughNames: string[];
  /** Each input column's name as the header wrote it (trimmed). */
  columnNames: string[];
  appendedHeaders: string[];
  /** Voter-file positions of vb.voterbase_id then each appended field (-1: not in the voter file). */
  voterColumns: number[];
  /** The same, then the voter's state (counted per best match in the summary). */
  voterColumnsAndState: number[];
  emptyAppended: string[];
  /** Per output column: neutralized against spreadsheet formulas (the service's columns only). */
  neutralize: boolean[];
}

/** Canonical form of a header name: case, surrounding space, and space or hyphen for underscore. */
export const canonicalHeader = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

function planLayout(
  header: string[],
  appendedFields: readonly AppendedField[],
  voters: VoterSnapshot | null,
  warnings: WarningLog,
): Layout {
  const identifiers: [IdentifierColumn, number][] = [];
  const passthroughNames: string[] = [];
  const known = new Set<string>(IDENTIFIER_COLUMNS);
  header.forEach((name, i) => {
    const canonical = canonicalHeader(name);
    if (known.has(canonical) && !identifiers.some(([id]) => id === canonical)) {
      identifiers.push([canonical as IdentifierColumn, i]);
    } else passthroughNames.push(name.trim());
  });
  if (identifiers.length === 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the file has no recognizable identifier column; the header must name at least one of ${IDENTIFIER_COLUMNS.join(', ')}`,
    );
  }
  const idNames = new Set(identifiers.map(([id]) => id));
  for (const [id, needs] of [
    ['voter_id', 'state'],
    ['smartvan_id', 'state'],
  ] as const) {
    if (idNames.has(id) && !idNames.has(needs)) {
      warnings.note(
        'id_without_state_column',
        `${id} is matched together with state, and the file has no state column`,
      );
    }
  }
  const appendedColumns = appendedFields.map((field) => voters?.columnIndex(field.source) ?? -1);
  appendedFields.forEach((field, i) => {
    if (voters !== null && appendedColumns[i] === -1) {
      warnings.note(
        'appended_field_missing',
        `appended field ${field.source} is not in the voter file; its column is empty`,
      );
    }
  });
  // The client's columns come back byte for byte (clients join on them: matchback_id, phones
  // written `+1 …`); only the columns the service adds are neutralized against spreadsheet
  // formulas. The summary counts the client's formula-like cells instead.
  const extra = MATCH_COLUMNS.length + appendedFields.length;
  return {
    identifiers,
    identifierNames: identifiers.map(([id]) => id),
    passthroughNames,
    columnNames: header.map((name) => name.trim()),
    appendedHeaders: appendedFields.map((field) => `vb.${field.as}`),
    voterColumns: [voters?.columnIndex('voterbase_id') ?? -1, ...appendedColumns],
    voterColumnsAndState: [
      voters?.columnIndex('voterbase_id') ?? -1,
      ...appendedColumns,
      voters?.columnIndex('state') ?? -1,
    ],
    emptyAppended: appendedFields.map(() => ''),
    neutralize: [...new Array<boolean>(header.length).fill(false), ...new Array<boolean>(extra).fill(true)],
  };
}

function pickIdentifiers(fields: string[], identifiers: [IdentifierColumn, number][]): MatchInput['fields'] {
  const picked: MatchInput['fields'] = {};
  for (const [name, column] of identifiers) {
    const value = fields[column];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}

/** Counts warnings by kind and keeps the first messages (which hold line numbers, never values). */
class WarningLog {
  private total = 0;
  private readonly byKind: Record<string, number> = {};
  private readonly first: string[] = [];

  add(warning: CsvWarning): void {
    this.note(warning.kind, warning.message);
  }

  note(kind: string, message: string): void {
    this.total++;
    this.byKind[kind] = (this.byKind[kind] ?? 0) + 1;
    if (this.first.length < MAX_WARNING_MESSAGES) this.first.push(message);
  }

  toJSON(): JobSummary['warnings'] {
    return { total: this.total, byKind: this.byKind, first: this.first };
  }
}
