import { packDate } from '../normalize/dates.ts';
import { formalNames as formalNamesOf } from '../normalize/nicknames.ts';
import type { NormalizedPerson } from '../normalize/person.ts';
import { phoneticCodes } from '../normalize/phonetic.ts';
import {
  cellOf,
  keyCellFirst,
  keyCellLast,
  keyCityFirst,
  keyCityLast,
  keyDobFirst,
  keyDobLast,
  keyEmail,
  keyEmailCheck,
  keyFirstYear,
  keyHouseStreet,
  keyHouseZip,
  keyLastYear,
  keyPhone,
  keyPhoneCheck,
  keyStateName,
  keyZipFirst,
  keyZipLast,
  zipNumber,
} from './blocking-keys.ts';
import { hashString } from './hashing.ts';
import { type KeyPostings, PostingsCollector } from './key-postings.ts';
import { type StringDictionary, StringDictionaryBuilder } from './string-dictionary.ts';

/** Dictionary-backed text fields of a voter. */
export const TEXT_FIELDS = [
  'first',
  'middle',
  'last',
  'suffix',
  'house',
  'street',
  'unit',
  'city',
  'state',
] as const;
export type TextField = (typeof TEXT_FIELDS)[number];

export const GENDER_CODE = { '': 0, F: 1, M: 2 } as const;
export const CONTACT_PHONE = 1;
export const CONTACT_EMAIL = 2;

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

export const soundOf = (name: string): number => (name === '' ? 0 : hashString(phoneticCodes(name)[0]));
export const initialOf = (name: string): number => {
  const c = name.charCodeAt(0) - 64;
  return c >= 1 && c <= 26 ? c : 0;
};
const initialBit = (name: string): number => {
  const c = initialOf(name);
  return c === 0 ? 0 : 1 << (c - 1);
};

/** Initials a first name may be filed under: its own and those of the formal names it stands for. */
export function initialsOf(first: string): number {
  let mask = initialBit(first);
  for (const formal of formalNamesOf(first)) mask |= initialBit(formal);
  return mask;
}

/**
 * Blocking groups of a first name: a hash of each formal name it can stand for (BOB and ROBERT
 * both give ROBERT's), or, for a name outside the nickname table, a hash of its sound. Hashes of
 * names, not table positions, so a stored index stays valid when the table grows.
 */
export function firstGroupsOf(first: string): readonly number[] {
  if (first === '') return [];
  const formal = formalNamesOf(first);
  if (formal.length > 0) return formal.map((name) => hashString(name));
  return [(soundOf(first) ^ 0x5bd1e995) >>> 0];
}

