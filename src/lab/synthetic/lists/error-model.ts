/**
 * The documented error model of synthetic contact lists: default rates and the value transformations.
 * Every rate is the probability that the error is applied to a row that is ELIGIBLE for it (see
 * ERROR_ELIGIBILITY); the generator counts eligible rows per tag in `ListReport.errorOpportunities`.
 */
import { FORMALS_BY_NICKNAME, NICKNAMES_BY_FORMAL } from './nicknames.ts';
import type { ListRng } from './rng.ts';

export const ERROR_RATES = {
  // Content errors: the list says something different from the voter file.
  nickname: 0.08,
  typo_first: 0.02,
  typo_last: 0.02,
  typo_street: 0.03,
  middle_dropped: 0.2,
  middle_initial: 0.2,
  married_surname: 0.05,
  mover: 0.08,
  stale_phone: 0.1,
  email_dots: 0.1,
  email_plus: 0.05,
  email_case: 0.1,
  dob_swap: 0.03,
  dob_year: 0.03,
  dob_missing: 0.02,
  latlong_jitter: 0.85,
  // Format variants: same facts, different shape.
  phone_format: 0.5,
  full_name: 0.1,
  one_line_address: 0.05,
  first_name_combined: 0.05,
  city_state_instead_of_zip: 0.15,
  age_instead_of_dob: 0.2,
  case_lower: 0.1,
  case_title: 0.15,
  voter_id_unpadded: 0.3,
  // Messy lists: what real client lists do besides the above.
  names_swapped: 0.02,
  middle_as_first: 0.02,
  house_number_changed: 0.02,
  house_number_missing: 0.01,
  street_split_join: 0.02,
  unit_other_line: 0.2,
  typo_city: 0.02,
  zip_transposed: 0.02,
  dob_invalid: 0.02,
  dob_year_only: 0.02,
  age_off_by_one: 0.1,
  dob_format: 0.1,
  first_middle_joined: 0.03,
  one_line_no_commas: 0.5,
  email_domain_typo: 0.03,
  couple_in_full_name: 0.3,
  nickname_aside: 0.03,
  name_scanned: 0.01,
  house_number_glued: 0.02,
  // Issue 36: other people's names, other address layouts, short moves, odd dates of birth.
  first_replaced: 0.02,
  goes_by_middle_no_middle: 0.02,
  address_lines_swapped: 0.03,
  mover_in_city: 0.04,
  mover_in_zip: 0.04,
  with_dob: 0.3,
  dob_placeholder: 0.01,
  // Not rolled: the share of such dates among the voter file's people (the synthetic voter file's
  // VOTER_DOB_PLACEHOLDER_SHARE and VOTER_DOB_OUT_OF_RANGE_SHARE); a non-member is given a date of
  // 1900-1910 at the same rate, so such a date does not tell a member.
  voter_dob_placeholder: 0.005,
  dob_out_of_range: 0.002,
  // Non-members: share of them that are near-twins of a real voter (the rest are invented people).
  near_twin: 0.5,
  // Non-members that are precision traps: a relative of a real voter who is not in the file
  // (each a share of non-members, where the list's pattern can tell the two apart).
  trap_jr_sr: 0.04,
  trap_twin: 0.04,
  trap_spouse: 0.04,
} as const;

/** The non-member kinds whose count is exact (a share of the non-members), not a roll per row. */
export const NON_MEMBER_TAGS = ['near_twin', 'trap_jr_sr', 'trap_twin', 'trap_spouse'] as const;
export type TrapTag = 'trap_jr_sr' | 'trap_twin' | 'trap_spouse';
export const TRAP_TAGS: readonly TrapTag[] = ['trap_jr_sr', 'trap_twin', 'trap_spouse'];

export type ErrorTag = keyof typeof ERROR_RATES;

export const ERROR_TAGS = Object.keys(ERROR_RATES) as ErrorTag[];

