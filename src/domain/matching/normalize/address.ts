import { boundedEditDistance } from '../compare/string-similarity.ts';
import { isAsciiDigit } from './ascii.ts';
import {
  DIRECTIONALS,
  NAME_WORDS,
  NUMBER_WORDS,
  ORDINAL_TENS_WORDS,
  ORDINAL_UNIT_WORDS,
  RANGELESS_UNITS,
  ROUTE_PHRASES,
  STANDARD_SUFFIXES,
  STREET_SUFFIXES,
  UNIT_DESIGNATORS,
} from './usps-tables.ts';

/**
 * U.S. street-address parsing and canonical forms for the matcher.
 *
 * It runs for every voter record when the index is built, so it is written for speed: after the native
 * String#toUpperCase, one character loop cleans punctuation and splits into tokens, with no regex;
 * Unicode folding (NFKD) runs only when a non-ASCII character is seen. Everything after that is Map
 * lookups over a handful of tokens. Input is capped (MAX_INPUT_CHARS, MAX_TOKENS) so hostile lines
 * cost no more than real ones.
 *
 * Decisions, each chosen so that the spellings lists actually use give the same canonical form as the
 * voter file's:
 * - Hyphens join only digit-led tokens ('123-A', '12-34', unit '4-B'); anywhere else a hyphen separates
 *   words: 'MT HERMON-ROCK CREEK RD' → name 'MT HERMON ROCK CREEK', 'I-95' → 'I 95'.
 * - Queens-style '12-34' → houseNumber '1234': clients often drop the hyphen, and a true range such as
 *   '123-125' is rare on a voter file. A letter or fraction after the number is the houseSuffix:
 *   '123A', '123-A' → 'A'; '123 1/2', '123½' → '1/2'.
 * - Wisconsin grid numbers keep their letters: 'N1234', 'W156N8480' (also 'N 1234 ...').
 * - SAINT → ST everywhere in the street name; the first name word is never taken as the suffix, so
 *   'ST JAMES PL' is Saint James Place and only a later ST is STREET.
 * - '#' is kept as unitType '#' (Pub 28's sign for a unit of unknown type); canonicalAddress ignores the
 *   unit type altogether ('APT 4B', 'UNIT 4B', '#4B' are the same unit), since lists and voter files
 *   disagree about it far more often than two units of one building share a number.
 * - Route names are folded by road class (see ROUTE_PHRASES): COUNTY ROAD/CO RD/CR → 'CR', STATE ROUTE/SR
 *   → 'SR', US HIGHWAY → 'US HWY', HIGHWAY → 'HWY'.
 * - A PO box and a street in the same address: the canonical form is the street (the residence is what
 *   the voter file records); poBox is still filled in.
 */
export interface ParsedAddress {
  /**
   * House number as written without leading zeros ('' when none): '123' for '123-A' or '123 1/2'.
   * Queens '12-34' → '1234'; Wisconsin grid 'N1234' keeps its letter.
   */
  houseNumber: string;
  /** What follows the number: 'A' for '123A'/'123-A', '1/2' for '123 1/2'; '' otherwise. */
  houseSuffix: string;
  /** 'N', 'SW', ... ('' when none). */
  preDirectional: string;
  /**
   * Street name words, standardized (SAINT→ST, MOUNT→MT, FORT→FT, FIRST→1ST, HIGHWAY→HWY, route names),
   * without suffix and directionals; hyphens become spaces: 'MT HERMON ROCK CREEK', '1ST', 'HWY 10', 'CR K'.
   */
  streetName: string;
  /** Pub 28 C1 standard abbreviation: 'CIR', 'AVE'; '' when none. */
  streetSuffix: string;
  postDirectional: string;
  /**
   * Pub 28 C2 standard abbreviation ('APT', 'STE', 'UNIT', ...); '#' when only '#' was written; '' when
   * none or when the unit had no designator ('12 MAIN ST 4B').
   */
  unitType: string;
  /** '4B' (hyphens and leading zeros dropped, '2ND' → '2'); 'REAR' etc. for a rangeless designator. */
  unit: string;
  /** PO box number when the address is a PO box, or the box of a rural route ('' otherwise). */
  poBox: string;
  /** Rural route number ('' otherwise); the box number goes to poBox. */
  ruralRoute: string;
  /**
   * 'HC' when the route is a highway contract route (`HC 68 BOX 23A`, `HCR 2`, `STAR RTE 1`, what
   * star routes became), '' for a rural route or none: HC 1 and RR 1 in one ZIP are two routes.
   */
  routeType: string;
}

/** Input beyond this is garbage for an address line; capping it bounds the work on hostile input. */
const MAX_INPUT_CHARS = 256;
/** Tokens read per line; a real address line has under 15. */
const MAX_TOKENS = 32;

const NO_TOKENS: readonly string[] = Object.freeze([]);

/**
 * Unit designators that are also ordinary street-name words ('LAKE FRONT DR', 'PARKING LOT RD'): in
 * address1 they start a unit only right after a suffix or directional and before a unit number (or at the
 * end, for the rangeless ones). In address2 they always do.
 */
const WEAK_UNIT_WORDS: ReadonlySet<string> = new Set([
  'BASEMENT',
  'FRONT',
  'HANGAR',
  'KEY',
  'LOBBY',
  'LOT',
  'LOWER',
  'OFFICE',
  'PENTHOUSE',
  'PIER',
  'REAR',
  'SIDE',
  'SLIP',
  'SPACE',
  'STOP',
  'TRAILER',
  'UPPER',
]);

/** Designator spellings that may be glued to their number ('APT4B', 'STE200', 'BLDG5'). */
const GLUED_UNIT_PREFIXES: ReadonlySet<string> = new Set([
  'APT',
  'STE',
  'UNIT',
  'RM',
  'BLDG',
  'FL',
  'FLR',
  'LOT',
  'SPC',
  'TRLR',
  'UNT',
  'PH',
  'DEPT',
]);

