/**
 * The other explanation of a candidate who shares what a family or a household shares: the
 * row's person is not this voter but a relative or housemate of theirs who is not in the file (a
 * twin, a spouse, a father or son, a sibling). Surname, address, phone and e-mail are then no
 * evidence for the voter over that relative, who shares them too; only the personal fields tell
 * the two apart (first, middle and last name, suffix, date of birth or age, gender).
 *
 * Fellegi-Sunter weighs a candidate against a random voter. Here it is also weighed against the
 * relative: `k` = prior odds of the voter over the relative × Π over the personal fields of
 * m(level) / h(level), where h is how often a relative's field agrees at that level with the
 * voter's. The relative's share of the row's probability is the candidate's odds ÷ k, so a
 * candidate's score can come near k ÷ (1 + k) at most, however much the household's fields add up
 * to. No candidate is removed: a twin (another first name, the same date of birth) keeps odds a few
 * times the relative's and lands in the possible band; a spouse (another first name and another
 * birth year) or a father (JR against SR, decades apart) falls far below any threshold; a person
 * who goes by another name, where the list's fit has learnt that first names are often replaced
 * (a higher m of a first name that differs), rises with that evidence.
 */
import { dateAgrees, F, FIELD_COUNT, L, MAX_LEVELS } from './comparison-levels.ts';

/**
 * h: P(level | a relative or housemate of the voter), per personal field and level (level 0 is
 * not compared), written from what households are made of, not fitted to any list: a relative
 * rarely shares a first name (a son named after his father, with the suffix apart), shares the
 * surname three times in four (spouses who keep theirs, housemates), a birth date one time in a
 * hundred (twins) and a birth year one time in eight (spouses and siblings near in age). Fields
 * a household shares (address, ZIP, city, state, phone, e-mail) are absent: they agree for the
 * relative as for the voter, and say nothing between the two.
 */
const RELATIVE_H: readonly (readonly number[] | null)[] = (() => {
  const h: (readonly number[] | null)[] = new Array(FIELD_COUNT).fill(null);
  // first: exact, nickname, typo, initial, similar, middle, differ
  h[F.first] = [0, 0.04, 0.01, 0.005, 0.06, 0.03, 0.01, 0.845];
  // last: exact, typo, part, similar, differ
  h[F.last] = [0, 0.75, 0.005, 0.03, 0.005, 0.21];
  // middle: exact, initial, differ
  h[F.middle] = [0, 0.05, 0.08, 0.87];
  // suffix (compared where both give one): exact, differ
  h[F.suffix] = [0, 0.15, 0.85];
  // dob: exact, swapped, month, typo, differ
  h[F.dob] = [0, 0.01, 0.001, 0.01, 0.004, 0.975];
  // age (a birth year against a date): year, near, differ
  h[F.age] = [0, 0.12, 0.2, 0.68];
  // gender: exact, differ
  h[F.gender] = [0, 0.5, 0.5];
  return h;
})();

/**
 * A relative whose suffix differs from the voter's (JR against SR, II against III) is the
 * voter's father or son, named after him: the first names agree nine times in ten, the middle
 * names most of the time.
 */
const FATHER_OR_SON_H: readonly (readonly number[] | null)[] = (() => {
  const h = [...RELATIVE_H];
  h[F.first] = [0, 0.9, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01];
  h[F.middle] = [0, 0.6, 0.2, 0.2];
  return h;
})();

/**
 * The share of a list's rows not in the voter file that are a relative or housemate of a voter
 * (a spouse, a twin, a grown child who never registered), before the list's fit says otherwise
 * (estimateFromPersons fits it as φ beside m and the match rate). A row is the voter π ÷ (1 − π)
 * times as often as a stranger, and a voter's relative φ ÷ (1 − φ) times as often.
 */
export const PRIOR_RELATIVE_SHARE = 0.25;

/**
 * Whether the candidate shares what a family or household shares (the surname, the address, a
 * phone or an e-mail) with a row that names someone: a row without a first name says nothing of
 * which member it means, and its phone or e-mail is the voter's who has it (a value several voters
 * share is already weighed by how many share it).
 */
export function sharesHousehold(lv: ArrayLike<number>): boolean {
  return lv[F.first] !== 0 && (sharesHome(lv) || sharesContact(lv));
}

/** The surname or the address agrees. */
function sharesHome(lv: ArrayLike<number>): boolean {
  const last = lv[F.last];
  const address = lv[F.address];
  return (
    last === L.last.exact ||
    last === L.last.typo ||
    last === L.last.part ||
    address === L.address.exact ||
    address === L.address.unit ||
    address === L.address.typo
  );
}

/** A phone or an e-mail agrees. */
const sharesContact = (lv: ArrayLike<number>) =>
  lv[F.phone] === L.binary.exact || lv[F.email] === L.binary.exact;

/**
 * A candidate a relative of the voter explains as well as the voter: its first name differs
 * outright and nothing of it agrees but a phone or an e-mail (no surname, address, date or middle
 * name). Such a spouse's row giving the voter's e-mail does not teach the list's fit how often a
 * first name differs for the same person: counted, a list's spouses taught it from themselves,
 * and then passed for the voter (a list of e-mails: 119 spouses matched against 3 voters
 * renamed). Where the surname or the address agrees, the list's evidence is weighed as it comes
 * (the same person renamed is as common there as a relative, and the NC half's renamed voters
 * teach it so).
 */
export function isRelativeAlike(lv: ArrayLike<number>): boolean {
  const middle = lv[F.middle];
  return (
    lv[F.first] === L.first.differ &&
    sharesContact(lv) &&
    !sharesHome(lv) &&
    !dateAgrees(lv) &&
    middle !== L.middle.exact &&
    middle !== L.middle.initial
  );
}

