import type { PersonChance } from './chance-agreement.ts';
import { F, FIELD_COUNT, L, LEVEL_COUNTS, MAX_LEVELS, PRIOR_M } from './comparison-levels.ts';
import {
  isHouseholdDateMatch,
  isPossibleHouseholdMember,
  PRIOR_POSSIBLE_ODDS,
  PRIOR_RELATIVE_SHARE,
  possibleOddsOf,
} from './household.ts';

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
   * (estimateFromPersons). The prior of the posterior score.
   */
  priorMatchOdds: number;
  /** How m was obtained: 'em' (estimated from this list) or 'prior' (too few persons to learn from). */
  source: 'em' | 'prior';
  emIterations: number;
  /**
   * Odds that a row not in the file is a relative or housemate of a voter rather than a stranger
   * (φ / (1 − φ), fitted with m; household.ts): how likely the household's other explanation is.
   */
  relativeOdds: number;
  /**
   * Odds that a candidate in the possible band (household.ts) is the voter rather than a twin,
   * fitted on the list (possibleOddsOf): its household odds are at most these.
   */
  possibleOdds: number;
}

/** The relatives' odds before any list's evidence. */
export const PRIOR_RELATIVE_ODDS = PRIOR_RELATIVE_SHARE / (1 - PRIOR_RELATIVE_SHARE);

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
  relativeOdds = PRIOR_RELATIVE_ODDS,
  possibleOdds = PRIOR_POSSIBLE_ODDS,
): FellegiSunterModel {
  const weight = new Float64Array(m.length);
  for (let i = 0; i < m.length; i++) weight[i] = m[i]! > 0 && u[i]! > 0 ? Math.log2(m[i]! / u[i]!) : 0;
  return { m, u, weight, priorMatchOdds, source, emIterations, relativeOdds, possibleOdds };
}

/** One sample person, as the fit weighs it (samplePersonEvidence). */
export interface PersonEvidence {
  /** Odds at even prior odds of its candidates not listed. */
  rest: number;
  /** Its best candidates (those selection would never accept left out). */
  candidates: CandidateEvidence[];
  /** The strangers found holding its phone and e-mail (chance-agreement.ts); absent: it tells nothing. */
  chance?: PersonChance;
}

export interface CandidateEvidence {
  /** Comparison level per field (0: not compared). */
  levels: number[];
  /** The bits of the weight that m does not set: the odds at even prior odds are 2^(Σ log2 m − otherBits). */
  otherBits: number;
  /** Fields (a bit each) whose level this candidate teaches. */
  teaches: number;
  /**
   * Fields (a bit each) whose disagreement it teaches: those the rest of its agreement would
   * still identify the person without. A candidate that only its birth date corroborates cannot
   * tell a mistyped date from a namesake's, so it teaches how the date agrees, not how often.
   */
  identifies: number;
  /**
   * log2 Π m / h over its personal fields (household.ts) when it shares a household field, else
   * null: a relative outside the file takes odds ÷ k of the row, k = the match odds × 2^this.
   */
  personalBits: number | null;
}

/** Persons needed before the fit's m is trusted over the priors (fewer still give the match rate). */
const MIN_PERSONS_FOR_EM = 100;
/** Pseudo-persons of the prior in each m estimate (a field few persons compare keeps its prior). */
const PRIOR_STRENGTH = 50;
/** Pseudo-rows at even odds mixed into the match rate (a short list's few rows say little). */
const MATCH_RATE_PRIOR_ROWS = 50;
/** Pseudo-rows of non-members at the prior's relative share mixed into the fitted share. */
const RELATIVE_SHARE_PRIOR_ROWS = 50;

/**
 * m and the list's match rate, fitted together by EM over the sample's persons, as scoring reads
 * them: a person is at most one voter, so a candidate is the person with probability odds ÷ (1 +
 * the person's odds sum), and the person is in the file with probability Σ odds ÷ (1 + Σ odds).
 * Each candidate's levels are counted by that probability. A household member who shares surname
 * and address shares the mass with the person, instead of joining a "match" class of pairs as in
 * EM over pairs (which then said a first name differs in nearly half of all matches), and so does
 * the candidate's relative outside the file (household.ts): a spouse's row at the voter's address
 * teaches little about how often a first name differs for the same person. The match
 * rate π, as odds π / (1 − π), is the prior of every score: a list mostly of strangers (a
 * prospect list) lowers every score, a list mostly of voters raises them (π is kept within
 * 0.01-0.99, odds 1/99 to 99). m is learnt once MIN_PERSONS_FOR_EM persons have candidates.
 */
