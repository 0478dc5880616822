import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { buildMatchIndex } from './index/build-match-index.ts';
import type { MatchIndex } from './index/match-index.ts';
import type { Matcher } from './matcher.ts';
import { createProbabilisticMatcher, type ProbabilisticMatcherOptions } from './probabilistic-matcher.ts';

const indexes = new WeakMap<VoterSnapshot, MatchIndex>();

/** The match index of a snapshot, built on first use and kept while the snapshot lives. */
export function matchIndexOf(voters: VoterSnapshot): MatchIndex {
  if (voters.matchIndex !== null) return voters.matchIndex;
  let index = indexes.get(voters);
  if (index === undefined) {
    index = buildMatchIndex(voters);
    indexes.set(voters, index);
  }
  return index;
}

/** The service's matcher: ids, then probabilistic matching on every other identifier. */
export function createMatcher(
  voters: VoterSnapshot,
  options: Partial<ProbabilisticMatcherOptions> = {},
): Matcher {
  return createProbabilisticMatcher(voters, matchIndexOf(voters), options);
}
