import type { CandidateSet } from '../candidates/candidate-set.ts';
import { addressVoters } from '../candidates/row-place.ts';
import type { MatchIndex } from '../index/match-index.ts';
import { GENDER_CODE } from '../index/match-index-fields.ts';
import { countStranger, type StrangerTally } from './chance-agreement.ts';
import { comparePerson, type Query } from './compare-person.ts';
import { dateAgrees, F, FIELD_COUNT, L, MAX_LEVELS } from './comparison-levels.ts';
import { addExact, roundExact } from './exact-sum.ts';
import { at, type FellegiSunterModel } from './fellegi-sunter.ts';
import { householdOdds, isPossibleHouseholdMember } from './household.ts';

/** One scored candidate of one input person. */
export interface ScoredCandidate {
  voter: number;
  /**
   * The voter's position in the whole voter file (MatchIndex.voterOrder): ties fall back to it,
   * so a shard of the file orders them as the whole file does. Absent: the record index.
   */
  order?: number;
  /** Match weight in bits: log2 of the likelihood ratio, term-frequency adjusted. */
  weight: number;
  /** Posterior odds against "no match": prior odds × 2^weight. */
  odds: number;
  levels: Uint8Array;
  /** Key kinds that found it (bit per KEY kind). */
  sources: number;
}

/**
 * Scores every candidate of one person and keeps the best `keep` (by weight, then the voter's
 * position in the whole file for a deterministic order, the same in a shard as in the whole file). Also returns the sum of all candidates' odds with the odds of a
 * relative outside the file (the likeliest of the candidates' odds ÷ household): the posterior of
 * candidate i is odds_i / (1 + Σ odds + relative), since at most one voter record is the person,
 * and a relative outside the file may be the row's person instead. The odds' sum is also given
 * as the parts of an exact sum (exact-sum.ts; into `oddsParts` when given, which is returned): a
 * sharded file's merge and the list's fit add the shards' parts to the whole file's sum.
 * `strangers`, when given, counts the candidates holding the row's phone or e-mail under other
 * names (the list's fit learns chance agreement from them: chance-agreement.ts).
 */
