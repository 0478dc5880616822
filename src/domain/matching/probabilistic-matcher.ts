import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { CandidateSet } from './candidates/candidate-set.ts';
import {
  type CandidateOptions,
  DEFAULT_CANDIDATE_OPTIONS,
  generateCandidates,
} from './candidates/generate-candidates.ts';
import { matchIds } from './deterministic-matcher.ts';
import type { MatchIndex } from './index/match-index.ts';
import { GENDER_CODE } from './index/match-index-fields.ts';
import type { ListFit, MatchCandidate, Matcher, MatchInput, MatchOptions, MatchOutcome } from './matcher.ts';
import { type NormalizedPerson, normalizeInput } from './normalize/person.ts';
import {
  addChance,
  estimateChance,
  type ListChance,
  type PersonChance,
  personChance,
  type StrangerTally,
  withListChance,
} from './score/chance-agreement.ts';
import { comparePerson, prepareQuery, swappedNameId } from './score/compare-person.ts';
import { explainLevels, F, FIELD_COUNT, L, LEVELS_LAYOUT, MAX_LEVELS } from './score/comparison-levels.ts';
import { addExact, addExactParts, roundExact } from './score/exact-sum.ts';
import {
  at,
  buildModel,
  type CandidateEvidence,
  estimateFromPersons,
  type FellegiSunterModel,
  type PersonEvidence,
  priorM,
} from './score/fellegi-sunter.ts';
import {
  isPossibleHouseholdMember,
  isRelativeAlike,
  personalBits,
  sharesHousehold,
} from './score/household.ts';
import { estimateRandomPairU } from './score/random-pair-u.ts';
import { type ScoredCandidate, scoreCandidates } from './score/score-candidates.ts';
import {
  candidatesKept,
  isCorroborated,
  MAX_PROBABILISTIC_SCORE,
  type PassedMatch,
  type SelectedMatch,
  selectMatches,
} from './select/select-matches.ts';

export interface ProbabilisticMatcherOptions {
  /** Lowest score (0-100) accepted as a match. */
  thresholdScore: number;
  /** Return the best candidates whatever their score or evidence (measures the candidate stage). */
  rankOnly?: boolean;
  /**
   * Most rows of the list's sample (given to `prepare`, else its first batch) that m and the
   * match rate are fitted on, of those no id matched (the pipeline's sample holds up to 5,000,
   * fewer for a wide or short list). Each costs a row's matching.
   */
  emSampleRows: number;
  candidates: Omit<CandidateOptions, 'searchRadiusMiles'>;
  /** A model already fitted on this list (a worker thread matching its blocks): no fitting here. */
  model?: FellegiSunterModel;
  /**
   * The list's m and match rate, fitted on another voter file's candidates (a list matched
   * shard by shard fits once, on one shard): used with this file's own u, no fitting here.
   */
  listFit?: ListFit;
}

/** A match is accepted when it is at least this likely to be right. */
export const DEFAULT_THRESHOLD_SCORE = 50;

export const DEFAULT_MATCHER_OPTIONS: ProbabilisticMatcherOptions = {
  thresholdScore: DEFAULT_THRESHOLD_SCORE,
  emSampleRows: 2000,
  candidates: { maxPostings: DEFAULT_CANDIDATE_OPTIONS.maxPostings },
};

/**
 * Seeds the u of an index with the one its import estimated and stored (the same numbers). A u
 * of another layout of the comparison levels (stored by an older version) is not used: it is
 * estimated again on first use.
 */
export function rememberRandomPairU(index: MatchIndex, u: Float64Array): boolean {
  if (u.length !== FIELD_COUNT * MAX_LEVELS) return false;
  index.randomPairU = u;
  return true;
}

/** u depends on the voter file only: estimated once per index (and kept on it). */
export function randomPairU(index: MatchIndex): Float64Array {
  index.randomPairU ??= estimateRandomPairU(index);
  return index.randomPairU;
}

/**
 * Runs the probabilistic strategies for rows that no id matched; in-thread by default, or on a
 * pool of worker threads (see adapters/matching). Outcomes come back in the rows' order.
 */
export interface PersonMatchRunner {
  run(rows: readonly MatchInput[], job: PersonMatchJob): MatchOutcome[] | Promise<MatchOutcome[]>;
  /** What each sample row's persons tell the fit in this voter file (shardSampleEvidence), in the rows' order. */
  sampleEvidence(rows: readonly MatchInput[], job: PersonMatchJob): RowEvidence[] | Promise<RowEvidence[]>;
}

