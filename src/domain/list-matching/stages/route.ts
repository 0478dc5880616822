import type { MatchInput } from '../../matching/matcher.ts';
import {
  type NormalizedInput,
  type NormalizedPerson,
  placeOf,
  placeOfNormalized,
  type RowPlace,
} from '../../matching/normalize/person.ts';
import type { ShardDirectory } from '../../voters/shard-directory.ts';
import { nearShards, type Route, routeRow, type ShardMap, statelessIds } from '../../voters/shard-map.ts';

/**
 * The route stage: the shards of the voter file a row can find its person in (routeRow, from its
 * normalized state, ZIP, phones, e-mail and ids). An unsharded file is one shard, every row's.
 */
export interface ListRouter {
  /** Shards of the voter file (1 when it is not sharded). */
  readonly shards: number;
  /**
   * A row's shards, in map order; `normalized`: the row already normalized at `asOf` (else it is
   * placed from its cells without normalizing its names or parsing its street).
   */
  route(row: MatchInput, normalized: NormalizedInput | null, asOf: Date): Route;
  /**
   * The shards whose voters may lie within `miles` of a point (by their boxes), in map order:
   * where a row's radius search reaches (place.ts).
   */
  near(lat: number, lon: number, miles: number): number[];
  /**
   * The shards that may hold a person's address or ZIP (null: any): where placing a row looks
   * (place.ts placeRow). Null for an unsharded file.
   */
  readonly homes: ((person: NormalizedPerson) => readonly number[] | null) | null;
}

const EVERY_ROW_TO_SHARD_0: Route = Object.freeze({
  shards: Object.freeze([0]) as number[],
  everywhere: false,
});

/** The router of an unsharded voter file. */
export const ONE_SHARD: ListRouter = Object.freeze({
  shards: 1,
  route: () => EVERY_ROW_TO_SHARD_0,
  near: () => [0],
  homes: null,
});

/** The router of a sharded voter file, by its map and its directory of phones, e-mails and ids. */
export function shardRouter(map: ShardMap, directory: ShardDirectory | null): ListRouter {
  return {
    shards: map.shards.length,
    route: (row, normalized, asOf) =>
      routePlaced(
        row,
        normalized === null ? placeOf(row.fields, asOf) : placeOfNormalized(normalized),
        map,
        directory,
      ),
    near: (lat, lon, miles) => nearShards(map, lat, lon, miles),
    homes: (person) => personHomes(map, person),
  };
}

/**
 * The shards that may hold a person's address or ZIP: its state's (a house number and street are
 * looked up with the state) and its ZIP's ZIP3's, whatever their state (routeRow). Null when
 * the person has no state: its address is looked up in every state.
 */
export function personHomes(map: ShardMap, person: NormalizedPerson): readonly number[] | null {
  if (person.state === '') return null;
  // Kept by state and ZIP: a dated row is placed over every shard, and routing each of its
  // persons anew took sets and arrays each time.
  return keptByStateAndZip(homesOf, map, person.state, person.zip, () =>
    Object.freeze(routeRow(map, { state: person.state, zip: person.zip }).shards),
  );
}

const homesOf = new WeakMap<ShardMap, Map<string, readonly number[]>>();

/**
 * What `make` gives for a map's state and ZIP, made once and kept in `kept` (a map's few thousand;
 * past about every ZIP of a national file, the kept ones are let go).
 */
function keptByStateAndZip<T>(
  kept: WeakMap<ShardMap, Map<string, T>>,
  map: ShardMap,
  state: string,
  zip: string,
  make: () => T,
): T {
  let values = kept.get(map);
  if (values === undefined) {
    values = new Map();
    kept.set(map, values);
  }
  const key = `${state} ${zip}`;
  let value = values.get(key);
  if (value === undefined) {
    if (values.size >= KEPT_PER_MAP) values.clear();
    value = make();
    values.set(key, value);
  }
  return value;
}

/** About every ZIP of a national file. */
const KEPT_PER_MAP = 65_536;

/** How rows were routed (the summary's shardRouting, less the shard count). */
export interface RoutingCounts {
  rows: number;
  /** A row matched in three shards counts three times. */
  shardRows: number;
  /** Rows nothing placed: matched in every shard. */
  everywhere: number;
}

export const noRouting = (): RoutingCounts => ({ rows: 0, shardRows: 0, everywhere: 0 });

/** Adds a row's route to the counts. */
export function countRoute(counts: RoutingCounts, route: Route): void {
  counts.rows++;
  counts.shardRows += route.shards.length;
  if (route.everywhere) counts.everywhere++;
}

export function addRouting(into: RoutingCounts, part: RoutingCounts): void {
  into.rows += part.rows;
  into.shardRows += part.shardRows;
  into.everywhere += part.everywhere;
}

function routePlaced(
  row: MatchInput,
  place: RowPlace,
  map: ShardMap,
  directory: ShardDirectory | null,
): Route {
  // Keys that name no place (a birth date or age, an address without a state): every shard.
  if (place.dated || place.addressedWithoutState) return routeRow(map, { placeFreeKeys: true });
  // The normalized values: a state and ZIP written inside the address count too.
  const state = place.state || row.fields.state;
  const zip = place.zip || row.fields.zip;
  const fields = row.fields;
  if (
    place.phones.length === 0 &&
    place.emails.length === 0 &&
    !fields.voterbase_id &&
    !fields.exact_track &&
    !fields.latitude &&
    !fields.longitude
  ) {
    // Placed by its state and ZIP alone, as most rows are: routed once a state and ZIP.
    return routeOfStateAndZip(map, state ?? '', zip ?? '');
  }
  return routeRow(
    map,
    {
      state,
      zip,
      voterbaseId: row.fields.voterbase_id,
      latitude: row.fields.latitude,
      longitude: row.fields.longitude,
      phones: place.phones,
      emails: place.emails,
      ids: statelessIds(row.fields.voterbase_id ?? '', row.fields.exact_track ?? ''),
      searchableAnywhere: false,
    },
    directory,
  );
}

/**
 * The route of a row placed by its state and ZIP alone (routeRow with nothing else), kept a map:
 * routing built sets and arrays for each row, and a list holds a few thousand states and ZIPs.
 */
function routeOfStateAndZip(map: ShardMap, state: string, zip: string): Route {
  return keptByStateAndZip(routesOf, map, state, zip, () => {
    const routed = routeRow(map, { state, zip, searchableAnywhere: false });
    return Object.freeze({ ...routed, shards: Object.freeze(routed.shards) as number[] });
  });
}

const routesOf = new WeakMap<ShardMap, Map<string, Route>>();