const BOX_WORDS: ReadonlySet<string> = new Set(['BOX', 'BX', 'DRAWER', 'DRWR']);
/** Words that end a rural route prefix and must be followed by a route number. */
const RURAL_ROUTE_WORDS: ReadonlySet<string> = new Set(['ROUTE', 'RTE', 'RT']);
/** 'RTE 2' alone is a highway; with a BOX after it, a rural route. */
const ROUTE_WORDS_NEEDING_BOX: ReadonlySet<string> = new Set(['RTE', 'ROUTE', 'RT', 'RD']);
const GLUED_BOX_PREFIXES: ReadonlySet<string> = new Set([
  'RR',
  'RFD',
  'HC',
  'HCR',
  'BOX',
  'BX',
  'POB',
  'POBOX',
  'PO',
]);
/** First words that can start a PO box or rural route; a cheap pre-check before the full reading. */
const BOX_OR_ROUTE_STARTS: ReadonlySet<string> = new Set([
  'PO',
  'P',
  'POB',
  'POBOX',
  'POST',
  'BOX',
  'BX',
  'DRAWER',
  'DRWR',
  'RR',
  'R',
  'RFD',
  'RURAL',
  'RTE',
  'ROUTE',
  'RT',
  'RD',
]);

/**
 * First words of a highway contract route (HC 1, HCR 1, H C 1, HIGHWAY CONTRACT 1, STAR RTE 1):
 * apart from BOX_OR_ROUTE_STARTS, since STAR APTS or H BLDG in address1 is no street line.
 */
const HIGHWAY_CONTRACT_STARTS: ReadonlySet<string> = new Set(['HC', 'HCR', 'H', 'HIGHWAY', 'STAR']);

/** Standard suffixes that also name numbered roads: 'OLD HWY 10', 'RANCH RD 620', 'LOOP 410'. */
const ROUTE_SUFFIXES: ReadonlySet<string> = new Set([
  'HWY',
  'RTE',
  'RD',
  'FWY',
  'EXPY',
  'TPKE',
  'PKWY',
  'BYP',
  'CSWY',
  'SPUR',
  'LOOP',
  'TRWY',
  'MTWY',
  'TRFY',
  'SKWY',
]);
/** Of those, the ones with lettered routes ('HWY K', 'RTE AA' in Missouri). */
const LETTERED_ROUTE_SUFFIXES: ReadonlySet<string> = new Set(['HWY', 'RTE']);

type RoutePhrase = readonly [rest: readonly string[], name: string];

/** ROUTE_PHRASES by first word, longest phrase first so 'COUNTY TRUNK HIGHWAY' wins over shorter ones. */
const ROUTE_PHRASES_BY_FIRST_WORD: ReadonlyMap<string, readonly RoutePhrase[]> = (() => {
  const map = new Map<string, RoutePhrase[]>();
  for (const [phrase, name] of ROUTE_PHRASES) {
    const words = phrase.split(' ');
    const first = words[0]!;
    const list = map.get(first);
    if (list === undefined) map.set(first, [[words.slice(1), name]]);
    else list.push([words.slice(1), name]);
  }
  for (const list of map.values()) list.sort((a, b) => b[0].length - a[0].length);
  return map;
})();

// Vulgar fractions get a space before them so that NFKD's '123½' → '1231⁄2' keeps the number apart.
const VULGAR_FRACTIONS = /[\u00BC-\u00BE\u2150-\u215E]/g;

function emptyAddress(): ParsedAddress {
  return {
    houseNumber: '',
    houseSuffix: '',
    preDirectional: '',
    streetName: '',
    streetSuffix: '',
    postDirectional: '',
    unitType: '',
    unit: '',
    poBox: '',
    ruralRoute: '',
    routeType: '',
  };
}

/**
 * Parses address1 (+ optional address2). Never throws: garbage gives a ParsedAddress with what could be
 * read (possibly all ''). Upper-cases, strips accents (NFKD), drops punctuation except what is meaningful
 * (hyphen/slash inside numbers, '#' as a unit sign). When address1 is only a unit or a name ('APT 4',
 * 'ACME CORP') and address2 is the street, the two are read the other way round.
 */
export function parseAddress(address1: string, address2?: string): ParsedAddress {
  const out = emptyAddress();
  let line1 = typeof address1 === 'string' ? tokenize(address1) : NO_TOKENS;
  let line2 = typeof address2 === 'string' && address2 !== '' ? tokenize(address2) : NO_TOKENS;
  if (line1.length === 0) {
    line1 = line2;
    line2 = NO_TOKENS;
  } else if (line2.length > 0 && !looksLikeStreetLine(line1) && looksLikeStreetLine(line2)) {
    const swap = line1;
    line1 = line2;
    line2 = swap;
  }
  parseLine(line1, out);
  if (line2.length > 0) applySecondLine(line2, out);
  return out;
}

/**
 * Canonical one-line form used to compare two addresses exactly: house number + suffix + predir + street
 * name + suffix + postdir (+ ' #' + unit when present), or 'RR n BOX m' / 'PO BOX n' when there is no
 * street. Equal strings ⇔ same standardized address. The unit type is left out on purpose (see above).
 */
