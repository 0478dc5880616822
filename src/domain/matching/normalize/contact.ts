/**
 * Phone, e-mail, ZIP, state, gender and coordinates: charCode scans, no regex, never throws.
 * Each returns null (or '') for a value that cannot be a real one, so it never matches wrongly.
 */
import { isAsciiDigit, isAsciiLetter } from './ascii.ts';
import { providerOfTypo } from './email-domain-typos.ts';
import { withoutZeroFraction } from './zero-fraction.ts';

/** Longer than this is not a phone number, however it is punctuated. */
const MAX_PHONE_CHARS = 40;

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/** Whether the rest of `value` from `from` is only '0' (a spreadsheet's '9195551234.0'). */
function onlyZerosFrom(value: string, from: number, end: number): boolean {
  for (let i = from; i < end; i++) if (value.charCodeAt(i) !== 48) return false;
  return from < end;
}

/**
 * U.S. phone → 10 digits or null. Separators: space, '-', '.', '(', ')', '/', a leading '+'. An
 * extension ('x123', 'ext. 12', '#12') ends the number. A '+' means an international format, so
 * only '+1' with 10 digits is accepted ('+44 …' is foreign even with 10 digits after the '+').
 * A label before the number ('Cell: 919…', 'tel:+1…') or after it ('919-555-1234 (cell)') is
 * read past, and a second number after the first ('919-555-1234 / 919-555-9999', '…; …') ends it.
 * Letters elsewhere (vanity numbers '1-800-FLOWERS') → null. Rejected as impossible NANP: area
 * code or exchange starting 0/1, N11 area codes, 555-0100…0199 (fictional), one digit repeated.
 */
export function normalizePhone(value: string): string | null {
  const length = value.length;
  if (length === 10) {
    // Fast path: exactly ten digits, as voter files store them.
    let i = 0;
    while (i < 10 && isAsciiDigit(value.charCodeAt(i))) i++;
    if (i === 10) return validNanp(value) ? value : null;
  }
  if (length > MAX_PHONE_CHARS) return null;
  // Digits are gathered as runs ('919', '555', '1234') copied by slice: few string pieces.
  let digits = '';
  let count = 0;
  let run = -1;
  let plus = false;
  /** A '/' after the digits so far: what follows is another number. */
  let listed = false;
  let i = 0;
  for (; i < length; i++) {
    const c = value.charCodeAt(i);
    if (isAsciiDigit(c)) {
      // A new run after a whole number and a '/': the cell's second number.
      if (run < 0 && count >= 10 && listed) break;
      if (++count > 11) return null;
      if (run < 0) run = i;
      continue;
    }
    // A label before the number ('Cell: ', 'tel:', 'H '): a word, then ':', '.' or a space.
    if (count === 0 && !plus && isAsciiLetter(c)) {
      let end = i;
      while (end < length && isAsciiLetter(value.charCodeAt(end))) end++;
      const after = end < length ? value.charCodeAt(end) : 0;
      if (!(after === 58 || after === 46 || isSpace(after))) return null;
      i = end;
      continue;
    }
    if (c === 47 /* / */) listed = true;
    if (run >= 0) {
      digits += value.slice(run, i);
      run = -1;
    }
    if (c === 43 /* + */) {
      if (count > 0 || plus) return null;
      plus = true;
    } else if (c === 46 /* . */) {
      if (count >= 10 && onlyZerosFrom(value, i + 1, length)) break;
    } else if (c === 120 || c === 88 || c === 35 /* x X # */) {
      break;
    } else if (c === 101 || c === 69 /* e E */) {
      // 'ext', 'ext.', 'extension'
      const next = i + 1 < length ? value.charCodeAt(i + 1) | 0x20 : 0;
      if (next !== 120) return null;
      break;
    } else if (!(isSpace(c) || c === 45 || c === 40 || c === 41 || c === 47)) {
      // A label after a whole number ('(cell)', 'home'), or the list's next: ';' ','. Letters
      // within a number are no phone's.
      if (count >= 10 && (isAsciiLetter(c) || c === 59 || c === 44)) break;
      return null;
    }
  }
  if (run >= 0) digits += value.slice(run, i);
  if (count === 11) {
    if (digits.charCodeAt(0) !== 49) return null;
    digits = digits.slice(1);
  } else if (count !== 10 || plus) return null;
  return validNanp(digits) ? digits : null;
}

