/**
 * The assemble step of a sharded list: the upload read again, each row's outcomes from the chunks
 * of its shards (every chunk's output lines in row order) merged into one, and written as an
 * unsharded job writes. On the job's thread (mergingMatcher through matchList), or with the
 * merging and formatting of whole blocks on the matching threads (AssembleBlockRunner): the job's
 * thread then only hands each block the chunk lines of its rows.
 */
import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { MatchCandidate, Matcher, MatchInput, MatchOptions, MatchOutcome } from '../matching/matcher.ts';
import { MAX_PROBABILISTIC_SCORE } from '../matching/select/select-matches.ts';
import type { BlockRunner, ListMatcher } from './block-runner.ts';
import { type ChunkOutcome, outcomeOfLine, rowOfLine } from './chunk-lines.ts';
import { inTurns } from './in-turn.ts';
import { type BlockResult, type BlockSpec, matchBlock } from './match-block.ts';

/** Per chunk stream (in stream order), the output lines of a block's rows. */
export type BlockOutcomeLines = string[][];

/** Merges and formats whole blocks on worker threads. */
export interface AssembleBlockRunner {
  /** Blocks it works on at once. */
  readonly parallelism: number;
  run(
    block: CsvBlock,
    spec: BlockSpec,
    lines: BlockOutcomeLines,
    thresholdScore: number,
  ): Promise<BlockResult>;
}

/**
 * The assemble step's matcher: reads the chunks' outcomes (each stream in row order) alongside the
 * upload and merges each row's. Its candidates carry their voter values, so no shard is loaded.
 * With `threads`, whole blocks are merged and formatted there.
 */
export function mergingMatcher(
  outcomes: AsyncIterator<string>[],
  thresholdScore: number,
  threads?: AssembleBlockRunner,
): ListMatcher {
  const heads: (string | null | undefined)[] = outcomes.map(() => undefined);
  const peek = async (i: number): Promise<string | null> => {
    if (heads[i] === undefined) {
      const next = await outcomes[i]!.next();
      heads[i] = next.done ? null : next.value;
    }
    return heads[i]!;
  };
  // Batches and blocks take turns on the streams.
  const inTurn = inTurns();
  /** Each stream's lines of the rows before `end`. */
  const linesBefore = async (end: number): Promise<BlockOutcomeLines> => {
    const lines: BlockOutcomeLines = [];
    for (let i = 0; i < outcomes.length; i++) {
      const own: string[] = [];
      for (let head = await peek(i); head !== null && rowOfLine(head) < end; head = await peek(i)) {
        own.push(head);
        heads[i] = undefined;
      }
      lines.push(own);
    }
    return lines;
  };
  return {
    name: 'merged',
    matchBatch: (rows, options) =>
      inTurn(async () => {
        const end = rows.length === 0 ? 0 : rows[rows.length - 1]!.row + 1;
        return mergeRows(rows, await linesBefore(end), options, thresholdScore);
      }),
    ...(threads === undefined
      ? {}
      : {
          blocks: {
            parallelism: threads.parallelism,
            // Nothing is fitted: the chunks were matched with the job's model.
            prepare: async () => {},
            run: async (block, spec) => {
              const lines = await inTurn(() => linesBefore(block.firstRow + block.records));
              return await threads.run(block, spec, lines, thresholdScore);
            },
          } satisfies BlockRunner,
        }),
  };
}

/**
 * One block assembled where it runs (a matching thread): its rows' outcomes merged from the
 * chunk lines `lines`, the block parsed, checked and formatted as any block is.
 */
export async function assembleBlock(
  block: CsvBlock,
  spec: BlockSpec,
  lines: BlockOutcomeLines,
  thresholdScore: number,
): Promise<BlockResult> {
  const merger: Matcher = {
    name: 'merged',
    matchBatch: async (rows, options) => mergeRows(rows, lines, options, thresholdScore),
  };
  return await matchBlock(block, spec, merger, null);
}

/** Each row's outcome from the streams' lines of those rows (any line of another row is an error). */
function mergeRows(
  rows: readonly MatchInput[],
  lines: BlockOutcomeLines,
  options: MatchOptions,
  thresholdScore: number,
): MatchOutcome[] {
  const at = lines.map(() => 0);
  return rows.map((row) => {
    const found: MatchOutcome[] = [];
    for (let i = 0; i < lines.length; i++) {
      const own = lines[i]!;
      const text = own[at[i]!];
      if (text === undefined || rowOfLine(text) !== row.row) continue;
      at[i]!++;
      found.push(outcomeOfLine(JSON.parse(text) as ChunkOutcome));
    }
    if (found.length === 0) throw new Error(`no chunk holds the outcome of row ${row.row}`);
    return mergeOutcomes(found, options.maxMatches, thresholdScore);
  });
}

/** Unmatched reasons from most to least telling, when a row's shards disagree. */
const REASON_ORDER = ['below_threshold', 'no_candidates', 'name_only'];

