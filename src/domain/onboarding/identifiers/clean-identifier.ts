import { isAsciiDigit } from '../../matching/normalize/ascii.ts';
import { normalizeGender, normalizeZip, US_STATE_NAMES } from '../../matching/normalize/contact.ts';
import { parseDob } from '../../matching/normalize/dates.ts';
import { isPlaceholder } from '../../matching/normalize/spreadsheet-cells.ts';
import type { IdentifierKey } from './identifier-keys.ts';

/**
 * The one cleaner of platform identifiers: each raw cell → a neutral form (Unicode NFC, trimmed,
 * lower-cased, digits only where digits are meant) or null when the value is unusable, so the
 * platform gets a blank cell and never a hash of "". Platform differences (phone `+`, gmail
 * canonicalization, digest encoding) are the renderers' business, not this module's. Unlike the
 * matcher's normalizers (src/domain/matching/normalize/) it keeps accents and other scripts:
 * platforms hash the UTF-8 of `valéry` or `정`, so folding them would never match. Never throws.
 */

export interface CleanOptions {
  /**
   * Calling code assumed for a phone written without one (digits, default '1'): the service
   * onboards U.S. voter data, where ten digits are a national number.
   */
  callingCode?: string;
  /**
   * Lower-case ISO country of the row when known (a Pattern #2 COUNTRY cell). Only 'us' (or
   * unknown) pads a 3-4 digit ZIP: an Australian `1987` is a whole postcode.
   */
  country?: string | null;
  /** Reference date: a birth date after it is refused (default: now). */
  asOf?: Date;
}

/** Longer than this is not a name, city or id, whatever it holds: bounds the work on hostile cells. */
const MAX_TEXT_CHARS = 256;
/** RFC 5321 path limit. */
const MAX_EMAIL_CHARS = 254;
const MAX_PHONE_CHARS = 40;
/** Earliest birth year believed, as the matcher's dates.ts. */
const MIN_BIRTH_YEAR = 1880;

const NOT_LETTER = /[^\p{L}\p{M}]/gu;
const LEADING_MARKS = /^\p{M}+/u;

/** ASCII letters only: the common case of voter files, cleaned without the regex or NFC. */
function asciiLettersOnly(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i) | 0x20;
    if (c < 97 || c > 122) return false;
  }
  return true;
}

/**
 * Letters of any script (with their combining marks), lower-cased, in NFC; spaces, punctuation,
 * digits, symbols, emoji and control characters dropped. Meta asks for names and cities with no
 * punctuation and no spaces (its examples `newyork`, its SDK `annemarie`, `obrien`).
 */
export function lettersOnly(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_TEXT_CHARS || isPlaceholder(raw)) return null;
  if (asciiLettersOnly(raw)) return raw.toLowerCase();
  // Lower-casing can decompose (İ → i + U+0307), so NFC comes last.
  // A combining mark left without its letter (its base was a digit or symbol) marks nothing.
  const letters = raw
    .normalize('NFC')
    .toLowerCase()
    .replace(NOT_LETTER, '')
    .replace(LEADING_MARKS, '')
    .normalize('NFC');
  return letters === '' ? null : letters;
}

/** FN, LN: letters only (`Mary Ann` → `maryann`, see the tests for why). */
export function cleanName(raw: string): string | null {
  return lettersOnly(raw);
}

/** FI: the first letter of the cleaned first name (`ABC` → `a`). */
export function cleanFirstInitial(raw: string): string | null {
  const name = lettersOnly(raw);
  if (name === null) return null;
  const first = String.fromCodePoint(name.codePointAt(0)!);
  // Keep the marks that belong to the first letter when NFC has no precomposed form for them.
  let end = first.length;
  while (end < name.length && /\p{M}/u.test(name.charAt(end))) end++;
  return name.slice(0, end);
}

/** CT: letters only (`New York` → `newyork`, `los_angeles` → `losangeles`). */
export function cleanCity(raw: string): string | null {
  return lettersOnly(raw);
}

