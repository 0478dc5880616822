import type { MatchInput, MatchOutcome } from '../matching/matcher.ts';
import { type FilePlace, normalizeInput } from '../matching/normalize/person.ts';
import { MAX_PROBABILISTIC_SCORE } from '../matching/select/select-matches.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { withPlaces } from './stages/place.ts';

/**
 * The lines a sharded list's chunks are made of (JSON, one per row, in row order): what the split
 * writes for each row it routes to a shard, and what matching the chunk writes for each of them.
 */

/** A chunk's input line: the row number and the identifier cells the header provided. */
export interface ChunkRow {
  r: number;
  f: MatchInput['fields'];
  /** 1: the row is matched in several shards (its swapped names are decided at the assembly). */
  m?: 1;
  /**
   * Where the voter file places each of the row's persons (null: a person without a place), as
   * the queue's place steps found it (stages/place.ts): over every shard a row of several shards
   * was routed to; a row of one shard whose radius reaches others, its own shard's place.
   */
  p?: (FilePlace | null)[];
}

/**
 * A chunk's output line: one per input row, candidates best first, each with the voter values the
 * assembled result needs (voterbase_id, the appended fields, then the voter's state).
 */
export interface ChunkOutcome {
  r: number;
  /**
   * [score, method, explain, values], and the candidate's odds when the outcome has `o`, then its
   * maxScore and minScore when it has them (a possible household member's).
   */
  c: (
    | [number, string, string, string[]]
    | [number, string, string, string[], number]
    | [number, string, string, string[], number, number, number]
  )[];
  u?: string;
  p?: string[];
  b?: number;
  /** The outcome's oddsSum (MatchOutcome), for weighing its candidates against other shards'. */
  o?: number;
  /** With `o`: its exact parts and its relative's odds (MatchOutcome.oddsParts, .relative). */
  e?: number[];
  v?: number;
  /** Each candidate's order in the whole voter file (MatchCandidate.order), when every one has it. */
  q?: number[];
  /**
   * With `o`, of a row of several shards: the candidates the shard's selection passed over
   * (MatchOutcome.passed), each [score, method, explain, values, odds, maxScore, minScore, order,
   * 1 when corroborated else 0].
   */
  n?: [number, string, string, string[], number, number, number, number, 0 | 1][];
  /** A swapped reading's scale (MatchOutcome.oddsScale). */
  k?: number;
  /** 1: the names may be swapped (MatchOutcome.maySwap); `w`: their swapped reading (.swapped). */
  y?: 1;
  w?: Omit<ChunkOutcome, 'r'>;
}

/**
 * The row an input line holds; one with places (`p`) is normalized at `asOf` here and its persons
 * placed (MatchInput.normalized), as the match stage places a row in one process.
 */
export function inputOfLine(text: string, asOf: Date | null = null): MatchInput {
  const line = JSON.parse(text) as ChunkRow;
  const row: MatchInput = { row: line.r, fields: line.f };
  if (line.m === 1) row.swap = 'both';
  if (line.p !== undefined) {
    if (asOf === null) throw new Error(`row ${line.r}'s places are read without the run's date`);
    row.normalized = withPlaces(normalizeInput(line.f, asOf), line.p);
  }
  return row;
}

/** The outcome an output line holds (its candidates carry their voter values; no voter index). */
export function outcomeOfLine(line: ChunkOutcome): MatchOutcome {
  return outcomeOfParts(line);
}

function outcomeOfParts(line: Omit<ChunkOutcome, 'r'>): MatchOutcome {
  const outcome = withOrders(outcomeOf(line), line.q);
  if (line.n !== undefined) {
    outcome.passed = line.n.map(
      ([score, method, explain, values, odds, maxScore, minScore, order, corroborated]) => ({
        voter: -1,
        score,
        method,
        ...(explain === '' ? {} : { explain }),
        values,
        order,
        odds,
        ...(maxScore === MAX_PROBABILISTIC_SCORE ? {} : { maxScore }),
        ...(minScore === 0 ? {} : { minScore }),
        ...(corroborated === 1 ? {} : { uncorroborated: true as const }),
      }),
    );
  }
  if (line.k !== undefined) outcome.oddsScale = line.k;
  if (line.y === 1) outcome.maySwap = true;
  if (line.w !== undefined) outcome.swapped = outcomeOfParts(line.w);
  return outcome;
}

