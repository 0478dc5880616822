import { idKey } from '../voters/id-keys.ts';
import type { IdIndexName } from '../voters/voter-columns.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import type { MatchCandidate, Matcher, MatchInput, MatchOptions, MatchOutcome } from './matcher.ts';
import { withoutTextGuard } from './normalize/spreadsheet-cells.ts';

/** Id strategies in priority order: an earlier strategy's match ranks first. */
const STRATEGIES: readonly { index: IdIndexName; needsState: boolean }[] = [
  { index: 'voterbase_id', needsState: false },
  { index: 'voter_id', needsState: true },
  { index: 'smartvan_id', needsState: true },
  { index: 'exact_track', needsState: false },
];

/** Score of an exact id match: ids are unique by construction, so it is certain. */
const ID_MATCH_SCORE = 100;

/**
 * Exact matching on the voter-file ids: `voterbase_id`, `voter_id`+`state` (leading zeros
 * ignored), `smartvan_id`+`state`, `exact_track`. Several ids on one row that point at
 * different people all come back, ranked by strategy priority.
 */
export function createDeterministicMatcher(voters: VoterSnapshot): Matcher {
  return {
    name: 'deterministic',
    matchBatch(rows: readonly MatchInput[], _options: MatchOptions): MatchOutcome[] {
      return rows.map((row) => matchIds(voters, row));
    },
  };
}

/**
 * Most records an id lookup returns for one row: the most lines any run keeps for a row (spec
 * 2.4), so that a voter file with an id repeated thousands of times costs no more. The run's own
 * max_matches is applied by the list's merge stage.
 */
const MOST_ID_MATCHES = 10;

/** The id strategies alone for one row (the probabilistic matcher runs them first). */
export function matchIds(voters: VoterSnapshot, row: MatchInput): MatchOutcome {
  const candidates: MatchCandidate[] = [];
  let hadId = false;
  let missingState = false;
  const state = row.fields.state ?? '';
  for (const { index, needsState } of STRATEGIES) {
    const value = row.fields[index];
    if (value === undefined || value.trim() === '') continue;
    hadId = true;
    const key = idKey(index, withoutTextGuard(value.trim()), withoutTextGuard(state.trim()));
    if (key === null) {
      if (needsState) missingState = true;
      continue;
    }
    const found = voters.lookup(index, key);
    // Sorted record indexes make ties between several records of one id deterministic.
    if (found.length > 1) found.sort((a, b) => a - b);
    for (const voter of found) {
      // Candidates are few (at most MOST_ID_MATCHES): a linear check beats a Set per row.
      if (candidates.some((c) => c.voter === voter)) continue;
      candidates.push({ voter, score: ID_MATCH_SCORE, method: index });
      if (candidates.length >= MOST_ID_MATCHES) return { candidates };
    }
  }
  if (candidates.length > 0) return { candidates };
  if (!hadId) return { candidates, unmatchedReason: 'no_id_values' };
  return { candidates, unmatchedReason: missingState ? 'id_without_valid_state' : 'id_not_found' };
}