/** Which rows each tag can apply to (the denominator of its rate). */
export const ERROR_ELIGIBILITY: Readonly<Record<ErrorTag, string>> = {
  nickname: 'rows with first_name whose first name is in the nickname table (formal → nickname, or back)',
  typo_first: 'rows with first_name (not a couple) whose first name has ≥ 3 characters',
  typo_last: 'rows with last_name whose last name has ≥ 3 characters',
  typo_street: 'name_address rows whose address1 has a word of ≥ 3 letters',
  middle_dropped:
    'name_address rows (not a couple) whose middle name has ≥ 2 characters (one roll with middle_initial)',
  middle_initial: 'same rows as middle_dropped; the middle name becomes its initial',
  married_surname: 'rows with last_name (not a couple) of people with gender F; a new surname from the file',
  mover: 'name_address, name_zip and latlong_name rows: address, city, ZIP and coordinates of another place',
  stale_phone: 'phone rows: a different number in the same area code, not in the voter file',
  email_dots: 'email rows at gmail.com / googlemail.com: dots removed, or one added',
  email_plus:
    'email rows at providers with plus addressing (gmail, googlemail, outlook, hotmail, icloud): +tag',
  email_case: 'email rows: upper case or capitalized',
  dob_missing:
    'name_dob rows with a dob that is none of the odd ones (dob_placeholder, voter_dob_placeholder, dob_out_of_range): dob (and age) empty',
  dob_swap: 'name_dob rows with a dob left whose day ≤ 12 and day ≠ month: day and month swapped',
  dob_year: 'name_dob rows with a dob left and not swapped: year ± 1',
  latlong_jitter: 'latlong_name rows with coordinates: moved 10-500 m',
  phone_format: 'phone rows: punctuation variants such as (919) 555-0101, 919.555.0101, +1 919 555 0101',
  full_name:
    'name_address, name_dob, name_zip and latlong_name rows (not a couple): only full_name is filled',
  one_line_address:
    'name_address rows: "ADDRESS1 ADDRESS2, CITY ST ZIP" in address1, other address cells empty',
  first_name_combined: 'name_address and name_zip rows of members with a housemate of the same surname',
  city_state_instead_of_zip: 'name_zip rows: city and state instead of zip',
  age_instead_of_dob: 'name_dob rows with a dob left: age (as of asOf) instead of dob',
  case_lower: 'rows of every pattern except phone and ids (one roll with case_title): text in lower case',
  case_title: 'same rows as case_lower: text in title case',
  voter_id_unpadded: 'ids rows that use voter_id whose voter_id has leading zeros: zeros stripped',
  names_swapped: 'name rows (not a couple) with a first and a last name: the two swapped',
  middle_as_first:
    'name rows (not a couple) whose middle name has ≥ 2 characters: the middle name as first name, no middle',
  house_number_changed:
    'name_address rows (not a mover of any kind) whose address1 starts with a house number: another number, the rest intact (one roll with house_number_missing)',
  house_number_missing: 'same rows as house_number_changed: the house number left out',
  street_split_join:
    'name_address rows whose street has a word of ≥ 5 letters: one word split in two (HA VEN), or two words joined',
  unit_other_line:
    'name_address rows with a unit (address2, or APT/UNIT/#/LOT/STE at the end of address1): the unit written in the other line',
  typo_city: 'name_address and name_zip rows whose city has ≥ 3 characters: one typo in the city',
  zip_transposed:
    'name_address and name_zip rows whose ZIP has two different adjacent digits: those two swapped',
  dob_invalid:
    'name_dob rows with a dob left, not swapped or moved a year: one digit of month or day changed so the date does not exist',
  dob_year_only: 'name_dob rows with a dob left, unchanged by the above: only its year (YYYY)',
  age_off_by_one: 'name_dob rows that give an age instead of the dob: the age one more or one less',
  dob_format:
    'name_dob rows whose dob is a full date as the voter file has it: written 07/12/1959, 7/12/59, 12-JUL-59, Jul 12, 1959, 12JUL1959, 1959-07-12 00:00:00, Sunday, July 12, 1959 or 07121959 (one of the eight at random)',
  first_middle_joined:
    'name rows (not a couple, middle name not used as first) whose middle name has ≥ 2 characters: first and middle name in first_name (MICHAEL BRIAN), no middle',
  one_line_no_commas:
    'one_line_address rows: the line without its comma ("12 OAK ST APT 4 RALEIGH NC 27601")',
  email_domain_typo:
    'email rows at gmail.com, yahoo.com, hotmail.com, outlook.com, aol.com, icloud.com or comcast.net: one keystroke off in the domain (gmial.com, yahoo.con), never another real domain',
  couple_in_full_name:
    'first_name_combined rows: the couple written in full_name instead ("JOHN & MARY SMITH", "SMITH, JOHN AND MARY" or "JOHN SMITH & MARY SMITH")',
  nickname_aside:
    'rows with first_name whose first name has a nickname: the other form beside it, in parentheses or quotes ("ROBERT (BOB)", \'ROBERT "BOB"\')',
  name_scanned:
    'name rows whose last name has an M or W, or an O, I, S or B between two letters: one scanning slip (RN for M, VV for W, 0 1 5 8 for O I S B)',
  house_number_glued:
    'name_address rows whose address1 starts with a house number and a street word of ≥ 3 letters: the space between them dropped (1377SECOND ST)',
  first_replaced:
    'name rows (not a couple, not a precision trap) whose first name was not replaced by the middle name: another given name of the same gender from the file (not a nickname of the first or middle name, ≥ 2 edits from both, another first letter when one of 15 draws has it), the same person',
  goes_by_middle_no_middle:
    'name rows (not a couple, not a precision trap) whose middle name is blank: the person goes by a middle name the voter file does not hold; a middle name of the same gender from the file as first name (same conditions as first_replaced)',
  address_lines_swapped:
    'name_address rows not written on one line whose address1 starts with a house number: a property name (OAKWOOD APARTMENTS, THE PINES AT CARY) in address1 and the street line (with its unit) in address2; for half the rows with a unit in address2, the unit in address1 and the street in address2',
  mover_in_city:
    'name_address, name_zip and latlong_name rows (not a mover) whose city has another ZIP in the file: the street address, ZIP and coordinates of a voter of another ZIP of the same city (its unit number changed)',
  mover_in_zip:
    'name_address and latlong_name rows (not a mover of either kind) whose ZIP has another street address in the file: the street address and coordinates of another voter of the same ZIP (its unit number changed)',
  with_dob: 'name_address rows: the dob column filled (the date as the person has it, else as below)',
  dob_placeholder:
    'rows giving a dob (name_dob, name_address with_dob; not a precision trap) whose dob is a full date after 1910: written as the placeholder 1900-01-01 or 01/01/1900',
  voter_dob_placeholder:
    "member rows giving a dob whose voter's dob is the placeholder 19000101: the list gives a real-looking date (invented, not the voter's); rate as it falls",
  dob_out_of_range:
    'rows giving a dob whose person was born (per the voter file, or as a non-member) in 1900-1910: the date written as is, no other dob error; rate as it falls',
  near_twin:
    'non-members: same first name, last name and city as a real voter; other dob/address/phone/email/ids',
  trap_jr_sr:
    'non-members of name_dob rows, and name_address rows of voters with JR/SR: the father or son of a voter (same names and address, the other suffix, born 20-35 years apart), not in the file',
  trap_twin:
    'non-members of name rows: a twin of a voter (same last name, address and dob, another first name), not in the file',
  trap_spouse:
    "non-members of email rows: a voter's spouse (same last name and address, another first name, born within 6 years) who gives the voter's e-mail, not in the file",
};

