/** Dates of birth and ages: charCode parsing, no Date objects per call. */
import { isAsciiDigit } from './ascii.ts';
import { withoutZeroFraction } from './zero-fraction.ts';

/** A date of birth; month and day are 0 when unknown. */
export interface PartialDate {
  year: number;
  month: number;
  day: number;
}

/**
 * The most years a birth date may lie before the job date for a living voter (as an age may be at
 * most). An older date is still read: voter files hold placeholders (1900-01-01) and implausible
 * dates, and the same such date on both sides is evidence weighed by how common it is; only its
 * disagreement says nothing (see plausibleDobFrom).
 */
const MAX_AGE = 120;
/**
 * The earliest year read as a birth date at all (onboarding's identifier cleaner keeps the same
 * floor): 1800-01-01 and older are no one's date, not even a placeholder to agree on.
 */
export const OLDEST_DOB_YEAR = 1880;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Longest accepted form: 'YYYY-MM-DDTHH:MM:SS.sssZ' and a little slack. */
const MAX_DOB_CHARS = 40;

function daysIn(year: number, month: number): number {
  if (month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1]!;
}

/** Digits of value[from, to) as a number; -1 when any is not a digit. */
function digitsAt(value: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (!isAsciiDigit(c)) return -1;
    n = n * 10 + c - 48;
  }
  return n;
}

// One job has one reference date: its packed form is computed once, not per record. Keyed by
// time value rather than object, so a Date mutated with setTime is still right.
let lastAsOfTime = Number.NaN;
let lastAsOfPacked = 0;

function packedAsOf(asOf: Date): number {
  const time = asOf.getTime();
  if (time !== lastAsOfTime) {
    lastAsOfPacked = asOf.getUTCFullYear() * 10000 + (asOf.getUTCMonth() + 1) * 100 + asOf.getUTCDate();
    lastAsOfTime = time;
  }
  return lastAsOfPacked;
}

/** The earliest birth year of a person alive on asOf (MAX_AGE). */
const oldestYear = (asOf: Date) => Math.floor(packedAsOf(asOf) / 10000) - MAX_AGE - 1;

/**
 * The first packed date (yyyymmdd) of a plausible birth date on asOf: an earlier one (a
 * placeholder, or a date more than MAX_AGE years back) agrees only to the day, weighed by its
 * frequency in the voter file, and otherwise is not compared (its disagreement is no evidence).
 */
export const plausibleDobFrom = (asOf: Date) => oldestYear(asOf) * 10000;

/**
 * Whether eight digits (YYYYMMDD) are a real calendar date too long ago to be a birth date: a
 * placeholder for an unknown one, not a mistyped date to search the neighbours of.
 */
