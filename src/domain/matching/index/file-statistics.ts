import { type ContactSample, joinContactSamples } from './contact-sample.ts';
import { FirstNameCohortCount } from './first-name-cohorts.ts';
import { FirstNameGenderCount } from './first-name-genders.ts';
import type { FileStatistics, MatchIndexData } from './match-index-data.ts';
import { TEXT_FIELDS, type TextField, WHOLE_FILE_VALUES } from './match-index-fields.ts';
import type { PackedPostings } from './packed-postings.ts';
import { StringDictionary } from './string-dictionary.ts';

/**
 * The whole voter file's statistics, counted from its shards' indexes one at a time (a sharded
 * import never holds the file's index): each dictionary value's voters, first names' genders and
 * birth-year cohorts, voters per date of birth, per ZIP and per map cell, and the file's size.
 * `withFileStatistics` then gives each shard's index these figures in place of its own, so that a
 * shard scores a candidate exactly as the whole file's index does (the same prior odds per voter,
 * the same term frequencies, the same first-name genders and cohorts).
 *
 * Every figure is a sum of integers (or, for genders and cohorts, computed from such sums by name),
 * so neither the shards' order nor the order of values within them changes it. Each value, date
 * and ZIP also keeps the file position of its first voter: the order an index of the whole file
 * lists them in, in which the random-pair u sums their shares (sums of floating-point numbers
 * depend on their order).
 *
 * The blocking keys too common to block on in the whole file are counted in a second pass: a key
 * with more than FILE_POSTINGS_FLOOR postings in a file of S shards has more than FLOOR / S in
 * one of them at least, so `add` keeps the keys of each shard's runs of postings above that share
 * (a scan in the postings' order) and `countPostings` then sums exactly, over every shard, the
 * postings of those keys alone. Memory: the keys kept and counted (a few per thousand voters).
 */
export class FileStatisticsCount {
  private size = 0;
  private readonly values = {} as Record<TextField, FileValueCounts>;
  private readonly genders = new FirstNameGenderCount(1024);
  private readonly cohorts = new FirstNameCohortCount(1024);
  private readonly dobs = new Map<number, number>();
  private readonly dobFirstAt = new Map<number, number>();
  private readonly zips = new Map<number, number>();
  private readonly zipFirstAt = new Map<number, number>();
  private cellIds: Uint32Array = new Uint32Array(0);
  private cellCounts: Uint32Array = new Uint32Array(0);
  /** Postings a key needs in one shard to be counted over all of them (FILE_POSTINGS_FLOOR / shards). */
  private readonly shardFloor: number;
  /** The keys of some shard's runs of postings above `shardFloor` (add). */
  private readonly common = new Set<number>();
  /** The shards' samples of phones and e-mails; null once a shard had none (stored before them). */
  private contacts: ContactSample[] | null = [];
  /** The postings of the `common` keys over every shard (countPostings). */
  private readonly postings = new Map<number, number>();

  /** `shards`: how many the file has (each is added once). */
  constructor(shards: number) {
    if (!Number.isInteger(shards) || shards < 1) throw new RangeError('a file of one shard at least');
    for (const field of TEXT_FIELDS)
      this.values[field] = new FileValueCounts({
        ordered: FILE_ORDER_FIELDS.includes(field),
        sounded: field === 'first' || field === 'last',
      });
    this.shardFloor = FILE_POSTINGS_FLOOR / shards;
  }