export function canonicalAddress(parsed: ParsedAddress): string {
  if (parsed.houseNumber !== '' || parsed.streetName !== '') {
    let s = parsed.houseNumber;
    if (parsed.houseSuffix !== '') {
      // '123A' but '123 1/2': a fraction written against the number would read as another number.
      s += isAsciiDigit(parsed.houseSuffix.charCodeAt(0)) ? ` ${parsed.houseSuffix}` : parsed.houseSuffix;
    }
    s = join(s, parsed.preDirectional);
    s = join(s, parsed.streetName);
    s = join(s, parsed.streetSuffix);
    s = join(s, parsed.postDirectional);
    return parsed.unit === '' ? s : `${s} #${parsed.unit}`;
  }
  if (parsed.ruralRoute !== '') {
    return parsed.poBox === '' ? routeName(parsed) : `${routeName(parsed)} BOX ${parsed.poBox}`;
  }
  return parsed.poBox === '' ? '' : `PO BOX ${parsed.poBox}`;
}

/** A route as a pseudo-street: 'RR 2', 'HC 68'. */
export function routeName(parsed: ParsedAddress): string {
  return `${parsed.routeType === '' ? 'RR' : parsed.routeType} ${parsed.ruralRoute}`;
}

/**
 * The street without house number and unit, for "same street" comparisons and blocking: predir + name +
 * suffix + postdir ('' for PO boxes and rural routes).
 */
export function canonicalStreet(parsed: ParsedAddress): string {
  return join(
    join(join(parsed.preDirectional, parsed.streetName), parsed.streetSuffix),
    parsed.postDirectional,
  );
}

function join(a: string, b: string): string {
  return b === '' ? a : a === '' ? b : `${a} ${b}`;
}

// ---------------------------------------------------------------------------------------------------
// Tokenizer

function isLetter(c: number): boolean {
  return c >= 65 && c <= 90;
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
}

function foldUnicode(s: string): string {
  return s.replace(VULGAR_FRACTIONS, ' $&').normalize('NFKD').toUpperCase();
}

/**
 * Upper-cased tokens of one address line, split on anything that is not A-Z/0-9, except:
 * apostrophes and accents vanish ('O'BRIEN' → 'OBRIEN'); a period between single letters vanishes
 * ('P.O.' → 'PO', 'N.E.' → 'NE', but 'E.MAIN' → 'E', 'MAIN'); '-' and '/' stay inside a digit-led token
 * before a letter/digit ('123-A', '12-34', '1/2'); '#' is a token of its own.
 */
function tokenize(raw: string): string[] {
  const input = raw.length > MAX_INPUT_CHARS ? raw.slice(0, MAX_INPUT_CHARS) : raw;
  let s = input.toUpperCase();
  let folded = false;
  const tokens: string[] = [];
  // The current token is `cur` plus s[start, i); start < 0 when no run is open.
  let cur = '';
  let start = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isAlnum(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (c > 127 && !folded) {
      // Rare path: fold accents and full-width forms, then read the line again from the start.
      s = foldUnicode(input);
      folded = true;
      tokens.length = 0;
      cur = '';
      start = -1;
      i = -1;
      continue;
    }
    const open = start >= 0 || cur !== '';
    if (c === 45 || c === 47 || c === 0x2044) {
      // '-' and '/' (or NFKD's fraction slash) inside a number: keep.
      const next = s.charCodeAt(i + 1);
      const firstIsDigit = open && isAsciiDigit(cur !== '' ? cur.charCodeAt(0) : s.charCodeAt(start));
      if (firstIsDigit && (c === 45 ? isAlnum(next) : isAsciiDigit(next))) {
        if (c === 0x2044) {
          cur += `${start >= 0 ? s.slice(start, i) : ''}/`;
          start = i + 1;
        } else if (start < 0) {
          start = i;
        }
        continue;
      }
    } else if (
      c === 39 ||
      c === 96 ||
      c === 0xb4 ||
      c === 0x2018 ||
      c === 0x2019 ||
      c === 0x2bc ||
      (c >= 0x300 && c <= 0x36f)
    ) {
      // Apostrophes and combining accents: drop the character, keep the word whole.
      if (start >= 0) cur += s.slice(start, i);
      start = -1;
      continue;
    } else if (c === 46) {
      // A period after a single letter and before another "letter." is an initialism: 'P.O.', 'N.E.'.
      if (
        isLetter(s.charCodeAt(i - 1)) &&
        !isAlnum(s.charCodeAt(i - 2)) &&
        isLetter(s.charCodeAt(i + 1)) &&
        s.charCodeAt(i + 2) === 46
      ) {
        if (start >= 0) cur += s.slice(start, i);
        start = -1;
        continue;
      }
    }
    // Anything else ends the token.
    if (open) {
      tokens.push(start >= 0 ? cur + s.slice(start, i) : cur);
      cur = '';
      start = -1;
      if (tokens.length >= MAX_TOKENS) return tokens;
    }
    if (c === 35) {
      tokens.push('#');
      if (tokens.length >= MAX_TOKENS) return tokens;
    }
  }
  if (start >= 0 || cur !== '') tokens.push(start >= 0 ? cur + s.slice(start) : cur);
  return tokens;
}

// ---------------------------------------------------------------------------------------------------
// Token helpers

function hasDigit(tok: string): boolean {
  for (let i = 0; i < tok.length; i++) if (isAsciiDigit(tok.charCodeAt(i))) return true;
  return false;
}

function allDigits(tok: string): boolean {
  if (tok === '') return false;
  for (let i = 0; i < tok.length; i++) if (!isAsciiDigit(tok.charCodeAt(i))) return false;
  return true;
}

/** Length of the leading letter run when a digit follows it ('APT4B' → 3), else 0. */
function gluedPrefixLength(tok: string): number {
  let i = 0;
  while (i < tok.length && isLetter(tok.charCodeAt(i))) i++;
  return i > 0 && i < tok.length && isAsciiDigit(tok.charCodeAt(i)) ? i : 0;
}

