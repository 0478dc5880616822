import { DEFAULT_CANDIDATE_OPTIONS, dynamicRadius } from '../../matching/candidates/generate-candidates.ts';
import { filePlace, hasPlace, type ShardPlace, shardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { NormalizedInput, NormalizedPerson } from '../../matching/normalize/person.ts';

/**
 * The place stage: where a row is, by the voter file (candidates/row-place.ts: its address's
 * voter first in the file, else its ZIP's centroid, and the file's voters at its address), and
 * the shards it is matched in. A row matched in several shards is placed once over them, so that
 * each searches it around the same point and weighs its address alike. A row of one shard keeps
 * the place its shard gives it, and is also matched, around that place, in the shards its radius
 * search reaches from there (a state line or a ZIP3 cut within its radius), where the whole
 * file's radius finds voters too. The same in one process (placeRow, every shard's index at hand)
 * and in the queue's chunks (each shard's part written by its place step: placeParts, reachOf;
 * combined by the last: withPlaces).
 */

/** Where a shard's radius search may reach (ListRouter.near). */
export type ShardsNear = (lat: number, lon: number, miles: number) => number[];

/** A row placed: its persons with their place (NormalizedPerson.place), and its shards. */
export interface PlacedRow {
  normalized: NormalizedInput;
  shards: readonly number[];
}

/** A row's persons' parts of their place in one shard (null: a person without a place). */
export type RowParts = (ShardPlace | null)[];

/** The row's persons' parts in one shard's index; null when no person has a place to find. */
export function placeParts(index: MatchIndex, normalized: NormalizedInput): RowParts | null {
  if (!normalized.persons.some(hasPlace)) return null;
  const maxPostings = DEFAULT_CANDIDATE_OPTIONS.maxPostings;
  return normalized.persons.map((person) =>
    hasPlace(person) ? shardPlace(index, person, maxPostings) : null,
  );
}

/**
 * The shards a row of one shard (`own`, whose index is `index`) is matched in: its own, and those
 * its radius search reaches from the place its shard gives it (`parts`); `radiusMiles`: the run's
 * fixed radius (null: the dynamic one, from the whole file's density every shard holds).
 */
export function reachOf(
  own: number,
  index: MatchIndex,
  normalized: NormalizedInput,
  parts: RowParts,
  near: ShardsNear,
  radiusMiles: number | null,
): number[] {
  const found = new Set([own]);
  normalized.persons.forEach((person, i) => {
    const part = parts[i];
    if (part === null || part === undefined) return;
    const { location } = filePlace([part]);
    // Coordinates route a row by themselves (routeRow); a row without names searches no radius.
    if (location === null || !Number.isNaN(person.lat) || (person.first === '' && person.last === '')) return;
    const radius = radiusMiles ?? dynamicRadius(index, location.lat, location.lon);
    for (const shard of near(location.lat, location.lon, radius)) found.add(shard);
  });
  return [...found].sort((a, b) => a - b);
}

/** The row's persons, each placed by its parts in every shard the row is placed over (in shard order). */
export function withPlaces(normalized: NormalizedInput, partsByShard: readonly RowParts[]): NormalizedInput {
  const persons = normalized.persons.map((person, i): NormalizedPerson => {
    const parts = partsByShard.map((parts) => parts[i] ?? null);
    return parts.some((part) => part === null)
      ? person
      : { ...person, place: filePlace(parts as ShardPlace[]) };
  });
  return { ...normalized, persons };
}

/**
 * Places a row routed to `routed` (ascending) over its shards, in one process: `indexOf` gives a
 * routed shard's index (a row whose shards are not all open here is left unplaced: each shard
 * places it itself), `near` the map's reach (null: no shard is added), `radiusMiles` the run's
 * fixed radius (null: the dynamic one). The shards a row of one shard reaches need no index here.
 */
export function placeRow(
  normalized: NormalizedInput,
  routed: readonly number[],
  indexOf: (shard: number) => MatchIndex | null,
  near: ShardsNear | null,
  radiusMiles: number | null,
): PlacedRow {
  const unplaced = { normalized, shards: routed };
  const indexes = routed.map(indexOf);
  if (!indexes.every((index) => index !== null)) return unplaced;
  const partsByShard: RowParts[] = [];
  for (const index of indexes) {
    const parts = placeParts(index!, normalized);
    if (parts === null) return unplaced;
    partsByShard.push(parts);
  }
  const shards =
    routed.length === 1 && near !== null
      ? reachOf(routed[0]!, indexes[0]!, normalized, partsByShard[0]!, near, radiusMiles)
      : routed;
  return { normalized: withPlaces(normalized, partsByShard), shards };
}