export function scoreCandidates(
  index: MatchIndex,
  model: FellegiSunterModel,
  q: Query,
  candidates: CandidateSet,
  keep: number,
  oddsParts: number[] = [],
  strangers?: StrangerTally,
): { best: ScoredCandidate[]; oddsSum: number; relative: number; oddsParts: number[] } {
  const n = Math.max(1, index.size);
  const priorOdds = model.priorMatchOdds / n;
  const data = index.data;
  const firstTf = tfWeight(model, F.first, data.dictionaries.first.count(q.firstId), n);
  const lastTf = tfWeight(model, F.last, data.dictionaries.last.count(q.lastId), n);
  let addressTf = Number.NaN;
  if (q.houseStreetKeys.length > 0 && q.streetId > 0) {
    // A row matched shard by shard weighs its address by the whole file's voters at it.
    const count = q.person.place?.addressVoters ?? addressVoters(index, q);
    addressTf = tfWeight(model, F.address, count, n);
  }
  const firstShare = data.dictionaries.first.count(q.firstId) / n;
  const lastShare = data.dictionaries.last.count(q.lastId) / n;
  // The model's weights with this query's own for its names and address (term frequencies),
  // so each candidate's weight is one lookup per compared field.
  const weights = queryWeights;
  weights.set(model.weight);
  for (let level = 1; level < MAX_LEVELS; level++) {
    if (level === 1 && !Number.isNaN(firstTf)) weights[at(F.first, level)] = firstTf;
    else if (firstShare > 0) weights[at(F.first, level)] = partialWeight(model, F.first, level, firstShare);
    if (level === 1 && !Number.isNaN(lastTf)) weights[at(F.last, level)] = lastTf;
    else if (lastShare > 0) weights[at(F.last, level)] = partialWeight(model, F.last, level, lastShare);
  }
  if (!Number.isNaN(addressTf)) weights[at(F.address, L.address.exact)] = addressTf;
  // The ZIP by its own share of the file: a namesake is likelier in a ZIP of 40,000 voters than
  // in one of 400.
  const zipTf = q.zip > 0 ? tfWeight(model, F.zip, index.zipCount(q.zip), n) : Number.NaN;
  if (!Number.isNaN(zipTf)) weights[at(F.zip, L.zip.exact)] = zipTf;
  // A full date of birth by its own share of the file: a placeholder many voters are filed under
  // (1900-01-01) weighs little, a rare date, plausible for a living voter or not, much.
  if (q.dob % 100 !== 0) {
    const dobTf = tfWeight(model, F.dob, index.dobCount(q.dob), n);
    if (!Number.isNaN(dobTf)) weights[at(F.dob, L.dob.exact)] = dobTf;
  }
  // The state by its own share of the file: agreeing on a state of few voters says more than on
  // the state of most (in a one-state file, nothing).
  const stateCount = q.stateId > 0 ? data.dictionaries.state.count(q.stateId) : 0;
  if (stateCount > 0) {
    weights[at(F.state, L.binary.exact)] = tfWeight(model, F.state, stateCount, n);
    if (stateCount < n) {
      const differ = at(F.state, L.binary.differ);
      weights[differ] = Math.log2(model.m[differ]! / (1 - stateCount / n));
    }
  }
  // The row's first name and a date that agree are not independent evidence: people named alike
  // are born in the same decades (first-name-cohorts.ts). u of a date's agreement among voters
  // with the name is the file's times the name's cohort concentration.
  const cohortBits = Math.log2(index.firstNameCohort(q.firstId));
  const maleSurnameBits = Math.min(0, Math.log2(MALE_SURNAME_CHANGE_M / model.m[at(F.last, L.last.differ)]!));
  const best: ScoredCandidate[] = [];
  let relative = 0;
  // The odds' sum as a double-double (Knuth's two-sum, the rounding errors summed apart): within
  // about 2^-100 of the exact sum whatever the candidates' order, so a shard's sums added
  // exactly (exact-sum.ts) round to the whole file's double. An exact sum per candidate cost 7%.
  let sumHi = 0;
  let sumLo = 0;
  const levels = new Uint8Array(FIELD_COUNT);
  prefetchCandidates(index, candidates);
  for (let c = 0; c < candidates.size; c++) {
    const voter = candidates.voterAt(c);
    const sources = candidates.bitsAt(c);
    comparePerson(index, q, voter, levels);
    if (strangers !== undefined) countStranger(levels, strangers);
    let weight = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const level = levels[f]!;
      if (level !== 0) weight += weights[f * MAX_LEVELS + level]!;
    }
    // An exact name written otherwise (MARY ANN for MARY with the middle name ANN, DELACRUZ for
    // DE LA CRUZ) is as common as the voter's: the row's spelling may be rare, or no one's.
    if (levels[F.first] === L.first.exact) {
      const voterFirst = data.fields.first(voter);
      if (voterFirst !== q.firstId)
        weight += voterTf(model, F.first, data.dictionaries.first.count(voterFirst), n, weights);
    }
    if (levels[F.last] === L.last.exact) {
      const voterLast = data.fields.last(voter);
      if (voterLast !== q.lastId)
        weight += voterTf(model, F.last, data.dictionaries.last.count(voterLast), n, weights);
    }
    if (levels[F.first] === L.first.exact && dateAgrees(levels)) weight -= cohortBits;
    // A man's surname rarely changes (women's do on marriage, which the list's m of a surname
    // that differs mostly learns from): a man's that differs weighs by men's own rate.
    if (levels[F.last] === L.last.differ && data.fields.gender(voter) === GENDER_CODE.M)
      weight += maleSurnameBits;
    const odds = priorOdds * 2 ** weight;
    // The possible band's (a twin's, or the voter under another first name) as the list's own
    // evidence says (possibleOddsOf), if lower.
    const modelled = householdOdds(levels, model.m, model.priorMatchOdds, model.relativeOdds);
    const household = isPossibleHouseholdMember(levels) ? Math.min(modelled, model.possibleOdds) : modelled;
    const sum = sumHi + odds;
    const virtual = sum - sumHi;
    sumLo += sumHi - (sum - virtual) + (odds - virtual);
    sumHi = sum;
    // One relative outside the file, however many of the household's voters are candidates:
    // each candidate's is the same event weighed from another member, so the likeliest counts.
    relative = Math.max(relative, odds / household);
    // The voter's place in the file (a shard's own table) is read only for a candidate that may
    // enter the best few: most weigh less than the last of them.
    const last = best.length < keep ? undefined : best[best.length - 1]!;
    if (last !== undefined && weight < last.weight) continue;
    const order = index.voterOrder(voter);
    if (last === undefined || isBetter(weight, order, last)) {
      // The entry let go is reused: most candidates of a long list pass through the best few.
      const entry: ScoredCandidate =
        best.length >= keep
          ? best.pop()!
          : { voter, order, weight, odds, levels: new Uint8Array(FIELD_COUNT), sources };
      entry.voter = voter;
      entry.order = order;
      entry.weight = weight;
      entry.odds = odds;
      entry.levels.set(levels);
      entry.sources = sources;
      let i = best.length;
      while (i > 0 && isBetter(weight, order, best[i - 1]!)) i--;
      best.splice(i, 0, entry);
    }
  }
  addExact(oddsParts, sumLo);
  addExact(oddsParts, sumHi);
  return { best, oddsSum: roundExact(oddsParts) + relative, relative, oddsParts };
}