/** 'APT4B' → 3 when the letters are a unit designator; 0 otherwise. */
function gluedUnitLength(tok: string): number {
  const n = gluedPrefixLength(tok);
  return n > 0 && GLUED_UNIT_PREFIXES.has(tok.slice(0, n)) ? n : 0;
}

/** Digits followed by exactly ST/ND/RD/TH: '1ST', '22ND', '103RD'. */
function isOrdinal(tok: string): boolean {
  let i = 0;
  while (i < tok.length && isAsciiDigit(tok.charCodeAt(i))) i++;
  if (i === 0 || tok.length - i !== 2) return false;
  const tail = tok.slice(i);
  return tail === 'ST' || tail === 'ND' || tail === 'RD' || tail === 'TH';
}

/**
 * Old-style '2D', '3D', '22D' (second, third). Only read in street names: as a house number or unit
 * ('123D', 'APT 2D') the D is a letter.
 */
function isOldOrdinal(tok: string): boolean {
  const n = tok.length;
  if (n < 2 || tok.charCodeAt(n - 1) !== 68) return false;
  const last = tok.charCodeAt(n - 2);
  return (last === 50 || last === 51) && allDigits(tok.slice(0, -1));
}

/** '0012' → '12', '0' → '0', '0A' → '0A': zeros go only while a digit follows. */
function stripLeadingZeros(tok: string): string {
  let i = 0;
  while (i < tok.length - 1 && tok.charCodeAt(i) === 48 && isAsciiDigit(tok.charCodeAt(i + 1))) i++;
  return i === 0 ? tok : tok.slice(i);
}

function withoutHyphens(tok: string): string {
  return tok.includes('-') ? tok.replaceAll('-', '') : tok;
}

/** One part of a unit or box number: hyphens and leading zeros dropped, '2ND' → '2'. */
function numberPart(tok: string): string {
  if (isOrdinal(tok)) tok = tok.slice(0, -2);
  return stripLeadingZeros(withoutHyphens(tok));
}

function isFraction(tok: string): boolean {
  const slash = tok.indexOf('/');
  return (
    slash > 0 && slash < tok.length - 1 && allDigits(tok.slice(0, slash)) && allDigits(tok.slice(slash + 1))
  );
}

// ---------------------------------------------------------------------------------------------------
// Line parsing

function looksLikeStreetLine(t: readonly string[]): boolean {
  const first = t[0];
  if (first === undefined) return false;
  if (BOX_OR_ROUTE_STARTS.has(first) || GLUED_BOX_PREFIXES.has(first.slice(0, gluedPrefixLength(first)))) {
    return true;
  }
  if (HIGHWAY_CONTRACT_STARTS.has(first)) return readRuralRoute(t, 0, true) !== null;
  const second = t[1];
  return (
    second !== undefined &&
    isAsciiDigit(first.charCodeAt(0)) &&
    second !== '#' &&
    !UNIT_DESIGNATORS.has(second)
  );
}

function parseLine(t: readonly string[], out: ParsedAddress): void {
  t = withoutCareOf(t);
  if (t.length === 0) return;
  if (readBoxOrRoute(t, out)) return;
  const unitFirst = leadingUnitLength(t);
  if (unitFirst > 0) {
    readUnit(t, 0, unitFirst, out);
    t = t.slice(unitFirst);
  }
  t = withHouseNumberApart(t);
  readStreet(t, readHouseNumber(t, out), out);
}

/**
 * A line that names who the mail is for before the street (`C/O JOHN SMITH 12 OAK ST`, `ATTN
 * BILLING 12 OAK ST`): the street from its house number on. A line without a number after the
 * name is left as it is (no street to read).
 */
function withoutCareOf(t: readonly string[]): readonly string[] {
  const careOf = t[0] === 'C' && t[1] === 'O' ? 2 : t[0] === 'ATTN' || t[0] === 'ATTENTION' ? 1 : 0;
  if (careOf === 0) return t;
  for (let i = careOf + 1; i < t.length - 1; i++) if (isAsciiDigit(t[i]!.charCodeAt(0))) return t.slice(i);
  return t;
}

/**
 * A unit written before the street (`APT 4 123 MAIN ST`, `# 4 123 MAIN ST`, `UNIT4B 9 OAK AVE`):
 * how many tokens it takes, when a house number and a street follow them; 0 otherwise.
 */
function leadingUnitLength(t: readonly string[]): number {
  const first = t[0]!;
  let at: number;
  if (gluedUnitLength(first) > 0) at = 1;
  else {
    if (first !== '#' && !UNIT_DESIGNATORS.has(first)) return 0;
    at = 1;
    if (t[at] === '#') at++;
    const value = t[at];
    if (value === undefined || !(hasDigit(value) || value.length === 1)) return 0;
    at++;
  }
  const house = t[at];
  return house !== undefined && isAsciiDigit(house.charCodeAt(0)) && at + 1 < t.length ? at : 0;
}

/**
 * A house number written against the street's first word (`1377SECOND ST`, `88OAK AVE`): the
 * space was lost in keying. Three letters or more after the digits are a word, not a house
 * letter (`123A`) or an ordinal (`5TH AVE`), so they are read as the street's first token.
 */
function withHouseNumberApart(t: readonly string[]): readonly string[] {
  const first = t[0]!;
  let digits = 0;
  while (digits < first.length && isAsciiDigit(first.charCodeAt(digits))) digits++;
  if (digits === 0 || first.length - digits < 3) return t;
  for (let i = digits; i < first.length; i++) if (!isLetter(first.charCodeAt(i))) return t;
  return [first.slice(0, digits), first.slice(digits), ...t.slice(1)];
}

