import { packDate } from '../normalize/dates.ts';
import type { NormalizedPerson } from '../normalize/person.ts';
import {
  CELL_KEY_WORDS,
  cellOf,
  digitsValue,
  KEY,
  keyEmail,
  keyEmailCheck,
  markCellKey,
  valueKey,
  zipNumber,
} from './blocking-keys.ts';
import { type ContactSample, ContactSampleCollector, isSampledContact } from './contact-sample.ts';
import { hash3, hash4 } from './hashing.ts';
import { sortPostingBlocks } from './key-postings.ts';
import {
  CONTACT_EMAIL,
  CONTACT_PHONE,
  firstGroupsOf,
  GENDER_CODE,
  initialBit,
  initialOf,
  initialsOf,
  lowestInitial,
  soundOf,
  streetSound,
  TEXT_FIELDS,
  type TextField,
} from './match-index-fields.ts';

/**
 * One thread's part of the match index: the voters it was given (any ascending subset of the
 * file), with dictionaries of its own and its postings already sorted. Nothing in it depends on
 * another segment: blocking keys hash values, not dictionary ids. mergeMatchIndexSegments joins
 * segments into the index a single builder would have made, byte for byte.
 *
 * Plain arrays and typed arrays only, so a segment crosses threads by transfer.
 */
export interface MatchIndexSegment {
  /** Voter number of each of the segment's rows, ascending. */
  rows: Uint32Array;
  dictionaries: Record<TextField, SegmentDictionary>;
  /** Per row, per text field: the segment's own dictionary id. */
  ids: Record<TextField, Uint32Array>;
  /** Sound (soundOf) of each first and last name of the segment's dictionaries, by its id. */
  firstSounds: Uint32Array;
  lastSounds: Uint32Array;
  zip: Uint32Array;
  dob: Uint32Array;
  gender: Uint8Array;
  contact: Uint8Array;
  lat: Float32Array;
  lon: Float32Array;
  /** (hash, voter) pairs sorted by hash, then voter. */
  postingsHashes: Uint32Array;
  postingsVoters: Uint32Array;
  /** Voters per map cell, cells ascending. */
  cellIds: Uint32Array;
  cellCounts: Uint32Array;
  /** Per cell, CELL_KEY_WORDS words: the filter of the cell keys posted in it (markCellKey). */
  cellKeyFilters: Uint32Array;
  /** Per ZIP (ascending): sums of coordinates in millionths of a degree, and voter counts. */
  zipIds: Uint32Array;
  zipLatSums: Float64Array;
  zipLonSums: Float64Array;
  zipCounts: Uint32Array;
  /** The sampled phones and e-mails with their holders' names (contact-sample.ts). */
  contacts: ContactSample;
}

export interface SegmentDictionary {
  /** Distinct values, '' first, in order of first appearance. */
  values: string[];
  counts: Uint32Array;
  /** Voter number where each value first appears (0 for ''). */
  firstRows: Uint32Array;
}

/** The buffers of a segment's typed arrays (each owns its buffer): what moves when it crosses threads. */
export function segmentBuffers(segment: MatchIndexSegment): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [
    segment.rows,
    segment.zip,
    segment.dob,
    segment.gender,
    segment.contact,
    segment.lat,
    segment.lon,
    segment.postingsHashes,
    segment.postingsVoters,
    segment.cellIds,
    segment.cellCounts,
    segment.cellKeyFilters,
    segment.zipIds,
    segment.zipLatSums,
    segment.zipLonSums,
    segment.zipCounts,
    segment.firstSounds,
    segment.lastSounds,
    segment.contacts.phone,
    segment.contacts.email,
  ];
  for (const dictionary of Object.values(segment.dictionaries))
    arrays.push(dictionary.counts, dictionary.firstRows);
  arrays.push(...Object.values(segment.ids));
  const buffers = new Set<ArrayBuffer>();
  for (const array of arrays) buffers.add(array.buffer as ArrayBuffer);
  return [...buffers];
}

