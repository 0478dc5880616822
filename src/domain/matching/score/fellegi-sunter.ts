import { FIELD_COUNT, FIELDS, LEVEL_COUNTS, MAX_LEVELS, PRIOR_M } from './comparison-levels.ts';

/**
 * Fellegi-Sunter model: per field and agreement level, m = P(level | same person) and
 * u = P(level | different people). A candidate's match weight is Σ log2(m/u) over its compared
 * fields (missing fields add nothing); term-frequency adjustment replaces u of an exact name
 * agreement with that name's frequency in the voter file.
 */
export interface FellegiSunterModel {
  /** m[field * MAX_LEVELS + level]. */
  m: Float64Array;
  u: Float64Array;
  /** log2(m/u), same layout. */
  weight: Float64Array;
  /**
   * Prior odds that a row's person is in the voter file: the list's match rate π over 1 − π
   * (estimateMatchOdds), at most 1. The prior of the posterior score.
   */
  priorMatchOdds: number;
  /** How m was obtained: 'em' (estimated from this list) or 'prior' (too little data). */
  source: 'em' | 'prior';
  emIterations: number;
}

export const at = (field: number, level: number) => field * MAX_LEVELS + level;

export function priorM(): Float64Array {
  const m = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  for (let f = 0; f < FIELD_COUNT; f++)
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) m[at(f, l)] = PRIOR_M[f]![l]!;
  return m;
}

export function buildModel(
  m: Float64Array,
  u: Float64Array,
  priorMatchOdds: number,
  source: FellegiSunterModel['source'],
  emIterations = 0,
): FellegiSunterModel {
  const weight = new Float64Array(m.length);
  for (let i = 0; i < m.length; i++) weight[i] = m[i]! > 0 && u[i]! > 0 ? Math.log2(m[i]! / u[i]!) : 0;
  return { m, u, weight, priorMatchOdds, source, emIterations };
}

/**
 * Comparison vectors of candidate pairs, counted by distinct pattern (a list's pairs fall into a
 * few thousand patterns, so EM iterates over patterns, not pairs).
 */
export class PatternCounts {
  readonly patterns = new Map<string, { levels: Uint8Array; count: number }>();
  pairs = 0;
  rows = 0;

  add(levels: Uint8Array, count = 1): void {
    const key = String.fromCharCode(...levels);
    const found = this.patterns.get(key);
    if (found) found.count += count;
    else this.patterns.set(key, { levels: levels.slice(), count });
    this.pairs += count;
  }

  /** Plain data, to cross between threads. */
  toData(): PatternCountsData {
    return {
      rows: this.rows,
      patterns: [...this.patterns.values()].map(({ levels, count }) => [Array.from(levels), count]),
    };
  }

  /** Adds counts gathered elsewhere (another thread's share of the sample). */
  merge(data: PatternCountsData): void {
    this.rows += data.rows;
    for (const [levels, count] of data.patterns) this.add(Uint8Array.from(levels), count);
  }
}

export interface PatternCountsData {
  rows: number;
  patterns: [number[], number][];
}

/** Pairs needed before EM's m estimates are trusted over the priors. */
const MIN_PAIRS_FOR_EM = 2000;
/** Pseudo-pairs of the prior mixed into each m estimate (keeps rare levels sane). */
const PRIOR_STRENGTH = 500;

/**
 * Expectation-maximization over the candidate pairs of a list sample: estimates m per level
 * and the share of pairs that are matches, with pair-space u estimated alongside (and then
 * discarded: scoring uses the voter file's random-pair u, which is what the prior odds assume).
 */
