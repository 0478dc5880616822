import { MAX_RADIUS_MILES, MILES_PER_DEGREE_LAT } from '../matching/candidates/generate-candidates.ts';
import { normalizeLatLong, normalizeStateCode, normalizeZip } from '../matching/normalize/contact.ts';
import { idKey } from './id-keys.ts';
import type { ShardDirectory } from './shard-directory.ts';

/**
 * A voter file split into shards that are built, stored, fetched and matched separately, so that
 * no worker needs the whole national file in memory. The key is the state; a state with more than
 * `maxRows` records is split further into ranges of ZIP3 (the first three digits of the ZIP).
 *
 * Matching on a sharded version is defined by this map, whatever runs it: each list row goes to
 * the shards of its state (every shard of a split state, since people move within their state),
 * each shard matches its rows as an unsharded snapshot would (its own frequencies and model), and
 * the outcomes are merged per row (merge-outcomes.ts). The embedded service and a cluster of
 * workers therefore produce the same bytes.
 */
export interface VoterShard {
  /** Stable across imports of the same file layout: `nc`, `ca-2`, `none` (records without a state). */
  id: string;
  /** Two-letter state code, or '' for the shard of records without a usable state. */
  state: string;
  /** First and last ZIP3 of a split state's range, inclusive ('' when the state is not split). */
  zip3From: string;
  zip3To: string;
  rows: number;
  /** The shard's own snapshot version (`<version>-<id>`). */
  version: string;
  /** Bytes a worker holds in memory once the shard is loaded (its files but the records file). */
  memoryBytes: number;
  /** Where its located voters are: [south, west, north, east] in degrees, or null when none is. */
  box: [number, number, number, number] | null;
}

export interface ShardMap {
  shards: VoterShard[];
  /** States seen per ZIP3 in the voter file: a row with a ZIP but no state is routed by it. */
  zip3States: Record<string, string[]>;
}

/** The shard of records without a usable state (matched by the rows that name no known state). */
export const NO_STATE_SHARD = 'none';

/** Records per state and ZIP3, counted in a first pass over the voter file. */
export class ShardCounts {
  /** state → zip3 ('' when none) → records. */
  readonly byState = new Map<string, Map<string, number>>();

  add(state: string, zip3: string, records = 1): void {
    let zips = this.byState.get(state);
    if (zips === undefined) {
      zips = new Map();
      this.byState.set(state, zips);
    }
    zips.set(zip3, (zips.get(zip3) ?? 0) + records);
  }
}

/** Where a voter record goes: its normalized state and ZIP3 ('' when unusable). */
export function recordShardKey(state: string, zip: string): { state: string; zip3: string } {
  const code = state === '' ? null : normalizeStateCode(state);
  const normalized = zip === '' ? null : normalizeZip(zip);
  return { state: code ?? '', zip3: normalized === null ? '' : normalized.slice(0, 3) };
}

export interface ShardPlan {
  /** Shards in a fixed order (by state, then ZIP3), without their versions, sizes and areas yet. */
  shards: Omit<VoterShard, 'version' | 'memoryBytes' | 'box'>[];
  zip3States: Record<string, string[]>;
}

/**
 * Shards from the counts: one per state, a state above `maxRows` cut into consecutive ZIP3
 * ranges of at most `maxRows` records each (one ZIP3 is never cut, so a shard may exceed it).
 * A split state's records without a ZIP go to its first shard.
 */
export function planShards(counts: ShardCounts, maxRows: number): ShardPlan {
  const shards: ShardPlan['shards'] = [];
  const zip3States: Record<string, string[]> = {};
  const states = [...counts.byState.keys()].sort();
  for (const state of states) {
    const zips = counts.byState.get(state)!;
    for (const zip3 of zips.keys()) {
      // Records without a state are listed too: a row's ZIP keys find them in the whole file.
      if (zip3 === '') continue;
      const list = zip3States[zip3] ?? [];
      list.push(state);
      zip3States[zip3] = list;
    }
    let total = 0;
    for (const rows of zips.values()) total += rows;
    const id = state === '' ? NO_STATE_SHARD : state.toLowerCase();
    if (state === '' || total <= maxRows) {
      shards.push({ id, state, zip3From: '', zip3To: '', rows: total });
      continue;
    }
    const sorted = [...zips.keys()].filter((z) => z !== '').sort();
    let part: (typeof shards)[number] | null = null;
    let n = 0;
    for (const zip3 of sorted) {
      const rows = zips.get(zip3)!;
      if (part === null || (part.rows > 0 && part.rows + rows > maxRows)) {
        n++;
        part = { id: `${id}-${n}`, state, zip3From: zip3, zip3To: zip3, rows: 0 };
        shards.push(part);
      }
      part.zip3To = zip3;
      part.rows += rows;
    }
    const first = shards.find((s) => s.state === state)!;
    first.rows += zips.get('') ?? 0;
    // A split state's first range starts at the lowest ZIP3 anyway; records without one join it.
  }
  return { shards, zip3States };
}