/** Everything a runner needs besides the index: plain data, so it can cross to a worker thread. */
export interface PersonMatchJob {
  model: FellegiSunterModel;
  options: MatchOptions;
  candidates: CandidateOptions;
  thresholdScore: number;
  rankOnly?: boolean;
}

export function inThreadRunner(index: MatchIndex): PersonMatchRunner {
  return {
    run: (rows, job) => rows.map((row) => matchPersons(index, row, job)),
    sampleEvidence: (rows, job) => shardSampleEvidence(index, rows, job),
  };
}

/** The matcher of one job, with what it fitted on the list. */
export type ProbabilisticMatcher = Matcher & {
  model(): FellegiSunterModel | null;
  prepare(sample: readonly MatchInput[], options: MatchOptions): Promise<void>;
  idMatched(rows: readonly MatchInput[]): Set<number>;
  sampleEvidence(rows: readonly MatchInput[], options: MatchOptions): Promise<RowEvidence[]>;
  /** What matching rows elsewhere (on a worker thread) takes, once the model is fitted. */
  jobFor(options: MatchOptions): PersonMatchJob;
};

/**
 * The matcher of one job: ids first (exact), then normalization → candidates → Fellegi-Sunter
 * scoring → selection. m and the list's match rate are fitted by EM over the persons of the
 * list's sample (given to `prepare`, else the first batch's rows; estimateFromPersons), so the
 * model fits each list's own error rates; the rest of the job reuses it.
 */
export function createProbabilisticMatcher(
  voters: VoterSnapshot,
  index: MatchIndex,
  options: Partial<ProbabilisticMatcherOptions> = {},
  runner: PersonMatchRunner = inThreadRunner(index),
): ProbabilisticMatcher {
  const settings = { ...DEFAULT_MATCHER_OPTIONS, ...options };
  // A fit of another layout of the comparison levels (a chunk enqueued by an older version) is
  // not used: this matcher fits on its own first rows instead. The same count of levels is no
  // proof of the same layout (a level added to one field, none to the longest).
  const fitted = settings.listFit?.layout === LEVELS_LAYOUT ? settings.listFit : undefined;
  let model: FellegiSunterModel | null =
    settings.model ?? (fitted === undefined ? null : modelOf(fitted, index));
  // What the list's fit learnt of chance agreement (its u is in the model): told again by listFit.
  let chance: ListChance | null = fitted?.chance ?? null;
  // The pipeline asks for the next batch before the first one is done: every batch must wait
  // for the one model fitted on the first batch's rows, or a second fit would race it.
  let fitting: Promise<FellegiSunterModel> | null = model === null ? null : Promise.resolve(model);
  const candidatesFor = (matchOptions: MatchOptions): CandidateOptions => ({
    ...settings.candidates,
    searchRadiusMiles: matchOptions.searchRadiusMiles,
  });
  const fit = async (
    sample: readonly MatchInput[],
    matchOptions: MatchOptions,
  ): Promise<FellegiSunterModel> => {
    const scored = rowsToFit(sample, idMatched(sample), settings.emSampleRows);
    const fitted = fitFromEvidence(mergeSampleEvidence([await sampleEvidence(scored, matchOptions)]));
    model = modelOf(fitted, index);
    chance = fitted.chance ?? null;
    return model;
  };
  /** The rows of `rows` an id of this voter file matches (their row numbers). */
  const idMatched = (rows: readonly MatchInput[]) => {
    const matched = new Set<number>();
    for (const row of rows) if (matchIds(voters, row).candidates.length > 0) matched.add(row.row);
    return matched;
  };
  const sampleEvidence = async (rows: readonly MatchInput[], matchOptions: MatchOptions) =>
    await runner.sampleEvidence(rows, {
      model: buildModel(priorM(), randomPairU(index), 1, 'prior'),
      options: matchOptions,
      candidates: candidatesFor(matchOptions),
      thresholdScore: settings.thresholdScore,
    });
  const fitOn = (sample: readonly MatchInput[], matchOptions: MatchOptions) => {
    fitting ??= fit(sample, matchOptions);
    return fitting;
  };
  const jobFor = (matchOptions: MatchOptions): PersonMatchJob => {
    if (model === null) throw new Error('the model is fitted on the list before its rows are matched');
    return {
      model,
      options: matchOptions,
      candidates: candidatesFor(matchOptions),
      thresholdScore: settings.thresholdScore,
      rankOnly: settings.rankOnly ?? false,
    };
  };
  return {
    name: 'probabilistic',
    model: () => model,
    listFit: () =>
      model === null
        ? null
        : {
            layout: LEVELS_LAYOUT,
            m: [...model.m],
            priorMatchOdds: model.priorMatchOdds,
            source: model.source,
            emIterations: model.emIterations,
            relativeOdds: model.relativeOdds,
            possibleOdds: model.possibleOdds,
            chance,
          },
    jobFor,
    idMatched,
    sampleEvidence,
    async prepare(sample: readonly MatchInput[], matchOptions: MatchOptions): Promise<void> {
      await fitOn(sample, matchOptions);
    },
    async matchBatch(rows: readonly MatchInput[], matchOptions: MatchOptions): Promise<MatchOutcome[]> {
      await fitOn(rows, matchOptions);
      const job = jobFor(matchOptions);
      const outcomes = new Array<MatchOutcome>(rows.length);
      const rest: MatchInput[] = [];
      const restAt: number[] = [];
      const idOutcomes = new Array<MatchOutcome>(rows.length);
      rows.forEach((row, i) => {
        const ids = matchIds(voters, row);
        idOutcomes[i] = ids;
        if (ids.candidates.length > 0) {
          const input = row.normalized ?? normalizeInput(row.fields, matchOptions.asOf);
          outcomes[i] = checkIdMatches(index, ids, input.persons[0]!, input.problems);
        } else {
          rest.push(row);
          restAt.push(i);
        }
      });
      const found = rest.length === 0 ? [] : await runner.run(rest, job);
      found.forEach((outcome, k) => {
        const i = restAt[k]!;
        outcomes[i] = withIdReason(outcome, idOutcomes[i]!);
      });
      return outcomes;
    },
  };
}