// ---------------------------------------------------------------------------------------------
// Names

/** A nickname for a formal name or a formal name for a nickname; '' when the name is not in the table. */
export function nicknameSwap(rng: ListRng, first: string): string {
  const upper = first.toUpperCase();
  const nicks = NICKNAMES_BY_FORMAL.get(upper);
  if (nicks !== undefined) return rng.pick(nicks);
  const formals = FORMALS_BY_NICKNAME.get(upper);
  if (formals !== undefined) return rng.pick(formals);
  return '';
}

export function hasNickname(first: string): boolean {
  const upper = first.toUpperCase();
  return NICKNAMES_BY_FORMAL.has(upper) || FORMALS_BY_NICKNAME.has(upper);
}

const KEYBOARD_ROWS = ['QWERTYUIOP', 'ASDFGHJKL', 'ZXCVBNM'];
const ADJACENT = new Map<string, string>();
for (let r = 0; r < KEYBOARD_ROWS.length; r++) {
  const row = KEYBOARD_ROWS[r]!;
  for (let i = 0; i < row.length; i++) {
    let near = '';
    if (i > 0) near += row[i - 1];
    if (i + 1 < row.length) near += row[i + 1];
    const above = KEYBOARD_ROWS[r - 1];
    const below = KEYBOARD_ROWS[r + 1];
    if (above !== undefined) near += above.slice(Math.max(0, i - 1), i + 1);
    if (below !== undefined) near += below.slice(Math.max(0, i - 1), i + 1);
    ADJACENT.set(row[i]!, near);
  }
}
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export type TypoKind = 'substitution' | 'transposition' | 'omission' | 'keyboard';
export const TYPO_KINDS: readonly TypoKind[] = ['substitution', 'transposition', 'omission', 'keyboard'];

function isLetter(c: string): boolean {
  return c >= 'A' && c <= 'Z';
}

/**
 * One typing error in an upper-case value, never in its first character and only at an A-Z letter:
 * substitution (random letter), transposition (with the previous character), omission, or a
 * keyboard-adjacent key (QWERTY), each with probability 1/4. Returns the value unchanged only when it
 * has no A-Z letter after the first character.
 */
