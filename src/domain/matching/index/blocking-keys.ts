import { finish, hash3, hash4, hashPart, hashString, mix } from './hashing.ts';

/**
 * The blocking keys: each names a set of voters that could be the person of an input row. The
 * voter side (index build) and the query side (candidate generation) both compute keys here, so
 * they cannot drift apart. Every key is a 32-bit hash of small integers.
 */
export const KEY = {
  /** ZIP + surname sound: "name + ZIP", typo-tolerant on the surname. */
  zipLast: 1,
  /** ZIP + first-name group (nicknames share the formal name's group): survives a surname change or typo. */
  zipFirst: 2,
  /** Surname sound + first initial + birth year: "name + dob/age" without a location. */
  lastYear: 3,
  /** Full date of birth + first initial: survives a surname change. */
  dobFirst: 4,
  /** House number + ZIP: survives a misspelled street. */
  houseZip: 5,
  /** House number + the street's longest word (hashed) + state: addresses without a ZIP. */
  houseStreet: 6,
  phone: 7,
  email: 8,
  /** Map cell + surname sound: "similar name within a radius". */
  cellLast: 9,
  /** City + state + surname sound: "name + city" when the ZIP is missing. */
  cityLast: 10,
  /** Full date of birth + surname sound: survives a first-name change (nickname, typo). */
  dobLast: 11,
  /** Map cell + first-name group: a surname change within a radius. */
  cellFirst: 12,
  /** Second, independent hashes of phone and e-mail: a candidate agrees only when both list it. */
  phoneCheck: 13,
  emailCheck: 14,
  /** State + surname sound + first-name group: the fallback for rows with no ZIP, city or dob. */
  stateName: 15,
  /** City + state + first-name group: a surname change or typo when only the city is given. */
  cityFirst: 16,
  /** First-name group + surname initial + birth year: an age or dob with a misspelled surname. */
  firstYear: 17,
} as const;

export const keyZipLast = (zip: number, lastSound: number) => hash3(KEY.zipLast, zip, lastSound);
export const keyZipFirst = (zip: number, firstGroup: number) => hash3(KEY.zipFirst, zip, firstGroup);
export const keyCityFirst = (city: number, state: number, firstGroup: number) =>
  hash4(KEY.cityFirst, city, state, firstGroup);
export const keyFirstYear = (firstGroup: number, lastInitial: number, year: number) =>
  hash4(KEY.firstYear, firstGroup, lastInitial, year);
export const keyLastYear = (lastSound: number, firstInitial: number, year: number) =>
  hash4(KEY.lastYear, lastSound, firstInitial, year);
export const keyDobFirst = (dob: number, firstInitial: number) => hash3(KEY.dobFirst, dob, firstInitial);
export const keyDobLast = (dob: number, lastSound: number) => hash3(KEY.dobLast, dob, lastSound);
export const keyHouseZip = (house: number, zip: number) => hash3(KEY.houseZip, house, zip);
export const keyHouseStreet = (house: number, streetSound: number, state: number) =>
  hash4(KEY.houseStreet, house, streetSound, state);
export const keyCellLast = (cell: number, lastSound: number) => hash3(KEY.cellLast, cell, lastSound);
export const keyCellFirst = (cell: number, firstGroup: number) => hash3(KEY.cellFirst, cell, firstGroup);
export const keyStateName = (state: number, lastSound: number, firstGroup: number) =>
  hash4(KEY.stateName, state, lastSound, firstGroup);
export const keyCityLast = (city: number, state: number, lastSound: number) =>
  hash4(KEY.cityLast, city, state, lastSound);

/** A 10-digit phone as two 5-digit halves (it does not fit 32 bits). */
export const keyPhone = (phone: string): number =>
  hash3(KEY.phone, digitsValue(phone, 0, 5), digitsValue(phone, 5, phone.length));

export const keyPhoneCheck = (phone: string): number =>
  hash3(KEY.phoneCheck, digitsValue(phone, 0, 4), digitsValue(phone, 4, phone.length));

/** The number written by the digits phone[from, to), without slicing a string per key. */
export function digitsValue(phone: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + (phone.charCodeAt(i) - 48);
  return value;
}

export const keyEmail = (email: string) => finish(mix(KEY.email, hashString(email)));

/** A second hash of the e-mail by another function (murmur3 steps per code unit, not FNV). */
export function keyEmailCheck(email: string): number {
  let h: number = KEY.emailCheck;
  for (let i = 0; i < email.length; i++) h = mix(h, email.charCodeAt(i));
  return finish(mix(h, email.length));
}

/**
 * A text value (house number, city, state) as a key part: its hash, 0 when empty. Values, not
 * dictionary ids, so index segments built apart agree on every key.
 */
export const valueKey = (value: string): number => (value === '' ? 0 : hashPart(value));

/** ZIP as an integer; 0 when missing ('00501' → 501, so no real ZIP is 0). */
export const zipNumber = (zip: string): number => (zip === '' ? 0 : Number(zip));

/**
 * 32-bit words per map cell of its filter of the cell keys (keyCellLast, keyCellFirst) posted
 * in it: a radius search skips the lookups of keys a cell's filter does not hold. Most cells hold
 * a few voters, so most of a wide search's keys are absent from them (128 bits per occupied cell,
 * under a byte per voter).
 */
export const CELL_KEY_WORDS = 4;

/** Marks a cell key's hash in the filter of its cell (the words from `offset`). */
export function markCellKey(filter: Uint32Array, offset: number, hash: number): void {
  filter[offset + (hash >>> 30)]! |= 1 << ((hash >>> 25) & 31);
}

/** False when the cell's filter proves the key was never posted in the cell. */
export function mayHoldCellKey(filter: Uint32Array, offset: number, hash: number): boolean {
  return (filter[offset + (hash >>> 30)]! & (1 << ((hash >>> 25) & 31))) !== 0;
}

/** Map cells of 0.02° × 0.02° (about 1.4 × 1.1 miles at 40°N). */
export const CELL_DEGREES = 0.02;
const CELLS_PER_ROW = Math.ceil(360 / CELL_DEGREES);

export function cellOf(lat: number, lon: number): number {
  return cellAt(Math.floor((lat + 90) / CELL_DEGREES), Math.floor((lon + 180) / CELL_DEGREES));
}

export const cellAt = (row: number, column: number): number =>
  row * CELLS_PER_ROW + (((column % CELLS_PER_ROW) + CELLS_PER_ROW) % CELLS_PER_ROW);
