import { DEFAULT_CANDIDATE_OPTIONS, dynamicRadius } from '../../matching/candidates/generate-candidates.ts';
import { filePlace, hasPlace, shardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { NormalizedInput } from '../../matching/normalize/person.ts';

/**
 * The place stage: a row matched in several shards of the voter file is placed once over them,
 * as the whole file places it (its address's voter first in the file, else its ZIP's centroid,
 * and the file's voters at its address: candidates/row-place.ts), so that each shard searches it
 * around the same point and weighs its address alike; and a row of one shard is also matched in
 * the shards its radius search reaches from there (a state line within its radius), where the
 * whole file's radius finds voters too. In one process (`indexOf(shard)`: a shard's index; null:
 * none here, then every shard places the row itself). The queue's chunks hold one shard each and
 * are not placed: there a row near a shard's edge may find other voters within its radius than
 * in one process.
 */

/** Where a shard's radius search may reach (ListRouter.near). */
export type ShardsNear = (lat: number, lon: number, miles: number) => number[];

/**
 * The shards a row is matched in: those it is routed to, and for a row of one shard without
 * coordinates (they route it by themselves), the shards whose voters its radius search reaches
 * from where its shard places it. `radiusMiles`: the run's fixed radius (null: the dynamic one).
 */
export function shardsReached(
  normalized: NormalizedInput,
  routed: readonly number[],
  indexOf: (shard: number) => MatchIndex | null,
  near: ShardsNear,
  radiusMiles: number | null,
): readonly number[] {
  if (routed.length !== 1) return routed;
  const shard = routed[0]!;
  const searched = normalized.persons.filter(
    (person) => hasPlace(person) && Number.isNaN(person.lat) && (person.first !== '' || person.last !== ''),
  );
  const index = searched.length === 0 ? null : indexOf(shard);
  if (index === null) return routed;
  const found = new Set([shard]);
  for (const person of searched) {
    const { location } = filePlace([shardPlace(index, person, DEFAULT_CANDIDATE_OPTIONS.maxPostings)]);
    if (location === null) continue;
    const radius = radiusMiles ?? dynamicRadius(index, location.lat, location.lon);
    for (const other of near(location.lat, location.lon, radius)) found.add(other);
  }
  return found.size === 1 ? routed : [...found].sort((a, b) => a - b);
}

/** The row placed over `shards` (NormalizedPerson.place), when it is matched in several. */
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
