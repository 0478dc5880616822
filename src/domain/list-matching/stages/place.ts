import { DEFAULT_CANDIDATE_OPTIONS, dynamicRadius } from '../../matching/candidates/generate-candidates.ts';
import { filePlace, hasPlace, type ShardPlace, shardPlace } from '../../matching/candidates/row-place.ts';
import type { MatchIndex } from '../../matching/index/match-index.ts';
import type { FilePlace, NormalizedInput, NormalizedPerson } from '../../matching/normalize/person.ts';
import { withPlace } from '../../matching/score/compare-person.ts';

/**
 * The place stage: where a row is, by the voter file (candidates/row-place.ts: its address's
 * voter first in the file, else its ZIP's centroid, and the file's voters at its address), and
 * the shards it is matched in. A row is placed once over the shards it is routed to, so that
 * each searches it around the same point and weighs its address alike, and is also matched,
 * around that place, in the shards its radius search reaches from there (a state line or a ZIP3
 * cut within its radius), where the whole file's radius finds voters too. The same in one process
 * (placeRow, every routed shard's index at hand) and in the queue's chunks (each shard's part
 * written by its place step: placeParts; combined by the last: personPlaces, reachOf).
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

/**
 * The shards that may hold a person's address or ZIP (ListRouter.homes); null: any shard. In any
 * other its place's part is known without looking: NO_PLACE.
 */
export type PersonHomes = (person: NormalizedPerson) => readonly number[] | null;

/** A shard's part of the place of a person whose address and ZIP it holds no voter of. */
const NO_PLACE: ShardPlace = Object.freeze({ address: null, zip: null, addressVoters: 0 });

/**
 * The row's persons' parts in one shard's index; null when no person has a place to find.
 * `elsewhere(i)`: person i's address and ZIP are in other shards (its part here is NO_PLACE).
 */
export function placeParts(
  index: MatchIndex,
  normalized: NormalizedInput,
  elsewhere?: (person: number) => boolean,
): RowParts | null {
  if (!normalized.persons.some(hasPlace)) return null;
  const maxPostings = DEFAULT_CANDIDATE_OPTIONS.maxPostings;
  return normalized.persons.map((person, i) =>
    !hasPlace(person) ? null : elsewhere?.(i) === true ? NO_PLACE : shardPlace(index, person, maxPostings),
  );
}

/** Each person's place over a row's shards (their parts, in shard order); null: a person without one. */
export function personPlaces(partsByShard: readonly RowParts[]): (FilePlace | null)[] {
  return partsByShard[0]!.map((_, i) => {
    const parts = partsByShard.map((parts) => parts[i] ?? null);
    return parts.some((part) => part === null) ? null : filePlace(parts as ShardPlace[]);
  });
}

/** The row's persons with their places (personPlaces). */
export function withPlaces(
  normalized: NormalizedInput,
  places: readonly (FilePlace | null)[],
): NormalizedInput {
  const persons = normalized.persons.map((person, i): NormalizedPerson => {
    const place = places[i] ?? null;
    return place === null ? person : withPlace(person, place);
  });
  return { ...normalized, persons };
}

/**
 * The shards a row routed to `routed` is matched in: those, and the ones its radius search
 * reaches from its place (`places`: its persons', over the routed shards). `index`: any shard's
 * (each holds the whole file's density, which sets the dynamic radius); `radiusMiles`: the run's
 * fixed radius (null: the dynamic one).
 */
export function reachOf(
  routed: readonly number[],
  index: MatchIndex,
  normalized: NormalizedInput,
  places: readonly (FilePlace | null)[],
  near: ShardsNear,
  radiusMiles: number | null,
): readonly number[] {
  // Most rows' radius stays within their shards: then no other array is made.
  let found: Set<number> | null = null;
  const persons = normalized.persons;
  for (let i = 0; i < persons.length; i++) {
    const person = persons[i]!;
    const location = places[i]?.location ?? null;
    // Coordinates route a row by themselves (routeRow); a row without names searches no radius.
    if (location === null || !Number.isNaN(person.lat) || (person.first === '' && person.last === ''))
      continue;
    const radius = radiusMiles ?? dynamicRadius(index, location.lat, location.lon);
    for (const shard of near(location.lat, location.lon, radius)) {
      if (found === null && routed.includes(shard)) continue;
      found ??= new Set(routed);
      found.add(shard);
    }
  }
  return found === null ? routed : [...found].sort((a, b) => a - b);
}

/**
 * Places a row routed to `routed` (ascending) over its shards, in one process: `indexOf` gives a
 * routed shard's index (a row whose shards are not all open here is left unplaced: each shard
 * places it itself), `near` the map's reach (null: no shard is added), `radiusMiles` the run's
 * fixed radius (null: the dynamic one). The shards its radius reaches need no index here.
 * `homes`, when given, spares the look in the routed shards that hold none of a person's
 * address and ZIP (a dated row is routed to every shard: a national file's 26 looks per row).
 */
export function placeRow(
  normalized: NormalizedInput,
  routed: readonly number[],
  indexOf: (shard: number) => MatchIndex | null,
  near: ShardsNear | null,
  radiusMiles: number | null,
  homes: PersonHomes | null = null,
): PlacedRow {
  const unplaced = { normalized, shards: routed };
  const indexes = routed.map(indexOf);
  if (!indexes.every((index) => index !== null)) return unplaced;
  const homesOf = homes === null || routed.length < 2 ? null : normalized.persons.map(homes);
  const partsByShard: RowParts[] = [];
  for (let k = 0; k < routed.length; k++) {
    const shard = routed[k]!;
    const parts = placeParts(
      indexes[k]!,
      normalized,
      homesOf === null ? undefined : (i) => homesOf[i] !== null && !homesOf[i]!.includes(shard),
    );
    if (parts === null) return unplaced;
    partsByShard.push(parts);
  }
  const places = personPlaces(partsByShard);
  const shards = near === null ? routed : reachOf(routed, indexes[0]!, normalized, places, near, radiusMiles);
  return { normalized: withPlaces(normalized, places), shards };
}