function validNanp(d: string): boolean {
  const a0 = d.charCodeAt(0);
  const a1 = d.charCodeAt(1);
  const a2 = d.charCodeAt(2);
  const e0 = d.charCodeAt(3);
  // NXX area code and exchange: N is 2-9.
  if (a0 < 50 || e0 < 50) return false;
  // N11 area codes are service codes (211, 411, 911 …), never assigned to numbers.
  if (a1 === 49 && a2 === 49) return false;
  // 555-0100 … 555-0199 is reserved for fiction.
  if (
    e0 === 53 &&
    d.charCodeAt(4) === 53 &&
    d.charCodeAt(5) === 53 &&
    d.charCodeAt(6) === 48 &&
    d.charCodeAt(7) === 49
  )
    return false;
  for (let i = 1; i < 10; i++) if (d.charCodeAt(i) !== a0) return true;
  return false;
}

/**
 * Domains whose local part is canonicalized: Gmail ignores dots and '+tag'; the others deliver
 * '+tag' to the same mailbox. Yahoo uses '-' for its aliases (and '-' is common in real local
 * parts), so it is left alone.
 */
const SPECIAL_DOMAINS = new Map<string, 'gmail' | 'plus'>([
  ['gmail.com', 'gmail'],
  ['googlemail.com', 'gmail'],
  ['outlook.com', 'plus'],
  ['hotmail.com', 'plus'],
  ['live.com', 'plus'],
  ['msn.com', 'plus'],
  ['icloud.com', 'plus'],
  ['me.com', 'plus'],
  ['mac.com', 'plus'],
  ['fastmail.com', 'plus'],
  ['fastmail.fm', 'plus'],
  ['protonmail.com', 'plus'],
  ['protonmail.ch', 'plus'],
  ['proton.me', 'plus'],
  ['pm.me', 'plus'],
]);

/** SPECIAL_DOMAINS by first character, so most addresses are told apart without a slice. */
const SPECIAL_BY_FIRST: [string, 'gmail' | 'plus'][][] = Array.from({ length: 128 }, () => []);
for (const [domain, kind] of SPECIAL_DOMAINS) SPECIAL_BY_FIRST[domain.charCodeAt(0)]!.push([domain, kind]);

function specialKind(s: string, at: number): 'gmail' | 'plus' | undefined {
  const size = s.length - at - 1;
  for (const [domain, kind] of SPECIAL_BY_FIRST[s.charCodeAt(at + 1)] ?? []) {
    if (domain.length === size && s.startsWith(domain, at + 1)) return kind;
  }
  return undefined;
}

/** Raw cells longer than this are not an address, whatever they hold (bounds the work). */
const MAX_EMAIL_CELL = 512;

/** Character classes of lower-case ASCII, as bit flags: one table look-up per character. */
const LOCAL = 1; // unquoted local part: a-z 0-9 and the RFC 5322 atext symbols, '.'
const DOMAIN = 2; // a-z 0-9 '-' (and '.', handled apart)
const LETTER = 4; // a-z, for the TLD
const CLASS = new Uint8Array(128);
for (let c = 97; c <= 122; c++) CLASS[c] = LOCAL | DOMAIN | LETTER;
for (let c = 48; c <= 57; c++) CLASS[c] = LOCAL | DOMAIN;
for (const ch of "!#$%&'*+/=?^_`{|}~.") CLASS[ch.charCodeAt(0)] = LOCAL;
CLASS[45] = LOCAL | DOMAIN; // '-'

/**
 * Index of the '@' when `s` is a plausible address exactly as written (lower case, no spaces),
 * else -1. One pass: local part 1-64 chars of LOCAL without leading, trailing or double dots;
 * domain ≤ 253 with ≥ 2 labels of 1-63 DOMAIN chars not starting or ending with '-', TLD letters
 * (≥ 2) or an IDN 'xn--…'; total ≤ 254.
 */
