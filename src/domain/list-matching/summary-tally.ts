import type { FormulaCells, JobSummary } from '../client-jobs/job-types.ts';
import type { CsvWarning } from '../csv/csv-reader.ts';
import type { ListLayout } from './list-layout.ts';

const MAX_WARNING_MESSAGES = 100;
/** Width of the bands of {@link JobSummary.bestScoreHistogram}: 0-4, …, 90-94, and 95-100. */
const SCORE_BAND_WIDTH = 5;
export const SCORE_BANDS = 100 / SCORE_BAND_WIDTH;

export type ListSummary = Omit<
  JobSummary,
  'voterFileVersion' | 'matchThreshold' | 'startedAt' | 'completedAt' | 'durationMs' | 'formulaCells'
> & { formulaCells: FormulaCells };

/**
 * The counts of some rows of a list (one block's, or the whole list's once merged): plain data, so
 * a block's tally travels back from the thread that matched it.
 */
export interface Tally {
  rows: number;
  matchedRows: number;
  outputRows: number;
  ambiguousMatches: number;
  /** Best matches that may be another member of the household (`possible` in sm.explain). */
  possibleMatches: number;
  matchesByMethod: Record<string, number>;
  matchesByState: Record<string, number>;
  unmatchedReasons: Record<string, number>;
  inputProblems: Record<string, number>;
  /** Best-match scores by band of 5. */
  bestScores: number[];
  /** Per client column: its cells a spreadsheet would read as a formula (header included when tallied). */
  formulaCells: number[];
}

export function emptyTally(width: number): Tally {
  return {
    rows: 0,
    matchedRows: 0,
    outputRows: 0,
    ambiguousMatches: 0,
    possibleMatches: 0,
    matchesByMethod: {},
    matchesByState: {},
    unmatchedReasons: {},
    inputProblems: {},
    bestScores: new Array<number>(SCORE_BANDS).fill(0),
    formulaCells: new Array<number>(width).fill(0),
  };
}

export const countIn = (counts: Record<string, number>, key: string, by = 1): void => {
  counts[key] = (counts[key] ?? 0) + by;
};

/** The band of a best-match score (0-100). */
export const scoreBand = (score: number): number =>
  Math.min(Math.floor(score / SCORE_BAND_WIDTH), SCORE_BANDS - 1);

/** Adds `part` into `into`. */
export function mergeTally(into: Tally, part: Tally): void {
  into.rows += part.rows;
  into.matchedRows += part.matchedRows;
  into.outputRows += part.outputRows;
  into.ambiguousMatches += part.ambiguousMatches;
  into.possibleMatches += part.possibleMatches;
  for (const [from, to] of [
    [part.matchesByMethod, into.matchesByMethod],
    [part.matchesByState, into.matchesByState],
    [part.unmatchedReasons, into.unmatchedReasons],
    [part.inputProblems, into.inputProblems],
  ] as const) {
    for (const [key, count] of Object.entries(from)) countIn(to, key, count);
  }
  part.bestScores.forEach((count, band) => {
    into.bestScores[band]! += count;
  });
  part.formulaCells.forEach((count, column) => {
    into.formulaCells[column]! += count;
  });
}

/** Counts warnings by kind and keeps the first messages (which hold line numbers, never values). */
export class WarningLog {
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

/** The list's summary from its merged tally. */
export function listSummary(tally: Tally, layout: ListLayout, warnings: WarningLog): ListSummary {
  const { rows, matchedRows } = tally;
  return {
    rows,
    matchedRows,
    outputRows: tally.outputRows,
    matchRate: rows === 0 ? 0 : Math.round((matchedRows / rows) * 10_000) / 10_000,
    matchesByMethod: tally.matchesByMethod,
    matchesByState: tally.matchesByState,
    bestScoreHistogram: tally.bestScores.map((count, band) => ({
      from: band * SCORE_BAND_WIDTH,
      to: band === SCORE_BANDS - 1 ? 100 : (band + 1) * SCORE_BAND_WIDTH - 1,
      count,
    })),
    unmatchedReasons: tally.unmatchedReasons,
    inputProblems: tally.inputProblems,
    ambiguousMatches: tally.ambiguousMatches,
    possibleMatches: tally.possibleMatches,
    identifierColumns: layout.identifierNames,
    passthroughColumns: layout.passthroughNames,
    formulaCells: formulaCellsByName(layout.columnNames, tally.formulaCells),
    warnings: warnings.toJSON(),
  };
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