/** Whether a person carries a value that can corroborate a name match (isCorroborated's list). */
const canCorroborate = (p: NormalizedPerson) =>
  p.dob !== null ||
  p.dobTypos.length > 0 ||
  p.birthYears !== null ||
  p.phones.length > 0 ||
  p.email !== '' ||
  (p.house !== '' && p.street !== '') ||
  p.zip !== '' ||
  !Number.isNaN(p.lat);

/** Rows without any value the probabilistic strategies can use are not searched. */
const hasSearchableValue = (p: NormalizedPerson) =>
  p.first !== '' || p.last !== '' || p.phones.length > 0 || p.email !== '';

/** A row whose ids matched nobody keeps that reason unless its names found candidates. */
function withIdReason(outcome: MatchOutcome, ids: MatchOutcome): MatchOutcome {
  if (outcome.candidates.length > 0 || ids.unmatchedReason === 'no_id_values') return outcome;
  const reason = outcome.unmatchedReason;
  if (reason === 'no_candidates' || reason === 'no_usable_values' || reason === 'name_only') {
    return { ...outcome, unmatchedReason: ids.unmatchedReason };
  }
  return outcome;
}

/**
 * The candidate set every person is searched into, reused (each thread has its own module
 * instance, and a person's candidates are scored before the next person is searched).
 */
const scratchCandidates = new CandidateSet();

/**
 * The prior odds that a row's names were entered the wrong way round: about one row in a hundred
 * swaps them, against the 85% that agree as written (PRIOR_M's first and last exact).
 */
const SWAP_PRIOR_ODDS = 0.01 / 0.85;

/**
 * The probability that a person's names are swapped, given the names themselves: the prior odds
 * times how much more often the voter file holds the written first name as a last name and the
 * written last name as a first name than as written (counts smoothed by a half, so a name the file
 * lacks either way says nothing). HERRERA RONALD is almost surely swapped (HERRERA is a surname,
 * RONALD a first name); THOMAS JAMES may be either; a mistyped pair the file does not hold keeps
 * the prior. The swapped reading's candidates have their odds scaled by it.
 */
export function swapProbability(index: MatchIndex, person: NormalizedPerson): number {
  const d = index.data.dictionaries;
  const asFirst = (name: string) => d.first.count(d.first.idOf(name)) + 0.5;
  const asLast = (name: string) => d.last.count(d.last.idOf(name)) + 0.5;
  const ratio = (asLast(person.first) / asFirst(person.first)) * (asFirst(person.last) / asLast(person.last));
  const odds = SWAP_PRIOR_ODDS * ratio;
  return odds / (1 + odds);
}

/**
 * One person's candidates, scored (their odds scaled by `oddsScale`) and selected; `withPassed`:
 * with the best ones the selection passed over (PersonSearch.passed), for a row matched in
 * several shards.
 */