/**
 * log2 of Π m(level) / h(level) over the personal fields: how much likelier the personal fields'
 * agreement is for the voter than for a relative. `m` in the model's layout (field × MAX_LEVELS + level).
 */
export function personalBits(lv: ArrayLike<number>, m: Float64Array): number {
  const tables = bitsTablesOf(m);
  const table = lv[F.suffix] === L.suffix.differ ? tables.fatherOrSon : tables.relative;
  let bits = 0;
  for (const f of PERSONAL_FIELDS) {
    const level = lv[f]!;
    if (level !== 0) bits += table[f * MAX_LEVELS + level]!;
  }
  return bits;
}

/** The fields a relative's h is written for. */
const PERSONAL_FIELDS: readonly number[] = RELATIVE_H.flatMap((h, f) => (h === null ? [] : [f]));

/**
 * log2(m / h) per field and level, for a relative and for a father or son: computed once per
 * model's m (scoring looks it up for every candidate).
 */
function bitsTablesOf(m: Float64Array): { relative: Float64Array; fatherOrSon: Float64Array } {
  let tables = bitsTables.get(m);
  if (tables === undefined) {
    const table = (hs: readonly (readonly number[] | null)[]) => {
      const bits = new Float64Array(FIELD_COUNT * MAX_LEVELS);
      hs.forEach((h, f) => {
        if (h === null) return;
        for (let level = 1; level < h.length; level++)
          bits[f * MAX_LEVELS + level] = Math.log2(m[f * MAX_LEVELS + level]! / h[level]!);
      });
      return bits;
    };
    tables = { relative: table(RELATIVE_H), fatherOrSon: table(FATHER_OR_SON_H) };
    bitsTables.set(m, tables);
  }
  return tables;
}

const bitsTables = new WeakMap<Float64Array, { relative: Float64Array; fatherOrSon: Float64Array }>();

/**
 * k: the odds of the voter over a relative outside the file, given the list's match odds;
 * Infinity for a candidate who shares nothing of a household (no relative explains it better
 * than a stranger, whom the Fellegi-Sunter weight already weighs).
 */
export function householdOdds(
  lv: Uint8Array,
  m: Float64Array,
  priorMatchOdds: number,
  relativeOdds: number,
): number {
  if (!sharesHousehold(lv)) return Number.POSITIVE_INFINITY;
  return (priorMatchOdds / relativeOdds) * 2 ** personalBits(lv, m);
}

/**
 * Whether a candidate may be the voter's twin rather than the voter: it shares the household and
 * the full date of birth (to the day, or one typo or a day-month swap from it) while the first
 * names differ outright. Nothing on a list row tells a twin from the voter under another first
 * name (a name replaced, a name no nickname table knows): its score stays in the possible band
 * (at most POSSIBLE_MAX_SCORE) whatever the odds, so that a profile threshold above it excludes
 * such matches; `sm.explain` says `possible` and the summary counts them.
 */
export function isPossibleHouseholdMember(lv: ArrayLike<number>): boolean {
  return lv[F.first] === L.first.differ && fullDateAgrees(lv) && sharesHousehold(lv);
}

/**
 * A candidate of the same household and full date whose first name is compared and does not
 * differ outright: where the list's same persons show how often, beside them, a first name
 * differs (what the possible band would hold of them, see possibleOddsOf).
 */
export function isHouseholdDateMatch(lv: ArrayLike<number>): boolean {
  const first = lv[F.first];
  return first !== 0 && first !== L.first.differ && fullDateAgrees(lv) && sharesHousehold(lv);
}

const fullDateAgrees = (lv: ArrayLike<number>) => {
  const dob = lv[F.dob];
  return dob === L.dob.exact || dob === L.dob.swapped || dob === L.dob.typo;
};

/** Pseudo-rows at even odds in possibleOddsOf: a list with few such rows keeps about even odds. */
const POSSIBLE_PRIOR_ROWS = 4;

/**
 * The odds that a row in the possible band is the voter, from the list itself: of its same
 * persons at a household and full date (`sameRows`, each counted by its probability), a share
 * m(first differs) ÷ (1 − m) would be expected in the possible band; the band holds
 * `possibleRows`. A list where the band holds what its renamed voters explain (a list whose first
 * names are often replaced) raises the band toward its top; one where it holds far more keeps it
 * at its foot, even odds (a score of 50): nothing on a row tells a twin from the voter renamed,
 * and m(first differs) is learnt outside the band, from fewer rows, so the list's evidence can
 * raise the band but not take it below the default threshold; a profile threshold does that.
 * `firstDiffers` is m(first differs), learnt from candidates outside the band.
 */
export function possibleOddsOf(sameRows: number, possibleRows: number, firstDiffers: number): number {
  const expected = (sameRows * firstDiffers) / (1 - firstDiffers);
  const share = Math.min(
    0.99,
    (expected + POSSIBLE_PRIOR_ROWS / 2) / (Math.max(possibleRows, expected) + POSSIBLE_PRIOR_ROWS),
  );
  return Math.max(1, share / (1 - share));
}

/** The possible band's odds before any list's evidence: even. */
export const PRIOR_POSSIBLE_ODDS = 1;

/** Highest score of a possible household member: the possible band is 50-89 at the default threshold. */
export const POSSIBLE_MAX_SCORE = 89;
/** The foot of the possible band: where a possible member whose own evidence is strong stays. */
export const POSSIBLE_MIN_SCORE = 50;