export function estimateFromPersons(
  persons: readonly PersonEvidence[],
  maxIterations = 100,
): {
  m: Float64Array;
  matchOdds: number;
  relativeOdds: number;
  possibleOdds: number;
  source: FellegiSunterModel['source'];
  iterations: number;
} {
  const prior = priorM();
  const learnsM = persons.filter((person) => person.candidates.length > 0).length >= MIN_PERSONS_FOR_EM;
  let m = prior;
  let share = 0.5;
  let relativeShare = PRIOR_RELATIVE_SHARE;
  let iterations = 0;
  // What the last iteration saw of the possible band (possibleOddsOf).
  let sameRows = 0;
  let possibleRows = 0;
  const logM = new Float64Array(m.length);
  while (iterations < maxIterations && persons.length > 0) {
    iterations++;
    for (let i = 0; i < m.length; i++) logM[i] = m[i]! > 0 ? Math.log2(m[i]!) : 0;
    const odds = share / (1 - share);
    const relativeOdds = relativeShare / (1 - relativeShare);
    const counts = new LevelCounts();
    let members = 0.5 * MATCH_RATE_PRIOR_ROWS;
    let relativeRows = PRIOR_RELATIVE_SHARE * RELATIVE_SHARE_PRIOR_ROWS;
    let nonMemberRows = RELATIVE_SHARE_PRIOR_ROWS;
    sameRows = 0;
    possibleRows = 0;
    for (const person of persons) {
      const each = person.candidates.map((candidate) => {
        let bits = -candidate.otherBits;
        candidate.levels.forEach((level, f) => {
          if (level !== 0) bits += logM[at(f, level)]!;
        });
        return 2 ** Math.min(1000, bits);
      });
      const sum = each.reduce((total, x) => total + x, person.rest);
      // A relative outside the file (household.ts) takes odds ÷ k of the row, k = the match odds ×
      // 2^personalBits, weighed from the candidate that makes it likeliest (as scoring does): not
      // a member, but not a stranger either.
      let relatives = 0;
      person.candidates.forEach((candidate, j) => {
        if (candidate.personalBits !== null)
          relatives = Math.max(relatives, (relativeOdds * each[j]!) / 2 ** candidate.personalBits);
      });
      const inFile = odds * sum;
      const total = inFile + relatives;
      // Odds past a double's range: the person is surely in the file, as whichever candidate's
      // odds make up the sum (none listed, when the unlisted ones are past it).
      const finite = Number.isFinite(total);
      members += finite ? inFile / (1 + total) : 1;
      if (finite) {
        relativeRows += relatives / (1 + total);
        nonMemberRows += (1 + relatives) / (1 + total);
      }
      person.candidates.forEach((candidate, j) => {
        const p = finite ? (odds * each[j]!) / (1 + total) : Number.isFinite(sum) ? each[j]! / sum : 0;
        counts.add(candidate, p);
        if (isHouseholdDateMatch(candidate.levels)) sameRows += p;
      });
      // A row whose likeliest candidate is in the possible band: one the band holds.
      let top = -1;
      each.forEach((x, j) => {
        if (top < 0 || x > each[top]!) top = j;
      });
      if (top >= 0 && isPossibleHouseholdMember(person.candidates[top]!.levels)) possibleRows++;
    }
    const next = learnsM ? counts.m(prior) : prior;
    const nextShare = Math.min(0.99, Math.max(0.01, members / (persons.length + MATCH_RATE_PRIOR_ROWS)));
    const nextRelativeShare = Math.min(0.9, Math.max(0.001, relativeRows / nonMemberRows));
    const delta =
      maxDelta(m, next) + Math.abs(nextShare - share) + Math.abs(nextRelativeShare - relativeShare);
    m = next;
    share = nextShare;
    relativeShare = nextRelativeShare;
    if (delta < 1e-5) break;
  }
  return {
    m,
    matchOdds: share / (1 - share),
    relativeOdds: relativeShare / (1 - relativeShare),
    possibleOdds: possibleOddsOf(sameRows, possibleRows, m[at(F.first, L.first.differ)]!),
    source: learnsM ? 'em' : 'prior',
    iterations,
  };
}

/** A field's last level: its disagreement ('differ', or 'far' for a distance). */
const disagrees = (field: number, level: number) => level === LEVEL_COUNTS[field];

/** Each level's expected count among the persons' own voters, as the fit's M-step needs them. */
class LevelCounts {
  /** By candidates that identify the person without the field: every level, disagreement too. */
  readonly identified = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  /** By the others: the agreeing levels only. */
  readonly agreeing = new Float64Array(FIELD_COUNT * MAX_LEVELS);

  add(candidate: CandidateEvidence, probability: number): void {
    candidate.levels.forEach((level, f) => {
      if (level === 0 || (candidate.teaches & (1 << f)) === 0) return;
      if (candidate.identifies & (1 << f)) this.identified[at(f, level)]! += probability;
      else if (!disagrees(f, level)) this.agreeing[at(f, level)]! += probability;
    });
  }

  /**
   * m per field: how often it disagrees from the candidates that identify the person without it,
   * how the rest splits among the agreeing levels from all, each with the prior's pseudo-persons.
   */
  m(prior: Float64Array): Float64Array {
    const m = new Float64Array(FIELD_COUNT * MAX_LEVELS);
    for (let f = 0; f < FIELD_COUNT; f++) {
      const last = LEVEL_COUNTS[f]!;
      let identifiedTotal = 0;
      for (let l = 1; l <= last; l++) identifiedTotal += this.identified[at(f, l)]!;
      const differ =
        (this.identified[at(f, last)]! + PRIOR_STRENGTH * prior[at(f, last)]!) /
        (identifiedTotal + PRIOR_STRENGTH);
      const agree = (l: number) =>
        this.identified[at(f, l)]! + this.agreeing[at(f, l)]! + PRIOR_STRENGTH * prior[at(f, l)]!;
      let agreeTotal = 0;
      for (let l = 1; l < last; l++) agreeTotal += agree(l);
      for (let l = 1; l < last; l++) m[at(f, l)] = ((1 - differ) * agree(l)) / agreeTotal;
      m[at(f, last)] = differ;
    }
    return m;
  }
}

function maxDelta(a: Float64Array, b: Float64Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}