/**
 * Coordinates are summed as integers (millionths of a degree, about 0.1 m): integer sums are
 * exact, so a ZIP's centroid does not depend on how voters were split among segments.
 */
const MICRODEGREES = 1e6;

/** Postings per block (8 MiB of pairs). */
const POSTINGS_BLOCK = 1 << 20;

/**
 * Builds one segment from normalized voters added in ascending voter order. `postings: false`:
 * without the blocking keys' postings (an index only compared against, never searched: the
 * sample a sharded import estimates u on, file-random-pair-u.ts).
 */
export class MatchIndexSegmentBuilder {
  private readonly posting: boolean;

  constructor(options: { postings?: boolean } = {}) {
    this.posting = options.postings ?? true;
  }

  private readonly dictionaries = Object.fromEntries(
    TEXT_FIELDS.map((f) => [f, new SegmentDictionaryBuilder()]),
  ) as Record<TextField, SegmentDictionaryBuilder>;
  private ids = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Uint32Array(1 << 14)])) as Record<
    TextField,
    Uint32Array
  >;
  private rows = new Uint32Array(1 << 14);
  private zip = new Uint32Array(1 << 14);
  private dob = new Uint32Array(1 << 14);
  private gender = new Uint8Array(1 << 14);
  private contact = new Uint8Array(1 << 14);
  private lat = new Float32Array(1 << 14);
  private lon = new Float32Array(1 << 14);
  /** Postings in fixed blocks: they are never copied to grow, only sorted once at the end. */
  private readonly blocks: { hashes: Uint32Array; voters: Uint32Array }[] = [];
  private hashes = new Uint32Array(0);
  private voters = new Uint32Array(0);
  private inBlock = 0;
  private entries = 0;
  private readonly cells = new Map<number, number>();
  private readonly cellKeys = new Map<number, Uint32Array>();
  private readonly zips = new Map<number, [number, number, number]>();
  private readonly contacts = new ContactSampleCollector();
  private size = 0;
  private lastVoter = -1;
  /** Blocking features per dictionary id, computed once per distinct value. */
  private readonly firstInitials: number[] = [0];
  private readonly firstGroupList: (readonly number[])[] = [[]];
  private readonly firstSound: number[] = [0];
  private readonly lastSound: number[] = [0];
  private readonly streetSounds: number[] = [0];
  private readonly houseKeys: number[] = [0];
  private readonly cityKeys: number[] = [0];
  private readonly stateKeys: number[] = [0];

  add(voter: number, person: NormalizedPerson): void {
    if (voter <= this.lastVoter) throw new RangeError(`voters must be added in ascending order (${voter})`);
    this.lastVoter = voter;
    const row = this.size;
    if (row === this.zip.length) this.grow();
    const d = this.dictionaries;
    const first = d.first.add(person.first, voter);
    const last = d.last.add(person.last, voter);
    const house = d.house.add(person.house, voter);
    const street = d.street.add(person.street, voter);
    const city = d.city.add(person.city, voter);
    const state = d.state.add(person.state, voter);
    const ids = this.ids;
    ids.first[row] = first;
    ids.middle[row] = d.middle.add(person.middle, voter);
    ids.last[row] = last;
    ids.suffix[row] = d.suffix.add(person.suffix, voter);
    ids.house[row] = house;
    ids.street[row] = street;
    ids.unit[row] = d.unit.add(person.unit, voter);
    ids.city[row] = city;
    ids.state[row] = state;
    if (first === this.firstInitials.length) {
      this.firstInitials.push(initialsOf(person.first));
      this.firstGroupList.push(firstGroupsOf(person.first));
      this.firstSound.push(soundOf(person.first));
    }
    if (last === this.lastSound.length) this.lastSound.push(soundOf(person.last));
    if (street === this.streetSounds.length) this.streetSounds.push(streetSound(person.street));
    if (house === this.houseKeys.length) this.houseKeys.push(valueKey(person.house));
    if (city === this.cityKeys.length) this.cityKeys.push(valueKey(person.city));
    if (state === this.stateKeys.length) this.stateKeys.push(valueKey(person.state));

    this.rows[row] = voter;
    const zip = zipNumber(person.zip);
    this.zip[row] = zip;
    const birth = person.dob;
    const dob = birth === null ? 0 : packDate(birth);
    this.dob[row] = dob;
    this.gender[row] = GENDER_CODE[person.gender];
    this.contact[row] =
      (person.phones.length > 0 ? CONTACT_PHONE : 0) | (person.email !== '' ? CONTACT_EMAIL : 0);
    this.lat[row] = person.lat;
    this.lon[row] = person.lon;

    // Blocking keys: each post3/post4 below is the blocking-keys.ts function of the same KEY
    // (same parts, same order), computed where it is stored. Every part is below 2^30 (see
    // hashPart), so nothing is allocated per key even where a call is not inlined.
    const lastSound = this.lastSound[last]!;
    const lastInitial = initialOf(person.last);
    const firstGroups = this.firstGroupList[first]!;
    const firstInitials = this.firstInitials[first]!;
    const cityKey = this.cityKeys[city]!;
    const stateKey = this.stateKeys[state]!;
    if (last !== 0) {
      if (zip !== 0) this.post3(KEY.zipLast, zip, lastSound, voter);
      if (city !== 0 && state !== 0) this.post4(KEY.cityLast, cityKey, stateKey, lastSound, voter);
      if (birth !== null) {
        // Also under the middle name's initial: a row may give the name the person goes by
        // (DAVID PAUL TORHOLM as PAUL TORHOLM) with only an age, which no other key finds.
        const initials = firstInitials | (person.middle.length > 1 ? initialBit(person.middle) : 0);
        for (let m = initials; m !== 0; m &= m - 1)
          this.post4(KEY.lastYear, lastSound, lowestInitial(m), birth.year, voter);
        if (birth.day !== 0) this.post3(KEY.dobLast, dob, lastSound, voter);
      }
    }
    if (first !== 0) {
      for (const group of firstGroups) {
        if (zip !== 0) this.post3(KEY.zipFirst, zip, group, voter);
        if (city !== 0 && state !== 0) this.post4(KEY.cityFirst, cityKey, stateKey, group, voter);
        if (last !== 0 && state !== 0) this.post4(KEY.stateName, stateKey, lastSound, group, voter);
        if (birth !== null && lastInitial !== 0)
          this.post4(KEY.firstYear, group, lastInitial, birth.year, voter);
      }
      if (birth !== null && birth.day !== 0) {
        for (let m = firstInitials; m !== 0; m &= m - 1)
          this.post3(KEY.dobFirst, dob, lowestInitial(m), voter);
      }
    }
    if (house !== 0) {
      const houseKey = this.houseKeys[house]!;
      if (zip !== 0) this.post3(KEY.houseZip, houseKey, zip, voter);
      this.post4(KEY.houseStreet, houseKey, this.streetSounds[street]!, stateKey, voter);
    }
    for (const phone of person.phones) {
      const hash = hash3(KEY.phone, digitsValue(phone, 0, 5), digitsValue(phone, 5, phone.length));
      const check = hash3(KEY.phoneCheck, digitsValue(phone, 0, 4), digitsValue(phone, 4, phone.length));
      this.post(hash, voter);
      this.post(check, voter);
      this.sampleContact('phone', hash, check, person);
    }
    if (person.email !== '') {
      const hash = keyEmail(person.email);
      const check = keyEmailCheck(person.email);
      this.post(hash, voter);
      this.post(check, voter);
      this.sampleContact('email', hash, check, person);
    }
    if (!Number.isNaN(person.lat)) {
      const cell = cellOf(person.lat, person.lon);
      this.cells.set(cell, (this.cells.get(cell) ?? 0) + 1);
      let filter = this.cellKeys.get(cell);
      if (filter === undefined) {
        filter = new Uint32Array(CELL_KEY_WORDS);
        this.cellKeys.set(cell, filter);
      }
      if (last !== 0) this.postCellKey(filter, hash3(KEY.cellLast, cell, lastSound), voter);
      if (first !== 0) {
        for (const group of firstGroups) this.postCellKey(filter, hash3(KEY.cellFirst, cell, group), voter);
      }
      if (zip !== 0) {
        const latMicro = Math.round(person.lat * MICRODEGREES);
        const lonMicro = Math.round(person.lon * MICRODEGREES);
        const sums = this.zips.get(zip);
        if (sums === undefined) this.zips.set(zip, [latMicro, lonMicro, 1]);
        else {
          sums[0] += latMicro;
          sums[1] += lonMicro;
          sums[2]++;
        }
      }
    }
    this.size++;
  }

  /** The segment, postings sorted. The builder is spent afterwards. */
  finish(): MatchIndexSegment {
    const n = this.size;
    const sorted = sortPostingBlocks(this.blocks, this.entries);
    this.blocks.length = 0;
    const cellIds = Uint32Array.from([...this.cells.keys()].sort((a, b) => a - b));
    const zipIds = Uint32Array.from([...this.zips.keys()].sort((a, b) => a - b));
    const zipSums = zipIds.length === 0 ? [] : Array.from(zipIds, (zip) => this.zips.get(zip)!);
    return {
      rows: this.rows.slice(0, n),
      dictionaries: Object.fromEntries(TEXT_FIELDS.map((f) => [f, this.dictionaries[f].finish()])) as Record<
        TextField,
        SegmentDictionary
      >,
      ids: Object.fromEntries(TEXT_FIELDS.map((f) => [f, this.ids[f].slice(0, n)])) as Record<
        TextField,
        Uint32Array
      >,
      firstSounds: Uint32Array.from(this.firstSound),
      lastSounds: Uint32Array.from(this.lastSound),
      zip: this.zip.slice(0, n),
      dob: this.dob.slice(0, n),
      gender: this.gender.slice(0, n),
      contact: this.contact.slice(0, n),
      lat: this.lat.slice(0, n),
      lon: this.lon.slice(0, n),
      postingsHashes: sorted.hashes,
      postingsVoters: sorted.voters,
      cellIds,
      cellCounts: Uint32Array.from(cellIds, (cell) => this.cells.get(cell)!),
      cellKeyFilters: cellKeyFiltersOf(cellIds, this.cellKeys),
      zipIds,
      zipLatSums: Float64Array.from(zipSums, (s) => s[0]),
      zipLonSums: Float64Array.from(zipSums, (s) => s[1]),
      zipCounts: Uint32Array.from(zipSums, (s) => s[2]),
      contacts: this.contacts.finish(),
    };
  }

  /** A number the sample keeps, with its holder's names (hashed only for the one number in 64 kept). */
  private sampleContact(
    kind: 'phone' | 'email',
    hash: number,
    check: number,
    person: NormalizedPerson,
  ): void {
    if (isSampledContact(hash))
      this.contacts.add(kind, hash, check, valueKey(person.first), valueKey(person.last));
  }

  private postCellKey(filter: Uint32Array, hash: number, voter: number): void {
    markCellKey(filter, 0, hash);
    this.post(hash, voter);
  }

  private post3(kind: number, a: number, b: number, voter: number): void {
    this.post(hash3(kind, a, b), voter);
  }

  private post4(kind: number, a: number, b: number, c: number, voter: number): void {
    this.post(hash4(kind, a, b, c), voter);
  }

  private post(hash: number, voter: number): void {
    if (!this.posting) return;
    let i = this.inBlock;
    if (i === this.hashes.length) {
      this.hashes = new Uint32Array(POSTINGS_BLOCK);
      this.voters = new Uint32Array(POSTINGS_BLOCK);
      this.blocks.push({ hashes: this.hashes, voters: this.voters });
      i = 0;
    }
    this.hashes[i] = hash;
    this.voters[i] = voter;
    this.inBlock = i + 1;
    this.entries++;
  }

  private grow(): void {
    const length = this.zip.length * 2;
    for (const field of TEXT_FIELDS) this.ids[field] = growTo(this.ids[field], new Uint32Array(length));
    this.rows = growTo(this.rows, new Uint32Array(length));
    this.zip = growTo(this.zip, new Uint32Array(length));
    this.dob = growTo(this.dob, new Uint32Array(length));
    this.gender = growTo(this.gender, new Uint8Array(length));
    this.contact = growTo(this.contact, new Uint8Array(length));
    this.lat = growTo(this.lat, new Float32Array(length));
    this.lon = growTo(this.lon, new Float32Array(length));
  }
}