function plausibleAt(s: string): number {
  const length = s.length;
  if (length > 254) return -1;
  let at = -1;
  let prev = 46; // as if after a '.', so a leading '.' is refused like '..'
  let labelStart = 0;
  let dots = 0;
  let tldLetters = true;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127) return -1;
    if (at < 0) {
      if (c === 64) {
        if (i === 0 || i > 64 || prev === 46) return -1;
        at = i;
        labelStart = i + 1;
        prev = 46;
        continue;
      }
      if ((CLASS[c]! & LOCAL) === 0 || (c === 46 && prev === 46)) return -1;
    } else if (c === 46) {
      if (prev === 46 || prev === 45) return -1; // empty label, or one ending in '-'
      if (i - labelStart > 63) return -1;
      dots++;
      labelStart = i + 1;
      tldLetters = true;
    } else {
      const k = CLASS[c]!;
      if ((k & DOMAIN) === 0) return -1;
      if (c === 45 && prev === 46) return -1; // label starting with '-'
      if ((k & LETTER) === 0) tldLetters = false;
    }
    prev = c;
  }
  if (at < 0 || dots === 0 || prev === 46 || prev === 45) return -1;
  if (length - at - 1 > 253 || length - labelStart > 63) return -1;
  // TLD: letters only (com, org, museum) or an IDN 'xn--…'; refuses '1.2.3.4' and 'host.c0m'.
  if (s.startsWith('xn--', labelStart)) return length - labelStart > 4 ? at : -1;
  return tldLetters && length - labelStart >= 2 ? at : -1;
}

/**
 * The first of several addresses in one cell ('a@x.com; b@y.com', 'a@x.com, b@y.com', two
 * separated by a space), or a trailing ',' or ';' cut; the cell as it is otherwise.
 */
function firstAddress(value: string): string {
  const at = value.indexOf('@');
  if (at < 0) return value;
  if (value.lastIndexOf('@') === at) {
    // One address: only what follows it is cut ('a,b@x.com' stays the invalid address it is).
    const end = value.slice(at).search(/[;,]/);
    return end < 0 ? value : value.slice(0, at + end);
  }
  for (const part of value.split(/[;,]|\s(?=[^@\s]+@)/)) if (part.includes('@')) return part;
  return value;
}

/**
 * The forms a cell wraps an address in, removed: surrounding and inner whitespace (also NBSP and
 * zero-width), 'Name <addr>' / '<addr>', 'mailto:', one trailing '.'; ASCII lower-cased. Null for
 * other non-ASCII characters.
 */
function unwrap(value: string): string | null {
  let s = firstAddress(value);
  const open = s.lastIndexOf('<');
  if (open >= 0) {
    const close = s.indexOf('>', open);
    if (close < 0) return null;
    s = s.slice(open + 1, close);
  }
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 32 || c > 126) {
      plain = false;
      break;
    }
  }
  let clean = '';
  if (plain) clean = s.toLowerCase();
  else {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c <= 32 || c === 0xa0 || c === 0xfeff || (c >= 0x2000 && c <= 0x200b)) continue;
      if (c > 126) return null;
      clean += c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : s[i];
    }
  }
  if (clean.startsWith('mailto:')) clean = clean.slice(7);
  if (clean.endsWith('.')) clean = clean.slice(0, -1);
  return clean;
}

/**
 * E-mail → canonical lower-case form or null. Accepts a bare address with surrounding spaces,
 * 'mailto:', '<…>' (also 'Name <addr>'), spaces inside, one trailing '.' (see plausibleAt for what
 * is plausible). Quoted local parts, IP-literal domains and non-ASCII (internationalized)
 * addresses are refused: contact lists and voter files do not hold them, and a refused value is
 * neutral rather than a mismatch. Gmail: dots and '+tag' dropped from the local part,
 * googlemail.com → gmail.com; the other SPECIAL_DOMAINS: '+tag' dropped. With fixProviderTypo (a
 * list's rows, not the voter file), a big provider's domain mistyped by one keystroke is that
 * provider's (providerOfTypo: gmial.com → gmail.com).
 */
