import type { CsvWarning } from '../../csv/csv-reader.ts';
import { formatCsvRow, needsFormulaNeutralization } from '../../csv/csv-writer.ts';
import type { MatchCandidate, MatchOutcome } from '../../matching/matcher.ts';
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import type { BlockSpec } from '../list-run.ts';
import { countIn, emptyTally, scoreBand, type Tally } from '../summary-tally.ts';

/**
 * The format stage: each input row with its merged outcome (stages/merge.ts) as the result's
 * lines (once per match, ranks 1..k, or once unmatched), with the block's counts. It writes what
 * the merge kept; it cuts nothing.
 */

/**
 * Lines of one result file, each in two pieces around its `ts__row` cell, which only the writer
 * knows (the line's number in its file): head, tail, head, tail, …; the writer puts the number
 * between them (stages/write.ts).
 */
export type LinePieces = string[];

/** A block's share of the list's outputs and counts, to be written and merged in block order. */
export interface BlockResult {
  index: number;
  /** Lines of the CSV with every rank (empty when not asked for). */
  every: LinePieces;
  best: LinePieces;
  additional: LinePieces;
  /** The voterbase_id of each best match, in order (when asked for). */
  bestIds: string[];
  tally: Tally;
  /** The block's warnings in order: those of the stream before it, the reader's, then ragged rows. */
  warnings: CsvWarning[];
  raggedRows: number;
}

/**
 * Where a candidate's voter values are read: its shard's snapshot (`shard`, 0 for an unsharded
 * file), unless it carries them (matched in another process: a chunk's line).
 */
export type ShardSnapshots = readonly VoterSnapshot[];

/** The output lines and counts of a block's rows, built row by row. */
export class BlockLines {
  readonly tally: Tally;
  readonly bestIds: string[] = [];
  readonly #spec: BlockSpec;
  readonly #every: LinePieces = [];
  readonly #best: LinePieces = [];
  readonly #additional: LinePieces = [];
  /** Which cells each piece's formatting neutralizes: the head's last (ts__input_row) and the whole tail. */
  readonly #headNeutralize: boolean[];
  readonly #tailNeutralize: boolean[];

  constructor(spec: BlockSpec) {
    this.#spec = spec;
    this.tally = emptyTally(spec.layout.width);
    const { width, neutralize } = spec.layout;
    this.#headNeutralize = neutralize.slice(0, width + 1);
    this.#tailNeutralize = neutralize.slice(width + 1);
  }

  /** One input row with its merged outcome: a line per candidate (ranks 1..k), or one unmatched line. */
  add(fields: readonly string[], row: number, outcome: MatchOutcome, shards: ShardSnapshots): void {
    const { layout, run } = this.#spec;
    const tally = this.tally;
    tally.rows++;
    countFormulaCells(fields, tally.formulaCells);
    const rowNumber = String(row);
    if (outcome.problems) for (const problem of outcome.problems) countIn(tally.inputProblems, problem);
    if (outcome.candidates.length === 0) {
      countIn(tally.unmatchedReasons, outcome.unmatchedReason ?? 'no_match');
      this.#line(
        fields,
        rowNumber,
        ['N', '', ...layout.emptyAppended, rowNumber, '', 'N', '', '', '', ''],
        true,
      );
      return;
    }
    tally.matchedRows++;
    const top = outcome.candidates[0]!;
    countIn(tally.matchesByMethod, top.method);
    if (top.explain?.endsWith(' ambiguous')) tally.ambiguousMatches++;
    if (top.explain !== undefined && / possible( |$)/.test(top.explain)) tally.possibleMatches++;
    tally.bestScores[scoreBand(Math.round(top.score))]!++;
    const bestCount = outcome.bestCount ?? 1;
    outcome.candidates.forEach((candidate, rank) => {
      // vb.voterbase_id and the appended fields (and for rank 1 the voter's state, for the summary).
      const voterValues = valuesOf(candidate, rank === 0, layout, shards);
      if (rank === 0) countIn(tally.matchesByState, voterValues.pop() || 'unknown');
      if (run.outputs.bestIds && rank < bestCount && voterValues[0]) this.bestIds.push(voterValues[0]);
      this.#line(
        fields,
        rowNumber,
        [
          'Y',
          ...voterValues,
          rowNumber,
          String(rank + 1),
          'Y',
          String(Math.round(candidate.score)),
          candidate.method,
          candidate.explain ?? '',
        ],
        rank < bestCount,
      );
    });
  }

  texts(): Pick<BlockResult, 'every' | 'best' | 'additional'> {
    return { every: this.#every, best: this.#best, additional: this.#additional };
  }

  /**
   * Writes one line to the every-rank CSV and to the best or the additional one: the client's
   * cells and ts__input_row, then (after the ts__row the writer numbers) the `rest`.
   */
  #line(fields: readonly string[], rowNumber: string, rest: string[], isBest: boolean): void {
    const { run } = this.#spec;
    this.tally.outputRows++;
    // A pass that writes nothing (the split) formats nothing.
    if (!run.outputs.every && !run.outputs.split) return;
    const head = `${formatCsvRow([...fields, rowNumber], this.#headNeutralize).slice(0, -1)},`;
    const tail = `,${formatCsvRow(rest, this.#tailNeutralize)}`;
    if (run.outputs.every) this.#every.push(head, tail);
    if (run.outputs.split) (isBest ? this.#best : this.#additional).push(head, tail);
  }
}

/**
 * A candidate's voterbase_id and appended values, then (`withState`) the voter's state, read in
 * one pass over its record; or the values it carries (voterbase_id, appended, state).
 */
function valuesOf(
  candidate: MatchCandidate,
  withState: boolean,
  layout: BlockSpec['layout'],
  shards: ShardSnapshots,
): string[] {
  if (candidate.values !== undefined)
    return withState ? candidate.values.slice() : candidate.values.slice(0, -1);
  const voters = shards[candidate.shard ?? 0];
  if (voters === undefined)
    throw new Error(`shard ${candidate.shard ?? 0} of the voter file is not held here`);
  return voters.fields(candidate.voter, withState ? layout.voterColumnsAndState : layout.voterColumns);
}

/** Adds the row's formula-like cells to the per-column counts (a row has the header's width). */
export function countFormulaCells(fields: readonly string[], counts: number[]): void {
  for (let i = 0; i < counts.length; i++) {
    const value = fields[i];
    if (value !== undefined && needsFormulaNeutralization(value)) counts[i]!++;
  }
}
