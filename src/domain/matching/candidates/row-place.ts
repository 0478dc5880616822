import { keyHouseZip } from '../index/blocking-keys.ts';
import type { MatchIndex } from '../index/match-index.ts';
import type { FilePlace, NormalizedPerson } from '../normalize/person.ts';
import { type AddressQuery, prepareAddress } from '../score/compare-person.ts';

/**
 * Where a row is, by the voter file: the point a radius search is centred on when the row gives
 * no coordinates (the address's voters', else the ZIP's centroid), and how many voters its house
 * number and street list (the address's term frequency). A voter file sharded by state and ZIP3
 * holds a row's address in one shard, while the row is matched in others too (every shard of its
 * state, or every shard for its birth date): each shard alone would place it otherwise, or not at
 * all, and find other voters within the radius than the whole file does. A row matched in
 * several shards is therefore placed once over them (filePlace of each shard's shardPlace) and
 * every shard searches it there (NormalizedPerson.place).
 */

/** A located voter at the row's address: its point and its position in the whole file. */
export interface AddressPoint {
  lat: number;
  lon: number;
  order: number;
}

/**
 * The located voter at the row's house number and street with the first position in the whole
 * file, among the voters its address keys list (house + ZIP, house + street; a key listing more
 * than `maxPostings` voters of the file is skipped, as candidate generation skips it). Null when
 * no such voter has coordinates.
 */
export function addressPoint(index: MatchIndex, q: AddressQuery, maxPostings: number): AddressPoint | null {
  if (q.houseId <= 0 || q.streetId <= 0) return null;
  const postings = index.data.postings;
  const fields = index.data.fields;
  let found: AddressPoint | null = null;
  const look = (hash: number) => {
    const [start, end] = postings.range(hash);
    if (end === start || index.filePostings(hash, end - start) > maxPostings) return;
    for (let i = start; i < end; i++) {
      const voter = postings.voterAt(i);
      if (fields.house(voter) !== q.houseId || fields.street(voter) !== q.streetId) continue;
      const lat = fields.lat(voter);
      if (Number.isNaN(lat)) continue;
      const order = index.voterOrder(voter);
      if (found === null || order < found.order) found = { lat, lon: fields.lon(voter), order };
    }
  };
  if (q.zip !== 0) look(keyHouseZip(q.houseKey, q.zip));
  for (const key of q.houseStreetKeys) look(key);
  return found;
}

/**
 * The voters the row's house number and street keys list here (0 without a house number):
 * summed over a file's shards, the whole file's count.
 */
export function addressVoters(index: MatchIndex, q: AddressQuery): number {
  let count = 0;
  for (const key of q.houseStreetKeys) count += index.data.postings.count(key);
  return count;
}

/** What one shard tells of a row's place (filePlace adds the shards up). */
export interface ShardPlace {
  address: AddressPoint | null;
  /** The row's ZIP's centroid here (null: no voter of the ZIP here has coordinates). */
  zip: { lat: number; lon: number } | null;
  addressVoters: number;
}

/** A person's place in one shard; one with coordinates is searched around them (no point here). */
export function shardPlace(index: MatchIndex, person: NormalizedPerson, maxPostings: number): ShardPlace {
  const q = prepareAddress(index, person);
  const located = !Number.isNaN(person.lat);
  const centroid = q.zip === 0 || located ? null : index.zipCentroid(q.zip);
  return {
    address: located ? null : addressPoint(index, q, maxPostings),
    zip: centroid === null ? null : { lat: centroid[0], lon: centroid[1] },
    addressVoters: addressVoters(index, q),
  };
}

/**
 * The row's place in the whole file from its shards' (in shard order): the address voter first
 * in the file, else the ZIP's centroid (a ZIP's voters are in one shard, but for a ZIP some
 * voters are filed under two states: then the first shard's), and the voters at its address.
 */
export function filePlace(shards: readonly ShardPlace[]): FilePlace {
  let address: AddressPoint | null = null;
  let zip: ShardPlace['zip'] = null;
  let voters = 0;
  for (const shard of shards) {
    if (shard.address !== null && (address === null || shard.address.order < address.order))
      address = shard.address;
    zip ??= shard.zip;
    voters += shard.addressVoters;
  }
  const location: FilePlace['location'] =
    address !== null
      ? { lat: address.lat, lon: address.lon, source: 'address' }
      : zip !== null
        ? { ...zip, source: 'zip' }
        : null;
  return { location, addressVoters: voters };
}

/**
 * Whether a person's place can differ between the shards of a file: an address (its voters and
 * its point) or a ZIP (its centroid) to place it by. A person with coordinates is searched
 * around them in every shard, but its address still weighs by the file's voters at it.
 */
export const hasPlace = (person: NormalizedPerson): boolean =>
  (person.house !== '' && person.street !== '') || (person.zip !== '' && Number.isNaN(person.lat));