function searchPerson(
  index: MatchIndex,
  person: NormalizedPerson,
  job: PersonMatchJob,
  oddsScale: number,
  withPassed = false,
): PersonSearch {
  const scored = scoredCandidatesOf(index, person, job, candidatesKept(job.options.maxMatches));
  if (scored.best.length === 0)
    return { candidates: false, matches: [], oddsSum: 0, oddsParts: [], relative: 0 };
  // Unscaled, as the merge of a sharded file's readings weighs them (MatchOutcome.oddsScale).
  const relative = scored.relative;
  if (oddsScale !== 1) {
    for (const candidate of scored.best) candidate.odds *= oddsScale;
    scored.oddsSum *= oddsScale;
    scored.relative *= oddsScale;
  }
  const passed: PassedMatch[] | undefined = withPassed ? [] : undefined;
  const selected = selectMatches(scored, job.thresholdScore, job.options.maxMatches, job.rankOnly, passed);
  return {
    candidates: true,
    matches: selected.matches,
    oddsSum: selected.oddsSum,
    oddsParts: scored.oddsParts,
    relative,
    ...(passed === undefined ? {} : { passed }),
  };
}

/** One person searched: whether anything was found, what was selected, and the odds they were weighed by. */
interface PersonSearch {
  candidates: boolean;
  matches: ReturnType<typeof selectMatches>['matches'];
  oddsSum: number;
  /** The candidates' odds, summed exactly (the relative left out: it is `relative`); both unscaled. */
  oddsParts: number[];
  relative: number;
  /** searchPerson's `withPassed`: the best candidates the selection passed over. */
  passed?: PassedMatch[];
}

/** A search's passed-over candidates as an outcome's (MatchOutcome.passed). */
const passedOf = (index: MatchIndex, search: PersonSearch): Pick<MatchOutcome, 'passed'> =>
  search.passed === undefined
    ? {}
    : {
        passed: search.passed.map((match) => {
          const candidate = candidateOf(index, match);
          return match.corroborated ? candidate : { ...candidate, uncorroborated: true };
        }),
      };

/** One person's candidates, scored with the job's model, the best `keep` of them kept. */
function scoredCandidatesOf(
  index: MatchIndex,
  person: NormalizedPerson,
  job: PersonMatchJob,
  keep: number,
  oddsParts?: number[],
  strangers?: StrangerTally,
): ReturnType<typeof scoreCandidates> {
  const q = prepareQuery(index, person, job.options.asOf);
  const candidates = scratchCandidates;
  candidates.clear();
  generateCandidates(index, q, job.candidates, candidates);
  if (candidates.size === 0) return { best: [], oddsSum: 0, relative: 0, oddsParts: [] };
  return scoreCandidates(index, job.model, q, candidates, keep, oddsParts, strangers);
}

const isMaleVoter = (index: MatchIndex, voter: number) => index.data.fields.gender(voter) === GENDER_CODE.M;

/**
 * Whether a person's names may have been entered the wrong way round (SMITH JOHN): the voter
 * file holds the first name as someone's last name, or the last name as someone's first (one of
 * the two may be rare, or mistyped). The swapped reading's odds carry the rarity of a swap, and
 * it is only searched when the names as written found no match.
 */
function mayBeSwapped(index: MatchIndex, person: NormalizedPerson): boolean {
  if (person.first === '' || person.last === '' || person.first.length < 2) return false;
  const d = index.data.dictionaries;
  return (
    d.last.count(swappedNameId(d.last, person, 'firstAsLast')) > 0 ||
    d.first.count(swappedNameId(d.first, person, 'lastAsFirst')) > 0
  );
}