/** U.S. state, DC and territory names without spaces, and their codes, lower-case → code. */
const STATE_CODES = new Map<string, string>();
for (const [name, code] of US_STATE_NAMES) {
  STATE_CODES.set(name.replaceAll(' ', '').toLowerCase(), code.toLowerCase());
  STATE_CODES.set(code.toLowerCase(), code.toLowerCase());
}

/**
 * ST: a U.S. state (DC, territory) name or code in any case, spacing or punctuation → its
 * lower-case code (`California`, `newyork`, `N.C.`); anything else is kept as its letters, which
 * is Meta's rule for states outside the U.S.
 */
export function cleanState(raw: string): string | null {
  const letters = lettersOnly(raw);
  if (letters === null) return null;
  return STATE_CODES.get(letters) ?? letters;
}

/** Country names people write instead of the ISO code; anything else must be the code itself. */
const COUNTRY_NAMES = new Map<string, string>([
  ['usa', 'us'],
  ['unitedstates', 'us'],
  ['unitedstatesofamerica', 'us'],
  ['america', 'us'],
  ['uk', 'gb'],
  ['unitedkingdom', 'gb'],
  ['greatbritain', 'gb'],
  ['canada', 'ca'],
  ['mexico', 'mx'],
  ['australia', 'au'],
  ['france', 'fr'],
  ['germany', 'de'],
]);

/**
 * COUNTRY: ISO 3166-1 alpha-2, lower-case (`US`, ` U.S. `, `United States` → `us`). A name not in
 * COUNTRY_NAMES is refused rather than cut to two letters (`United Kingdom` → `un` would be the
 * United Nations' code, not a country).
 */
export function cleanCountry(raw: string): string | null {
  const letters = lettersOnly(raw);
  if (letters === null) return null;
  if (letters.length === 2 && asciiLettersOnly(letters)) return letters;
  return COUNTRY_NAMES.get(letters) ?? null;
}

/**
 * ZIP: a digits-only value in the U.S. (or unknown country) goes through the matcher's
 * normalizeZip: 5 digits, ZIP+4 cut to 5 (`90210-1234`, `941011234`), 3-4 digits zero-padded
 * (`2134` → `02134`: the voter file stored it as an integer). Elsewhere, and for any postcode
 * with letters, the letters and digits lower-cased (`SW1A 1AA` → `sw1a1aa`, AU `1987`).
 */
export function cleanZip(raw: string, country?: string | null): string | null {
  if (raw.length === 0 || raw.length > 24) return null;
  let letters = false;
  let alnum = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 48 && c <= 57) alnum += raw[i];
    else if ((c | 0x20) >= 97 && (c | 0x20) <= 122) {
      letters = true;
      alnum += String.fromCharCode(c | 0x20);
    } else if (!(c === 32 || c === 45 || c === 9 || c === 0xa0)) return null;
  }
  if (!letters && (country == null || country === 'us')) return normalizeZip(raw.trim());
  // Every postcode system with letters also has digits: `null`, `none`, `tbd` are not postcodes.
  return alnum.length >= 2 && alnum.length <= 10 && /[0-9]/.test(alnum) ? alnum : null;
}

/**
 * EMAIL: trimmed, NFC, lower-cased; one '@' with something before it and a dotted domain after it,
 * no whitespace, control characters or address punctuation. Dots and `+tag` are kept (Meta,
 * LiveRamp and Snap hash the address as written); gmail canonicalization is a renderer option.
 */
export function cleanEmail(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_EMAIL_CHARS + 64) return null;
  let ascii = true;
  for (let i = 0; i < raw.length; i++) {
    if (raw.charCodeAt(i) > 126) {
      ascii = false;
      break;
    }
  }
  // NFC and the Unicode checks only for the rare non-ASCII address.
  const email = ascii ? raw.trim().toLowerCase() : raw.trim().normalize('NFC').toLowerCase();
  if (email.length > MAX_EMAIL_CHARS) return null;
  const at = email.indexOf('@');
  if (at <= 0 || at > 64 || email.indexOf('@', at + 1) >= 0) return null;
  const dot = email.lastIndexOf('.');
  if (dot < at + 2 || dot === email.length - 1) return null;
  for (let i = 0; i < email.length; i++) {
    const c = email.charCodeAt(i);
    if (c <= 32 || c === 127 || (c >= 0x80 && c <= 0xa0) || (c < 128 && NOT_IN_ADDRESS[c] === 1)) return null;
  }
  if (!ascii && /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/u.test(email)) return null;
  return email;
}