export function normalizeEmail(value: string, options: { fixProviderTypo?: boolean } = {}): string | null {
  let s = value;
  // Most cells are already a bare lower-case address: one validating pass, no copy.
  let at = plausibleAt(s);
  if (at < 0) {
    if (s.length > MAX_EMAIL_CELL) return null;
    const unwrapped = unwrap(s);
    if (unwrapped === null) return null;
    s = unwrapped;
    at = plausibleAt(s);
    if (at < 0) return null;
  }
  if (options.fixProviderTypo === true) {
    const provider = providerOfTypo(s.slice(at + 1));
    if (provider !== null) s = s.slice(0, at + 1) + provider;
  }
  const kind = specialKind(s, at);
  if (kind === undefined) return s;
  const plus = s.indexOf('+');
  let local = plus >= 0 && plus < at ? s.slice(0, plus) : s.slice(0, at);
  let domain = s.slice(at + 1);
  if (kind === 'gmail') {
    domain = 'gmail.com';
    if (local.includes('.')) local = local.replaceAll('.', '');
  }
  return local === '' ? null : `${local}@${domain}`;
}

/**
 * ZIP → 5 digits or null. Spreadsheets drop leading zeros, so 3-4 digits are zero-padded to 5
 * ('2138' → '02138', '501' → '00501') and 7-8 digits are a ZIP+4 padded to 9 ('21381234' →
 * '02138'); ZIP+4 may be written '02138-1234', '02138 1234' or '021381234', a state code may
 * come first ('NC 27601'). 6 digits are ambiguous → null. '000xx' is not a ZIP prefix → null.
 * Letters (foreign postcodes) → null.
 */
export function normalizeZip(value: string): string | null {
  const length = value.length;
  if (length === 5) {
    // Fast path: five digits.
    let i = 0;
    while (i < 5 && isAsciiDigit(value.charCodeAt(i))) i++;
    if (i === 5) return value.startsWith('000') ? null : value;
  }
  if (length > 24) return null;
  let start = 0;
  let end = length;
  while (start < end && isSpace(value.charCodeAt(start))) start++;
  // The state written before it ('NC 27601'), as on an envelope's last line.
  if (
    end - start > 3 &&
    isAsciiLetter(value.charCodeAt(start)) &&
    isAsciiLetter(value.charCodeAt(start + 1)) &&
    (isSpace(value.charCodeAt(start + 2)) || value.charCodeAt(start + 2) === 44) &&
    normalizeStateCode(value.slice(start, start + 2)) !== null
  ) {
    start += 3;
    while (start < end && isSpace(value.charCodeAt(start))) start++;
  }
  while (end > start && isSpace(value.charCodeAt(end - 1))) end--;
  end = withoutZeroFraction(value, start, end);
  let head = '';
  let tail = '';
  let separator = false;
  for (let i = start; i < end; i++) {
    const c = value.charCodeAt(i);
    if (isAsciiDigit(c)) {
      if (separator) tail += value[i];
      else head += value[i];
    } else if ((c === 45 || c === 32) && !separator && head !== '') separator = true;
    else return null;
  }
  let zip: string;
  if (separator) {
    // 'ZIP-PLUS4': the part before the separator is the (possibly de-zeroed) ZIP.
    if (tail.length !== 4 || head.length < 3 || head.length > 5) return null;
    zip = head.padStart(5, '0');
  } else if (head.length >= 3 && head.length <= 5) zip = head.padStart(5, '0');
  else if (head.length >= 7 && head.length <= 9) zip = head.padStart(9, '0').slice(0, 5);
  else return null;
  return zip.startsWith('000') ? null : zip;
}

