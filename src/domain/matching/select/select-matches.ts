import { KEY } from '../index/blocking-keys.ts';
import { dateAgrees, explainLevels, F, L } from '../score/comparison-levels.ts';
import { isPossibleHouseholdMember, POSSIBLE_MAX_SCORE, POSSIBLE_MIN_SCORE } from '../score/household.ts';
import type { ScoredCandidate } from '../score/score-candidates.ts';

/** A selected match: score 0-100 (calibrated posterior), the strategy and the agreement. */
export interface SelectedMatch {
  voter: number;
  score: number;
  method: string;
  explain: string;
  /** The candidate's posterior odds: score = 100 × odds ÷ (1 + the person's odds sum), at most maxScore. */
  odds: number;
  /**
   * The highest score the candidate may have: 99, or POSSIBLE_MAX_SCORE for a possible member of
   * the row's household (household.ts), whatever the odds (a sharded list's merge applies it again).
   */
  maxScore: number;
  /**
   * The lowest score it keeps whatever the relatives' share, when above 0: a possible household
   * member whose own evidence is strong stays at the foot of the possible band (50), so that the
   * default threshold takes it and a profile threshold decides (a sharded list's merge applies it).
   */
  minScore: number;
}

/** 100 is an id match's; evidence short of an id never claims certainty. */
export const MAX_PROBABILISTIC_SCORE = 99;

/** Best two within this odds ratio: the best match is flagged ambiguous. */
const AMBIGUOUS_ODDS_RATIO = 2;

/**
 * How many of a person's candidates a search keeps for its selection: max_matches, and at least
 * two, the second telling whether the best is ambiguous. A merge of shards keeps as many of all
 * of theirs (stages/merge.ts).
 */
export const candidatesKept = (maxMatches: number): number => Math.max(maxMatches, 2);

/**
 * Turns one person's scored candidates into the matches the client gets: posterior scores
 * (odds / (1 + Σ odds), the sum with each candidate's relative's share, see household.ts), the
 * acceptance threshold, top k, and an ambiguity flag when the best two are near-equal. A possible
 * member of the row's household keeps its score in the possible band and says so in sm.explain
 * (`possible`). `rankOnly` returns the top k by score with neither threshold nor corroboration:
 * the candidate stage's ranking, for measuring its recall@k.
 */
export function selectMatches(
  scored: { best: ScoredCandidate[]; oddsSum: number; relative?: number },
  thresholdScore: number,
  maxMatches: number,
  rankOnly = false,
  /**
   * When given, receives the candidates of `best` the selection passed over (under the
   * threshold, past maxMatches, or not corroborated: PassedMatch), best first: what a merge of
   * several shards' selections needs to select over all of them as one voter file would.
   */
  passed?: PassedMatch[],
): { matches: SelectedMatch[]; ambiguous: boolean; oddsSum: number } {
  const { best, oddsSum } = scored;
  const relative = scored.relative ?? 0;
  const matches: SelectedMatch[] = [];
  // Ranked by score: a possible household member's is held in the possible band, 50-89 when its
  // own evidence (the posterior without the relative's share) would make it a match.
  const ranked: Ranked[] = [];
  for (const candidate of best) {
    const possible = isPossibleHouseholdMember(candidate.levels);
    const maxScore = possible ? POSSIBLE_MAX_SCORE : MAX_PROBABILISTIC_SCORE;
    const own = (100 * candidate.odds) / (1 + oddsSum - relative);
    const minScore = possible && own >= POSSIBLE_MIN_SCORE ? POSSIBLE_MIN_SCORE : 0;
    const score = Math.max(minScore, Math.min(maxScore, (100 * candidate.odds) / (1 + oddsSum)));
    // Inserted in order (a search keeps a few: Array.prototype.sort allocated more than it sorted).
    const entry = { candidate, maxScore, minScore, score };
    let i = ranked.length;
    while (i > 0 && rankedBefore(entry, ranked[i - 1]!)) i--;
    ranked.splice(i, 0, entry);
  }
  const top = ranked[0];
  const second = ranked[1];
  const ambiguous =
    top !== undefined &&
    second !== undefined &&
    second.candidate.odds * AMBIGUOUS_ODDS_RATIO >= top.candidate.odds;
  // Ranked by score, so once one is under the threshold (or the matches are full) so are the rest.
  for (const { candidate, maxScore, minScore, score } of ranked) {
    const selectable = matches.length < maxMatches && (rankOnly || score >= thresholdScore);
    if (!selectable && passed === undefined) break;
    const corroborated = rankOnly || isCorroborated(candidate.levels);
    if (!(selectable && corroborated)) {
      passed?.push({ ...selectedMatch(candidate, score, maxScore, minScore), corroborated });
      continue;
    }
    const match = selectedMatch(candidate, score, maxScore, minScore);
    if (ambiguous && matches.length === 0) match.explain += ' ambiguous';
    matches.push(match);
  }
  return { matches, ambiguous, oddsSum };
}

interface Ranked {
  candidate: ScoredCandidate;
  maxScore: number;
  minScore: number;
  score: number;
}

/** Whether `a` ranks before `b`: by score, then odds, then the whole file's order (a shard ranks a tie as the whole file does). */
const rankedBefore = (a: Ranked, b: Ranked): boolean => {
  if (a.score !== b.score) return a.score > b.score;
  if (a.candidate.odds !== b.candidate.odds) return a.candidate.odds > b.candidate.odds;
  return (a.candidate.order ?? a.candidate.voter) < (b.candidate.order ?? b.candidate.voter);
};

/**
 * A candidate the selection passed over (selectMatches' `passed`): whether its evidence
 * corroborates its name (isCorroborated; a rank-only selection counts every one as corroborated).
 */
export interface PassedMatch extends SelectedMatch {
  corroborated: boolean;
}

function selectedMatch(
  candidate: ScoredCandidate,
  score: number,
  maxScore: number,
  minScore: number,
): SelectedMatch {
  let explain = explainLevels(candidate.levels);
  if (maxScore === POSSIBLE_MAX_SCORE) explain += ' possible';
  return {
    voter: candidate.voter,
    score,
    method: methodOf(candidate),
    explain,
    odds: candidate.odds,
    maxScore,
    minScore,
  };
}

/**
 * A name is not an identifier: a match also needs evidence that locates or identifies the
 * person. Any of dob or age, phone, e-mail, or the street address suffices (another unit of the
 * same building only under the same surname: with both the unit and the surname different it is
 * a neighbour's; none of 5 such matches on the synthetic held-out lists was right). Without an address,
 * the ZIP (or, under the same name, the ZIP with two neighbouring digits swapped) or (with
 * coordinates) a distance under half a mile does (the radius finds candidates,
 * but a namesake a few miles off is not evidence); a city alone does not. When the row's address
 * disagrees, the ZIP counts under the same name (a move within the ZIP, weighed by how rare the
 * name is there), a distance does not.
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
  // Another street of the same ZIP under the same name: a move within the ZIP, the commonest
  // difference between a list and a stale voter file, or a namesake there. The name's frequency
  // and the ZIP's size weigh which (a rare name is the mover, a common one a namesake's): the
  // score decides.
  if (address === L.address.differ) return lv[F.zip] === L.zip.exact && sameName(lv);
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