  /**
   * One shard's index (its own statistics, as built) and each of its voters' position in the
   * whole file (ascending, as its records are in file order).
   */
  add(data: MatchIndexData, order: Uint32Array): void {
    if (order.length !== data.size) throw new RangeError('one file position per voter of the shard');
    this.size += data.size;
    const fields = data.fields;
    let firstIds = new Uint32Array(0);
    for (const field of TEXT_FIELDS) {
      const dictionary = data.dictionaries[field];
      const counts = this.values[field];
      // Each value's first voter here, for the fields whose values u takes in the file's order.
      const firstVoter = counts.ordered ? new Int32Array(dictionary.size).fill(-1) : null;
      if (firstVoter !== null)
        for (let voter = fields.size - 1; voter >= 0; voter--) firstVoter[fields.id(field, voter)] = voter;
      const ids = new Uint32Array(dictionary.size);
      // First names' and surnames' sounds, kept for the shards that lack the name (withFileStatistics).
      const sounds = field === 'first' ? data.firstSounds : field === 'last' ? data.lastSounds : null;
      for (let id = 0; id < dictionary.size; id++) {
        const voter = firstVoter === null ? -1 : firstVoter[id]!;
        ids[id] = counts.add(
          dictionary.value(id),
          dictionary.count(id),
          voter < 0 ? Infinity : order[voter]!,
          sounds?.[id] ?? 0,
        );
      }
      if (field === 'first') firstIds = ids;
    }
    for (let voter = 0; voter < fields.size; voter++) {
      const firstId = firstIds[fields.first(voter)]!;
      const dob = fields.dob(voter);
      this.genders.add(firstId, fields.gender(voter));
      this.cohorts.add(firstId, dob);
      // As MatchIndex counts them: dates and ZIPs a voter has (0 is none).
      if (dob > 0) countAt(this.dobs, this.dobFirstAt, dob, order[voter]!);
      const zip = fields.zip(voter);
      if (zip > 0 && zip < 100_000) countAt(this.zips, this.zipFirstAt, zip, order[voter]!);
    }
    if (data.contacts === undefined) this.contacts = null;
    else this.contacts?.push(data.contacts);
    keepCommonKeys(data.postings, this.shardFloor, this.common);
    [this.cellIds, this.cellCounts] = mergeSortedCounts(
      this.cellIds,
      this.cellCounts,
      data.cellIds,
      data.cellCounts,
    );
  }

  /**
   * One shard's postings, once every shard was added: those of the keys that may be common (a
   * key's count is the length of its range).
   */
  countPostings(postings: Pick<PackedPostings, 'range'>): void {
    for (const hash of this.common) {
      const [start, end] = postings.range(hash);
      if (end > start) this.postings.set(hash, (this.postings.get(hash) ?? 0) + end - start);
    }
  }

  /** The file's figures, once every shard was added and its postings counted. */
  finish(): WholeFileStatistics {
    const zipIds = Uint32Array.from(this.zips.keys()).sort();
    const postings = [...this.postings].filter(([, count]) => count > FILE_POSTINGS_FLOOR);
    const postingsHashes = Uint32Array.from(postings, ([hash]) => hash).sort();
    return {
      postingsHashes,
      postingsCounts: Uint32Array.from(postingsHashes, (hash) => this.postings.get(hash)!),
      size: this.size,
      values: this.values,
      genders: this.genders.genders(),
      cohorts: this.cohorts.concentrations(),
      dobs: this.dobs,
      dobFirstAt: this.dobFirstAt,
      zipIds,
      zipCounts: Uint32Array.from(zipIds, (zip) => this.zips.get(zip)!),
      zipFirstAt: this.zipFirstAt,
      cellIds: this.cellIds,
      cellCounts: this.cellCounts,
      ...(this.contacts === null ? {} : { contacts: joinContactSamples(this.contacts) }),
    };
  }
}

/** Adds to `common` the hash of each key with more postings than `floor`. */
function keepCommonKeys(postings: PackedPostings, floor: number, common: Set<number>): void {
  postings.forEachKey((hash, entries) => {
    if (entries > floor) common.add(hash);
  });
}

/** Adds one voter to `counts` at `key`, and keeps the lowest file position in `firstAt`. */
function countAt(
  counts: Map<number, number>,
  firstAt: Map<number, number>,
  key: number,
  position: number,
): void {
  const count = counts.get(key);
  if (count === undefined) {
    counts.set(key, 1);
    firstAt.set(key, position);
    return;
  }
  counts.set(key, count + 1);
  if (position < firstAt.get(key)!) firstAt.set(key, position);
}