const STATE_NAMES: Record<string, string> = {
  ALABAMA: 'AL',
  ALASKA: 'AK',
  ARIZONA: 'AZ',
  ARKANSAS: 'AR',
  CALIFORNIA: 'CA',
  COLORADO: 'CO',
  CONNECTICUT: 'CT',
  DELAWARE: 'DE',
  FLORIDA: 'FL',
  GEORGIA: 'GA',
  HAWAII: 'HI',
  IDAHO: 'ID',
  ILLINOIS: 'IL',
  INDIANA: 'IN',
  IOWA: 'IA',
  KANSAS: 'KS',
  KENTUCKY: 'KY',
  LOUISIANA: 'LA',
  MAINE: 'ME',
  MARYLAND: 'MD',
  MASSACHUSETTS: 'MA',
  MICHIGAN: 'MI',
  MINNESOTA: 'MN',
  MISSISSIPPI: 'MS',
  MISSOURI: 'MO',
  MONTANA: 'MT',
  NEBRASKA: 'NE',
  NEVADA: 'NV',
  'NEW HAMPSHIRE': 'NH',
  'NEW JERSEY': 'NJ',
  'NEW MEXICO': 'NM',
  'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC',
  'NORTH DAKOTA': 'ND',
  OHIO: 'OH',
  OKLAHOMA: 'OK',
  OREGON: 'OR',
  PENNSYLVANIA: 'PA',
  'RHODE ISLAND': 'RI',
  'SOUTH CAROLINA': 'SC',
  'SOUTH DAKOTA': 'SD',
  TENNESSEE: 'TN',
  TEXAS: 'TX',
  UTAH: 'UT',
  VERMONT: 'VT',
  VIRGINIA: 'VA',
  WASHINGTON: 'WA',
  'WEST VIRGINIA': 'WV',
  WISCONSIN: 'WI',
  WYOMING: 'WY',
  'DISTRICT OF COLUMBIA': 'DC',
  'WASHINGTON DC': 'DC',
  'PUERTO RICO': 'PR',
  GUAM: 'GU',
  'VIRGIN ISLANDS': 'VI',
  'US VIRGIN ISLANDS': 'VI',
  'U S VIRGIN ISLANDS': 'VI',
  'UNITED STATES VIRGIN ISLANDS': 'VI',
  'AMERICAN SAMOA': 'AS',
  'NORTHERN MARIANA ISLANDS': 'MP',
  'NORTHERN MARIANAS': 'MP',
};

/**
 * Upper-case names of the states, DC and territories (words separated by single spaces) → their
 * two-letter code; shared with the onboarding identifiers, which spell them without spaces.
 */
export const US_STATE_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(STATE_NAMES));

/**
 * The states' traditional abbreviations (the Government Printing Office's and the AP's, still in
 * older address books and CRMs: `Calif.`, `Mass.`, `Penna.`), and the two-word names with their
 * direction abbreviated (`N Carolina`, `W Va`). Those that equal a USPS code (`Ga.`, `Pa.`) need
 * no entry. Periods are dropped before the look-up, so `N. Dak.` is `N DAK`.
 */
const TRADITIONAL_ABBREVIATIONS: Readonly<Record<string, string>> = {
  ALA: 'AL',
  ARIZ: 'AZ',
  ARK: 'AR',
  CAL: 'CA',
  CALIF: 'CA',
  COLO: 'CO',
  CONN: 'CT',
  DEL: 'DE',
  FLA: 'FL',
  IDA: 'ID',
  ILL: 'IL',
  IND: 'IN',
  KAN: 'KS',
  KANS: 'KS',
  MASS: 'MA',
  MICH: 'MI',
  MINN: 'MN',
  MISS: 'MS',
  MONT: 'MT',
  NEB: 'NE',
  NEBR: 'NE',
  NEV: 'NV',
  'N MEX': 'NM',
  'N CAROLINA': 'NC',
  'N CAR': 'NC',
  'N DAK': 'ND',
  'N DAKOTA': 'ND',
  OKLA: 'OK',
  ORE: 'OR',
  OREG: 'OR',
  PENN: 'PA',
  PENNA: 'PA',
  'S CAROLINA': 'SC',
  'S CAR': 'SC',
  'S DAK': 'SD',
  'S DAKOTA': 'SD',
  TENN: 'TN',
  TEX: 'TX',
  WASH: 'WA',
  'W VA': 'WV',
  'W VIRGINIA': 'WV',
  WIS: 'WI',
  WISC: 'WI',
  WYO: 'WY',
  'WASH DC': 'DC',
};

/** Names, codes and traditional abbreviations → code; Map so inherited Object keys ('CONSTRUCTOR') can never match. */
const STATES = new Map<string, string>([...US_STATE_NAMES, ...Object.entries(TRADITIONAL_ABBREVIATIONS)]);
for (const code of Object.values(STATE_NAMES)) STATES.set(code, code);