export function typo(rng: ListRng, value: string): { value: string; kind: TypoKind } {
  const positions: number[] = [];
  for (let i = 1; i < value.length; i++) if (isLetter(value[i]!)) positions.push(i);
  if (positions.length === 0) return { value, kind: 'substitution' };
  const i = rng.pick(positions);
  const c = value[i]!;
  let kind = rng.pick(TYPO_KINDS);
  if (kind === 'transposition' && value[i - 1] === c) kind = 'substitution';
  if (kind === 'transposition' && !isLetter(value[i - 1]!)) kind = 'keyboard';
  switch (kind) {
    case 'transposition':
      return { value: value.slice(0, i - 1) + c + value[i - 1] + value.slice(i + 1), kind };
    case 'omission':
      return { value: value.slice(0, i) + value.slice(i + 1), kind };
    case 'keyboard': {
      const near = ADJACENT.get(c) ?? LETTERS;
      return { value: value.slice(0, i) + rng.pick([...near]) + value.slice(i + 1), kind };
    }
    default: {
      let r = rng.pick([...LETTERS]);
      if (r === c) r = r === 'Z' ? 'A' : String.fromCharCode(r.charCodeAt(0) + 1);
      return { value: value.slice(0, i) + r + value.slice(i + 1), kind: 'substitution' };
    }
  }
}

export function typoEligible(value: string): boolean {
  let letters = 0;
  for (let i = 0; i < value.length; i++) if (isLetter(value[i]!)) letters++;
  return value.length >= 3 && letters >= 2;
}

/** Title case per word: "O'BRIEN-SMITH JR" → "O'brien-Smith Jr". */
export function titleCase(value: string): string {
  return value
    .toLowerCase()
    .replace(/(^|[\s-])(\p{L})/gu, (_, sep: string, ch: string) => sep + ch.toUpperCase());
}

/**
 * A full_name in one of several common shapes. `keepSuffix`: never the shape without the suffix
 * (a father-or-son trap's suffix is what tells it apart).
 */
export function fullName(
  rng: ListRng,
  first: string,
  middle: string,
  last: string,
  suffix: string,
  keepSuffix = false,
): string {
  let r = rng.float();
  if (keepSuffix && r >= 0.4 && r < 0.65) r = 0;
  const sfx = suffix === '' ? '' : ` ${suffix}`;
  if (r < 0.4) return [first, middle, last].filter((p) => p !== '').join(' ') + sfx;
  if (r < 0.65) return `${first} ${last}`;
  if (r < 0.85) return `${last}${sfx}, ${[first, middle].filter((p) => p !== '').join(' ')}`;
  return middle === '' ? `${first} ${last}${sfx}` : `${first} ${middle.charAt(0)}. ${last}${sfx}`;
}

/** Two people in one full name, in one of the shapes mailing lists use. */
export function coupleFullName(rng: ListRng, a: string, b: string, last: string): string {
  const r = rng.float();
  if (r < 0.5) return `${a} & ${b} ${last}`;
  if (r < 0.8) return `${last}, ${a} AND ${b}`;
  return `${a} ${last} & ${b} ${last}`;
}

/** A first name with its other form beside it: ROBERT (BOB), ROBERT "BOB". */
export function withNicknameAside(rng: ListRng, first: string): string {
  const other = nicknameSwap(rng, first);
  return rng.chance(0.7) ? `${first} (${other})` : `${first} "${other}"`;
}

// ---------------------------------------------------------------------------------------------
// Phones and e-mails

/** 10 digits of a U.S. phone number, or '' (a leading country code 1 is dropped). */
export function phoneDigits(value: string): string {
  let digits = value.replace(/\D/g, '');
  if (digits.length === 11 && digits.startsWith('1')) digits = digits.slice(1);
  return digits.length === 10 ? digits : '';
}

export function formatPhone(rng: ListRng, digits: string): string {
  const a = digits.slice(0, 3);
  const b = digits.slice(3, 6);
  const c = digits.slice(6);
  switch (rng.int(7)) {
    case 0:
      return `(${a}) ${b}-${c}`;
    case 1:
      return `${a}.${b}.${c}`;
    case 2:
      return `${a}-${b}-${c}`;
    case 3:
      return `+1 ${a} ${b} ${c}`;
    case 4:
      return `1-${a}-${b}-${c}`;
    case 5:
      return `+1${digits}`;
    default:
      return `${a} ${b} ${c}`;
  }
}

const PLUS_PROVIDERS = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'icloud.com']);
const DOT_PROVIDERS = new Set(['gmail.com', 'googlemail.com']);
const PLUS_TAGS = ['news', 'shop', 'vote', 'list', 'promo', 'donate', '2024', 'work'];

function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export function emailDotsEligible(email: string): boolean {
  const at = email.lastIndexOf('@');
  return at > 1 && DOT_PROVIDERS.has(domainOf(email));
}

export function emailPlusEligible(email: string): boolean {
  return email.lastIndexOf('@') > 0 && PLUS_PROVIDERS.has(domainOf(email));
}