function growTo<T extends Uint32Array | Uint8Array | Float32Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/**
 * Distinct values of one field with their counts and first voters. An open-addressing table of
 * ids keyed by an FNV hash computed here: a Map would hash each new string in the runtime, and
 * this runs for nine fields of every voter. Consecutive voters often share a value (a
 * household's address, a precinct's city), so the previous value is checked first.
 */
class SegmentDictionaryBuilder {
  /** Pairs (hash, id + 1) in open addressing; 0 marks a free pair. One cache line per probe. */
  private slots = new Uint32Array(2 << 8);
  private mask = (1 << 8) - 1;
  private readonly values: string[] = [''];
  private hashes = new Uint32Array(256);
  private counts = new Uint32Array(256);
  private firstRows = new Uint32Array(256);
  private previous = '';
  private previousId = 0;

  add(value: string, voter: number): number {
    if (value === this.previous) {
      this.counts[this.previousId]!++;
      return this.previousId;
    }
    let h = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
    h >>>= 0;
    const slots = this.slots;
    let slot = h & this.mask;
    let id = 0;
    for (;;) {
      const stored = slots[2 * slot + 1]!;
      if (stored === 0) {
        id = value === '' ? 0 : this.insert(value, h, slot, voter);
        break;
      }
      if (slots[2 * slot] === h && this.values[stored - 1] === value) {
        id = stored - 1;
        break;
      }
      slot = (slot + 1) & this.mask;
    }
    this.counts[id]!++;
    this.previous = value;
    this.previousId = id;
    return id;
  }