/**
 * Two-letter code of a state, DC or territory (PR, GU, VI, AS, MP), from a code in any case
 * and punctuation ('nc', ' N.C. '), a full name ('North Carolina', 'District of Columbia') or a
 * traditional abbreviation ('Calif.', 'N. Dak.'); unknown (including military AA/AE/AP) → null.
 */
export function normalizeStateCode(value: string): string | null {
  const length = value.length;
  if (length === 2) {
    const c0 = value.charCodeAt(0);
    const c1 = value.charCodeAt(1);
    if (c0 >= 65 && c0 <= 90 && c1 >= 65 && c1 <= 90) return STATES.get(value) ?? null;
  }
  if (length > 40) return null;
  // Upper-case letters, words separated by single spaces; '.' and ',' dropped ('N.C.' → 'NC').
  let key = '';
  let space = false;
  for (let i = 0; i < length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 97 && c <= 122) {
      if (space) key += ' ';
      space = false;
      key += String.fromCharCode(c - 32);
    } else if (c >= 65 && c <= 90) {
      if (space) key += ' ';
      space = false;
      key += value[i];
    } else if (isSpace(c) || c === 45 /* - */) space = key !== '';
    else if (c !== 46 && c !== 44) return null;
  }
  return STATES.get(key) ?? null;
}

/** Gender → 'F' | 'M' | '': F, FEMALE, W, WOMAN → F; M, MALE, MAN → M (any case, trimmed). */
export function normalizeGender(value: string): 'F' | 'M' | '' {
  if (value.length === 1) {
    const c = value.charCodeAt(0) | 0x20;
    if (c === 102 || c === 119) return 'F';
    return c === 109 ? 'M' : '';
  }
  if (value.length > 20) return '';
  switch (value.trim().toUpperCase()) {
    case 'F':
    case 'FEMALE':
    case 'W':
    case 'WOMAN':
      return 'F';
    case 'M':
    case 'MALE':
    case 'MAN':
      return 'M';
    default:
      return '';
  }
}

/** Exact powers of ten: a mantissa below 2^53 divided by one of these is correctly rounded. */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * A plain decimal: optional sign, digits, optional '.' and digits (no exponent, hex, NaN …); NaN
 * otherwise. Up to 15 digits the value is mantissa / 10^k, which IEEE division rounds exactly as
 * Number() would, at a fraction of its cost; longer inputs go through Number().
 */
function parseDecimal(value: string): number {
  const s = value.length > 32 ? '' : value.trim();
  const length = s.length;
  let i = 0;
  const sign = s.charCodeAt(0);
  if (sign === 45 || sign === 43) i++;
  let digits = 0;
  let fraction = -1;
  let mantissa = 0;
  for (; i < length; i++) {
    const c = s.charCodeAt(i);
    if (isAsciiDigit(c)) {
      digits++;
      mantissa = mantissa * 10 + c - 48;
      if (fraction >= 0) fraction++;
    } else if (c === 46 && fraction < 0) fraction = 0;
    else return Number.NaN;
  }
  if (digits === 0) return Number.NaN;
  if (digits > 15) return Number(s);
  const magnitude = fraction > 0 ? mantissa / POW10[fraction]! : mantissa;
  return sign === 45 ? -magnitude : magnitude;
}

/** Lat/long → [lat, lon], or null when either is missing, not a plain decimal, out of range, or (0,0). */
export function normalizeLatLong(lat: string, lon: string): [number, number] | null {
  const la = parseDecimal(lat);
  const lo = parseDecimal(lon);
  if (Number.isNaN(la) || Number.isNaN(lo)) return null;
  // Given the wrong way round where only the other reading is a point (-111.9, 33.5): swapped.
  // Where both are, the matcher looks where the voter file has voters (generate-candidates).
  if ((la < -90 || la > 90) && lo >= -90 && lo <= 90 && la >= -180 && la <= 180) return [lo, la];
  if (la < -90 || la > 90 || lo < -180 || lo > 180) return null;
  // (0,0) is the geocoder's "unknown" placeholder, in the ocean off Africa.
  if (la === 0 && lo === 0) return null;
  return [la, lo];
}