export function isPlaceholderDate(digits: string, asOf: Date): boolean {
  const year = Number(digits.slice(0, 4));
  const month = Number(digits.slice(4, 6));
  const day = Number(digits.slice(6, 8));
  return year < oldestYear(asOf) && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** Validates a year/month/day (month and day 0 = unknown) against the calendar and asOf. */
function checked(year: number, month: number, day: number, asOf: Date): PartialDate | null {
  if (year < OLDEST_DOB_YEAR || month < 0 || month > 12 || day < 0) return null;
  if (month === 0 ? day !== 0 : day > daysIn(year, month)) return null;
  // Not born after the reference date (compared at the precision given). UTC, like the job date.
  const asOfPacked = packedAsOf(asOf);
  const limit =
    month === 0
      ? Math.floor(asOfPacked / 10000) * 10000
      : day === 0
        ? Math.floor(asOfPacked / 100) * 100
        : asOfPacked;
  if (year * 10000 + month * 100 + day > limit) return null;
  return { year, month, day };
}

/**
 * Date of birth → PartialDate or null. Forms: YYYYMMDD (the spec's, 00 for an unknown month or
 * day, also in the forms with separators), YYYYMM, YYYY, YYYY-MM-DD / YYYY/MM/DD / YYYY-MM (1- or
 * 2-digit parts, a trailing time 'T…' or ' 00:00:00' as spreadsheets write it is ignored), U.S.
 * MM/DD/YYYY / M/D/YYYY (also with '-' or '.'), M/YYYY, MMDDYYYY where it is no YYYYMMDD (a year
 * starts 18, 19 or 20, a month never does), and dates with the month's name (monthNameDate:
 * `12-JUL-1959`, `Jul 12, 1959`).
 * A numeric date is read day first only where that is its one reading (a first part > 12, a second
 * of 12 or less: 31/01/1959); where both readings are dates, month first. A two-digit
 * year (`7/12/59`, `12-JUL-59`) is the latest of 19YY and 20YY that is MIN_AGE or more years
 * before asOf: a birth date, and lists are of people old enough to vote. Impossible dates, dates
 * before OLDEST_DOB_YEAR and dates after asOf → null (a placeholder such as 1900-01-01 is read, see
 * plausibleDobFrom). Never throws.
 */
export function parseDob(value: string, asOf: Date): PartialDate | null {
  let length = value.length;
  if (length === 8) {
    // Fast path: YYYYMMDD, as the voter file holds it.
    const digits = digitsAt(value, 0, 8);
    if (digits >= 0) return eightDigits(digits, asOf);
  }
  if (length > MAX_DOB_CHARS) return null;
  let start = 0;
  while (start < length && value.charCodeAt(start) <= 32) start++;
  while (length > start && value.charCodeAt(length - 1) <= 32) length--;
  // A number read and written back as one: '19590712.0'.
  length = withoutZeroFraction(value, start, length);
  // Three letters in a row: a month's name (a 'T' or 'Z' of an ISO time is one).
  for (let i = start, run = 0; i < length; i++) {
    const c = value.charCodeAt(i) | 32;
    run = c >= 97 && c <= 122 ? run + 1 : 0;
    if (run === 3) return monthNameDate(value.slice(start, length), asOf);
  }
  // Split into at most three runs of digits separated by one of '-', '/', '.'.
  let separator = 0;
  const parts = [0, 0, 0];
  const widths = [0, 0, 0];
  let count = 0;
  let i = start;
  for (; i < length; i++) {
    const c = value.charCodeAt(i);
    if (isAsciiDigit(c)) {
      if (count === 0) count = 1;
      if (widths[count - 1]! >= 8) return null;
      parts[count - 1] = parts[count - 1]! * 10 + c - 48;
      widths[count - 1]!++;
    } else if (c === 45 || c === 47 || c === 46) {
      if (count === 0 || widths[count - 1] === 0 || count === 3) return null;
      if (separator === 0) separator = c;
      else if (c !== separator) return null;
      count++;
    } else if ((c === 84 || c === 32) && count === 3 && widths[0] === 4) {
      // A time after a full ISO date: ignore the rest.
      break;
    } else if (c === 32 && count === 3 && widths[2] !== 0 && isTimeOfDay(value, i + 1, length)) {
      // A time after a month-first date, as spreadsheets write one ('7/12/1959 0:00').
      break;
    } else return null;
  }
  if (count === 0 || widths[count - 1] === 0) return null;
  const [p0, p1, p2] = parts as [number, number, number];
  const [w0, w1, w2] = widths as [number, number, number];
  if (count === 1) {
    if (w0 === 8) return eightDigits(p0, asOf);
    if (w0 === 6) return checked(Math.floor(p0 / 100), p0 % 100, 0, asOf);
    if (w0 === 4) return checked(p0, 0, 0, asOf);
    return null;
  }
  if (w0 === 4) {
    // Year first: YYYY-MM(-DD).
    if (w1 > 2 || (count === 3 && w2 > 2)) return null;
    // '1980.5' is a spreadsheet number, not May 1980.
    if (count === 2 && separator === 46) return null;
    // 00 for an unknown month or day, as in YYYYMMDD ('1959-00-00', '1959-07-00').
    if (count === 2 && p1 === 0) return null;
    return checked(p0, p1, count === 3 ? p2 : 0, asOf);
  }
  // Month and year: M/YYYY.
  if (count === 2) return w0 <= 2 && w1 === 4 && p0 !== 0 ? checked(p1, p0, 0, asOf) : null;
  // Month first: M/D/YYYY or M/D/YY (00 for an unknown month or day with a four-digit year).
  if (w0 > 2 || w1 > 2 || (w2 !== 4 && w2 !== 2)) return null;
  if (w2 === 2 && (p0 === 0 || p1 === 0)) return null;
  const year = w2 === 2 ? centuryOf(p2, asOf) : p2;
  // Day first where only that reading is a date (31/01/1969, 31.01.1969: a list kept in another
  // country's order). Where both are, month first stands, and a swap is a comparison level.
  if (p0 > 12 && p1 >= 1 && p1 <= 12) return checked(year, p1, p0, asOf);
  return checked(year, p0, p1, asOf);
}

/** Whether value[from, to) is a time of day: digits and colons, seconds' fraction, AM/PM. */
function isTimeOfDay(value: string, from: number, to: number): boolean {
  const time = value.slice(from, to).trim();
  return /^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?( ?[AP]M)?$/i.test(time);
}

/** A birth date's least age in years (a voter's): what a two-digit year is read by. */
const MIN_AGE = 17;

/** 19YY or 20YY: the latest at least MIN_AGE years before asOf. */
function centuryOf(yy: number, asOf: Date): number {
  const recent = 2000 + yy;
  return recent <= asOf.getUTCFullYear() - MIN_AGE ? recent : 1900 + yy;
}

/**
 * Eight digits: YYYYMMDD, else MMDDYYYY. The two cannot be confused: a year of a birth date
 * starts 18, 19 or 20, a month 0 or 1 (so the second reading is tried below year 1300 only).
 */
function eightDigits(n: number, asOf: Date): PartialDate | null {
  const year = Math.floor(n / 10000);
  const yearFirst = checked(year, Math.floor(n / 100) % 100, n % 100, asOf);
  if (yearFirst !== null || year >= 1300) return yearFirst;
  // 07/12/1959 without its slashes. Zeros are not unknown parts here: the form has none.
  const month = Math.floor(year / 100);
  const day = year % 100;
  return month === 0 || day === 0 ? null : checked(n % 10000, month, day, asOf);
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const MONTH_NAMES = [
  'JANUARY',
  'FEBRUARY',
  'MARCH',
  'APRIL',
  'MAY',
  'JUNE',
  'JULY',
  'AUGUST',
  'SEPTEMBER',
  'OCTOBER',
  'NOVEMBER',
  'DECEMBER',
];

/** 1-12 for a month's name, its three-letter abbreviation, or SEPT; 0 for any other word. */
function monthOf(word: string): number {
  const upper = word.toUpperCase();
  if (upper.length === 3) return MONTHS.indexOf(upper) + 1;
  if (upper === 'SEPT') return 9;
  return MONTH_NAMES.indexOf(upper) + 1;
}

/**
 * A date with its month's name, as databases and spreadsheets export them: day first
 * (`12-JUL-1959`, `12-Jul-59`, `12 July 1959`, SAS's `12JUL1959`) or month first (`Jul 12, 1959`,
 * `July 12 1959`, `Jul 12th, 1959`), or a month and year (`JUL 1959`). Parts are separated by
 * spaces, '-', '/', '.' or a comma, or not at all between digits and letters; a two-digit year
 * as in parseDob. A weekday's name before it (a spreadsheet's long date, `Sunday, July 12, 1959`)
 * and a time of day after it (`12-JUL-1959 00:00:00`) say nothing more and are passed over.
 * Anything else → null.
 */
function monthNameDate(value: string, asOf: Date): PartialDate | null {
  const time = TRAILING_TIME.exec(value);
  const parts = (time === null ? value : value.slice(0, time.index))
    .split(MONTH_DATE_PARTS)
    .filter((part) => part !== '');
  if (parts.length > 0 && WEEKDAYS.has(parts[0]!.toUpperCase())) parts.shift();
  const ordinal = parts.findIndex((part, i) => i > 0 && isOrdinalOf(parts[i - 1]!, part));
  if (ordinal > 0) parts.splice(ordinal, 1);
  if (parts.length < 2 || parts.length > 3) return null;
  const at = parts.findIndex((part) => monthOf(part) > 0);
  if (at < 0 || at === parts.length - 1) return null;
  const numbers = parts.filter((_, i) => i !== at);
  if (!numbers.every((part) => /^\d{1,4}$/.test(part))) return null;
  const month = monthOf(parts[at]!);
  const yearPart = numbers.at(-1)!;
  if (yearPart.length !== 4 && yearPart.length !== 2) return null;
  const year = yearPart.length === 2 ? centuryOf(Number(yearPart), asOf) : Number(yearPart);
  if (numbers.length === 1) return checked(year, month, 0, asOf);
  const dayPart = numbers[0]!;
  if (dayPart.length > 2 || Number(dayPart) === 0) return null;
  return checked(year, month, Number(dayPart), asOf);
}

/** Where a month-name date splits: separators, and between a run of digits and one of letters. */
const MONTH_DATE_PARTS = /[\s,./-]+|(?<=\d)(?=[A-Za-z])|(?<=[A-Za-z])(?=\d)/;

/** A time of day at the end: '00:00:00', '12:00 AM', '0:00:00.000'. */
const TRAILING_TIME = /\s+\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AP]M)?$/i;