/** address2 after address1 was read: a box, a unit, or (when address1 had no street) the street. */
function applySecondLine(t: readonly string[], out: ParsedAddress): void {
  if (out.poBox === '' && readBoxOrRoute(t, out)) return;
  if (isUnitLine(t)) {
    if (out.unitType === '' && out.unit === '') readUnitLine(t, out);
    return;
  }
  if (out.houseNumber === '' && out.streetName === '') {
    const apart = withHouseNumberApart(t);
    readStreet(apart, readHouseNumber(apart, out), out);
  }
}

function isUnitLine(t: readonly string[]): boolean {
  const first = t[0]!;
  if (UNIT_DESIGNATORS.has(first) || gluedUnitLength(first) > 0) return true;
  // A short line of a number or letter: '4B', '12', 'B', '2ND FL'.
  return t.length <= 2 && (hasDigit(first) || first.length === 1);
}

function readUnitLine(t: readonly string[], out: ParsedAddress): void {
  const first = t[0]!;
  if (UNIT_DESIGNATORS.has(first) || gluedUnitLength(first) > 0) {
    readUnit(t, 0, t.length, out);
    return;
  }
  const second = t[1];
  const designator = second === undefined ? undefined : UNIT_DESIGNATORS.get(second);
  if (designator !== undefined && t.length === 2) {
    // '2ND FL', '3 REAR': the number comes first.
    out.unitType = designator;
    out.unit = numberPart(first);
    return;
  }
  out.unitType = '';
  out.unit = unitValue(t, 0, t.length);
}

/**
 * PO boxes ('PO BOX 112', 'P O BOX', 'POST OFFICE BOX', 'POB 112', 'BOX 112', 'PO DRAWER 5') and rural
 * routes ('RR 2 BOX 14', 'RURAL ROUTE 2', 'R R 2', 'RFD 2', 'RTE 2 BOX 14', 'BOX 14 RR 2') at the start
 * of the line. Writes only on success.
 */
function readBoxOrRoute(tokens: readonly string[], out: ParsedAddress): boolean {
  let t = tokens;
  const first = t[0]!;
  if (!BOX_OR_ROUTE_STARTS.has(first) && !HIGHWAY_CONTRACT_STARTS.has(first)) {
    // Glued: 'RR2', 'BOX112', 'POBOX112'.
    const n = gluedPrefixLength(first);
    if (n === 0 || !GLUED_BOX_PREFIXES.has(first.slice(0, n))) return false;
    t = [first.slice(0, n), first.slice(n), ...t.slice(1)];
  }
  const box = readPoBox(t, 0);
  if (box !== null) {
    const route = readRuralRoute(t, box.next, false);
    out.poBox = box.value;
    if (route !== null) {
      out.ruralRoute = route.route;
      out.routeType = route.type;
      if (route.box !== '') out.poBox = route.box;
    }
    return true;
  }
  const route = readRuralRoute(t, 0, true);
  if (route === null) return false;
  out.ruralRoute = route.route;
  out.routeType = route.type;
  if (route.box !== '') out.poBox = route.box;
  return true;
}

function readPoBox(t: readonly string[], at: number): { value: string; next: number } | null {
  let j = at;
  let po = false;
  let box = false;
  const a = t[j];
  const b = t[j + 1];
  if (a === 'POST' && (b === 'OFFICE' || b === 'OFC')) {
    po = true;
    j += 2;
  } else if (a === 'POST' && b !== undefined && BOX_WORDS.has(b)) {
    po = true;
    j += 1;
  } else if (a === 'PO') {
    po = true;
    j += 1;
  } else if (a === 'P' && b === 'O') {
    po = true;
    j += 2;
  } else if (a === 'POB' || a === 'POBOX') {
    po = true;
    box = true;
    j += 1;
  }
  if (!box) {
    const w = t[j];
    if (w !== undefined && (BOX_WORDS.has(w) || (po && w === 'B'))) {
      box = true;
      j++;
    }
  }
  if (!po && !box) return null;
  if (t[j] === '#') j++;
  const v = t[j];
  // 'BOX ELDER RD' is a street; 'PO BOX A' is a box.
  if (v === undefined || !(hasDigit(v) || (po && box && v.length <= 2))) return null;
  return { value: numberPart(v), next: j + 1 };
}

function readRuralRoute(
  t: readonly string[],
  at: number,
  allowBoxFirst: boolean,
): { route: string; box: string; type: string } | null {
  let j = at;
  let needsBox = false;
  let type = '';
  const a = t[j];
  const b = t[j + 1];
  if (a === 'RR' || a === 'RFD') {
    j += 1;
  } else if (a === 'R' && b === 'R') {
    j += 2;
  } else if (a === 'RURAL' && b !== undefined && RURAL_ROUTE_WORDS.has(b)) {
    j += 2;
  } else if (a === 'HC' || a === 'HCR' || (a === 'H' && b === 'C')) {
    type = 'HC';
    j += a === 'H' ? 2 : 1;
  } else if (
    (a === 'HIGHWAY' && b === 'CONTRACT') ||
    (a === 'STAR' && b !== undefined && RURAL_ROUTE_WORDS.has(b))
  ) {
    type = 'HC';
    j += 2;
    // 'HIGHWAY CONTRACT ROUTE 2'.
    if (a === 'HIGHWAY' && t[j] !== undefined && RURAL_ROUTE_WORDS.has(t[j]!)) j++;
  } else if (a !== undefined && ROUTE_WORDS_NEEDING_BOX.has(a)) {
    needsBox = true;
    j += 1;
  } else {
    return null;
  }
  if (t[j] === '#') j++;
  const route = t[j];
  if (route === undefined || !hasDigit(route) || !isAsciiDigit(route.charCodeAt(0))) return null;
  j++;
  let box = '';
  if (allowBoxFirst) {
    const found = readPoBox(t, j);
    if (found !== null) {
      box = found.value;
    } else if (t[j] === '#' && t[j + 1] !== undefined && hasDigit(t[j + 1]!)) {
      box = numberPart(t[j + 1]!);
    } else if (!needsBox && t[j] !== undefined && allDigits(t[j]!)) {
      box = numberPart(t[j]!); // 'RR 2 14'
    }
  }
  if (needsBox && box === '') return null;
  return { route: numberPart(route), box, type };
}