function outcomeOf(line: Omit<ChunkOutcome, 'r'>): MatchOutcome {
  return {
    candidates: line.c.map(([score, method, explain, values, odds, maxScore, minScore]) => ({
      voter: -1,
      score,
      method,
      ...(explain === '' ? {} : { explain }),
      values,
      ...(odds === undefined ? {} : { odds }),
      ...(maxScore === undefined ? {} : { maxScore }),
      ...(minScore === undefined || minScore === 0 ? {} : { minScore }),
    })),
    ...(line.u === undefined ? {} : { unmatchedReason: line.u }),
    ...(line.p === undefined ? {} : { problems: line.p }),
    ...(line.b === undefined ? {} : { bestCount: line.b }),
    ...(line.o === undefined ? {} : { oddsSum: line.o }),
    ...(line.o === undefined || line.e === undefined || line.v === undefined
      ? {}
      : { oddsParts: line.e, relative: line.v }),
  };
}

/** The orders of an output line's candidates put back on its outcome (outcomeOfLine). */
function withOrders(outcome: MatchOutcome, orders: readonly number[] | undefined): MatchOutcome {
  if (orders === undefined) return outcome;
  outcome.candidates.forEach((candidate, i) => {
    candidate.order = orders[i]!;
  });
  return outcome;
}

const ROW_PREFIX = '{"r":';

/**
 * The row number of an output line, read from its start (JSON.stringify writes `r` first) without
 * parsing the rest; NaN for a line of another shape.
 */
export function rowOfLine(text: string): number {
  if (!text.startsWith(ROW_PREFIX)) return Number.NaN;
  let row = 0;
  for (let i = ROW_PREFIX.length; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return i === ROW_PREFIX.length ? Number.NaN : row;
    row = row * 10 + digit;
  }
  return Number.NaN;
}

/** What a chunk's output line holds for a row's outcome in a shard: its candidates with their values. */
export function chunkOutcomeOf(
  row: number,
  outcome: MatchOutcome,
  shard: VoterSnapshot,
  columns: readonly number[],
): ChunkOutcome {
  const weighed = outcome.oddsSum !== undefined && outcome.candidates.every((c) => c.odds !== undefined);
  const line: ChunkOutcome = {
    r: row,
    c: outcome.candidates.map((c) =>
      !weighed
        ? [c.score, c.method, c.explain ?? '', shard.fields(c.voter, columns)]
        : c.maxScore === undefined
          ? [c.score, c.method, c.explain ?? '', shard.fields(c.voter, columns), c.odds!]
          : [
              c.score,
              c.method,
              c.explain ?? '',
              shard.fields(c.voter, columns),
              c.odds!,
              c.maxScore,
              c.minScore ?? 0,
            ],
    ),
  };
  if (outcome.unmatchedReason !== undefined) line.u = outcome.unmatchedReason;
  if (outcome.problems !== undefined && outcome.problems.length > 0) line.p = outcome.problems;
  if (outcome.bestCount !== undefined) line.b = outcome.bestCount;
  if (weighed) {
    line.o = outcome.oddsSum!;
    if (outcome.oddsParts !== undefined && outcome.relative !== undefined) {
      line.e = outcome.oddsParts;
      line.v = outcome.relative;
    }
  }
  if (outcome.candidates.length > 0 && outcome.candidates.every((c) => c.order !== undefined)) {
    line.q = outcome.candidates.map((c) => c.order!);
  }
  if (weighed && outcome.passed !== undefined) {
    line.n = outcome.passed.map((c) => [
      c.score,
      c.method,
      c.explain ?? '',
      shard.fields(c.voter, columns),
      c.odds!,
      c.maxScore ?? MAX_PROBABILISTIC_SCORE,
      c.minScore ?? 0,
      c.order!,
      c.uncorroborated === true ? 0 : 1,
    ]);
  }
  if (outcome.oddsScale !== undefined) line.k = outcome.oddsScale;
  if (outcome.maySwap === true) line.y = 1;
  if (outcome.swapped !== undefined) {
    const { r: _row, ...swapped } = chunkOutcomeOf(row, outcome.swapped, shard, columns);
    line.w = swapped;
  }
  return line;
}