/** Gmail dot variant: removes every dot when there are some, else adds one inside the local part. */
export function emailDots(rng: ListRng, email: string): string {
  const at = email.lastIndexOf('@');
  const local = email.slice(0, at);
  const domain = email.slice(at);
  if (local.includes('.')) return local.replaceAll('.', '') + domain;
  const i = 1 + rng.int(local.length - 1);
  return `${local.slice(0, i)}.${local.slice(i)}${domain}`;
}

export function emailPlus(rng: ListRng, email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, at)}+${rng.pick(PLUS_TAGS)}${email.slice(at)}`;
}

export function emailCase(rng: ListRng, email: string): string {
  if (rng.chance(0.5)) return email.toUpperCase();
  const at = email.lastIndexOf('@');
  return titleCase(email.slice(0, at).replace(/[._]/g, (m) => `${m} `)).replace(/ /g, '') + email.slice(at);
}

// The generator's own list of big providers, not the matcher's (normalize/email-domain-typos.ts):
// the generator says what lists hold, and the tests check that the matcher reads it back.
const TYPO_PROVIDERS = new Set([
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'aol.com',
  'icloud.com',
  'comcast.net',
]);
/** Real domains a keystroke from a provider: a typo must not make one. */
const REAL_NEIGHBOURS = new Set(['ymail.com', 'mail.com', 'email.com', 'aim.com', 'ao.com', 'sol.com']);

export function emailDomainTypoEligible(email: string): boolean {
  return email.lastIndexOf('@') > 0 && TYPO_PROVIDERS.has(domainOf(email));
}

/**
 * One keystroke off in the domain, as people mistype their own address: two neighbouring letters
 * swapped, a letter dropped or doubled, or the TLD mistyped (con, co, cm; ner). Never the
 * provider itself or another real domain.
 */
export function emailDomainTypo(rng: ListRng, email: string): string {
  const at = email.lastIndexOf('@');
  const domain = domainOf(email);
  const dot = domain.indexOf('.');
  const label = domain.slice(0, dot);
  const tld = domain.slice(dot + 1);
  for (let attempt = 0; attempt < 20; attempt++) {
    let typo: string;
    const i = 1 + rng.int(label.length - 1);
    switch (rng.int(4)) {
      case 0:
        typo = `${label.slice(0, i - 1)}${label[i]}${label[i - 1]}${label.slice(i + 1)}.${tld}`;
        break;
      case 1:
        typo = `${label.slice(0, i)}${label.slice(i + 1)}.${tld}`;
        break;
      case 2:
        typo = `${label.slice(0, i)}${label[i]}${label.slice(i)}.${tld}`;
        break;
      default:
        typo = `${label}.${rng.pick(tld === 'net' ? ['ner', 'nte', 'ne'] : ['con', 'co', 'cm', 'comm'])}`;
    }
    if (typo !== domain && !REAL_NEIGHBOURS.has(typo) && !TYPO_PROVIDERS.has(typo))
      return `${email.slice(0, at)}@${typo}`;
  }
  return `${email.slice(0, at)}@${label}.con`;
}

/** Key under which an e-mail is compared for collisions: lower case, gmail dots and +tags removed. */
export function emailKey(email: string): string {
  const lower = email.toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  let local = lower.slice(0, at);
  const domain = lower.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus >= 0 && PLUS_PROVIDERS.has(domain)) local = local.slice(0, plus);
  if (DOT_PROVIDERS.has(domain)) local = local.replaceAll('.', '');
  return `${local}@${domain}`;
}

// ---------------------------------------------------------------------------------------------
// Dates and places

const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** [year, month, day] of a valid YYYYMMDD, else null. */
export function parseDob(dob: string): [number, number, number] | null {
  if (!/^\d{8}$/.test(dob)) return null;
  const y = Number(dob.slice(0, 4));
  const m = Number(dob.slice(4, 6));
  const d = Number(dob.slice(6, 8));
  if (m < 1 || m > 12 || d < 1 || d > MONTH_DAYS[m - 1]! || (m === 2 && d === 29 && !isLeap(y))) return null;
  return [y, m, d];
}

export function formatDob(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`;
}

const MONTH_ABBREVIATIONS = [
  'JAN',
  'FEB',
  'MAR',
  'APR',
  'MAY',
  'JUN',
  'JUL',
  'AUG',
  'SEP',
  'OCT',
  'NOV',
  'DEC',
];