/** Reads the house number at t[0]; returns the index of the first street token. */
function readHouseNumber(t: readonly string[], out: ParsedAddress): number {
  const tok = t[0];
  if (tok === undefined) return 0;
  const c = tok.charCodeAt(0);
  if (isAsciiDigit(c)) {
    // '5TH AVE' has no house number.
    if (t.length > 1 && isOrdinal(tok)) return 0;
    splitHouseNumber(tok, out);
    const next = t[1];
    if (next !== undefined && out.houseSuffix === '' && isFraction(next)) {
      out.houseSuffix = next; // '123 1/2'
      return 2;
    }
    return 1;
  }
  if (c === 78 || c === 83 || c === 69 || c === 87) {
    // Wisconsin grid: 'N1234', 'W156N8480', or 'N 1234' with the street after it.
    if (isGridNumber(tok)) {
      out.houseNumber = tok;
      return 1;
    }
    const next = t[1];
    if (tok.length === 1 && next !== undefined && next.length >= 3 && allDigits(next) && t.length >= 3) {
      out.houseNumber = tok + next;
      return 2;
    }
  }
  const word = NUMBER_WORDS.get(tok);
  const next = t[1];
  if (
    word !== undefined &&
    next !== undefined &&
    !STREET_SUFFIXES.has(next) &&
    !UNIT_DESIGNATORS.has(next) &&
    !DIRECTIONALS.has(next)
  ) {
    out.houseNumber = word; // 'ONE MAIN ST'; 'ONE WAY' stays a street.
    return 1;
  }
  return 0;
}

function isGridNumber(tok: string): boolean {
  // [NSEW] digits ( [NSEW] digits )?
  let i = 1;
  while (i < tok.length && isAsciiDigit(tok.charCodeAt(i))) i++;
  if (i === 1) return false;
  if (i === tok.length) return true;
  const d = tok.charCodeAt(i);
  if (d !== 78 && d !== 83 && d !== 69 && d !== 87) return false;
  return i + 1 < tok.length && allDigits(tok.slice(i + 1));
}

function splitHouseNumber(tok: string, out: ParsedAddress): void {
  let i = 0;
  while (i < tok.length && isAsciiDigit(tok.charCodeAt(i))) i++;
  let number = tok.slice(0, i);
  let rest = tok.slice(i);
  if (rest.charCodeAt(0) === 45) {
    rest = rest.slice(1);
    if (isFraction(rest)) {
      out.houseNumber = stripLeadingZeros(number);
      out.houseSuffix = rest; // '123-1/2'
      return;
    }
    // Queens '12-34' (and '12-34A'): the digits after the hyphen belong to the number.
    let k = 0;
    while (k < rest.length && isAsciiDigit(rest.charCodeAt(k))) k++;
    number += rest.slice(0, k);
    rest = rest.slice(k);
  }
  out.houseNumber = stripLeadingZeros(number);
  out.houseSuffix = rest.includes('-') ? rest.replaceAll('-', '') : rest;
}

