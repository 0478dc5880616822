import type { MatchCandidate, MatchOutcome } from '../../matching/matcher.ts';
import { addExactParts, roundExact } from '../../matching/score/exact-sum.ts';
import { POSSIBLE_MAX_SCORE, POSSIBLE_MIN_SCORE } from '../../matching/score/household.ts';
import { candidatesKept, MAX_PROBABILISTIC_SCORE } from '../../matching/select/select-matches.ts';

/**
 * The merge stage: each row's outcomes, one per shard it was matched in (in shard order), made
 * into the row's one outcome, cut to `maxMatches` candidates. Every row goes through it, so it is
 * where a row's lines are bounded (spec 2.4); the matchers' selection bounds each person's.
 */

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
  if (outcomes.length === 0) throw new Error('a row was matched in no shard');
  return cut(
    outcomes.length === 1 ? outcomes[0]! : combine(outcomes, thresholdScore, maxMatches),
    maxMatches,
  );
}

/** Several shards' outcomes of a row as one, every candidate kept, best first. */
function combine(
  outcomes: readonly MatchOutcome[],
  thresholdScore: number,
  maxMatches: number,
): MatchOutcome {
  const problems = [...new Set(outcomes.flatMap((o) => o.problems ?? []))];
  const withProblems = problems.length === 0 ? {} : { problems };
  const weighed = weighOutcomes(outcomes, thresholdScore, maxMatches);
  if (weighed !== null) return { ...weighed, ...withProblems };
  const matched = outcomes.filter((o) => o.candidates.length > 0);
  if (matched.length === 1) {
    const { problems: _ignored, passed: _passed, ...rest } = matched[0]!;
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
    .map(({ candidate }) => candidate);
  return { candidates, ...withProblems };
}

const AMBIGUOUS = ' ambiguous';
/** The end of a swapped reading's explain (after its ambiguity flag). */
const SWAPPED = ' names=swapped';

/** An explain without a swapped reading's end, and that end ('' when there is none). */
const splitSwapped = (explain: string): [string, string] =>
  explain.endsWith(SWAPPED) ? [explain.slice(0, -SWAPPED.length), SWAPPED] : [explain, ''];

/**
 * Several shards' outcomes of a one-person row weighed as one voter file would weigh its
 * candidates (select-matches.ts): each score recomputed over the odds of every shard's
 * candidates, 100 × odds ÷ (1 + the odds sum), at most 99, the odds sum being the shards' exact
 * parts added with the likeliest relative outside the file (times the swap's probability, for a
 * swapped reading: MatchOutcome.oddsScale); a possible household member's floor from its own
 * evidence over every shard. When every shard gave the candidates its selection passed over
 * (MatchOutcome.passed), the selection is the whole file's: over the best max(maxMatches, 2) of
 * all of them by odds (ties: the whole file's order), ranked by score, the best flagged ambiguous
 * when the second has at least half its odds, those under the threshold or not corroborated
 * left out. Otherwise (a chunk line of an older version) over the shards' selections: the
 * threshold applied again, the best flagged ambiguous when its shard flagged it or the next by
 * score has at least half its odds. Null when an outcome cannot be weighed (an id match, a couple
 * row, names matched swapped beside the names as written, lines of the first format): then scores
 * are compared as each shard gave them.
 */
function weighOutcomes(
  outcomes: readonly MatchOutcome[],
  thresholdScore: number,
  maxMatches: number,
): Omit<MatchOutcome, 'problems'> | null {
  let total = 0;
  // The shards' exact sums and largest relative: the whole file's one sum, to the bit.
  const parts: number[] = [];
  let relative = 0;
  let exact = true;
  let scale: number | undefined;
  const all: {
    candidate: MatchCandidate;
    odds: number;
    flagged: boolean;
    order: number;
    corroborated: boolean;
  }[] = [];
  // Whether every weighed shard told what its selection passed over.
  let whole = true;
  const add = (candidate: MatchCandidate): boolean => {
    if (candidate.odds === undefined) return false;
    all.push({
      candidate,
      odds: candidate.odds,
      flagged: splitSwapped(candidate.explain ?? '')[0].endsWith(AMBIGUOUS),
      // The whole file's order breaks ties as one voter file would (a line without it: shard order, then rank).
      order: candidate.order ?? all.length,
      corroborated: candidate.uncorroborated !== true,
    });
    return true;
  };
  for (const outcome of outcomes) {
    if (outcome.bestCount !== undefined) return null;
    if (outcome.oddsSum === undefined) {
      if (outcome.candidates.length > 0) return null;
      continue;
    }
    if (outcome.oddsScale !== undefined) {
      if (scale !== undefined && scale !== outcome.oddsScale) return null;
      scale = outcome.oddsScale;
    }
    total += outcome.oddsSum;
    if (outcome.oddsParts === undefined || outcome.relative === undefined) exact = false;
    else {
      addExactParts(parts, outcome.oddsParts);
      relative = Math.max(relative, outcome.relative);
    }
    for (const candidate of outcome.candidates) if (!add(candidate)) return null;
    if (outcome.passed === undefined) whole = false;
  }
  if (whole) {
    for (const outcome of outcomes)
      for (const candidate of outcome.passed ?? []) if (!add(candidate)) return null;
    // The whole file's search keeps its best by weight (score-candidates.ts), which its
    // selection ranks: the same ones by odds.
    all.sort((a, b) => b.odds - a.odds || a.order - b.order);
    all.length = Math.min(all.length, candidatesKept(maxMatches));
  }
  if (total === 0) return null;
  if (scale !== undefined && !exact) return null;
  // As select-matches.ts computes them over one file's candidates (a swapped reading's sum and
  // relative scaled as searchPerson scales them).
  if (exact) {
    total = roundExact(parts) + relative;
    if (scale !== undefined) {
      total *= scale;
      relative *= scale;
    }
  }
  const scored = all
    .map((entry) => {
      const maxScore = entry.candidate.maxScore ?? MAX_PROBABILISTIC_SCORE;
      // A possible household member's floor, from its own evidence over every shard's candidates.
      const own = (100 * entry.odds) / (1 + total - relative);
      const minScore = !exact
        ? (entry.candidate.minScore ?? 0)
        : maxScore === POSSIBLE_MAX_SCORE && own >= POSSIBLE_MIN_SCORE
          ? POSSIBLE_MIN_SCORE
          : 0;
      return {
        ...entry,
        minScore,
        score: Math.max(minScore, Math.min(maxScore, (100 * entry.odds) / (1 + total))),
      };
    })
    .sort((a, b) => b.score - a.score || b.odds - a.odds || a.order - b.order);
  const top = scored[0];
  const ambiguous =
    top !== undefined &&
    ((!whole && top.flagged) || (scored[1] !== undefined && scored[1].odds * 2 >= top.odds));
  const candidates: MatchCandidate[] = [];
  for (const { candidate, score, minScore, corroborated } of scored) {
    if (score < thresholdScore) break;
    if (!corroborated) continue;
    let [explain, swapped] = splitSwapped(candidate.explain ?? '');
    if (explain.endsWith(AMBIGUOUS)) explain = explain.slice(0, -AMBIGUOUS.length);
    if (candidates.length === 0 && ambiguous) explain = `${explain}${AMBIGUOUS}`;
    explain = `${explain}${swapped}`;
    const { explain: _old, minScore: _shard, uncorroborated: _passed, ...rest } = candidate;
    candidates.push({
      ...rest,
      score,
      ...(minScore > 0 ? { minScore } : {}),
      ...(explain === '' ? {} : { explain }),
    });
  }
  return candidates.length === 0 ? { candidates, unmatchedReason: 'below_threshold' } : { candidates };
}

/**
 * Whether a row's names as written matched in none of its shards and may be swapped: then its
 * swapped readings decide (MatchOutcome.maySwap; one voter file searches them only then).
 */
export const wantsSwappedReadings = (merged: MatchOutcome, outcomes: readonly MatchOutcome[]): boolean =>
  merged.candidates.length === 0 && outcomes.length > 1 && outcomes.some((o) => o.maySwap === true);

/**
 * A row's merged outcome, or, when it wants them, the outcome of the swapped readings its shards
 * gave beside their names as written (MatchOutcome.swapped) if those match.
 */
export function withSwappedReadings(
  merged: MatchOutcome,
  outcomes: readonly MatchOutcome[],
  maxMatches: number,
  thresholdScore: number,
): MatchOutcome {
  if (!wantsSwappedReadings(merged, outcomes)) return merged;
  const readings = outcomes.flatMap((o) => (o.swapped === undefined ? [] : [o.swapped]));
  return mergeSwapped(readings, maxMatches, thresholdScore, merged.problems) ?? merged;
}

/**
 * A row's swapped readings, one per shard it was matched in (MatchInput.swap `only`), weighed as
 * one: the row's outcome when its names as written gave no match anywhere and these give one
 * (what matchPersons does in one voter file); null when they give none. `problems`: the row's.
 */
export function mergeSwapped(
  readings: readonly MatchOutcome[],
  maxMatches: number,
  thresholdScore: number,
  problems: string[] | undefined,
): MatchOutcome | null {
  const weighed = readings.length === 1 ? readings[0]! : weighOutcomes(readings, thresholdScore, maxMatches);
  if (weighed === null || weighed.candidates.length === 0) return null;
  return cut({ candidates: weighed.candidates, ...(problems === undefined ? {} : { problems }) }, maxMatches);
}

/**
 * An outcome with at most `maxMatches` candidates: the one place a row's lines are cut to
 * max_matches (spec 2.4). A couple row's (`first_name_combined`) holds
 * each person's matches, both people's best first: it keeps both bests when it keeps two lines.
 */
function cut(outcome: MatchOutcome, maxMatches: number): MatchOutcome {
  if (outcome.candidates.length <= maxMatches) return outcome;
  const candidates = outcome.candidates.slice(0, maxMatches);
  const { bestCount, ...rest } = outcome;
  return {
    ...rest,
    candidates,
    ...(bestCount === undefined ? {} : { bestCount: Math.min(bestCount, candidates.length) }),
  };
}