/** The probabilistic strategies for one row (no id matched it). */
export function matchPersons(index: MatchIndex, row: MatchInput, job: PersonMatchJob): MatchOutcome {
  const { options } = job;
  const input = row.normalized ?? normalizeInput(row.fields, options.asOf);
  const searchable = input.persons.filter(hasSearchableValue);
  if (searchable.length === 0) {
    const reason =
      input.problems.length > 0 ? input.problems[0]! : hasAnyValue(row) ? 'no_usable_values' : 'empty_row';
    return { candidates: [], unmatchedReason: reason, problems: input.problems };
  }
  if (searchable.length === 1 && !job.rankOnly && row.swap === 'only') {
    return swappedReading(index, searchable[0]!, job, input.problems);
  }
  const found: MatchCandidate[] = [];
  /** Each person's best match (a voter may be one person's best and the other's second). */
  let maySwap = false;
  const ownBest = new Set<number>();
  let anyCandidates = false;
  let anySearched = false;
  /** The one person's search, while its names as written are what was matched (MatchOutcome.oddsSum). */
  let weighedBy: PersonSearch | undefined;
  for (const person of searchable) {
    // No value of the row could corroborate a name (see isCorroborated): searching would only
    // find namesakes to refuse, which for a common name in a big state costs thousands of
    // comparisons. The candidate-stage measurement (rankOnly) still searches.
    if (!job.rankOnly && !canCorroborate(person)) continue;
    anySearched = true;
    // A row of several shards: what this one passed over may be the whole file's choice.
    let result = searchPerson(index, person, job, 1, row.swap !== undefined && searchable.length === 1);
    if (searchable.length === 1 && !job.rankOnly) weighedBy = result;
    // First and last name entered the wrong way round (SMITH JOHN): searched again swapped when
    // nothing was accepted and the voter file holds either name as the other kind (mayBeSwapped).
    // The candidate-stage measurement ranks both readings (a voter under the better of its two).
    // A row of several shards: whether to search the names swapped is decided over all of them.
    const deferred =
      (row.swap === 'later' || row.swap === 'both') && searchable.length === 1 && !job.rankOnly;
    if (deferred) maySwap = mayBeSwapped(index, person);
    else if ((job.rankOnly || result.matches.length === 0) && mayBeSwapped(index, person)) {
      const swapped = searchPerson(
        index,
        { ...person, first: person.last, last: person.first },
        job,
        swapProbability(index, person),
      );
      const matches = swapped.matches.map((m) => ({ ...m, explain: `${m.explain} names=swapped` }));
      if (job.rankOnly) {
        result = {
          candidates: result.candidates || swapped.candidates,
          matches: bestReadings(index, result.matches, matches),
          oddsSum: result.oddsSum + swapped.oddsSum,
          oddsParts: [],
          relative: 0,
        };
      } else if (matches.length > 0) {
        result = { ...swapped, candidates: true, matches };
        // Matched swapped: its odds carry the swap's prior, not comparable across voter files.
        weighedBy = undefined;
      }
    }
    if (!result.candidates) continue;
    anyCandidates = true;
    const { matches } = result;
    if (matches.length > 0) ownBest.add(matches[0]!.voter);
    for (const match of matches) {
      if (found.some((c) => c.voter === match.voter)) continue;
      found.push(candidateOf(index, match));
    }
  }
  const weighed: Pick<MatchOutcome, 'oddsSum' | 'oddsParts' | 'relative' | 'passed' | 'maySwap' | 'swapped'> =
    weighedBy === undefined || weighedBy.oddsSum === 0
      ? {}
      : {
          oddsSum: weighedBy.oddsSum,
          oddsParts: weighedBy.oddsParts,
          relative: weighedBy.relative,
          ...passedOf(index, weighedBy),
        };
  if (maySwap) {
    weighed.maySwap = true;
    if (row.swap === 'both') weighed.swapped = swappedReading(index, searchable[0]!, job, input.problems);
  }
  if (found.length === 0) {
    const reason = anyCandidates ? 'below_threshold' : anySearched ? 'no_candidates' : 'name_only';
    return {
      candidates: [],
      unmatchedReason: reason,
      problems: input.problems,
      ...weighed,
    };
  }
  if (ownBest.size < 2) return { candidates: found, problems: input.problems, ...weighed };
  // Two people in one row: each one's best match comes first (ranks 1 and 2), then the other
  // candidates, each part best first.
  const byScore = byScoreIn(index);
  const bests = found.filter((c) => ownBest.has(c.voter)).sort(byScore);
  const others = found.filter((c) => !ownBest.has(c.voter)).sort(byScore);
  return { candidates: [...bests, ...others], problems: input.problems, bestCount: bests.length };
}

/**
 * A one-person row's swapped reading alone (MatchInput.swap `only`): its selected candidates, as
 * matchPersons gives them when the names as written matched nothing, and what the merge weighs
 * the shards' readings by (the unscaled odds sum and relative, and the scale).
 */
function swappedReading(
  index: MatchIndex,
  person: NormalizedPerson,
  job: PersonMatchJob,
  problems: string[],
): MatchOutcome {
  const oddsScale = swapProbability(index, person);
  const swapped = searchPerson(
    index,
    { ...person, first: person.last, last: person.first },
    job,
    oddsScale,
    true,
  );
  const asSwapped = (match: SelectedMatch) => ({ ...match, explain: `${match.explain} names=swapped` });
  const candidates = swapped.matches.map((match) => candidateOf(index, asSwapped(match)));
  const weighed = swapped.candidates
    ? {
        oddsSum: swapped.oddsSum,
        oddsParts: swapped.oddsParts,
        relative: swapped.relative,
        oddsScale,
        ...passedOf(index, {
          ...swapped,
          passed: swapped.passed!.map((match) => ({ ...asSwapped(match), corroborated: match.corroborated })),
        }),
      }
    : {};
  return { candidates, problems, ...weighed };
}