/** Two sorted (keys, counts) lists as one: the union of keys, ascending, counts summed. */
function mergeSortedCounts(
  aKeys: Uint32Array,
  aCounts: Uint32Array,
  bKeys: Uint32Array,
  bCounts: Uint32Array,
): [Uint32Array, Uint32Array] {
  const keys = new Uint32Array(aKeys.length + bKeys.length);
  const counts = new Uint32Array(keys.length);
  let i = 0;
  let j = 0;
  let out = 0;
  while (i < aKeys.length || j < bKeys.length) {
    const a = i < aKeys.length ? aKeys[i]! : Infinity;
    const b = j < bKeys.length ? bKeys[j]! : Infinity;
    keys[out] = Math.min(a, b);
    counts[out++] = (a <= b ? aCounts[i++]! : 0) + (b <= a ? bCounts[j++]! : 0);
  }
  return [keys.slice(0, out), counts.slice(0, out)];
}

/** The fields whose values the random-pair u takes in the file's order (file-random-pair-u.ts). */
export const FILE_ORDER_FIELDS: readonly TextField[] = ['first', 'last', 'city', 'state'];

/**
 * One text field's values over the whole file: a file-wide id per value (the empty value's is
 * 0), its voters, and, for a field `ordered`, the file position of its first voter (Infinity for
 * a value no voter has); for a field `sounded`, its phonetic code.
 */
export class FileValueCounts {
  readonly ids = new Map<string, number>([['', 0]]);
  /** By id. */
  readonly values: string[] = [''];
  readonly counts: number[] = [0];
  readonly ordered: boolean;
  readonly sounded: boolean;
  /** By id, when `ordered` (else empty: a street's first position is never read). */
  readonly firstAt: number[];
  /** Its phonetic code (soundOf) by id, when `sounded` (first names and surnames; else empty). */
  readonly sounds: number[];

  constructor(keep: { ordered: boolean; sounded: boolean }) {
    this.ordered = keep.ordered;
    this.sounded = keep.sounded;
    this.firstAt = keep.ordered ? [Infinity] : [];
    this.sounds = keep.sounded ? [0] : [];
  }

  /**
   * Counts a shard's `count` voters with `value`, the first at file position `firstAt`, its sound
   * `sound` (the shard's, soundOf); returns the value's id.
   */
  add(value: string, count: number, firstAt: number, sound = 0): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.counts.length;
      this.ids.set(value, id);
      this.values.push(value);
      this.counts.push(0);
      if (this.ordered) this.firstAt.push(Infinity);
      if (this.sounded) this.sounds.push(sound);
    }
    this.counts[id]! += count;
    if (this.ordered && firstAt < this.firstAt[id]!) this.firstAt[id] = firstAt;
    return id;
  }

  /** Voters with this value in the whole file (0 for a value none has). */
  count(value: string): number {
    const id = this.ids.get(value);
    return id === undefined ? 0 : this.counts[id]!;
  }
}

/**
 * Postings of a blocking key in the whole file above which a shard stores the file's count
 * (FileStatistics.postingsHashes): a shard skips a key exactly as the whole file does for any
 * CandidateOptions.maxPostings of at least this (the default is 5,000).
 */
export const FILE_POSTINGS_FLOOR = 1000;

/** The whole file's figures (FileStatisticsCount.finish), to give each of its shards. */
export interface WholeFileStatistics {
  /** The blocking keys with more than FILE_POSTINGS_FLOOR postings in the file (ascending), and their postings. */
  postingsHashes: Uint32Array;
  postingsCounts: Uint32Array;
  size: number;
  /** Per text field; the first names' ids are those `genders` and `cohorts` are indexed by. */
  values: Record<TextField, FileValueCounts>;
  /** By file-wide first-name id. */
  genders: Uint8Array;
  cohorts: Float32Array;
  dobs: Map<number, number>;
  /** File position of the first voter born on each date of `dobs`. */
  dobFirstAt: Map<number, number>;
  zipIds: Uint32Array;
  zipCounts: Uint32Array;
  /** File position of the first voter of each ZIP of `zipIds`. */
  zipFirstAt: Map<number, number>;
  /** Voters per map cell of the whole file (sorted cell ids): the density of the dynamic radius. */
  cellIds: Uint32Array;
  cellCounts: Uint32Array;
  /** Every shard's sampled phones and e-mails (contact-sample.ts); absent when a shard has none. */
  contacts?: ContactSample;
}