/** ASCII that only appears in an address quoted or as its display name, never in the bare form. */
const NOT_IN_ADDRESS = new Uint8Array(128);
for (const ch of '<>(),;:"[]\\') NOT_IN_ADDRESS[ch.charCodeAt(0)] = 1;

/**
 * PHONE → international digits without '+' (country code + number), or null. `+` or a leading
 * `00` marks an international number (its leading zeros dropped: `+001…`, `0044…`). A national
 * number gets `callingCode`: ten U.S. digits → `1` + them; with another calling code a trunk `0`
 * is replaced (`(02) 1234 5678` with '61'); a U.S. number never starts with 0, so that is
 * refused. Other digit counts are taken as already carrying their country code (`374-93-828222`).
 * Separators: spaces, `-`, `.`, `(`, `)`, `/`; letters (extensions, vanity numbers) → null. The
 * result has 8-15 digits (E.164), and exactly 11 when it starts with 1 (NANP).
 */
export function cleanPhone(raw: string, callingCode = '1'): string | null {
  if (raw.length === 0 || raw.length > MAX_PHONE_CHARS) return null;
  let digits = '';
  let plus = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (isAsciiDigit(c)) digits += raw[i];
    else if (c === 43 /* + */) {
      if (plus || digits !== '') return null;
      plus = true;
    } else if (
      !(c === 32 || c === 9 || c === 0xa0 || c === 45 || c === 46 || c === 40 || c === 41 || c === 47)
    )
      return null;
  }
  if (digits === '') return null;
  let number: string;
  if (plus || digits.startsWith('00')) number = stripLeadingZeros(digits);
  else if (digits.charCodeAt(0) === 48) {
    if (callingCode === '1') return null;
    number = callingCode + stripLeadingZeros(digits);
  } else if (callingCode === '1' && digits.length === 10) number = `1${digits}`;
  else number = digits;
  if (number.length < 8 || number.length > 15) return null;
  if (number.charCodeAt(0) === 49 && number.length !== 11) return null;
  return number;
}

function stripLeadingZeros(digits: string): string {
  let i = 0;
  while (i < digits.length && digits.charCodeAt(i) === 48) i++;
  return digits.slice(i);
}

/** GEN: `f` or `m` (female, woman, w / male, man); anything else, `U` and `Unknown` included → null. */
export function cleanGender(raw: string): 'f' | 'm' | null {
  const g = normalizeGender(raw.length === 1 ? raw : raw.trim());
  return g === 'F' ? 'f' : g === 'M' ? 'm' : null;
}

/** 1-2 digits after trimming → their value, else -1. */
function smallNumber(raw: string): number {
  const s = raw.length > 8 ? '' : raw.trim();
  if (s.length === 0 || s.length > 2) return -1;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isAsciiDigit(c)) return -1;
    n = n * 10 + c - 48;
  }
  return n;
}

const TWO_DIGITS = Array.from({ length: 32 }, (_, i) => String(i).padStart(2, '0'));

/** DOBY: four digits from 1880 to the reference year (`19999`, `1` and the future refused). */
export function cleanBirthYear(raw: string, asOf: Date = new Date()): string | null {
  const s = raw.length > 8 ? '' : raw.trim();
  if (s.length !== 4) return null;
  let year = 0;
  for (let i = 0; i < 4; i++) {
    const c = s.charCodeAt(i);
    if (!isAsciiDigit(c)) return null;
    year = year * 10 + c - 48;
  }
  return year >= MIN_BIRTH_YEAR && year <= asOf.getUTCFullYear() ? s : null;
}

const MONTHS = new Map<string, number>();
[
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
].forEach((name, i) => {
  MONTHS.set(name, i + 1);
  MONTHS.set(name.slice(0, 3), i + 1);
});
MONTHS.set('sept', 9);