/** Index of the shard a voter record belongs to under `plan` (records are placed exactly once). */
export function shardOfRecord(plan: Pick<ShardPlan, 'shards'>, state: string, zip3: string): number {
  let first = -1;
  for (let i = 0; i < plan.shards.length; i++) {
    const shard = plan.shards[i]!;
    if (shard.state !== state) continue;
    if (first === -1) first = i;
    if (shard.zip3From === '' || (zip3 !== '' && zip3 >= shard.zip3From && zip3 <= shard.zip3To)) return i;
  }
  if (first === -1) throw new Error('the shard plan has no shard for a counted state');
  return first;
}

/** What a list row offers for routing: raw cells as uploaded, and its normalized contact values. */
export interface RoutingValues {
  state?: string | undefined;
  zip?: string | undefined;
  voterbaseId?: string | undefined;
  latitude?: string | undefined;
  longitude?: string | undefined;
  /** Normalized phones and e-mail addresses of the row's persons: found through the directory. */
  phones?: readonly string[];
  emails?: readonly string[];
  /** Ids of the row that name no state (statelessIds): found through the directory. */
  ids?: readonly { index: string; key: string }[];
  /**
   * Whether the row could find a voter in a shard nothing placed it in: a birth date or an age
   * (blocking keys that need no place), or an address or city without a state (searched in every
   * state). Default true. A row that cannot finds no candidate in any
   * shard, so it goes to one shard only, for its outcome.
   */
  searchableAnywhere?: boolean;
  /**
   * Whether the row has blocking keys that name no shard's place: a birth date, a mistyped one or
   * an age (name + birth year or date), or a street address or city without a state (searched in
   * every state): in the whole file those keys list voters of any state, so the row is matched in
   * every shard, as the whole file would find them (default false).
   */
  placeFreeKeys?: boolean;
}

/** Where a row goes, and whether nothing placed it (it goes to every shard). */
export interface Route {
  shards: readonly number[];
  everywhere: boolean;
}

/**
 * The ids of a row or record that name no state, as directory entries: `exact_track`, and a
 * `voterbase_id` without a state prefix (`NC-…` routes by its state). `voter_id` and
 * `smartvan_id` are only looked up with a state.
 */
export function statelessIds(voterbaseId: string, exactTrack: string): { index: string; key: string }[] {
  const ids: { index: string; key: string }[] = [];
  const voterbase = idKey('voterbase_id', voterbaseId, '');
  if (voterbase !== null && stateOfVoterbaseId(voterbase) === null)
    ids.push({ index: 'voterbase_id', key: voterbase });
  const track = idKey('exact_track', exactTrack, '');
  if (track !== null) ids.push({ index: 'exact_track', key: track });
  return ids;
}

/**
 * The ZIP3s of a normalized ZIP (normalizeZip: five digits) and of its transpositions
 * (zipTranspositions: one swap of neighbouring digits): a swap of the last two digits keeps the
 * ZIP3, the other three give d0d1d3, d0d2d1 and d1d0d2 (the same ZIP3 again where the swapped
 * digits are equal). Read off the digits: routing every row built four strings and a set for it.
 */
export function zip3sOf(zip: string): string[] {
  const own = zip.slice(0, 3);
  const out = [own];
  for (const zip3 of [zip[0]! + zip[1]! + zip[3]!, zip[0]! + zip[2]! + zip[1]!, zip[1]! + zip[0]! + zip[2]!])
    if (!out.includes(zip3)) out.push(zip3);
  return out;
}

/** The state a `voterbase_id` names in its prefix (`VA-…`), or null. */
function stateOfVoterbaseId(id: string): string | null {
  // Most list rows have no voterbase_id: no prefix to read.
  if (id.length < 3) return null;
  const prefix = id.trim().slice(0, 3).toUpperCase();
  return /^[A-Z]{2}-$/.test(prefix) ? normalizeStateCode(prefix.slice(0, 2)) : null;
}

/** Adds to `found` the shards whose voters' box lies within `miles` of the point. */
export function shardsNear(map: ShardMap, lat: number, lon: number, miles: number, found: Set<number>): void {
  const dLat = miles / MILES_PER_DEGREE_LAT;
  const dLon = dLat / Math.max(0.05, Math.cos((lat * Math.PI) / 180));
  map.shards.forEach((shard, i) => {
    const box = shard.box;
    if (
      box !== null &&
      lat >= box[0] - dLat &&
      lat <= box[2] + dLat &&
      lon >= box[1] - dLon &&
      lon <= box[3] + dLon
    )
      found.add(i);
  });
}

/** The shards whose voters' box lies within `miles` of the point, ascending (shardsNear). */
export function nearShards(map: ShardMap, lat: number, lon: number, miles: number): number[] {
  const found = new Set<number>();
  shardsNear(map, lat, lon, miles, found);
  return [...found].sort((a, b) => a - b);
}

