import type { NormalizedPerson } from '../normalize/person.ts';
import type { KeyPostings } from './key-postings.ts';
import { soundOf, type TextField } from './match-index-fields.ts';
import { MatchIndexShardBuilder } from './match-index-shard.ts';
import { mergeMatchIndexShards } from './merge-match-index-shards.ts';
import type { StringDictionary } from './string-dictionary.ts';

/**
 * Everything the matcher needs about the voter file, in columns of typed arrays (about 50 bytes
 * per voter plus about 9 bytes per blocking-key entry): the normalized fields as dictionary ids,
 * dates and coordinates, the blocking postings, and the density map of the dynamic radius.
 * Phones and e-mails live only in the postings: a candidate agrees on them when the input's
 * phone or e-mail key lists it.
 */
export interface MatchIndexData {
  size: number;
  dictionaries: Record<TextField, StringDictionary>;
  /** Per voter, per text field: the value's dictionary id (0 = empty). */
  ids: Record<TextField, Uint32Array>;
  zip: Uint32Array;
  /** yyyymmdd, month/day 0 when unknown, 0 when no dob. */
  dob: Uint32Array;
  gender: Uint8Array;
  /** CONTACT_PHONE | CONTACT_EMAIL when the voter has one. */
  contact: Uint8Array;
  /** NaN when unknown. */
  lat: Float32Array;
  lon: Float32Array;
  postings: KeyPostings;
  /** Voters per map cell: sorted cell ids and their counts. */
  cellIds: Uint32Array;
  cellCounts: Uint32Array;
  /** ZIP centroids: sorted ZIPs, mean coordinates and voter counts. */
  zipIds: Uint32Array;
  zipLat: Float32Array;
  zipLon: Float32Array;
}

export class MatchIndex {
  readonly data: MatchIndexData;
  /**
   * Sound (hash of the primary double-metaphone code) per first- and last-name id, for the
   * scorer's "similar" level. Derived from the dictionaries when the index is made or loaded
   * (each matching thread does it once), not stored.
   */
  readonly firstSound: Uint32Array;
  readonly lastSound: Uint32Array;

  constructor(data: MatchIndexData) {
    this.data = data;
    this.firstSound = soundsOf(data.dictionaries.first);
    this.lastSound = soundsOf(data.dictionaries.last);
  }

  get size(): number {
    return this.data.size;
  }

  /** Voters in a map cell (0 when none). */
  cellCount(cell: number): number {
    const i = binarySearch(this.data.cellIds, cell);
    return i < 0 ? 0 : this.data.cellCounts[i]!;
  }

  /** Mean coordinates of the voters of a ZIP, or null. */
  zipCentroid(zip: number): [number, number] | null {
    const i = binarySearch(this.data.zipIds, zip);
    return i < 0 ? null : [this.data.zipLat[i]!, this.data.zipLon[i]!];
  }
}

function soundsOf(dictionary: StringDictionary): Uint32Array {
  const sounds = new Uint32Array(dictionary.size);
  for (let id = 1; id < dictionary.size; id++) sounds[id] = soundOf(dictionary.value(id));
  return sounds;
}

function binarySearch(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return mid;
    if (v < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/**
 * Builds the index on one thread from normalized voters added in record order: one shard,
 * merged alone. Large files are built by several shard builders on threads (the voter import);
 * the merge makes both the same index.
 */
export class MatchIndexBuilder {
  private readonly shard = new MatchIndexShardBuilder();
  private size = 0;

  add(voter: number, person: NormalizedPerson): void {
    if (voter !== this.size) throw new RangeError(`voters must be added in order (expected ${this.size})`);
    this.shard.add(voter, person);
    this.size++;
  }

  finish(): MatchIndex {
    return new MatchIndex(this.finishData());
  }

  /** The index's data alone (what is stored), without deriving what only matching needs. */
  finishData(): MatchIndexData {
    return mergeMatchIndexShards([this.shard.finish()]);
  }
}