/** Reads everything after the house number: explicit unit, street name, suffix, directionals, bare unit. */
function readStreet(t: readonly string[], from: number, out: ParsedAddress): void {
  let end = t.length;
  // 1. An explicit unit ends the street. At least one street word must come before it.
  for (let i = from + 1; i < end; i++) {
    const tok = t[i]!;
    const designator = UNIT_DESIGNATORS.get(tok);
    if (designator !== undefined) {
      if (WEAK_UNIT_WORDS.has(tok) && !weakUnitHere(t, i, from)) continue;
      if (designator === 'FL' && i + 1 === end && i - 1 > from && hasDigit(t[i - 1]!)) {
        // '2ND FL' after the street.
        out.unitType = 'FL';
        out.unit = numberPart(t[i - 1]!);
        end = i - 1;
      } else {
        readUnit(t, i, end, out);
        end = i;
      }
      break;
    }
    if (gluedUnitLength(tok) > 0) {
      readUnit(t, i, end, out);
      end = i;
      break;
    }
  }

  // 2. Route-name phrases become one token each ('COUNTY ROAD K' → 'CR', 'K'); '#' strays are dropped.
  const w: string[] = [];
  for (let i = from; i < end; i++) {
    const tok = t[i]!;
    if (tok === '#') continue;
    const phrases = ROUTE_PHRASES_BY_FIRST_WORD.get(tok);
    if (phrases !== undefined) {
      const phrase = matchRoutePhrase(t, i, end, phrases);
      if (phrase !== undefined) {
        w.push(phrase[1]);
        i += phrase[0].length;
        continue;
      }
    }
    w.push(tok);
  }
  const n = w.length;
  if (n === 0) return;

  // 3. Suffix: the last known suffix after the first word, provided what follows it is at most a
  //    directional and a unit number. A following word means the suffix word is part of the name
  //    ('TIMBER CREEK WOODS'); a following route number means a route name ('OLD HWY 10').
  let suffixAt = -1;
  let postDirectional = '';
  let unitFrom = -1;
  for (let x = n - 1; x >= 1; x--) {
    const std = STREET_SUFFIXES.get(w[x]!);
    if (std === undefined) continue;
    let u = x + 1;
    if (u === n) {
      suffixAt = x;
      break;
    }
    const dir = DIRECTIONALS.get(w[u]!);
    if (dir !== undefined) u++;
    if (u === n) {
      suffixAt = x;
      postDirectional = dir ?? '';
      break;
    }
    const next = w[u]!;
    if (
      dir === undefined &&
      ROUTE_SUFFIXES.has(std) &&
      (isAsciiDigit(next.charCodeAt(0)) || (next.length === 1 && LETTERED_ROUTE_SUFFIXES.has(std)))
    ) {
      w[x] = std;
      break;
    }
    if (hasDigit(next) || next.length === 1) {
      suffixAt = x;
      postDirectional = dir ?? '';
      unitFrom = u;
      break;
    }
  }
  let nameEnd = n;
  if (suffixAt >= 0) {
    out.streetSuffix = STREET_SUFFIXES.get(w[suffixAt]!)!;
    out.postDirectional = postDirectional;
    nameEnd = suffixAt;
    if (unitFrom >= 0 && out.unitType === '' && out.unit === '') out.unit = unitValue(w, unitFrom, n);
  } else if (n >= 2) {
    const dir = DIRECTIONALS.get(w[n - 1]!);
    if (dir !== undefined) {
      out.postDirectional = dir;
      nameEnd = n - 1;
    }
  }

  // 4. A leading directional is a pre-directional only when a name word follows it ('N MAIN ST');
  //    otherwise it is the name ('N ST', 'NORTH ST' → name 'N').
  let nameStart = 0;
  if (nameEnd >= 2) {
    const dir = DIRECTIONALS.get(w[0]!);
    if (dir !== undefined) {
      out.preDirectional = dir;
      nameStart = 1;
    }
  }

  // 5. Name words, standardized.
  let name = '';
  for (let x = nameStart; x < nameEnd; x++) {
    let tok = w[x]!;
    const tens = ORDINAL_TENS_WORDS.get(tok);
    const unitWord = tens === undefined || x + 1 >= nameEnd ? undefined : ORDINAL_UNIT_WORDS.get(w[x + 1]!);
    if (unitWord !== undefined) {
      tok = tens + unitWord; // TWENTY FIRST → 21ST
      x++;
    } else {
      const std = NAME_WORDS.get(tok);
      if (std !== undefined) tok = std;
      else if (isOldOrdinal(tok)) {
        // Old-style '2D ST', '3D AVE'.
        tok = tok.charCodeAt(tok.length - 2) === 50 ? `${tok.slice(0, -1)}ND` : `${tok.slice(0, -1)}RD`;
      }
    }
    name = name === '' ? tok : `${name} ${tok}`;
  }
  if (nameEnd - nameStart === 1) {
    // A name that is a directional word ('NORTH ST') uses the abbreviation, like a directional would.
    const dir = DIRECTIONALS.get(name);
    if (dir !== undefined) name = dir;
  }
  out.streetName = name;
}

function weakUnitHere(t: readonly string[], i: number, from: number): boolean {
  const prev = t[i - 1]!;
  if (i - 1 <= from || !(STREET_SUFFIXES.has(prev) || DIRECTIONALS.has(prev))) return false;
  const next = t[i + 1];
  if (next === undefined) return true;
  return next === '#' || hasDigit(next) || next.length === 1;
}

/** The route phrase starting at t[i] ('COUNTY' 'ROAD' ...), or undefined when none applies. */
function matchRoutePhrase(
  t: readonly string[],
  i: number,
  end: number,
  phrases: readonly RoutePhrase[],
): RoutePhrase | undefined {
  const first = t[i]!;
  for (const phrase of phrases) {
    const rest = phrase[0];
    let k = 0;
    while (k < rest.length && t[i + 1 + k] === rest[k]) k++;
    if (k < rest.length) continue;
    const after = i + 1 + rest.length;
    const next = after < end ? t[after] : undefined;
    if (next === undefined) continue;
    // A route number or letter must follow ('CR 5', 'CTH K'); two-letter single words (US, SH, IH) need
    // a digit, so that 'US' or 'SH' as a plain word is left alone.
    const ambiguous = rest.length === 0 && first.length <= 2;
    if (hasDigit(next) || (!ambiguous && next.length <= 2)) return phrase;
  }
  return undefined;
}

/** An explicit unit at t[at] ('APT', '#', 'APT4B', 'REAR') with its value in t[at+1, end). */
function readUnit(t: readonly string[], at: number, end: number, out: ParsedAddress): void {
  const tok = t[at]!;
  let type = UNIT_DESIGNATORS.get(tok);
  let value = '';
  if (type === undefined) {
    const n = gluedUnitLength(tok);
    type = UNIT_DESIGNATORS.get(tok.slice(0, n)) ?? '';
    value = numberPart(tok.slice(n));
  }
  const rest = unitValue(t, at + 1, end);
  value = value === '' ? rest : rest === '' ? value : `${value} ${rest}`;
  if (value === '' && RANGELESS_UNITS.has(type)) value = type;
  out.unitType = type;
  out.unit = value;
}

