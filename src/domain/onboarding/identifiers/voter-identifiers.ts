import type { CoreVoterColumn } from '../../voters/voter-columns.ts';
import { type CleanOptions, cleanDateOfBirth, cleanPhone } from './clean-identifier.ts';
import type { IdentifierKey } from './identifier-keys.ts';
import {
  digestIdentifier,
  type PlatformRendering,
  renderCell,
  renderIdentifier,
} from './platform-rendering.ts';

/**
 * Pattern #1: a voter-file record → the identifiers sent for that person. The mapping follows the
 * open-source voter-data connector in platforms.md (first name → FN, last name → LN, wireless
 * phone first → PHONE, ZIP, gender, dob split into DOBY/DOBM/DOBD, city, state, e-mail), plus
 * COUNTRY=us because the voter file is U.S.-only and Meta weighs the country with city and ZIP.
 *
 * Not sent, on purpose:
 * - FI: it adds nothing to FN, which every voter record carries.
 * - EXTERN_ID: voterbase_id is the operator's key into the voter file; the platform has no use
 *   for it (no pixel or event carries it) and it would let the platform link uploads over time.
 * - MADID: the voter file has none. address1: the platforms have no street key.
 */
export const PATTERN1_SCHEMA: readonly IdentifierKey[] = [
  'EMAIL',
  'PHONE',
  'FN',
  'LN',
  'CT',
  'ST',
  'ZIP',
  'COUNTRY',
  'DOBY',
  'DOBM',
  'DOBD',
  'GEN',
];

/**
 * The voter-file columns Pattern #1 reads, in the order voterIdentifiers expects them (fetch them
 * with VoterSnapshot.fields and the positions from columnIndex). Phones in order of preference:
 * wireless (the number people register ad accounts with), then VoIP (often a personal number
 * that receives texts), then landline.
 */
export const PATTERN1_VOTER_COLUMNS = [
  'email',
  'wireless_phone',
  'voip_phone',
  'landline_phone',
  'first_name',
  'last_name',
  'city',
  'state',
  'zip',
  'dob',
  'gender',
] as const satisfies readonly CoreVoterColumn[];

const EMAIL = 0;
const PHONES = [1, 2, 3] as const;
const FIRST = 4;
const LAST = 5;
const CITY = 6;
const STATE = 7;
const ZIP = 8;
const DOB = 9;
const GENDER = 10;

/**
 * Raw values of one voter record in PATTERN1_SCHEMA order: the first usable phone in preference
 * order, the dob split (an impossible or future date blanks all three parts), COUNTRY `us`.
 * `fields` are in PATTERN1_VOTER_COLUMNS order; a missing one is blank. The readable form of
 * the mapping; createVoterRowRenderer is its fast equivalent.
 */
export function voterIdentifiers(fields: readonly string[], options: CleanOptions = {}): string[] {
  let phone = '';
  for (const at of PHONES) {
    const candidate = fields[at] ?? '';
    if (candidate !== '' && cleanPhone(candidate, options.callingCode) !== null) {
      phone = candidate;
      break;
    }
  }
  const dob = fields[DOB] ?? '';
  const birth = dob === '' ? null : cleanDateOfBirth(dob, options.asOf);
  return [
    fields[EMAIL] ?? '',
    phone,
    fields[FIRST] ?? '',
    fields[LAST] ?? '',
    fields[CITY] ?? '',
    fields[STATE] ?? '',
    fields[ZIP] ?? '',
    'us',
    birth?.year ?? '',
    birth?.month ?? '',
    birth?.day ?? '',
    fields[GENDER] ?? '',
  ];
}

/** Entries per memo before it starts over: bounds memory on a hostile all-distinct column. */
const MEMO_LIMIT = 100_000;

/**
 * Voter record (PATTERN1_VOTER_COLUMNS order) → the platform's cells in PATTERN1_SCHEMA order:
 * the same cells as createRowRenderer(rendering, PATTERN1_SCHEMA) over voterIdentifiers(fields)
 * (a test holds them equal), specialized for the million-row audiences: each phone is cleaned
 * once, COUNTRY is one constant, a YYYYMMDD dob's parts and ZIP, state and gender cells come
 * from arrays indexed by number (no string hashing), names and cities from memos by value. One renderer per job; the memos hold that job's cells
 * only. Returns a fresh array per row. Never throws.
 */