const WEEKDAYS = new Set(
  ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'].flatMap((day) => [
    day,
    day.slice(0, 3),
  ]),
);

/** Whether `suffix` is the English ordinal ending of the day number `day` ('12' 'th', '1' 'st'). */
function isOrdinalOf(day: string, suffix: string): boolean {
  if (!/^\d{1,2}$/.test(day)) return false;
  const n = Number(day);
  const ending =
    n % 10 === 1 && n !== 11
      ? 'ST'
      : n % 10 === 2 && n !== 12
        ? 'ND'
        : n % 10 === 3 && n !== 13
          ? 'RD'
          : 'TH';
  return suffix.toUpperCase() === ending;
}

/** The years unit an age may be written with: ' yrs', 'y', ' years old'. */
const AGE_UNIT = /(?<=\d)\s*(?:y|yr|yrs|years?)(?:\s+old)?\.?$/i;

/**
 * Age in completed years at asOf → the two birth years it allows, [y - age - 1, y - age], or null
 * unless an integer 17..120 ('45', ' 45 ', '45.0', '45 yrs', '45 years old' accepted; '45.5',
 * '-3', '999', '85+' not: a top-coded age says no year).
 */
export function birthYearsFromAge(value: string, asOf: Date): [number, number] | null {
  let length = value.length;
  if (length > 20) return null;
  let start = 0;
  while (start < length && value.charCodeAt(start) <= 32) start++;
  while (length > start && value.charCodeAt(length - 1) <= 32) length--;
  const unit = AGE_UNIT.exec(value.slice(start, length));
  if (unit !== null) length = start + unit.index;
  // A number written back with a zero fraction ('45.0', '45.00' from spreadsheets).
  length = withoutZeroFraction(value, start, length);
  let age = 0;
  let digits = 0;
  let i = start;
  for (; i < length; i++) {
    const c = value.charCodeAt(i);
    if (!isAsciiDigit(c)) break;
    age = age * 10 + c - 48;
    if (++digits > 3) return null;
  }
  if (digits === 0 || i < length) return null;
  if (age < 17 || age > 120) return null;
  const year = Math.floor(packedAsOf(asOf) / 10000);
  return [year - age - 1, year - age];
}