  finish(): SegmentDictionary {
    const n = this.values.length;
    return { values: this.values, counts: this.counts.slice(0, n), firstRows: this.firstRows.slice(0, n) };
  }

  private insert(value: string, hash: number, slot: number, voter: number): number {
    const id = this.values.length;
    this.values.push(value);
    if (id === this.counts.length) {
      this.hashes = growTo(this.hashes, new Uint32Array(id * 2));
      this.counts = growTo(this.counts, new Uint32Array(id * 2));
      this.firstRows = growTo(this.firstRows, new Uint32Array(id * 2));
    }
    this.hashes[id] = hash;
    this.firstRows[id] = voter;
    this.slots[2 * slot] = hash;
    this.slots[2 * slot + 1] = id + 1;
    // At most half full, so probes stay short.
    if (id * 2 > this.mask) this.rehash();
    return id;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.slots = new Uint32Array(2 * size);
    this.mask = size - 1;
    for (let id = 1; id < this.values.length; id++) {
      const hash = this.hashes[id]!;
      let slot = hash & this.mask;
      while (this.slots[2 * slot + 1] !== 0) slot = (slot + 1) & this.mask;
      this.slots[2 * slot] = hash;
      this.slots[2 * slot + 1] = id + 1;
    }
  }
}

/** The cells' key filters, in the order of `cellIds`. */
function cellKeyFiltersOf(cellIds: Uint32Array, filters: Map<number, Uint32Array>): Uint32Array {
  const all = new Uint32Array(cellIds.length * CELL_KEY_WORDS);
  cellIds.forEach((cell, i) => {
    all.set(filters.get(cell)!, i * CELL_KEY_WORDS);
  });
  return all;
}
