import { formalNames as formalNamesOf } from '../normalize/nicknames.ts';
import { phoneticCodes } from '../normalize/phonetic.ts';
import { hashPart } from './hashing.ts';

/*
 * The voter fields of the match index and the blocking features derived from names and
 * streets, shared by the index builder and the query side.
 */

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

/**
 * The fields whose whole-file values a shard's dictionaries hold, not only its voters': a row's
 * first and last names and its state are weighed by their counts in the whole file (term
 * frequencies, first-name genders and cohorts, a state's share, whether names may be swapped)
 * whichever shard it is matched in, also one where no voter has them (a row routed there by its
 * birth date or ZIP). Memory: the file's distinct names, in every shard (held once per thread:
 * StringDictionary.fromSharedValues).
 */
export const WHOLE_FILE_VALUES: readonly TextField[] = ['first', 'last', 'state'];

export const GENDER_CODE = { '': 0, F: 1, M: 2 } as const;
export const CONTACT_PHONE = 1;
export const CONTACT_EMAIL = 2;

export const soundOf = (name: string): number => (name === '' ? 0 : hashPart(phoneticCodes(name)[0]));
export const initialOf = (name: string): number => {
  const c = name.charCodeAt(0) - 64;
  return c >= 1 && c <= 26 ? c : 0;
};
export const initialBit = (name: string): number => {
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
  const groups = groupsOfOneName(first);
  // A first and a middle name written as one (MARY ANN, LISA MARY): also its first word's
  // groups, so the keys on a first name find the voter filed as MARY with the middle name ANN
  // (and a row's MARY the voter filed as MARY ANN) under another surname or a mistyped one.
  const space = first.indexOf(' ');
  if (space < 2) return groups;
  const more = groupsOfOneName(first.slice(0, space)).filter((group) => !groups.includes(group));
  return more.length === 0 ? groups : [...groups, ...more];
}

function groupsOfOneName(first: string): number[] {
  const formal = formalNamesOf(first);
  if (formal.length > 0) return formal.map((name) => hashPart(name));
  return [soundOf(first) ^ 0x1bd1e995];
}

/** Longest word of a street: the part least likely to be abbreviated differently. */
export function streetSound(street: string): number {
  if (street === '') return 0;
  let best = '';
  for (const word of street.split(' ')) if (word.length > best.length) best = word;
  return hashPart(best);
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