/** PartialDate as a yyyymmdd integer (month/day 0 kept as 00). */
export function packDate(d: PartialDate): number {
  return d.year * 10000 + d.month * 100 + d.day;
}

/** Whether a packed date (packDate) has its month and its day: a whole date, not a year alone. */
export const isWholeDate = (packed: number) => packed % 100 !== 0 && Math.floor(packed / 100) % 100 !== 0;

/**
 * The eight digits (YYYYMMDD) of a value shaped like a full year-first date that is not a date:
 * `19399222`, `1961-13-04`, `1961/02/30`. A digit typo in a real date makes such a value, and
 * its digits still tell which dates it was typed from (dateTypoVariants); anything else
 * (letters, two-digit years, a century that is not 18, 19 or 20) → null. Call it only when
 * parseDob refused the value.
 */
export function invalidDateDigits(value: string): string | null {
  const trimmed = value.trim();
  let digits: string;
  if (/^\d{8}$/.test(trimmed)) digits = trimmed;
  else {
    const parts = /^(\d{4})([-/.])(\d{2})\2(\d{2})$/.exec(trimmed);
    if (parts === null) return null;
    digits = `${parts[1]}${parts[3]}${parts[4]}`;
  }
  return /^(18|19|20)/.test(digits) ? digits : null;
}

/**
 * Whether two packed dates (YYYYMMDD numbers) differ by one substituted digit or two swapped
 * neighbouring digits. Digit by digit on the numbers: the scorer asks it of most candidate pairs,
 * so it allocates nothing.
 */
export function isDigitTypo(a: number, b: number): boolean {
  if (a === b) return false;
  let differences = 0;
  let firstAt = 0;
  let aFirst = 0;
  let bFirst = 0;
  for (let at = 0; at < 8; at++, a = Math.floor(a / 10), b = Math.floor(b / 10)) {
    const da = a % 10;
    const db = b % 10;
    if (da === db) continue;
    differences++;
    if (differences === 1) {
      firstAt = at;
      aFirst = da;
      bFirst = db;
    } else if (differences > 2 || at !== firstAt + 1 || da !== bFirst || db !== aFirst) return false;
  }
  // Digits beyond the eighth (none in a date) must agree.
  return a === b;
}

/** The full dates (packed YYYYMMDD) one digit typo away from `digits`, in ascending order. */
export function dateTypoVariants(digits: string, asOf: Date): number[] {
  const found = new Set<number>();
  const consider = (candidate: string) => {
    const date = parseDob(candidate, asOf);
    if (date !== null && date.month !== 0 && date.day !== 0) found.add(packDate(date));
  };
  for (let i = 0; i < digits.length; i++) {
    for (let d = 0; d <= 9; d++) {
      const c = String(d);
      if (digits[i] !== c) consider(digits.slice(0, i) + c + digits.slice(i + 1));
    }
    if (i + 1 < digits.length && digits[i] !== digits[i + 1]) {
      consider(digits.slice(0, i) + digits[i + 1] + digits[i] + digits.slice(i + 2));
    }
  }
  return [...found].sort((x, y) => x - y);
}