/** DOBM: `01`-`12` from 1-2 digits or an English month name or abbreviation (`january`, `Jan.`). */
export function cleanBirthMonth(raw: string): string | null {
  const n = smallNumber(raw);
  if (n >= 1 && n <= 12) return TWO_DIGITS[n]!;
  if (n >= 0) return null;
  const name = raw.length > 16 ? null : lettersOnly(raw);
  const month = name === null ? undefined : MONTHS.get(name);
  return month === undefined ? null : TWO_DIGITS[month]!;
}

/** DOBD: `01`-`31` from 1-2 digits (`32` and `0` refused; the month is not known here). */
export function cleanBirthDay(raw: string): string | null {
  const n = smallNumber(raw);
  return n >= 1 && n <= 31 ? TWO_DIGITS[n]! : null;
}

export interface BirthDate {
  year: string;
  /** null when the source gives the year only (the voter file's `19700000`). */
  month: string | null;
  day: string | null;
}

/**
 * A whole date of birth (the voter file's YYYYMMDD, or `2/16/1997`, ISO …; see the matcher's
 * parseDob for the forms) → DOBY/DOBM/DOBD. Impossible dates (`19700231`), years before 1880 and
 * dates after asOf → null, so no part of a bad date is sent.
 */
export function cleanDateOfBirth(raw: string, asOf: Date = new Date()): BirthDate | null {
  const date = parseDob(raw.length > 40 ? '' : raw.trim(), asOf);
  if (date === null) return null;
  return {
    year: String(date.year),
    month: date.month === 0 ? null : TWO_DIGITS[date.month]!,
    day: date.month === 0 || date.day === 0 ? null : TWO_DIGITS[date.day]!,
  };
}

/** The all-zero IDFA/AAID is what a device sends when the user limits ad tracking: not a person. */
const ZERO_MADID = '00000000-0000-0000-0000-000000000000';

/**
 * MADID: trimmed and lower-cased, sent as is (never hashed); letters, digits and `-` only, at
 * most 64 characters; the all-zero id → null.
 */
export function cleanMadid(raw: string): string | null {
  if (raw.length === 0 || raw.length > 80) return null;
  const id = raw.trim().toLowerCase();
  if (id.length === 0 || id.length > 64 || id === ZERO_MADID || isPlaceholder(id)) return null;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!(isAsciiDigit(c) || (c >= 97 && c <= 122) || c === 45)) return null;
  }
  return id;
}

/**
 * EXTERN_ID: trimmed, NFC, lower-cased like every other key (Meta's SDK does the same, so one id
 * always hashes alike); control characters → null.
 */
export function cleanExternId(raw: string): string | null {
  if (raw.length === 0 || raw.length > MAX_TEXT_CHARS) return null;
  const id = raw.trim().normalize('NFC').toLowerCase();
  if (id === '' || isPlaceholder(id) || /[\p{Cc}\p{Cf}]/u.test(id)) return null;
  return id;
}

/** The neutral form of one raw cell of `key`, or null when unusable. Never throws. */
export function cleanIdentifier(key: IdentifierKey, raw: string, options: CleanOptions = {}): string | null {
  switch (key) {
    case 'EMAIL':
      return cleanEmail(raw);
    case 'PHONE':
      return cleanPhone(raw, options.callingCode);
    case 'FN':
    case 'LN':
      return cleanName(raw);
    case 'FI':
      return cleanFirstInitial(raw);
    case 'CT':
      return cleanCity(raw);
    case 'ST':
      return cleanState(raw);
    case 'ZIP':
      return cleanZip(raw, options.country);
    case 'COUNTRY':
      return cleanCountry(raw);
    case 'DOBY':
      return cleanBirthYear(raw, options.asOf);
    case 'DOBM':
      return cleanBirthMonth(raw);
    case 'DOBD':
      return cleanBirthDay(raw);
    case 'GEN':
      return cleanGender(raw);
    case 'MADID':
      return cleanMadid(raw);
    case 'EXTERN_ID':
      return cleanExternId(raw);
  }
}