/** A selected match as the row's candidate: its voter's order in the file, its bands when it has them. */
function candidateOf(
  index: MatchIndex,
  match: ReturnType<typeof selectMatches>['matches'][number],
): MatchCandidate {
  return {
    voter: match.voter,
    order: index.voterOrder(match.voter),
    score: match.score,
    method: match.method,
    explain: match.explain,
    odds: match.odds,
    ...(match.maxScore < MAX_PROBABILISTIC_SCORE ? { maxScore: match.maxScore } : {}),
    ...(match.minScore > 0 ? { minScore: match.minScore } : {}),
  };
}

/**
 * Two rankings of one row's candidates merged: each voter once, under its better score, best
 * first (the list's merge stage keeps max_matches of them).
 */
function bestReadings<T extends { voter: number; score: number }>(index: MatchIndex, a: T[], b: T[]): T[] {
  const best = new Map<number, T>();
  for (const match of [...a, ...b]) {
    const seen = best.get(match.voter);
    if (seen === undefined || match.score > seen.score) best.set(match.voter, match);
  }
  return [...best.values()].sort(byScoreIn(index));
}

/**
 * Best score first; equal scores in the whole voter file's order (MatchIndex.voterOrder), which a
 * shard of the file shares with it.
 */
const byScoreIn =
  (index: MatchIndex) => (a: { voter: number; score: number }, b: { voter: number; score: number }) =>
    b.score - a.score || index.voterOrder(a.voter) - index.voterOrder(b.voter);

/**
 * Id matches are exact, but the row's other fields are still compared so `sm.explain` shows
 * them; an id whose record disagrees with the row's first or last name is reported
 * (`name_mismatch`, counted as `id_name_mismatch`) and scored lower instead of trusted blindly.
 */
function checkIdMatches(
  index: MatchIndex,
  ids: MatchOutcome,
  person: NormalizedPerson,
  problems: string[],
): MatchOutcome {
  const q = prepareQuery(index, person);
  const levels = new Uint8Array(FIELD_COUNT);
  let mismatch = false;
  const candidates = ids.candidates.map((candidate) => {
    comparePerson(index, q, candidate.voter, levels);
    const differs = (levels[F.first] === L.first.differ ? 1 : 0) + (levels[F.last] === L.last.differ ? 1 : 0);
    const agreement = explainLevels(levels);
    const explain = `${candidate.method}=exact${agreement === '' ? '' : ` ${agreement}`}`;
    if (differs === 0) return { ...candidate, explain };
    mismatch = true;
    return {
      ...candidate,
      score: differs === 2 ? ID_NAME_MISMATCH_SCORES.both : ID_NAME_MISMATCH_SCORES.one,
      explain: `${explain} name_mismatch`,
    };
  });
  return { candidates, problems: mismatch ? [...problems, 'id_name_mismatch'] : problems };
}

/** Scores of an id match whose record disagrees with one or both names of the row. */
const ID_NAME_MISMATCH_SCORES = { one: 60, both: 20 };

const hasAnyValue = (row: MatchInput) =>
  Object.values(row.fields).some((v) => v !== undefined && v.trim() !== '');

/**
 * What one voter file (a shard of a sharded one) tells the fit about one sample person: its best
 * candidates found there and the odds of all of them. mergeSampleEvidence weighs the shards a
 * row was matched in together, as one voter file would.
 */
export interface ShardPersonEvidence {
  /**
   * Odds at even prior odds of every candidate found here, the relative outside the file left
   * out: their exact sum (exact-sum.ts), so that the shards' parts add up to the whole file's.
   */
  totalParts: number[];
  /**
   * Its best EVIDENCE_CANDIDATES_PER_PERSON candidates here, best first (weight, then the whole
   * file's order): their odds, and what the fit weighs of them (null: selection never accepts it).
   */
  best: { weight: number; order: number; odds: number; evidence: CandidateEvidence | null }[];
  /** The strangers here holding its phone and e-mail (absent in evidence of earlier versions). */
  chance?: PersonChance;
}

/** A sample row's searched persons (personsToSearch) as one voter file tells them. */
export interface RowEvidence {
  row: number;
  persons: ShardPersonEvidence[];
}

/**
 * What each sample person tells the fit (estimateFromPersons), in one voter file: its best
 * candidates under the job's model at even prior odds, each with its comparison levels, the part
 * of its weight that m does not set (term frequencies, the name's cohort, the file's size) and
 * what its personal fields say for the voter over a relative (household.ts), and the odds of its
 * other candidates. Candidates that selection would not accept (isCorroborated) are kept only as
 * odds.
 */
