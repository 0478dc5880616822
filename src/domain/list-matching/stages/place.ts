import { DEFAULT_CANDIDATE_OPTIONS, dynamicRadius } from '../../matching/candidates/generate-candidates.ts';
import { filePlace, hasPlace, shardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { NormalizedInput, NormalizedPerson } from '../../matching/normalize/person.ts';

/**
 * The place stage: where a row is, by the whole voter file (candidates/row-place.ts: its
 * address's voter first in the file, else its ZIP's centroid, and the file's voters at its
 * address), and the shards it is matched in. A row matched in several shards is placed once over
 * them, so that each searches it around the same point and weighs its address alike; a row of
 * one shard is also matched in the shards its radius search reaches from there (a state line
 * within its radius), where the whole file's radius finds voters too. In one process
 * (`indexOf(shard)`: a shard's index; null: none here, then every shard places the row itself).
 * The queue's chunks hold one shard each and are not placed: there a row near a shard's edge may
 * find other voters within its radius than in one process.
 */

/** Where a shard's radius search may reach (ListRouter.near). */
export type ShardsNear = (lat: number, lon: number, miles: number) => number[];

/** A row placed: its persons with their place (NormalizedPerson.place), and its shards. */
export interface PlacedRow {
  normalized: NormalizedInput;
  shards: readonly number[];
}

/**
 * Places a row routed to `routed` (ascending) over its shards; `near`: the map's reach (null: no
 * shard is added), `radiusMiles`: the run's fixed radius (null: the dynamic one). A row of one
 * shard keeps the place its shard gives it (what its search would find again). A shard reached
 * whose index `indexOf` lacks is still returned, the row unplaced (the lookups open it, then place).
 */
export function placeRow(
  normalized: NormalizedInput,
  routed: readonly number[],
  indexOf: (shard: number) => MatchIndex | null,
  near: ShardsNear | null,
  radiusMiles: number | null,
): PlacedRow {
  const unplaced = { normalized, shards: routed };
  if (!normalized.persons.some(hasPlace)) return unplaced;
  const indexes = routed.map(indexOf);
  if (!indexes.every((index) => index !== null)) return unplaced;
  const maxPostings = DEFAULT_CANDIDATE_OPTIONS.maxPostings;
  const parts = normalized.persons.map((person) =>
    hasPlace(person) ? indexes.map((index) => shardPlace(index!, person, maxPostings)) : null,
  );
  let shards = routed;
  if (routed.length === 1 && near !== null) {
    const found = new Set(routed);
    normalized.persons.forEach((person, i) => {
      const { location } = filePlace(parts[i] ?? []);
      // Coordinates route a row by themselves (routeRow); a row without names searches no radius.
      if (location === null || !Number.isNaN(person.lat) || (person.first === '' && person.last === ''))
        return;
      const radius = radiusMiles ?? dynamicRadius(indexes[0]!, location.lat, location.lon);
      for (const shard of near(location.lat, location.lon, radius)) found.add(shard);
    });
    if (found.size > 1) {
      shards = [...found].sort((a, b) => a - b);
      const more = shards.map(indexOf);
      // A shard not open here: the caller opens it and places the row over them all.
      if (!more.every((index) => index !== null)) return { normalized, shards };
      // The row's own shard's part is known; the shards reached add theirs.
      const own = routed[0]!;
      normalized.persons.forEach((person, i) => {
        const known = parts[i];
        if (!known) return;
        parts[i] = more.map((index, k) =>
          shards[k] === own ? known[0]! : shardPlace(index!, person, maxPostings),
        );
      });
    }
  }
  const persons = normalized.persons.map(
    (person, i): NormalizedPerson =>
      parts[i] === null ? person : { ...person, place: filePlace(parts[i]!) },
  );
  return { normalized: { ...normalized, persons }, shards };
}