/** A YYYYMMDD date in one of the shapes spreadsheets and databases export (dob_format). */
export function writeDobAs(rng: ListRng, dob: string): string {
  const [y, m, d] = parseDob(dob)!;
  const mm = String(m).padStart(2, '0');
  const dd = String(d).padStart(2, '0');
  const yy = String(y % 100).padStart(2, '0');
  const month = MONTH_ABBREVIATIONS[m - 1]!;
  const monthTitle = `${month.charAt(0)}${month.slice(1).toLowerCase()}`;
  switch (rng.int(8)) {
    case 0:
      return `${mm}/${dd}/${y}`;
    case 1:
      return `${m}/${d}/${yy}`;
    case 2:
      return `${dd}-${month}-${yy}`;
    case 3:
      return `${monthTitle} ${d}, ${y}`;
    case 4:
      // SAS's DATE9.
      return `${dd}${month}${y}`;
    case 5:
      // A database's datetime.
      return `${y}-${mm}-${dd} 00:00:00`;
    case 6:
      // A spreadsheet's long date.
      return `${WEEKDAY_NAMES[new Date(Date.UTC(y, m - 1, d)).getUTCDay()]}, ${MONTH_NAMES[m - 1]} ${d}, ${y}`;
    default:
      return `${mm}${dd}${y}`;
  }
}

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function dobSwapEligible(dob: string): boolean {
  const p = parseDob(dob);
  return p !== null && p[2] <= 12 && p[2] !== p[1];
}

export function dobSwap(dob: string): string {
  return dob.slice(0, 4) + dob.slice(6, 8) + dob.slice(4, 6);
}

export function dobYear(rng: ListRng, dob: string): string {
  const [y, m, d] = parseDob(dob)!;
  const year = y + (rng.chance(0.5) ? 1 : -1);
  return formatDob(year, m, m === 2 && d === 29 && !isLeap(year) ? 28 : d);
}

/** Whole years of age on `asOf` (UTC). */
export function ageOn(dob: string, asOf: Date): number {
  const [y, m, d] = parseDob(dob)!;
  const ay = asOf.getUTCFullYear();
  const am = asOf.getUTCMonth() + 1;
  const ad = asOf.getUTCDate();
  return ay - y - (am < m || (am === m && ad < d) ? 1 : 0);
}

/** Moves a coordinate pair by 10-500 m (log-uniform) in a random direction; 6 decimals. */
export function jitterLatLong(
  rng: ListRng,
  lat: number,
  lon: number,
  minM = 10,
  maxM = 500,
): [string, string] {
  const distance = minM * (maxM / minM) ** rng.float();
  const angle = rng.float() * 2 * Math.PI;
  const dLat = (distance * Math.cos(angle)) / 111_320;
  const dLon = (distance * Math.sin(angle)) / (111_320 * Math.max(0.01, Math.cos((lat * Math.PI) / 180)));
  return [(lat + dLat).toFixed(6), (lon + dLon).toFixed(6)];
}

/** Haversine distance in meters. */
export function distanceMeters(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Replaces every digit with a random digit (a run's first digit is never 0): new house/unit numbers. */
export function randomizeDigits(rng: ListRng, value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      const runStart = i === 0 || !(value.charCodeAt(i - 1) >= 48 && value.charCodeAt(i - 1) <= 57);
      out += runStart ? String(1 + rng.int(9)) : String(rng.int(10));
    } else {
      out += value[i];
    }
  }
  return out;
}

/**
 * A new house number for a street line: the leading number is replaced by a random one of the same length
 * (`5930 MONROE ST` → `1284 MONROE ST`, ordinals such as `5TH ST` untouched); a line without a leading
 * number (`PO BOX 123`, `RR 2 BOX 45`) gets its last number replaced.
 */
export function newHouseNumber(rng: ListRng, address1: string): string {
  const lead = /^\d+/.exec(address1);
  if (lead !== null) return randomizeDigits(rng, lead[0]) + address1.slice(lead[0].length);
  const runs = [...address1.matchAll(/\d+/g)];
  const last = runs[runs.length - 1];
  if (last === undefined) return address1;
  const at = last.index;
  return address1.slice(0, at) + randomizeDigits(rng, last[0]) + address1.slice(at + last[0].length);
}

/**
 * A random id shaped like `sample`: its leading non-digit prefix kept (`NC-`, `ET`), then every digit
 * replaced by a random digit and every letter by a random letter of the same case.
 */