export function samplePersonEvidence(
  index: MatchIndex,
  sample: readonly MatchInput[],
  job: PersonMatchJob,
): PersonEvidence[] {
  return mergeSampleEvidence([shardSampleEvidence(index, sample, job)]);
}

/** The sample's evidence in one voter file (a shard), per row: see samplePersonEvidence. */
export function shardSampleEvidence(
  index: MatchIndex,
  sample: readonly MatchInput[],
  job: PersonMatchJob,
): RowEvidence[] {
  const model = job.model.priorMatchOdds === 1 ? job.model : { ...job.model, priorMatchOdds: 1 };
  const evenJob = { ...job, model };
  const fileBits = Math.log2(Math.max(1, index.size));
  // The share the file's own u says (u × N: the prior of the list's, chance-agreement.ts).
  const prior = {
    phone: model.u[at(F.phone, L.binary.exact)]! * index.size,
    email: model.u[at(F.email, L.binary.exact)]! * index.size,
  };
  return sample.map((row) => ({
    row: row.row,
    persons: personsToSearch(row, job.options.asOf).map((person) => {
      // The relative outside the file is weighed again by the fit from the listed candidates.
      const totalParts: number[] = [];
      const strangers: StrangerTally = { phone: 0, email: 0 };
      const scored = scoredCandidatesOf(
        index,
        person,
        evenJob,
        EVIDENCE_CANDIDATES_PER_PERSON,
        totalParts,
        strangers,
      );
      // Only a person with both names can tell a stranger holding its number from the voter.
      const named = person.first !== '' && person.last !== '';
      const tells = { phone: named && person.phones.length > 0, email: named && person.email !== '' };
      return {
        chance: personChance(prior, tells, strangers),
        totalParts,
        best: scored.best.map((candidate) => ({
          weight: candidate.weight,
          order: candidate.order ?? index.voterOrder(candidate.voter),
          odds: candidate.odds,
          evidence: candidateEvidence(index, model, candidate, fileBits),
        })),
      };
    }),
  }));
}

/**
 * The sample's persons from the evidence of every voter file (shard) their rows were matched in,
 * in the order of the rows: each person's best candidates over all of them, and the odds of the
 * rest, as one voter file holding them all would give them. One voter file: its own evidence.
 */
export function mergeSampleEvidence(shards: readonly (readonly RowEvidence[])[]): PersonEvidence[] {
  const rows = new Map<number, RowEvidence[]>();
  for (const shard of shards) {
    for (const row of shard) {
      const seen = rows.get(row.row);
      if (seen === undefined) rows.set(row.row, [row]);
      else seen.push(row);
    }
  }
  const evidence: PersonEvidence[] = [];
  for (const row of [...rows.keys()].sort((a, b) => a - b)) {
    const told = rows.get(row)!;
    told[0]!.persons.forEach((_, p) => {
      // Summed exactly: the same rest in whatever shards and order the candidates were found.
      const restParts: number[] = [];
      const all: ShardPersonEvidence['best'] = [];
      let chance: PersonChance | undefined;
      for (const shard of told) {
        const person = shard.persons[p]!;
        addExactParts(restParts, person.totalParts);
        all.push(...person.best);
        if (person.chance !== undefined)
          chance = chance === undefined ? person.chance : addChance(chance, person.chance);
      }
      all.sort((a, b) => b.weight - a.weight || a.order - b.order);
      const kept: CandidateEvidence[] = [];
      for (const candidate of all.slice(0, EVIDENCE_CANDIDATES_PER_PERSON)) {
        addExact(restParts, -candidate.odds);
        if (candidate.evidence !== null) kept.push(candidate.evidence);
      }
      const rest = roundExact(restParts);
      // Not below 0: the sum less its best terms may leave a rounding error; past a double's
      // range the sum says only that the others weigh more than anything.
      evidence.push({
        rest: Number.isNaN(rest) ? Number.POSITIVE_INFINITY : Math.max(0, rest),
        candidates: kept,
        ...(chance === undefined ? {} : { chance }),
      });
    });
  }
  return evidence;
}

/**
 * What the list taught: how many strangers hold its persons' phones and e-mails by chance
 * (estimateChance), then m and its match rate, fitted on the sample's persons with that u
 * (estimateFromPersons).
 */