/** Unit number from t[from, end): parts run together ('4 B' → '4B'); a second designator stays a word. */
function unitValue(t: readonly string[], from: number, end: number): string {
  let value = '';
  let spaced = false;
  for (let i = from; i < end; i++) {
    const tok = t[i]!;
    if (tok === '#') continue;
    const designator = UNIT_DESIGNATORS.get(tok);
    if (designator !== undefined && value !== '') {
      value += ` ${designator}`; // 'BLDG 5 APT 3' → '5 APT 3'
      spaced = true;
      continue;
    }
    if (spaced) {
      value += ' ';
      spaced = false;
    }
    value += numberPart(tok);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Street agreement

/** Route names and generic words that name no particular street: not evidence when shared. */
const GENERIC_STREET_WORDS: ReadonlySet<string> = new Set([
  ...STANDARD_SUFFIXES,
  ...DIRECTIONALS.values(),
  ...ROUTE_PHRASES.map(([, name]) => name),
  'CR',
  'SR',
  'RR',
  'US',
  'FM',
  'HWY',
  'RTE',
  'ROUTE',
  'COUNTY',
  'STATE',
  'OLD',
  'NEW',
]);

/**
 * Whether two standardized streets (canonicalStreet) are one street written two ways: the same
 * letters with the spaces in other places (`PINE LANDINGDR`, `PINE LANDING DR`) or up to two
 * edits apart once the spaces are gone (`WHSPERING GLENCT`), or a word that names the street
 * (not a suffix, a directional or a route word) in both (`COUNTY ROAP 214` and `CR 214`; `1ST`
 * and `1ST BLVD`, its suffix mistyped into a unit). For addresses whose house numbers and ZIP
 * already agree: alone, a shared word says little.
 */
export function sameStreetWrittenApart(a: string, b: string): boolean {
  return writtenApartTest(a)(b);
}

/**
 * sameStreetWrittenApart with one street prepared once (its letters without spaces, the words
 * that name it): a row's street is tested against each of its candidates' streets without
 * splitting or copying either for most of them.
 */
export function writtenApartTest(a: string): (b: string) => boolean {
  if (a === '') return () => false;
  const formsA = compactForms(a);
  const words = [...new Set(a.split(' ').filter(namesTheStreet))];
  const compactA = formsA[0]!;
  return (b) => {
    if (b === '') return false;
    // Letters equal, or, as written, at most two edits apart: only lengths within two of each
    // other. b's letters (compactForms' first form) are copied only then: a row's street met
    // hundreds of candidates' streets, and copying each was 11% of a list's matching at 10M voters.
    let spaces = 0;
    for (let i = 0; i < b.length; i++) if (b.charCodeAt(i) === 32) spaces++;
    const lettersB = b.length - spaces;
    let compactB: string | undefined;
    if (Math.abs(lettersB - compactA.length) <= 2) {
      compactB = lettersOf(b, spaces);
      if (compactA === compactB) return true;
      const shorter = Math.min(compactA.length, compactB.length);
      if (shorter >= 8 && boundedEditDistance(compactA, compactB, 2) <= 2) return true;
    }
    // A form with directionals spelled out: only where either street has one to spell (b's one
    // form, without, is its letters).
    if (hasDirectionalWord(b)) {
      const formsB = compactForms(b);
      for (let i = 0; i < formsA.length; i++) {
        for (let j = 0; j < formsB.length; j++) if ((i > 0 || j > 0) && formsA[i] === formsB[j]) return true;
      }
    } else {
      for (let i = 1; i < formsA.length; i++) {
        if (formsA[i]!.length !== lettersB) continue;
        compactB ??= lettersOf(b, spaces);
        if (formsA[i] === compactB) return true;
      }
    }
    for (const word of words) if (hasWord(b, word)) return true;
    return false;
  };
}

/** A street's letters without its spaces (`spaces` of them): compactForms' first form. */
const lettersOf = (street: string, spaces: number) => (spaces === 0 ? street : street.replaceAll(' ', ''));

/**
 * A standardized street with its abbreviated directional words spelled out (`S ST` → `SOUTH ST`,
 * `S HD` → `SOUTH HD`), or null when it has none. A street named for a direction is stored
 * abbreviated, so a typo in its name (`SUTH ST`) is compared against one letter unless spelled out.
 */
export function withDirectionalsSpelled(street: string): string | null {
  if (!hasDirectionalWord(street)) return null;
  return street
    .split(' ')
    .map((word) => SPELLED_DIRECTIONALS.get(word) ?? word)
    .join(' ');
}

/** Whether `street` has a word N, S, E, W, NE, NW, SE or SW, without splitting it. */
function hasDirectionalWord(street: string): boolean {
  let start = 0;
  for (let i = 0; i <= street.length; i++) {
    if (i < street.length && street.charCodeAt(i) !== 32) continue;
    const first = street.charCodeAt(start);
    if (i - start === 1 && (first === 78 || first === 83 || first === 69 || first === 87)) return true;
    if (i - start === 2 && (first === 78 || first === 83)) {
      const second = street.charCodeAt(start + 1);
      if (second === 69 || second === 87) return true;
    }
    start = i + 1;
  }
  return false;
}

/** Directional words as standardized, spelled out. */
const SPELLED_DIRECTIONALS: ReadonlyMap<string, string> = new Map(
  [...DIRECTIONALS]
    .filter(([word, abbreviation]) => word !== abbreviation)
    .map(([word, abbreviation]) => [abbreviation, word]),
);

/**
 * A standardized street's letters without spaces (first); where it has abbreviated directional
 * words, also with them spelled out (at most four forms): a street named for a direction is stored
 * abbreviated (`EAST RD` → `E RD`, `S NORTH DR` → `S N DR`), while the same street written apart
 * (`EASTRD`, `S NOR TH DR`) keeps the words whole, since no directional is recognized in it.
 */
function compactForms(street: string): string[] {
  if (!street.includes(' ')) return [street];
  let forms = [''];
  for (const word of street.split(' ')) {
    const spelled = forms.length < 4 ? SPELLED_DIRECTIONALS.get(word) : undefined;
    forms =
      spelled === undefined ? forms.map((f) => f + word) : forms.flatMap((f) => [f + word, f + spelled]);
  }
  return forms;
}

/** Whether `word` is one of the space-separated words of `text`. */
function hasWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const end = at + word.length;
    if (
      (at === 0 || text.charCodeAt(at - 1) === 32) &&
      (end === text.length || text.charCodeAt(end) === 32)
    ) {
      return true;
    }
  }
  return false;
}

function namesTheStreet(word: string): boolean {
  if (GENERIC_STREET_WORDS.has(word)) return false;
  return word.length >= 3 || /^\d+$/.test(word);
}