export function mimicId(rng: ListRng, sample: string): string {
  let i = 0;
  while (i < sample.length && !/\d/.test(sample[i]!)) i++;
  if (i === sample.length) i = Math.min(2, sample.length);
  let out = sample.slice(0, i);
  for (; i < sample.length; i++) {
    const c = sample[i]!;
    if (c >= '0' && c <= '9') out += String(rng.int(10));
    else if (c >= 'A' && c <= 'Z') out += LETTERS[rng.int(26)];
    else if (c >= 'a' && c <= 'z') out += LETTERS[rng.int(26)]!.toLowerCase();
    else out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Messy lists

/** A street line's house number (with its space) and words, and which words can be split or joined. */
function streetWords(address1: string): {
  lead: string;
  words: string[];
  joinable: number[];
  long: number[];
} {
  const lead = /^\d\S* /.exec(address1)?.[0] ?? '';
  const words = address1.slice(lead.length).split(' ');
  const joinable: number[] = [];
  for (let i = 0; i + 1 < words.length; i++) {
    if (/^[A-Z]{2,}$/.test(words[i]!) && /^[A-Z]{2,}$/.test(words[i + 1]!)) joinable.push(i);
  }
  const long = words.map((w, i) => (/^[A-Z]{5,}$/.test(w) ? i : -1)).filter((i) => i >= 0);
  return { lead, words, joinable, long };
}

/** Whether street_split_join can change a street line (a long word to split, or two words to join). */
export function streetSplitJoinEligible(address1: string): boolean {
  const { joinable, long } = streetWords(address1);
  return joinable.length > 0 || long.length > 0;
}

/**
 * Splits one street word of ≥ 5 letters in two (`HAVEN` → `HA VEN`), or, half the time when the
 * street has two adjacent words of letters, joins them (`WILLOW CREEK` → `WILLOWCREEK`). The house
 * number is never touched.
 */
export function splitOrJoinStreet(rng: ListRng, address1: string): string {
  const { lead, words, joinable, long } = streetWords(address1);
  if (joinable.length > 0 && (long.length === 0 || rng.chance(0.5))) {
    const i = rng.pick(joinable);
    words.splice(i, 2, words[i]! + words[i + 1]!);
  } else if (long.length > 0) {
    const i = rng.pick(long);
    const word = words[i]!;
    const at = 2 + rng.int(word.length - 3);
    words[i] = `${word.slice(0, at)} ${word.slice(at)}`;
  }
  return lead + words.join(' ');
}

/** A scanner's misreading of one letter: as two (RN for M, VV for W) or as a look-alike digit. */
const SCANNED_LETTERS: Readonly<Record<string, string>> = {
  M: 'RN',
  W: 'VV',
  O: '0',
  I: '1',
  S: '5',
  B: '8',
};

/** Positions of `name` where scannedSlip can act (a digit only between two letters, as in a word). */
function scannedPositions(name: string): number[] {
  const at: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    const slip = SCANNED_LETTERS[c];
    if (slip === undefined) continue;
    if (slip.length === 1 && !(isLetter(name[i - 1] ?? '') && isLetter(name[i + 1] ?? ''))) continue;
    at.push(i);
  }
  return at;
}

export function scannedSlipEligible(name: string): boolean {
  return scannedPositions(name).length > 0;
}

/** One letter of the name misread by a scanner: `MARY` → `RNARY`, `WILSON` → `WIL5ON`. */
export function scannedSlip(rng: ListRng, name: string): string {
  const at = scannedPositions(name);
  if (at.length === 0) return name;
  const i = rng.pick(at);
  return name.slice(0, i) + SCANNED_LETTERS[name[i]!]! + name.slice(i + 1);
}

const GLUABLE_HOUSE_NUMBER = /^(\d+) ([A-Z]{3})/;

export function houseNumberGluedEligible(address1: string): boolean {
  return GLUABLE_HOUSE_NUMBER.test(address1);
}

/** The space between the house number and the street's first word dropped: `1377SECOND ST`. */
export function glueHouseNumber(address1: string): string {
  return address1.replace(GLUABLE_HOUSE_NUMBER, '$1$2');
}

const UNIT_AT_END = /^(.*\S) ((?:APT|UNIT|STE|LOT|#) ?\S+)$/;

/** A street line without a unit written at its end (`12 OAK ST APT 4` → `12 OAK ST`), upper case. */
export function streetWithoutUnit(address1: string): string {
  const upper = address1.toUpperCase();
  return UNIT_AT_END.exec(upper)?.[1] ?? upper;
}

export function unitOtherLineEligible(address1: string, address2: string): boolean {
  return address2 !== '' || UNIT_AT_END.test(address1);
}

/** The unit moved to the other address line: address2 appended to address1, or a trailing unit of address1 to address2. */
export function unitOtherLine(address1: string, address2: string): [string, string] {
  if (address2 !== '') return [`${address1} ${address2}`, ''];
  const m = UNIT_AT_END.exec(address1);
  return m === null ? [address1, address2] : [m[1]!, m[2]!];
}

export function zipTransposedEligible(zip: string): boolean {
  for (let i = 0; i + 1 < Math.min(zip.length, 5); i++) if (zip[i] !== zip[i + 1]) return true;
  return false;
}

/** Two different adjacent digits of the five-digit ZIP swapped. */
export function transposeZip(rng: ListRng, zip: string): string {
  const at: number[] = [];
  for (let i = 0; i + 1 < Math.min(zip.length, 5); i++) if (zip[i] !== zip[i + 1]) at.push(i);
  if (at.length === 0) return zip;
  const i = rng.pick(at);
  return zip.slice(0, i) + zip[i + 1] + zip[i] + zip.slice(i + 2);
}

/**
 * A date with one digit of its month or day changed so that it does not exist (`19390922` →
 * `19391922`, `19390932`): what a typing slip does to a date a form does not check.
 */
export function invalidDob(rng: ListRng, dob: string): string {
  for (let attempt = 0; attempt < 50; attempt++) {
    const at = 4 + rng.int(4);
    const digit = String(rng.int(10));
    if (digit === dob[at]) continue;
    const next = dob.slice(0, at) + digit + dob.slice(at + 1);
    if (parseDob(next) === null) return next;
  }
  return `${dob.slice(0, 4)}13${dob.slice(6)}`;
}

/**
 * Whether two first names are clearly different people's: not equal, not a nickname of each other,
 * and at least two edits apart (a twin or a spouse must not read as the voter with a typo).
 */
export function clearlyDifferentNames(a: string, b: string): boolean {
  const x = a.toUpperCase();
  const y = b.toUpperCase();
  if (x === y) return false;
  if ((NICKNAMES_BY_FORMAL.get(x) ?? []).includes(y) || (NICKNAMES_BY_FORMAL.get(y) ?? []).includes(x)) {
    return false;
  }
  if ((FORMALS_BY_NICKNAME.get(x) ?? []).includes(y) || (FORMALS_BY_NICKNAME.get(y) ?? []).includes(x)) {
    return false;
  }
  return editDistance(x, y) >= 2;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

// ---------------------------------------------------------------------------------------------
// Issue 36: odd dates of birth and property names

/** The voter files' placeholder for an unknown date of birth. */
export const DOB_PLACEHOLDER = '19000101';

/** Whether a dob (YYYYMMDD or YYYY) lies in 1900-1910: the placeholder, or a real-looking date no voter has. */
export function isOddDob(dob: string): boolean {
  if (!/^\d{4}/.test(dob)) return false;
  const year = Number(dob.slice(0, 4));
  return year >= 1900 && year <= 1910;
}

/** A real-looking date of 1900-1910 (never the placeholder 1900-01-01). */
export function outOfRangeDob(rng: ListRng): string {
  const year = rng.range(1900, 1910);
  const month = rng.range(1, 12);
  const day = rng.range(month === 1 && year === 1900 ? 2 : 1, month === 2 ? 28 : 30);
  return formatDob(year, month, day);
}

/** The placeholder date as lists write it. */
export function placeholderDob(rng: ListRng): string {
  return rng.chance(0.5) ? '1900-01-01' : '01/01/1900';
}

const PROPERTY_NAMES = [
  'OAKWOOD',
  'THE PINES',
  'SUNRISE',
  'PARKSIDE',
  'RIVER OAKS',
  'MAPLE RIDGE',
  'HERITAGE',
  'CAMBRIDGE',
  'STONEGATE',
  'LAKEVIEW',
  'BRIARWOOD',
  'CEDAR POINTE',
  'HIGHLAND',
  'FOX CHASE',
  'MEADOWBROOK',
  'THE SUMMIT',
  'GREENBRIAR',
  'WESTWOOD',
  'AUTUMN RIDGE',
  'HARBOR VIEW',
  'MAGNOLIA',
  'TIMBERLINE',
  'BRIGHTON',
  'THE LEGACY',
  'WILLOW BEND',
  'SPRING HILL',
];
const PROPERTY_KINDS = [
  'APARTMENTS',
  'APTS',
  'SENIOR LIVING',
  'ASSISTED LIVING',
  'TOWNHOMES',
  'CONDOMINIUMS',
  'TOWERS',
  'RESIDENCES',
  'MOBILE HOME PARK',
  'MANOR',
  'COMMONS',
  'VILLAGE',
];

/**
 * A building's or property's name as people write it above the street line: `OAKWOOD APARTMENTS`,
 * `SUNRISE SENIOR LIVING`, `THE PINES AT CARY` (with the row's city). No digits.
 */
export function propertyName(rng: ListRng, city: string): string {
  const name = rng.pick(PROPERTY_NAMES);
  if (city !== '' && !/\d/.test(city) && rng.chance(0.25)) {
    return `${name.startsWith('THE ') ? name : `THE ${name}`} AT ${city.toUpperCase()}`;
  }
  return `${name} ${rng.pick(PROPERTY_KINDS)}`;
}
