import { normalizeStateCode } from './contact.ts';
import { DIRECTIONALS, RANGELESS_UNITS, STREET_SUFFIXES, UNIT_DESIGNATORS } from './usps-tables.ts';

/*
 * A whole address written in address1: the street stays in address1, the rest becomes the row's
 * city, state and ZIP.
 */

/** A street, city, state and ZIP read from one line. */
export interface OneLineAddress {
  street: string;
  city: string;
  state: string;
  zip: string;
}

/** "12 OAK ST APT 4, RALEIGH NC 27601" → street, city, state, ZIP. */
export function splitOneLineAddress(value: string): OneLineAddress {
  const parts = value.split(',').map((p) => p.trim());
  let street = parts[0] ?? '';
  let index = 1;
  // "Apt 4, 123 Main St" or "c/o Jane Doe, 123 Main St": the street is the part after it, with
  // the unit (the address reader finds it before the street too; who the mail is for is dropped).
  if (parts.length > 1 && /^\d/.test(parts[1]!)) {
    if (UNIT_START.test(street)) street = `${street} ${parts[index++]}`;
    else if (CARE_OF.test(street)) street = parts[index++]!;
  }
  // "123 Main St, Apt 4": a part that starts with a unit designator belongs to the street.
  while (index < parts.length && UNIT_START.test(parts[index]!)) street = `${street} ${parts[index++]}`;
  const place = cityStateZip(parts.slice(index), 'state');
  // "12 Oak St. Raleigh, NC 27601": the city before the first comma, after the street's suffix;
  // not when a street word follows (MAIN STREET EXTENSION, OLD ST MARKS CHURCH RD are streets,
  // and a city such as PARK CITY stays in the street, as before).
  if (place.city === '' && (place.state !== '' || place.zip !== '')) {
    const words = street.replace(/\./g, '').trim().split(/\s+/);
    const upper = words.map((word) => word.toUpperCase());
    const end = streetEnd(upper);
    if (
      end > 0 &&
      end < words.length &&
      !upper.slice(end).some((word) => STREET_SUFFIXES.has(word) || /\d/.test(word))
    ) {
      return { ...place, street: words.slice(0, end).join(' '), city: words.slice(end).join(' ') };
    }
  }
  return { street, ...place };
}

/**
 * A city cell with the state and ZIP written after the city (`Raleigh, NC 27601`, `Raleigh NC`,
 * `Washington, D.C.`, `Raleigh, North Carolina`): the city alone, and the state and ZIP found.
 */
export function splitCityCell(value: string): { city: string; state: string; zip: string } {
  return cityStateZip(
    value.split(',').map((p) => p.trim()),
    'city',
  );
}

/**
 * A state cell with the ZIP after it (`NC 27601`, `North Carolina, 27601`): the two apart; null
 * for anything else.
 */
export function splitStateCell(value: string): { state: string; zip: string } | null {
  const found = /^(.*?)[\s,]+(\d{5}(?:-?\d{4})?)$/.exec(value.trim());
  if (found === null) return null;
  const state = normalizeStateCode(found[1]!);
  return state === null ? null : { state: found[1]!, zip: found[2]! };
}

/**
 * The city, state and ZIP of the comma-separated parts after a street (or of a city cell): the
 * ZIP last, the state before it (a code, also dotted, or after a comma a whole part: a name,
 * `N. Dak.`, `D.C.`), a country after them (`USA`) passed over, the rest the city. A state's name
 * is taken only as a part of its own: `PORT WASHINGTON` is a city. A state's code alone is the
 * state after a street, and the city in a city cell (`DE` is no city, but it is what was sent).
 */
function cityStateZip(
  input: readonly string[],
  lone: 'city' | 'state',
): { city: string; state: string; zip: string } {
  const parts = input.filter((part) => part !== '');
  if (parts.length > 0 && COUNTRY.test(parts.at(-1)!)) parts.pop();
  // A country after a ZIP is passed over.
  let words = wordsOf((parts.at(-1) ?? '').replace(COUNTRY_AFTER_ZIP, '$1'));
  let zip = '';
  if (words.length > 0 && ZIP.test(words.at(-1)!)) {
    zip = words.at(-1)!;
    words = words.slice(0, -1);
  }
  let state = '';
  let before = parts.slice(0, -1);
  if (words.length === 0 && zip !== '' && before.length > 0) {
    // "RALEIGH, NC, 27601": the state is the part before the ZIP's.
    words = wordsOf(before.at(-1)!);
    before = before.slice(0, -1);
  }
  if (words.length > 0 && before.length > 0 && normalizeStateCode(words.join(' ')) !== null) {
    state = words.join(' ');
    words = [];
  } else if (
    words.length > 0 &&
    isStateCode(words.at(-1)!) &&
    (words.length > 1 || before.length > 0 || lone === 'state')
  ) {
    state = words.at(-1)!;
    words = words.slice(0, -1);
  }
  const city = [...before, words.join(' ')].filter((part) => part !== '').join(' ');
  return { city, state, zip };
}