/**
 * m of a surname that differs for a man: a man takes his wife's name about one time in a hundred
 * (the list's fit learns the surname's levels mostly from women, whose names change on marriage).
 */
const MALE_SURNAME_CHANGE_M = 0.01;

/** scoreCandidates' weight table, filled for each query (one per thread's module instance). */
const queryWeights = new Float64Array(FIELD_COUNT * MAX_LEVELS);

const isBetter = (weight: number, order: number, than: ScoredCandidate) =>
  weight > than.weight || (weight === than.weight && order < (than.order ?? than.voter));

/**
 * Weight of a partial agreement (nickname, typo, …) on a name held by `share` of the voters: the
 * level's model weight, but at most what it would be if a random voter agreed at that level as
 * often as voters share the name. The levels' weights are averages over all names while an exact
 * agreement is weighed by the name's own frequency: for a very common name (MICHAEL) a nickname
 * namesake (MIKE) would otherwise weigh more than the exact one.
 */
function partialWeight(model: FellegiSunterModel, field: number, level: number, share: number): number {
  return Math.min(model.weight[at(field, level)]!, Math.log2(model.m[at(field, level)]! / share));
}

/**
 * Weight of an exact agreement on a value held by `count` of `n` voters: the value's frequency
 * takes the place of the field's average u, log2(m / (count / n)). NaN when no voter has the
 * value (then no candidate agrees exactly anyway).
 */
function tfWeight(model: FellegiSunterModel, field: number, count: number, n: number): number {
  if (count <= 0) return Number.NaN;
  return Math.log2(model.m[at(field, 1)]! / (count / n));
}

/**
 * What an exact agreement weighs by the voter's name instead of the row's: the difference to add
 * to the query's weight of the level (0 when the file does not count the voter's name).
 */
function voterTf(
  model: FellegiSunterModel,
  field: number,
  count: number,
  n: number,
  weights: Float64Array,
): number {
  const tf = tfWeight(model, field, count, n);
  return Number.isNaN(tf) ? 0 : tf - weights[at(field, 1)]!;
}

/** Keeps prefetchCandidates' reads from being optimized away. */
const prefetched = { sum: 0 };

/**
 * Reads each candidate's record once before any is compared. The reads of different candidates
 * are independent, so the processor overlaps their cache misses (nearly every candidate met for
 * the first time is one); comparing candidates one by one waited for each miss in turn.
 */
function prefetchCandidates(index: MatchIndex, candidates: CandidateSet): void {
  const fields = index.data.fields;
  let x = 0;
  for (let c = 0; c < candidates.size; c++) x += fields.touch(candidates.voterAt(c));
  prefetched.sum += x;
}