/** Longest word of a street: the part least likely to be abbreviated differently. */
export function streetSound(street: string): number {
  if (street === '') return 0;
  let best = '';
  for (const word of street.split(' ')) if (word.length > best.length) best = word;
  return hashString(best);
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

/** Builds the index from normalized voters added in record order. */
export class MatchIndexBuilder {
  private readonly dictionaries = Object.fromEntries(
    TEXT_FIELDS.map((f) => [f, new StringDictionaryBuilder()]),
  ) as Record<TextField, StringDictionaryBuilder>;
  private ids = Object.fromEntries(TEXT_FIELDS.map((f) => [f, new Uint32Array(1 << 16)])) as Record<
    TextField,
    Uint32Array
  >;
  private zip = new Uint32Array(1 << 16);
  private dob = new Uint32Array(1 << 16);
  private gender = new Uint8Array(1 << 16);
  private contact = new Uint8Array(1 << 16);
  private lat = new Float32Array(1 << 16);
  private lon = new Float32Array(1 << 16);
  private readonly postings = new PostingsCollector();
  private readonly cells = new Map<number, number>();
  private readonly zips = new Map<number, [number, number, number]>();
  private size = 0;
  /** Blocking features per dictionary id, filled as new names appear. */
  private readonly firstInitials: number[] = [0];
  private readonly firstGroupList: (readonly number[])[] = [[]];
  private readonly lastSound: number[] = [0];
  private readonly streetSounds: number[] = [0];

  add(voter: number, person: NormalizedPerson): void {
    if (voter !== this.size) throw new RangeError(`voters must be added in order (expected ${this.size})`);
    this.ensureCapacity(voter + 1);
    const d = this.dictionaries;
    const first = d.first.add(person.first);
    const last = d.last.add(person.last);
    const house = d.house.add(person.house);
    const street = d.street.add(person.street);
    const city = d.city.add(person.city);
    const state = d.state.add(person.state);
    this.ids.first[voter] = first;
    this.ids.middle[voter] = d.middle.add(person.middle);
    this.ids.last[voter] = last;
    this.ids.suffix[voter] = d.suffix.add(person.suffix);
    this.ids.house[voter] = house;
    this.ids.street[voter] = street;
    this.ids.unit[voter] = d.unit.add(person.unit);
    this.ids.city[voter] = city;
    this.ids.state[voter] = state;
    if (first === this.firstInitials.length) {
      this.firstInitials.push(initialsOf(person.first));
      this.firstGroupList.push(firstGroupsOf(person.first));
    }
    if (last === this.lastSound.length) this.lastSound.push(soundOf(person.last));
    if (street === this.streetSounds.length) this.streetSounds.push(streetSound(person.street));

    const zip = zipNumber(person.zip);
    this.zip[voter] = zip;
    const birth = person.dob;
    const dob = birth === null ? 0 : packDate(birth);
    this.dob[voter] = dob;
    this.gender[voter] = GENDER_CODE[person.gender];
    this.contact[voter] =
      (person.phones.length > 0 ? CONTACT_PHONE : 0) | (person.email !== '' ? CONTACT_EMAIL : 0);
    this.lat[voter] = person.lat;
    this.lon[voter] = person.lon;

    // Blocking keys (see blocking-keys.ts for what each one is for). Plain loops, no closures:
    // this runs once per voter at import.
    const postings = this.postings;
    const lastSound = this.lastSound[last]!;
    const lastInitial = initialOf(person.last);
    const firstGroups = this.firstGroupList[first]!;
    const firstInitials = this.firstInitials[first]!;
    if (last !== 0) {
      if (zip !== 0) postings.add(keyZipLast(zip, lastSound), voter);
      if (city !== 0 && state !== 0) postings.add(keyCityLast(city, state, lastSound), voter);
      if (birth !== null) {
        for (let m = firstInitials; m !== 0; m &= m - 1) {
          postings.add(keyLastYear(lastSound, lowestInitial(m), birth.year), voter);
        }
        if (birth.day !== 0) postings.add(keyDobLast(dob, lastSound), voter);
      }
    }
    if (first !== 0) {
      for (const group of firstGroups) {
        if (zip !== 0) postings.add(keyZipFirst(zip, group), voter);
        if (city !== 0 && state !== 0) postings.add(keyCityFirst(city, state, group), voter);
        if (last !== 0 && state !== 0) postings.add(keyStateName(state, lastSound, group), voter);
        if (birth !== null && lastInitial !== 0)
          postings.add(keyFirstYear(group, lastInitial, birth.year), voter);
      }
      if (birth !== null && birth.day !== 0) {
        for (let m = firstInitials; m !== 0; m &= m - 1)
          postings.add(keyDobFirst(dob, lowestInitial(m)), voter);
      }
    }
    if (house !== 0) {
      if (zip !== 0) postings.add(keyHouseZip(house, zip), voter);
      postings.add(keyHouseStreet(house, this.streetSounds[street]!, state), voter);
    }
    for (const phone of person.phones) {
      postings.add(keyPhone(phone), voter);
      postings.add(keyPhoneCheck(phone), voter);
    }
    if (person.email !== '') {
      postings.add(keyEmail(person.email), voter);
      postings.add(keyEmailCheck(person.email), voter);
    }
    if (!Number.isNaN(person.lat)) {
      const cell = cellOf(person.lat, person.lon);
      this.cells.set(cell, (this.cells.get(cell) ?? 0) + 1);
      if (last !== 0) postings.add(keyCellLast(cell, lastSound), voter);
      if (first !== 0) for (const group of firstGroups) postings.add(keyCellFirst(cell, group), voter);
      if (zip !== 0) {
        const sums = this.zips.get(zip);
        if (sums === undefined) this.zips.set(zip, [person.lat, person.lon, 1]);
        else {
          sums[0] += person.lat;
          sums[1] += person.lon;
          sums[2]++;
        }
      }
    }
    this.size++;
  }

  finish(): MatchIndex {
    return new MatchIndex(this.finishData());
  }

  /** The index's data alone (what is stored), without deriving what only matching needs. */
  finishData(): MatchIndexData {
    const n = this.size;
    const cellIds = Uint32Array.from([...this.cells.keys()].sort((a, b) => a - b));
    const zipIds = Uint32Array.from([...this.zips.keys()].sort((a, b) => a - b));
    const data: MatchIndexData = {
      size: n,
      dictionaries: Object.fromEntries(TEXT_FIELDS.map((f) => [f, this.dictionaries[f].finish()])) as Record<
        TextField,
        StringDictionary
      >,
      ids: Object.fromEntries(TEXT_FIELDS.map((f) => [f, this.ids[f].slice(0, n)])) as Record<
        TextField,
        Uint32Array
      >,
      zip: this.zip.slice(0, n),
      dob: this.dob.slice(0, n),
      gender: this.gender.slice(0, n),
      contact: this.contact.slice(0, n),
      lat: this.lat.slice(0, n),
      lon: this.lon.slice(0, n),
      postings: this.postings.build(),
      cellIds,
      cellCounts: Uint32Array.from(cellIds, (cell) => this.cells.get(cell)!),
      zipIds,
      zipLat: Float32Array.from(zipIds, (zip) => {
        const [lat, , count] = this.zips.get(zip)!;
        return lat / count;
      }),
      zipLon: Float32Array.from(zipIds, (zip) => {
        const [, lon, count] = this.zips.get(zip)!;
        return lon / count;
      }),
    };
    return data;
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.zip.length) return;
    const length = this.zip.length * 2;
    for (const field of TEXT_FIELDS) this.ids[field] = grow(this.ids[field], new Uint32Array(length));
    this.zip = grow(this.zip, new Uint32Array(length));
    this.dob = grow(this.dob, new Uint32Array(length));
    this.gender = grow(this.gender, new Uint8Array(length));
    this.contact = grow(this.contact, new Uint8Array(length));
    this.lat = grow(this.lat, new Float32Array(length));
    this.lon = grow(this.lon, new Float32Array(length));
  }
}

function grow<T extends Uint32Array | Uint8Array | Float32Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/** The lowest initial (1-26) set in a non-zero mask. */
export const lowestInitial = (mask: number): number => 32 - Math.clz32(mask & -mask);

/** Calls visit with each initial (1-26) set in a mask. */
export function forEachInitial(mask: number, visit: (initial: number) => void): void {
  let m = mask;
  while (m !== 0) {
    const bit = 31 - Math.clz32(m & -m);
    visit(bit + 1);
    m &= m - 1;
  }
}
