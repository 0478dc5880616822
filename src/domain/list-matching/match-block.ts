import { type CsvBlock, parseBlock } from '../csv/csv-blocks.ts';
import type { CsvWarning } from '../csv/csv-reader.ts';
import { formatCsvRow, needsFormulaNeutralization } from '../csv/csv-writer.ts';
import type { Matcher, MatchInput, MatchOptions, MatchOutcome } from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { type ListLayout, pickIdentifiers } from './list-layout.ts';
import { countIn, emptyTally, scoreBand, type Tally } from './summary-tally.ts';

/** What a block is matched with besides the matcher and the voter file: plain data, for a worker thread. */
export interface BlockSpec {
  layout: ListLayout;
  maxMatches: number;
  searchRadiusMiles: number | null;
  /** The job's reference date, epoch milliseconds. */
  asOf: number;
  maxRowBytes: number;
  /** Which outputs to write: the CSV with every rank, the best/additional split, the best matches' ids. */
  outputs: { every: boolean; split: boolean; bestIds: boolean };
}

/** A block's share of the list's outputs and counts, to be written and merged in block order. */
export interface BlockResult {
  index: number;
  /** Lines of the CSV with every rank (empty when not asked for). */
  every: string;
  best: string;
  additional: string;
  /** The voterbase_id of each best match, in order (when asked for). */
  bestIds: string[];
  tally: Tally;
  /** The block's warnings in order: those of the stream before it, the reader's, then ragged rows. */
  warnings: CsvWarning[];
  raggedRows: number;
}

/** The matcher's options of a list, from its spec. */
export function matchOptionsOf(
  spec: Pick<BlockSpec, 'maxMatches' | 'searchRadiusMiles' | 'asOf'>,
): MatchOptions {
  return {
    maxMatches: spec.maxMatches,
    searchRadiusMiles: spec.searchRadiusMiles,
    asOf: new Date(spec.asOf),
  };
}

/** A block's rows as the matcher takes them. */
export function blockInputs(block: CsvBlock, spec: Pick<BlockSpec, 'layout' | 'maxRowBytes'>) {
  const parsed = parseBlock(block, spec.layout.width, spec.maxRowBytes);
  const inputs: MatchInput[] = parsed.rows.map((record, i) => ({
    row: block.firstRow + i,
    fields: pickIdentifiers(record.fields, spec.layout.identifiers),
  }));
  return { ...parsed, inputs };
}

/**
 * One block of a list through parse → match → format: the lines of its rows (once per match,
 * ranks 1..k with k ≤ maxMatches, or once unmatched), their counts and warnings. Runs in the
 * thread that calls it; the list's coordinator runs blocks side by side and writes them in order.
 */
export async function matchBlock(
  block: CsvBlock,
  spec: BlockSpec,
  matcher: Matcher,
  voters: VoterSnapshot | null,
): Promise<BlockResult> {
  const { rows, warnings, raggedRows, inputs } = blockInputs(block, spec);
  const outcomes = await matcher.matchBatch(inputs, matchOptionsOf(spec));
  const lines = new BlockLines(spec);
  for (let i = 0; i < rows.length; i++) lines.add(rows[i]!.fields, inputs[i]!.row, outcomes[i]!, voters);
  return {
    index: block.index,
    ...lines.texts(),
    bestIds: lines.bestIds,
    tally: lines.tally,
    warnings: [...block.leadingWarnings, ...warnings],
    raggedRows,
  };
}

/** The output lines and counts of a block's rows, built row by row. */
class BlockLines {
  readonly tally: Tally;
  readonly bestIds: string[] = [];
  readonly #spec: BlockSpec;
  readonly #every: string[] = [];
  readonly #best: string[] = [];
  readonly #additional: string[] = [];

  constructor(spec: BlockSpec) {
    this.#spec = spec;
    this.tally = emptyTally(spec.layout.width);
  }

  /** One input row with its outcome: a line per match (ranks 1..k), or one unmatched line. */
  add(fields: readonly string[], row: number, outcome: MatchOutcome, voters: VoterSnapshot | null): void {
    const { layout, maxMatches, outputs } = this.#spec;
    const tally = this.tally;
    tally.rows++;
    countFormulaCells(fields, tally.formulaCells);
    const rowNumber = String(row);
    if (outcome.problems) for (const problem of outcome.problems) countIn(tally.inputProblems, problem);
    if (outcome.candidates.length === 0) {
      countIn(tally.unmatchedReasons, outcome.unmatchedReason ?? 'no_match');
      this.#line([...fields, rowNumber, '', 'N', '', '', '', '', ...layout.emptyAppended], true);
      return;
    }
    tally.matchedRows++;
    const top = outcome.candidates[0]!;
    countIn(tally.matchesByMethod, top.method);
    if (top.explain?.endsWith(' ambiguous')) tally.ambiguousMatches++;
    if (top.explain !== undefined && / possible( |$)/.test(top.explain)) tally.possibleMatches++;
    tally.bestScores[scoreBand(Math.round(top.score))]!++;
    // A couple row's matcher outcome holds each person's matches (up to maxMatches each):
    // the row still gets at most maxMatches lines, both people's best matches first.
    const lines = Math.min(outcome.candidates.length, maxMatches);
    const bestCount = Math.min(outcome.bestCount ?? 1, lines);
    for (let rank = 0; rank < lines; rank++) {
      const candidate = outcome.candidates[rank]!;
      // vb.voterbase_id and the appended fields (and for rank 1 the voter's state, for the
      // summary), read in one pass over the record.
      const voterValues =
        candidate.values === undefined
          ? voters!.fields(candidate.voter, rank === 0 ? layout.voterColumnsAndState : layout.voterColumns)
          : rank === 0
            ? candidate.values.slice()
            : candidate.values.slice(0, -1);
      if (rank === 0) countIn(tally.matchesByState, voterValues.pop() || 'unknown');
      if (outputs.bestIds && rank < bestCount && voterValues[0]) this.bestIds.push(voterValues[0]);
      this.#line(
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
        rank < bestCount,
      );
    }
  }

  texts(): Pick<BlockResult, 'every' | 'best' | 'additional'> {
    return { every: this.#every.join(''), best: this.#best.join(''), additional: this.#additional.join('') };
  }

  /** Writes one line to the every-rank CSV and to the best or the additional one. */
  #line(fields: string[], isBest: boolean): void {
    const { layout, outputs } = this.#spec;
    this.tally.outputRows++;
    // A pass that writes nothing (a sharded list's split or sample) formats nothing.
    if (!outputs.every && !outputs.split) return;
    const line = formatCsvRow(fields, layout.neutralize);
    if (outputs.every) this.#every.push(line);
    if (outputs.split) (isBest ? this.#best : this.#additional).push(line);
  }
}

/** Adds the row's formula-like cells to the per-column counts (a row has the header's width). */
export function countFormulaCells(fields: readonly string[], counts: number[]): void {
  for (let i = 0; i < counts.length; i++) {
    const value = fields[i];
    if (value !== undefined && needsFormulaNeutralization(value)) counts[i]!++;
  }
}