/**
 * A shard's index with the whole file's statistics: its dictionaries count the file's voters (and
 * hold the file's names and states: WHOLE_FILE_VALUES), its first names carry the file's genders
 * and cohorts, and `file` holds the rest, with each voter's position in the whole file (`order`,
 * from the import).
 */
export function withFileStatistics(
  data: MatchIndexData,
  whole: WholeFileStatistics,
  order: Uint32Array,
): MatchIndexData {
  if (order.length !== data.size) throw new RangeError('one file position per voter of the shard');
  const dictionaries = {} as Record<TextField, StringDictionary>;
  const sounds = { first: data.firstSounds, last: data.lastSounds };
  for (const field of TEXT_FIELDS) {
    const own = data.dictionaries[field];
    const counts = whole.values[field];
    let values: readonly string[] = own.values;
    // Each value's file-wide id (one lookup of each of the shard's values): its file count.
    const fileIds = values.map((value) => counts.ids.get(value) ?? -1);
    if (WHOLE_FILE_VALUES.includes(field)) {
      // Then the file's values the shard lacks (ids past its own, which no voter of it carries),
      // with the sounds another shard computed for them.
      const held = new Uint8Array(counts.values.length);
      for (const id of fileIds) if (id >= 0) held[id] = 1;
      const added: number[] = [];
      for (let id = 1; id < counts.values.length; id++)
        if (counts.counts[id]! > 0 && held[id] === 0) added.push(id);
      if (added.length > 0) {
        values = [...own.values, ...added.map((id) => counts.values[id]!)];
        for (const id of added) fileIds.push(id);
        if (field === 'first' || field === 'last') {
          const extended = new Uint32Array(values.length);
          extended.set(sounds[field]);
          added.forEach((id, k) => {
            extended[own.size + k] = counts.sounds[id]!;
          });
          sounds[field] = extended;
        }
      }
    }
    const fileCounts = new Uint32Array(values.length);
    for (let id = 0; id < values.length; id++)
      fileCounts[id] = fileIds[id]! < 0 ? 0 : counts.counts[fileIds[id]!]!;
    dictionaries[field] = StringDictionary.fromValues(values, fileCounts);
  }
  const first = dictionaries.first;
  const firstGenders = new Uint8Array(first.size);
  const firstCohorts = new Float32Array(first.size).fill(1);
  for (let id = 1; id < first.size; id++) {
    const fileId = whole.values.first.ids.get(first.value(id));
    if (fileId === undefined) continue;
    firstGenders[id] = whole.genders[fileId] ?? 0;
    firstCohorts[id] = whole.cohorts[fileId] ?? 1;
  }
  const dobs = data.fields.dobs;
  const file: FileStatistics = {
    size: whole.size,
    order,
    dobCounts: Uint32Array.from(dobs, (dob) => (dob === 0 ? 0 : (whole.dobs.get(dob) ?? 0))),
    zipIds: whole.zipIds,
    zipCounts: whole.zipCounts,
    ...shardPostings(data.postings, whole),
    cellIds: whole.cellIds,
    cellCounts: whole.cellCounts,
  };
  return {
    ...data,
    dictionaries,
    firstSounds: sounds.first,
    lastSounds: sounds.last,
    firstGenders,
    firstCohorts,
    file,
  };
}

/** The whole file's counts of the shard's keys that hold more postings in the file than in the shard. */
function shardPostings(
  postings: PackedPostings,
  whole: WholeFileStatistics,
): { postingsHashes: Uint32Array; postingsCounts: Uint32Array } {
  const hashes: number[] = [];
  const counts: number[] = [];
  whole.postingsHashes.forEach((hash, i) => {
    const own = postings.count(hash);
    const count = whole.postingsCounts[i]!;
    if (own > 0 && own < count) {
      hashes.push(hash);
      counts.push(count);
    }
  });
  return { postingsHashes: Uint32Array.from(hashes), postingsCounts: Uint32Array.from(counts) };
}
