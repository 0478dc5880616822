import { DEFAULT_CANDIDATE_OPTIONS } from '../../matching/candidates/generate-candidates.ts';
import { filePlace, hasPlace, shardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { NormalizedInput } from '../../matching/normalize/person.ts';

/**
 * The place stage: a row matched in several shards of the voter file is placed once over them,
 * as the whole file places it (its address's voter first in the file, else its ZIP's centroid,
 * and the file's voters at its address: candidates/row-place.ts), so that each shard searches it
 * around the same point and weighs its address alike. A row of one shard is placed by its shard.
 * `indexOf(shard)`: the shard's index (null: none here; then every shard places the row itself).
 * The queue's chunks hold one shard each and are not placed: there a row near a shard's edge may
 * find other voters within its radius than in one process.
 */
export function placedOverShards(
  normalized: NormalizedInput,
  shards: readonly number[],
  indexOf: (shard: number) => MatchIndex | null,
): NormalizedInput {
  if (shards.length < 2 || !normalized.persons.some(hasPlace)) return normalized;
  const indexes = shards.map(indexOf).filter((index): index is MatchIndex => index !== null);
  // Placed over some of its shards only, a row would be placed wrong: each shard places it.
  if (indexes.length < shards.length) return normalized;
  const maxPostings = DEFAULT_CANDIDATE_OPTIONS.maxPostings;
  return {
    ...normalized,
    persons: normalized.persons.map((person) =>
      hasPlace(person)
        ? { ...person, place: filePlace(indexes.map((index) => shardPlace(index, person, maxPostings))) }
        : person,
    ),
  };
}