export function estimateWithEm(
  counts: PatternCounts,
  randomU: Float64Array,
  maxIterations = 40,
): FellegiSunterModel {
  const prior = priorM();
  if (counts.pairs < MIN_PAIRS_FOR_EM || counts.rows === 0) {
    return buildModel(prior, randomU, 1, 'prior');
  }
  // In key order: the sums below then do not depend on which thread counted which pattern first.
  const patterns = [...counts.patterns.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, pattern]) => pattern);
  let m: Float64Array = prior.slice();
  // The first E-step scores pairs with the voter file's random-pair u: blocked pairs agree far
  // more often than random ones, and starting from their own level mix instead can make EM
  // settle on "no pair is a match".
  let ub: Float64Array = randomU;
  let lambda = Math.min(0.5, counts.rows / counts.pairs);
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const mSum = new Float64Array(m.length);
    const uSum = new Float64Array(m.length);
    let matchMass = 0;
    for (const { levels, count } of patterns) {
      let logRatio = Math.log(lambda / (1 - lambda));
      for (let f = 0; f < FIELD_COUNT; f++) {
        const l = levels[f]!;
        if (l === 0) continue;
        logRatio += Math.log(m[at(f, l)]! / ub[at(f, l)]!);
      }
      const p = 1 / (1 + Math.exp(-Math.max(-50, Math.min(50, logRatio))));
      matchMass += p * count;
      for (let f = 0; f < FIELD_COUNT; f++) {
        const l = levels[f]!;
        if (l === 0) continue;
        mSum[at(f, l)]! += p * count;
        uSum[at(f, l)]! += (1 - p) * count;
      }
    }
    const nextLambda = Math.min(0.99, Math.max(1e-4, matchMass / counts.pairs));
    const nextM = normalizeWithPrior(mSum, prior, PRIOR_STRENGTH);
    const nextU = normalizeWithPrior(uSum, uniform(), 1);
    const delta = maxDelta(m, nextM) + Math.abs(nextLambda - lambda);
    m = nextM;
    ub = nextU;
    lambda = nextLambda;
    if (delta < 1e-4) break;
  }
  // Label switching guard: the "match" class must agree on names more than the other one.
  const exactFirst = at(0, 1);
  const exactLast = at(1, 1);
  if (m[exactFirst]! + m[exactLast]! < ub[exactFirst]! + ub[exactLast]!) {
    return buildModel(prior, randomU, 1, 'prior');
  }
  // A field whose "match" class agrees less often than it disagrees was not identified by this
  // list (too few pairs compare it, or its agreement is confounded): keep its prior.
  for (let f = 0; f < FIELD_COUNT; f++) {
    const last = LEVEL_COUNTS[f]!;
    if (FIELDS[f]!.levels[last - 1] !== 'differ' && FIELDS[f]!.levels[last - 1] !== 'far') continue;
    if (m[at(f, 1)]! < IDENTIFIED_RATIO * m[at(f, last)]!)
      for (let l = 1; l <= last; l++) m[at(f, l)] = prior[at(f, l)]!;
  }
  // The pairs' match share says little of the rows' (a household's pairs join the match class):
  // the rows' own match rate is estimated with the fitted m (estimateMatchOdds).
  return buildModel(m, randomU, 1, 'em', iterations);
}

/** Pseudo-rows at even odds mixed into the match rate (a short list's few rows say little). */
const MATCH_RATE_PRIOR_ROWS = 50;

/**
 * The prior odds that a row is in the voter file, from each sample person's likelihood ratio of
 * "in the file" over "not in it" (its candidates' odds summed at even prior odds, Σ LR / n):
 * the list's match rate π by EM over the rows (π ← mean of π·L / (π·L + 1 − π)), with
 * MATCH_RATE_PRIOR_ROWS pseudo-rows at ½, as odds π / (1 − π), at most 1. A list mostly of
 * strangers (a prospect list) lowers every score: at even odds a namesake's evidence would be
 * over-trusted there. A list mostly of voters does not raise a score above what its evidence
 * says at even odds: the scores stay conservative where the model's independence of fields is
 * least true (people who share a name and a birth year, a household).
 */
export function estimateMatchOdds(likelihoodRatios: readonly number[]): number {
  const n = likelihoodRatios.length;
  if (n === 0) return 1;
  let share = 0.5;
  for (let iteration = 0; iteration < 200; iteration++) {
    const odds = share / (1 - share);
    let members = 0.5 * MATCH_RATE_PRIOR_ROWS;
    for (const ratio of likelihoodRatios) {
      const weighed = odds * ratio;
      members += Number.isFinite(weighed) ? weighed / (1 + weighed) : 1;
    }
    const next = Math.min(0.99, Math.max(0.01, members / (n + MATCH_RATE_PRIOR_ROWS)));
    const done = Math.abs(next - share) < 1e-6;
    share = next;
    if (done) break;
  }
  return Math.min(1, share / (1 - share));
}

/**
 * A field is identified when its "match" class agrees exactly at least this many times as often
 * as it disagrees: a first name said to differ in nearly half of all matches (EM's answer on a
 * list full of couples and household members, whose shared surname and address pull them into
 * the "match" class) is the latent classes mixing households with persons, not a list's error rate.
 */
const IDENTIFIED_RATIO = 2;

function uniform(): Float64Array {
  const u = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  for (let f = 0; f < FIELD_COUNT; f++)
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) u[at(f, l)] = 1 / LEVEL_COUNTS[f]!;
  return u;
}

/** Per field: (sum + strength × prior) / (total + strength), so no level is ever 0. */
function normalizeWithPrior(sums: Float64Array, prior: Float64Array, strength: number): Float64Array {
  const out = new Float64Array(sums.length);
  for (let f = 0; f < FIELD_COUNT; f++) {
    let total = 0;
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) total += sums[at(f, l)]!;
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) {
      out[at(f, l)] = (sums[at(f, l)]! + strength * prior[at(f, l)]!) / (total + strength);
    }
  }
  return out;
}

function maxDelta(a: Float64Array, b: Float64Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}