export function createVoterRowRenderer(
  rendering: PlatformRendering,
  options: CleanOptions = {},
): (fields: readonly string[]) => string[] {
  const asOf = options.asOf ?? new Date();
  const clean: CleanOptions = { ...options, asOf, country: 'us' };
  const callingCode = options.callingCode ?? '1';
  const hashed = rendering.hashing === 'sha256';
  const finish = (key: IdentifierKey, neutral: string | null): string => {
    if (neutral === null) return '';
    const value = renderIdentifier(rendering, key, neutral);
    if (value === null) return '';
    return hashed ? digestIdentifier(rendering, value) : value;
  };
  const memoized = (key: IdentifierKey) => {
    const cells = new Map<string, string>();
    return (raw: string): string => {
      if (raw === '') return '';
      let cell = cells.get(raw);
      if (cell === undefined) {
        cell = renderCell(rendering, key, raw, clean);
        if (cells.size >= MEMO_LIMIT) cells.clear();
        cells.set(raw, cell);
      }
      return cell;
    };
  };
  /** Values with a small numeric code (a 5-digit ZIP, a 2-letter state) memoized in an array. */
  const coded = (key: IdentifierKey, size: number, code: (raw: string) => number) => {
    const cells = new Array<string | undefined>(size);
    const other = memoized(key);
    return (raw: string): string => {
      const at = code(raw);
      if (at < 0) return other(raw);
      let cell = cells[at];
      if (cell === undefined) {
        cell = renderCell(rendering, key, raw, clean);
        cells[at] = cell;
      }
      return cell;
    };
  };
  const firstName = memoized('FN');
  const lastName = memoized('LN');
  const city = memoized('CT');
  const state = coded('ST', 128 * 128, twoLetters);
  const zip = coded('ZIP', 100_000, (raw) => (raw.length === 5 ? digitsValue(raw) : -1));
  const gender = coded('GEN', 128, (raw) =>
    raw.length === 1 && raw.charCodeAt(0) < 128 ? raw.charCodeAt(0) : -1,
  );
  const country = renderCell(rendering, 'COUNTRY', 'us', clean);
  const birthCells = (dob: string): readonly [string, string, string] => {
    const birth = cleanDateOfBirth(dob, asOf);
    return birth === null
      ? NO_BIRTH
      : [finish('DOBY', birth.year), finish('DOBM', birth.month), finish('DOBD', birth.day)];
  };
  // A YYYYMMDD dob (the voter file's form) is checked here as parseDob would and its parts come
  // from arrays by number: no string hashing per row. Other forms go through cleanDateOfBirth.
  const latest = asOf.getUTCFullYear() * 10000 + (asOf.getUTCMonth() + 1) * 100 + asOf.getUTCDate();
  const years = new Array<string | undefined>(Math.max(0, Math.floor(latest / 10000) - MIN_BIRTH_YEAR + 1));
  const months = new Array<string | undefined>(13);
  const days = new Array<string | undefined>(32);
  const part = (cells: (string | undefined)[], at: number, key: IdentifierKey, value: string): string =>
    (cells[at] ??= finish(key, value));
  const birth = (dob: string, out: string[]): void => {
    const packed = dob.length === 8 ? digitsValue(dob) : -1;
    if (packed < 0) {
      const cells = dob === '' ? NO_BIRTH : birthCells(dob);
      out[8] = cells[0];
      out[9] = cells[1];
      out[10] = cells[2];
      return;
    }
    const year = Math.floor(packed / 10000);
    const month = Math.floor(packed / 100) % 100;
    const day = packed % 100;
    // Not born after asOf, compared at the precision given (a year-only 2026 is not in the future).
    const limit =
      month === 0 ? Math.floor(latest / 10000) * 10000 : day === 0 ? Math.floor(latest / 100) * 100 : latest;
    const valid =
      year >= MIN_BIRTH_YEAR &&
      month <= 12 &&
      (month === 0 ? day === 0 : day <= daysIn(year, month)) &&
      packed <= limit;
    if (!valid) {
      out[8] = out[9] = out[10] = '';
      return;
    }
    out[8] = part(years, year - MIN_BIRTH_YEAR, 'DOBY', String(year));
    out[9] = month === 0 ? '' : part(months, month, 'DOBM', TWO_DIGITS[month]!);
    out[10] = month === 0 || day === 0 ? '' : part(days, day, 'DOBD', TWO_DIGITS[day]!);
  };
  return (fields) => {
    const out = new Array<string>(PATTERN1_SCHEMA.length);
    const email = fields[EMAIL] ?? '';
    out[0] = email === '' ? '' : renderCell(rendering, 'EMAIL', email, clean);
    out[1] = '';
    for (const at of PHONES) {
      const candidate = fields[at] ?? '';
      const phone = candidate === '' ? null : cleanPhone(candidate, callingCode);
      if (phone !== null) {
        out[1] = finish('PHONE', phone);
        break;
      }
    }
    out[2] = firstName(fields[FIRST] ?? '');
    out[3] = lastName(fields[LAST] ?? '');
    out[4] = city(fields[CITY] ?? '');
    out[5] = state(fields[STATE] ?? '');
    out[6] = zip(fields[ZIP] ?? '');
    out[7] = country;
    birth(fields[DOB] ?? '', out);
    out[11] = gender(fields[GENDER] ?? '');
    return out;
  };
}

const NO_BIRTH: readonly [string, string, string] = ['', '', ''];

/** As the matcher's dates.ts: earlier birth years are not believed. */
const MIN_BIRTH_YEAR = 1880;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const TWO_DIGITS = Array.from({ length: 32 }, (_, i) => String(i).padStart(2, '0'));

function daysIn(year: number, month: number): number {
  if (month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1]!;
}

/** ASCII digits (at most 15) as a number, else -1. */
function digitsValue(value: string): number {
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + c - 48;
  }
  return n;
}

/** Two ASCII letters as a number below 128 × 128, else -1. */
function twoLetters(value: string): number {
  if (value.length !== 2) return -1;
  const c0 = value.charCodeAt(0);
  const c1 = value.charCodeAt(1);
  const letter = (c: number) => (c | 0x20) >= 97 && (c | 0x20) <= 122;
  return letter(c0) && letter(c1) ? c0 * 128 + c1 : -1;
}