/** A part's words; periods go without a space, so "N.C." reads as NC. */
const wordsOf = (part: string): string[] =>
  part
    .replace(/\./g, '')
    .split(/\s+/)
    .filter((w) => w !== '');

/** A country after the ZIP: US, USA, U.S.A., United States (of America). */
const COUNTRY = /^(U\.?\s?S\.?(\s?A\.?)?|UNITED STATES(\s+OF\s+AMERICA)?)$/i;
const COUNTRY_AFTER_ZIP = /(\d)\s+(U\.?\s?S\.?(\s?A\.?)?|UNITED STATES(\s+OF\s+AMERICA)?)$/i;

/** A ZIP or ZIP+4 as one word. */
const ZIP = /^\d{5}(-?\d{4})?$/;

/** Two letters that are a state's code (NC, nc). */
const isStateCode = (word: string) => /^[A-Za-z]{2}$/.test(word) && normalizeStateCode(word) !== null;

/**
 * Secondary unit designators (USPS Publication 28 C2) that can follow a comma, and a rural
 * route's box ("RR 2, BOX 10"; BOX with its number: Box Elder is a city).
 */
const UNIT_START =
  /^(#|APT|APARTMENT|UNIT|STE|SUITE|BLDG|BUILDING|FL|FLOOR|RM|ROOM|LOT|TRLR|SPC|SPACE|DEPT)\b|^BOX\s+\d/i;

/** Who the mail is for, before the street: "c/o Jane Doe", "Attn: Billing". */
const CARE_OF = /^(C\s*\/\s*O|C\.\s*O\.|ATTN|ATTENTION)\b/i;

/** The street types most streets have: where a run of suffix words (VALLEY VIEW DR) ends a street. */
const COMMON_STREET_TYPES: ReadonlySet<string> = new Set([
  'ST',
  'AVE',
  'RD',
  'DR',
  'LN',
  'CT',
  'BLVD',
  'WAY',
  'PL',
  'CIR',
  'TER',
  'TRL',
  'PKWY',
  'HWY',
  'LOOP',
  'SQ',
]);

/**
 * "8420 5TH CT LOT 29 PHILADELPHIA PA 19144", with no comma to say where the street ends: a line
 * that ends with a state's two letters and a ZIP gives them, and the city is what follows the
 * street. The street ends at its suffix (from the third word on, after a house number and a
 * name; in a run of them the last common street type), with a post-directional (N, SW) and a
 * unit (LOT 29, #4, REAR) after it, or at a box's number (PO BOX 12). Without a suffix there, or
 * with digits after it, the city stays unknown and the line before the state is the street. Null for
 * a line that does not end with a state and a ZIP: a street alone (12 ELM CT ends with a state's
 * letters, so the ZIP is required).
 */
export function splitUnpunctuatedAddress(value: string): OneLineAddress | null {
  const words = value.replace(/\./g, '').trim().split(/\s+/);
  if (words.length < 5) return null;
  const zip = words.at(-1)!;
  const state = words.at(-2)!;
  if (!ZIP.test(zip) || !isStateCode(state)) return null;
  const line = words.slice(0, -2).map((word) => word.toUpperCase());
  let end = streetEnd(line);
  const city = end < 0 ? [] : line.slice(end);
  if (end < 0 || city.length === 0 || city.some((word) => /\d/.test(word))) end = line.length;
  const original = words.slice(0, -2);
  return {
    street: original.slice(0, end).join(' '),
    city: original.slice(end).join(' '),
    state,
    zip,
  };
}

/** Where the street of a line of upper-cased words ends (the index after it); -1 when unknown. */
function streetEnd(line: readonly string[]): number {
  // A PO box or a rural route's box: the street ends with the box's number.
  const box = line.indexOf('BOX');
  if (box >= 0 && box <= 3 && /^\d+$/.test(line[box + 1] ?? '')) return box + 2;
  // The first run of suffix words from the third word on; in it, the last common street type
  // (VALLEY VIEW DR SPRING HILL: DR), else its first word (LAKE DR MOUNT PLEASANT: DR).
  let from = 2;
  while (from < line.length && !STREET_SUFFIXES.has(line[from]!)) from++;
  if (from >= line.length) return -1;
  let at = from;
  for (let i = from; i < line.length && STREET_SUFFIXES.has(line[i]!); i++) {
    if (COMMON_STREET_TYPES.has(STREET_SUFFIXES.get(line[i]!)!)) at = i;
  }
  let end = at + 1;
  const next = line[end] ?? '';
  // Abbreviated only: WEST or NORTH after a street begins as many cities' names as it ends streets.
  if (next.length <= 2 && DIRECTIONALS.has(next)) end++;
  const unit = line[end] ?? '';
  if (unit.startsWith('#')) end += unit.length > 1 ? 1 : 2;
  else if (UNIT_DESIGNATORS.has(unit)) end += RANGELESS_UNITS.has(UNIT_DESIGNATORS.get(unit)!) ? 1 : 2;
  return Math.min(end, line.length);
}