/**
 * One row's outcome from its shards' (in shard order). One shard: as it is. Several, for a
 * one-person row the probabilistic strategies matched (each outcome's oddsSum): weighed together
 * as one voter file would weigh them (weighOutcomes). Otherwise candidates of every shard by
 * score (ties: shard order, then rank), the best `maxMatches`; no candidate anywhere: the most
 * telling reason. Input problems are the row's, the same from every shard, plus any a shard
 * added (an id whose record disagrees on the name).
 */
export function mergeOutcomes(
  outcomes: readonly MatchOutcome[],
  maxMatches: number,
  thresholdScore = 0,
): MatchOutcome {
  if (outcomes.length === 1) return outcomes[0]!;
  const problems = [...new Set(outcomes.flatMap((o) => o.problems ?? []))];
  const withProblems = problems.length === 0 ? {} : { problems };
  const weighed = weighOutcomes(outcomes, maxMatches, thresholdScore);
  if (weighed !== null) return { ...weighed, ...withProblems };
  const matched = outcomes.filter((o) => o.candidates.length > 0);
  if (matched.length === 1) {
    const { problems: _ignored, ...rest } = matched[0]!;
    return { ...rest, ...withProblems };
  }
  if (matched.length === 0) {
    const reasons = outcomes.map((o) => o.unmatchedReason ?? 'no_match');
    const rank = (reason: string) => {
      const at = REASON_ORDER.indexOf(reason);
      return at === -1 ? REASON_ORDER.length : at;
    };
    const reason = reasons.reduce((best, next) => (rank(next) < rank(best) ? next : best));
    return { candidates: [], unmatchedReason: reason, ...withProblems };
  }
  const candidates = matched
    .flatMap((o) => o.candidates)
    .map((candidate, order) => ({ candidate, order }))
    .sort((a, b) => b.candidate.score - a.candidate.score || a.order - b.order)
    .slice(0, maxMatches)
    .map(({ candidate }) => candidate);
  return { candidates, ...withProblems };
}

const AMBIGUOUS = ' ambiguous';

/**
 * Several shards' outcomes of a one-person row weighed as one voter file would weigh its
 * candidates (select-matches.ts): each score recomputed over the odds of every shard's
 * candidates, 100 × odds ÷ (1 + Σ oddsSum), at most 99; the threshold applied again; the best
 * flagged ambiguous when its shard flagged it or another candidate has at least half its odds.
 * One shard with candidates gets its own scores back. Null when an outcome cannot be weighed (an
 * id match, a couple row, names matched swapped, lines of the first format): then scores are
 * compared as each shard gave them.
 */
function weighOutcomes(
  outcomes: readonly MatchOutcome[],
  maxMatches: number,
  thresholdScore: number,
): Omit<MatchOutcome, 'problems'> | null {
  let total = 0;
  const all: { candidate: MatchCandidate; odds: number; flagged: boolean; order: number }[] = [];
  for (const outcome of outcomes) {
    if (outcome.bestCount !== undefined) return null;
    if (outcome.oddsSum === undefined) {
      if (outcome.candidates.length > 0) return null;
      continue;
    }
    total += outcome.oddsSum;
    for (const candidate of outcome.candidates) {
      if (candidate.odds === undefined) return null;
      const explain = candidate.explain ?? '';
      all.push({
        candidate,
        odds: candidate.odds,
        flagged: explain.endsWith(AMBIGUOUS),
        order: all.length,
      });
    }
  }
  if (total === 0) return null;
  all.sort((a, b) => b.odds - a.odds || a.order - b.order);
  const top = all[0];
  const ambiguous =
    top !== undefined && (top.flagged || (all[1] !== undefined && all[1].odds * 2 >= top.odds));
  const candidates: MatchCandidate[] = [];
  const scored = all
    .map((entry) => ({
      ...entry,
      score: Math.max(
        entry.candidate.minScore ?? 0,
        Math.min(entry.candidate.maxScore ?? MAX_PROBABILISTIC_SCORE, (100 * entry.odds) / (1 + total)),
      ),
    }))
    .sort((a, b) => b.score - a.score || b.odds - a.odds || a.order - b.order);
  for (const { candidate, score } of scored) {
    if (candidates.length >= maxMatches) break;
    if (score < thresholdScore) break;
    let explain = candidate.explain ?? '';
    if (explain.endsWith(AMBIGUOUS)) explain = explain.slice(0, -AMBIGUOUS.length);
    if (candidates.length === 0 && ambiguous) explain = `${explain}${AMBIGUOUS}`;
    const { explain: _old, ...rest } = candidate;
    candidates.push({ ...rest, score, ...(explain === '' ? {} : { explain }) });
  }
  return candidates.length === 0 ? { candidates, unmatchedReason: 'below_threshold' } : { candidates };
}
