/**
 * The Matcher interface: the seam between list matching (domain/list-matching) and the matching
 * strategies. The probabilistic matcher (ids first, then normalize → candidates → score → select)
 * is the service's; the deterministic id matcher is the evaluation's baseline.
 */

import type { NormalizedInput } from './normalize/person.ts';
import type { ListChance } from './score/chance-agreement.ts';

/** Identifier columns of spec §2.6, lower-case. `matchback_id` is pass-through, not an identifier. */
export const IDENTIFIER_COLUMNS = [
  'voterbase_id',
  'smartvan_id',
  'voter_id',
  'exact_track',
  'full_name',
  'first_name_combined',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'address1',
  'address2',
  'city',
  'state',
  'zip',
  'age',
  'gender',
  'dob',
  'phone',
  'email',
  'latitude',
  'longitude',
] as const;
export type IdentifierColumn = (typeof IDENTIFIER_COLUMNS)[number];

/** One input row as the matcher sees it: the identifier values that the header provided. */
export interface MatchInput {
  /** 1-based data row number (sm.input_row). */
  row: number;
  fields: Partial<Record<IdentifierColumn, string>>;
  /**
   * `fields` normalized at the job's reference date, when the caller already did so (a sharded
   * list routes each row on its normalized values): the matcher uses it instead of again.
   */
  normalized?: NormalizedInput;
  /**
   * For a one-person row matched in several shards, when its names are searched swapped (the
   * whole file searches them only when no shard's names as written give a match): `later`, not
   * here (the outcome says whether they may be: `maySwap`); `only`, the swapped reading alone,
   * weighed for the merge (MatchOutcome.oddsScale); `both`, the names as written, and the swapped
   * reading beside them when they may be swapped (MatchOutcome.swapped: a queue's chunk, whose
   * assembly decides). Absent: as one voter file, here.
   */
  swap?: 'later' | 'only' | 'both';
}

export interface MatchCandidate {
  /** Record index in the voter snapshot. */
  voter: number;
  /** 0-100. */
  score: number;
  /** The strategy that found it (sm.method). */
  method: string;
  /** Agreement per compared field (sm.explain), e.g. `first=nickname last=exact zip=exact`. */
  explain?: string;
  /**
   * The voter's values the result needs (voterbase_id, the appended fields, then the state),
   * when the candidate was matched elsewhere (a shard's chunk) and `voter` indexes no snapshot here.
   */
  values?: string[];
  /** The shard of a sharded voter file `voter` indexes (absent: 0, or an unsharded file). */
  shard?: number;
  /**
   * The voter's position in the whole voter file (MatchIndex.voterOrder), the same in a shard:
   * what breaks a tie between candidates of several shards as the whole file breaks it.
   */
  order?: number;
  /** Its posterior odds, when the outcome has `oddsSum` (see there). */
  odds?: number;
  /**
   * The highest score its evidence allows whatever the odds, when below 99: a possible member of
   * the row's household (score/household.ts). A merge of shards' candidates keeps to it.
   */
  maxScore?: number;
  /** The lowest score it keeps, when above 0 (the foot of the possible band). A merge keeps to it. */
  minScore?: number;
  /** Of a passed-over candidate (MatchOutcome.passed): its evidence does not corroborate its name. */
  uncorroborated?: true;
}

/** Per row: candidates best first (at most maxMatches), or a reason when there are none. */
export interface MatchOutcome {
  candidates: MatchCandidate[];
  /** Why the row has no match (counted in the summary), when candidates is empty. */
  unmatchedReason?: string;
  /** Values of the row that were present but unusable (`invalid_phone`, …), counted in the summary. */
  problems?: string[];
  /**
   * How many leading candidates are each a different person's own best match: 2 for a
   * `first_name_combined` row whose two people were both found (ranks 1 and 2), absent (1)
   * otherwise. The delivery's `_best` file keeps those; later ranks are additional matches.
   */
  bestCount?: number;
  /**
   * For a one-person row the probabilistic strategies searched (its names as written): the sum of
   * the odds of every candidate found in this voter file, corroborated or not, by which each
   * candidate's score was normalized (score = 100 × odds ÷ (1 + oddsSum)); its candidates carry
   * their `odds`. A sharded list's merge weighs candidates of several shards together with it.
   */
  oddsSum?: number;
  /**
   * With `oddsSum`: the candidates' odds summed exactly (exact-sum.ts), and the odds of a relative
   * outside the file that oddsSum adds to them (roundExact(oddsParts) + relative). Several
   * shards' outcomes are weighed together by their parts and the largest relative, as the whole
   * file's one search would weigh them.
   */
  oddsParts?: number[];
  relative?: number;
  /**
   * Of a row's swapped reading (MatchInput.swap `only`): the swap's probability its candidates'
   * odds were scaled by; its oddsParts and relative are unscaled, its oddsSum scaled.
   */
  oddsScale?: number;
  /**
   * With `oddsSum`, for a row matched in several shards (MatchInput.swap set): the candidates
   * among the person's best max(maxMatches, 2) by odds that this shard's selection passed over
   * (under its threshold, past maxMatches, or not corroborated: `uncorroborated`), best first.
   * A candidate another shard's selection would have passed over, beside a better one here, can
   * still decide the whole file's selection or its ambiguity: the merge selects over every
   * shard's selected and passed candidates as one voter file selects (select-matches.ts).
   */
  passed?: MatchCandidate[];
  /** With MatchInput.swap `later` or `both`: the names may be swapped (the whole file's names say so). */
  maySwap?: boolean;
  /** With MatchInput.swap `both`, when they may: the swapped reading (as for swap `only`). */
  swapped?: MatchOutcome;
}

export interface MatchOptions {
  maxMatches: number;
  searchRadiusMiles: number | null;
  /** The job's reference date, for age → birth year. */
  asOf: Date;
}

/**
 * What a matcher that learns from a list (EM) learned: the list's agreement rates m (one per
 * field level, see fellegi-sunter.ts) and its match rate (as prior odds), apart from any voter
 * file's u. A list matched shard by shard learns it once, on one shard, and every shard matches
 * with it.
 */
export interface ListFit {
  /**
   * The layout of comparison levels `m` is laid out in (LEVELS_LAYOUT); absent in fits made
   * before layouts were named. A fit of another layout is not used.
   */
  layout?: string;
  m: number[];
  /** FellegiSunterModel.priorMatchOdds. */
  priorMatchOdds: number;
  source: 'em' | 'prior';
  emIterations: number;
  /** FellegiSunterModel.relativeOdds; absent in fits made before it was fitted (the prior then). */
  relativeOdds?: number;
  /** FellegiSunterModel.possibleOdds; absent in fits made before it was fitted (the prior then). */
  possibleOdds?: number;
  /**
   * The share of the list's persons whose phone (e-mail) a stranger holds in the voter file
   * (chance-agreement.ts): u of their agreement × N. Absent or null: the file's own u (fits made
   * before it was learnt).
   */
  chance?: ListChance | null;
}

export interface Matcher {
  readonly name: string;
  /** What it learned about the list, once prepared (absent: a matcher that learns nothing). */
  listFit?(): ListFit | null;
  /**
   * Learns what it fits on each list (EM's m) from the list's sample, before the first batch.
   * Absent, or not called: a matcher that learns does so on its first batch.
   */
  prepare?(sample: readonly MatchInput[], options: MatchOptions): Promise<void>;
  /** Matches a batch; returns one outcome per input, in order. */
  matchBatch(rows: readonly MatchInput[], options: MatchOptions): MatchOutcome[] | Promise<MatchOutcome[]>;
}