/** Grows a shard's area to hold a voter's coordinates. */
export function extendBox(
  box: [number, number, number, number] | null,
  lat: number,
  lon: number,
): [number, number, number, number] {
  if (box === null) return [lat, lon, lat, lon];
  return [Math.min(box[0], lat), Math.min(box[1], lon), Math.max(box[2], lat), Math.max(box[3], lon)];
}

/** Every shard of a map, in order: one array a map (a dated row of a list is routed to all of them). */
function everyShard(map: ShardMap): readonly number[] {
  let all = everyShardOf.get(map);
  if (all === undefined) {
    all = Object.freeze(map.shards.map((_, i) => i));
    everyShardOf.set(map, all);
  }
  return all;
}

const everyShardOf = new WeakMap<ShardMap, readonly number[]>();

/**
 * The shards a list row is matched in (indexes, ascending): every shard where the whole file's
 * blocking keys for the row could list a voter, so that matching shard by shard finds the
 * candidates matching the whole file finds (the same answer however the file is stored):
 * - the shards of its state, plus the state its `voterbase_id` names (an id match is exact
 *   wherever the person lives now);
 * - the shards holding its ZIP's ZIP3 and those of the ZIP's transpositions, whatever their
 *   state (ZIP keys name no state);
 * - plus, with a directory, the shards where its phones and e-mail addresses are (a person who
 *   moved keeps them); a row placed by nothing else goes only there;
 * - with coordinates, the shards with voters within the widest search radius of the point.
 *   Without a directory (a file imported before there was one), a row with a phone or an e-mail
 *   and nothing else to place it is not placed by its coordinates: its contact finds a voter
 *   anywhere;
 * - a row with keys that name no place (`placeFreeKeys`: a birth date or age, an address
 *   without a state) goes to every shard;
 * - a row that nothing places goes to every shard (`everywhere`), unless it could find no
 *   candidate anywhere (`searchableAnywhere` false): then to one shard, for its outcome.
 */
export function routeRow(
  map: ShardMap,
  values: RoutingValues,
  directory: ShardDirectory | null = null,
): Route {
  // Keys that name no place list voters in every shard: nothing else about the row matters.
  if (values.placeFreeKeys === true) return { shards: everyShard(map), everywhere: false };
  const states = new Set<string>();
  const state = values.state === undefined || values.state === '' ? null : normalizeStateCode(values.state);
  if (state !== null) states.add(state);
  const found = new Set<number>();
  // The ZIP's keys list its voters whatever their state (a row's wrong state, or a ZIP across a
  // state line), and a ZIP no voter has is also searched as its transpositions (prepareQuery):
  // the shards holding those ZIP3s.
  const zip = values.zip === undefined || values.zip === '' ? null : normalizeZip(values.zip);
  if (zip !== null) {
    for (const zip3 of zip3sOf(zip)) {
      for (const s of map.zip3States[zip3] ?? []) found.add(shardOfRecord(map, s, zip3));
    }
  }
  const idState = values.voterbaseId === undefined ? null : stateOfVoterbaseId(values.voterbaseId);
  if (idState !== null) states.add(idState);
  map.shards.forEach((shard, i) => {
    if (states.has(shard.state)) found.add(i);
  });
  const placed = found.size > 0;
  const hasContact =
    (values.phones?.length ?? 0) > 0 || (values.emails?.length ?? 0) > 0 || (values.ids?.length ?? 0) > 0;
  if (directory !== null) {
    for (const phone of values.phones ?? []) directory.phoneShards(phone, found);
    for (const email of values.emails ?? []) directory.emailShards(email, found);
    for (const id of values.ids ?? []) directory.idShards(id.index, id.key, found);
  }
  // Coordinates: the shards a radius search around them can reach (the row's state may not).
  if (placed || directory !== null || !hasContact) {
    const point = normalizeLatLong(values.latitude ?? '', values.longitude ?? '');
    if (point !== null) shardsNear(map, point[0], point[1], MAX_RADIUS_MILES, found);
  }
  // Without a directory a phone, an e-mail or an id may be in any shard.
  const nowhereElse = values.searchableAnywhere === false && (directory !== null || !hasContact);
  if (found.size === 0 && nowhereElse && map.shards.length > 0) {
    // The shard of records without a state, where a street address without a state can agree.
    const none = map.shards.findIndex((shard) => shard.state === '');
    return { shards: [none === -1 ? 0 : none], everywhere: false };
  }
  if (found.size === 0) return { shards: everyShard(map), everywhere: true };
  return { shards: [...found].sort((a, b) => a - b), everywhere: false };
}

/**
 * Whether every shard of the map, loaded at once, stays within a voter cache of `cacheBytes`
 * (VOTER_CACHE_MB; undefined: no limit), by the shards' estimated memory.
 */
export function everyShardFits(map: ShardMap, cacheBytes: number | undefined): boolean {
  if (cacheBytes === undefined) return true;
  return map.shards.reduce((bytes, shard) => bytes + shard.memoryBytes, 0) <= cacheBytes;
}