export function fitFromEvidence(evidence: readonly PersonEvidence[]): ListFit {
  const chance = estimateChance(evidence.map((person) => person.chance));
  // The candidates were weighed with the file's u of a phone or e-mail agreement: with the list's.
  const persons =
    chance === null
      ? evidence
      : evidence.map((person) => ({
          ...person,
          candidates: person.candidates.map((candidate) => {
            const shift = chance.shiftBits(candidate.levels);
            return shift === 0 ? candidate : { ...candidate, otherBits: candidate.otherBits + shift };
          }),
        }));
  const fitted = estimateFromPersons(persons);
  return {
    layout: LEVELS_LAYOUT,
    m: [...fitted.m],
    priorMatchOdds: fitted.matchOdds,
    source: fitted.source,
    emIterations: fitted.iterations,
    relativeOdds: fitted.relativeOdds,
    possibleOdds: fitted.possibleOdds,
    chance: chance?.chance ?? null,
  };
}

/**
 * The sample rows the fit weighs: the first `most` of them that no id matched (an id decides its
 * row without the probabilistic strategies), so a list mostly of ids still gives enough persons.
 */
export function rowsToFit<T extends Pick<MatchInput, 'row'>>(
  sample: readonly T[],
  idMatched: ReadonlySet<number>,
  most: number,
): T[] {
  const rows: T[] = [];
  for (const row of sample) {
    if (rows.length >= most) break;
    if (!idMatched.has(row.row)) rows.push(row);
  }
  return rows;
}

/** A list's fit as this voter file's model (its own u). */
function modelOf(fit: ListFit, index: MatchIndex): FellegiSunterModel {
  return buildModel(
    Float64Array.from(fit.m),
    withListChance(randomPairU(index), fit.chance ?? undefined, index.size),
    fit.priorMatchOdds,
    fit.source,
    fit.emIterations,
    fit.relativeOdds,
    fit.possibleOdds,
  );
}

/**
 * What the fit weighs of one candidate, or null when selection never accepts it (isCorroborated:
 * the name and no more than a state, a city or a disagreeing date with it): counted, the
 * namesakes a prospect list is full of passed for members whose dates differ, and a list of 20%
 * voters was fitted a match rate of 42%, the prior of every score.
 */
function candidateEvidence(
  index: MatchIndex,
  model: FellegiSunterModel,
  candidate: ScoredCandidate,
  fileBits: number,
): CandidateEvidence | null {
  if (!isCorroborated(candidate.levels)) return null;
  let mBits = 0;
  for (let f = 0; f < FIELD_COUNT; f++) {
    const level = candidate.levels[f]!;
    if (level !== 0) mBits += Math.log2(model.m[at(f, level)]!);
  }
  // A man's surname weighs by men's own rate of change (score-candidates.ts), so the surname's
  // levels are learnt from women and voters of no recorded gender, whose surnames change on
  // marriage. A generational suffix that differs is what tells a father from his son: a list's
  // fathers and sons would teach it as readily as its errors, so the suffix keeps its prior m.
  // Nor does a possible household member teach how often a first name differs: nothing on its
  // row tells a replaced first name from a twin's, so counted it would raise that m with every
  // twin a list holds. The band is weighed by possibleOddsOf.
  const male = isMaleVoter(index, candidate.voter);
  let teaches = (male ? ALL_FIELDS & ~(1 << F.last) : ALL_FIELDS) & ~(1 << F.suffix);
  if (isPossibleHouseholdMember(candidate.levels) || isRelativeAlike(candidate.levels))
    teaches &= ~(1 << F.first);
  return {
    levels: Array.from(candidate.levels),
    otherBits: mBits - candidate.weight + fileBits,
    teaches,
    identifies: identifiedWithout(candidate.levels) & teaches,
    personalBits: sharesHousehold(candidate.levels) ? personalBits(candidate.levels, model.m) : null,
  };
}

/** Candidates per sample person whose levels the fit weighs (the others count as odds only). */
const EVIDENCE_CANDIDATES_PER_PERSON = 5;

const ALL_FIELDS = (1 << FIELD_COUNT) - 1;

/**
 * The compared fields (a bit each) without which the rest of a candidate's agreement still
 * corroborates a name match (isCorroborated): the fields whose disagreement it can teach.
 */
function identifiedWithout(levels: Uint8Array): number {
  let mask = 0;
  const without = levels.slice();
  for (let f = 0; f < FIELD_COUNT; f++) {
    if (levels[f] === 0) continue;
    without[f] = 0;
    if (isCorroborated(without)) mask |= 1 << f;
    without[f] = levels[f]!;
  }
  return mask;
}

/**
 * The persons of a sample row that the strategies search (a searchable value and one that could
 * corroborate a name): what EM and the match rate both learn from.
 */
function personsToSearch(row: MatchInput, asOf: Date): NormalizedPerson[] {
  const input = row.normalized ?? normalizeInput(row.fields, asOf);
  return input.persons.filter((person) => hasSearchableValue(person) && canCorroborate(person));
}
