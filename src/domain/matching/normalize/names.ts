/**
 * Person-name normalization. Runs for every voter record at index build and for every input row,
 * so the common case (a field that is already upper-case A-Z words) returns the input string
 * itself after one charCode scan, and nothing here builds a regex per call.
 */

import { isAsciiDigit, isAsciiLetter } from './ascii.ts';

/** Names are never this long; cutting first bounds the work on hostile cells. */
const MAX_NAME_CHARS = 200;

/**
 * Letters that NFKD does not decompose into ASCII, with their usual transliteration. Keyed by
 * code point; also applied to the characters of an NFKD decomposition (Ǣ → Æ + macron → AE).
 */
const SPECIAL_LETTERS = new Map<number, string>([
  [0x00df, 'SS'], // ß
  [0x1e9e, 'SS'], // ẞ
  [0x00c6, 'AE'], // Æ
  [0x00e6, 'AE'],
  [0x00d8, 'O'], // Ø
  [0x00f8, 'O'],
  [0x0152, 'OE'], // Œ
  [0x0153, 'OE'],
  [0x0141, 'L'], // Ł
  [0x0142, 'L'],
  [0x0110, 'D'], // Đ
  [0x0111, 'D'],
  [0x00d0, 'D'], // Ð (eth)
  [0x00f0, 'D'],
  [0x00de, 'TH'], // Þ
  [0x00fe, 'TH'],
  [0x0131, 'I'], // dotless ı
  [0x0126, 'H'], // Ħ
  [0x0127, 'H'],
  [0x0166, 'T'], // Ŧ
  [0x0167, 'T'],
  [0x0138, 'K'], // ĸ
  [0x014a, 'N'], // Ŋ
  [0x014b, 'N'],
  [0x0192, 'F'], // ƒ
  [0x0189, 'D'], // Ɖ
  [0x01b5, 'Z'], // Ƶ
  [0x01b6, 'Z'],
  [0x018f, 'E'], // Ə (schwa)
  [0x0259, 'E'],
  [0x0197, 'I'], // Ɨ
  [0x0268, 'I'],
]);

/** Apostrophe look-alikes: removed without a space so O'BRIEN and O’BRIEN both become OBRIEN. */
const APOSTROPHES = new Set([
  0x27, // '
  0x60, // `
  0xb4, // ´
  0x2018, // ‘
  0x2019, // ’
  0x201b, // ‛
  0x2032, // ′
  0x02b9, // ʹ
  0x02bb, // ʻ (Hawaiian ʻokina)
  0x02bc, // ʼ
  0x02bd, // ʽ
  0xff07, // ＇
]);

// Compiled once; only used when a character is seen for the first time.
const IS_LETTER = /^\p{L}$/u;
const IS_MARK = /^\p{M}$/u;
const IS_SEPARATOR = /^[\p{P}\p{Z}\s]$/u;

/**
 * Replacement of one code point: upper-case ASCII letters, ' ' for a separator, '' to drop.
 * Letters of other scripts (Cyrillic, Greek, CJK …) are dropped, not transliterated: the voter
 * file is ASCII, so they could never match anyway. ASCII punctuation and ASCII symbols (+ | = $ …)
 * separate words because lists use them as separators; non-ASCII symbols and emoji are dropped.
 */
function replacementOf(cp: number): string {
  if (cp < 0x80) {
    if ((cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122)) return String.fromCharCode(cp & ~0x20);
    if (APOSTROPHES.has(cp) || (cp >= 48 && cp <= 57)) return '';
    if (cp < 32 || cp === 127) return cp >= 9 && cp <= 13 ? ' ' : '';
    return ' ';
  }
  if (APOSTROPHES.has(cp)) return '';
  const special = SPECIAL_LETTERS.get(cp);
  if (special !== undefined) return special;
  const char = String.fromCodePoint(cp);
  if (IS_LETTER.test(char)) {
    // NFKD splits accented letters into base + combining marks and compatibility forms
    // (fullwidth Ａ, ligature ﬁ, math 𝐀) into plain letters; keep only what is ASCII A-Z.
    const decomposed = char.normalize('NFKD');
    let out = '';
    for (let i = 0; i < decomposed.length; i++) {
      const c = decomposed.charCodeAt(i);
      if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) out += String.fromCharCode(c & ~0x20);
      else out += SPECIAL_LETTERS.get(c) ?? '';
    }
    return out;
  }
  if (IS_MARK.test(char)) return '';
  if (IS_SEPARATOR.test(char)) return ' ';
  return '';
}

/** Eager table for ASCII, Latin-1 and Latin Extended-A/B plus the combining marks block. */
const TABLE_SIZE = 0x370;
const TABLE: string[] = [];
for (let cp = 0; cp < TABLE_SIZE; cp++) TABLE.push(replacementOf(cp));

/** Lazily filled for everything else; bounded because hostile input can hold many code points. */
const OTHER = new Map<number, string>();
const OTHER_MAX = 8192;

function replacementOfOther(cp: number): string {
  let r = OTHER.get(cp);
  if (r === undefined) {
    r = replacementOf(cp);
    if (OTHER.size >= OTHER_MAX) OTHER.clear();
    OTHER.set(cp, r);
  }
  return r;
}

/**
 * The letter each digit is mistaken for (0 for O, 1 for I, 5 for S, 8 for B): a digit inside a
 * name's word (CAR0L, WIL5ON) is a scanning or keying slip for it, where no name has digits.
 */
const DIGIT_LOOKALIKES = ['O', 'I', 'Z', 'E', 'A', 'S', 'G', 'T', 'B', 'G'];

/**
 * Upper-case ASCII A-Z words separated by single spaces. Accents and compatibility forms fold to
 * ASCII (José → JOSE, Ñ → N, ß → SS, Æ → AE, Ø → O, Ł → L); apostrophes vanish (O'BRIEN →
 * OBRIEN); punctuation, whitespace and ASCII symbols separate words; a digit between two letters
 * is read as the letter it looks like (DIGIT_LOOKALIKES); other digits, emoji, other symbols,
 * control characters and letters of other scripts are dropped (see replacementOf). Input longer
 * than 200 chars is cut to 200 first. Never throws; lone surrogates are dropped.
 */
export function cleanName(value: string): string {
  const length = value.length;
  if (length === 0) return '';
  if (length <= MAX_NAME_CHARS) {
    // Fast path: A-Z / a-z words separated by single spaces, no leading or trailing space.
    let prevSpace = true;
    let lower = false;
    let i = 0;
    for (; i < length; i++) {
      const c = value.charCodeAt(i);
      if (c >= 65 && c <= 90) prevSpace = false;
      else if (c >= 97 && c <= 122) {
        lower = true;
        prevSpace = false;
      } else if (c === 32 && !prevSpace) prevSpace = true;
      else break;
    }
    if (i === length && !prevSpace) return lower ? value.toUpperCase() : value;
  }
  const end = length < MAX_NAME_CHARS ? length : MAX_NAME_CHARS;
  // Runs of A-Z (with single spaces between letters) are copied by slice rather than char by
  // char: far fewer string pieces for upper-case data with some punctuation (O'BRIEN, SMITH-JONES).
  // Everything else, lower case included, goes through the table one character at a time (measured
  // faster than slicing mixed case and upper-casing the result).
  let out = '';
  let run = -1;
  let space = false;
  for (let i = 0; i < end; i++) {
    const c = value.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      if (run < 0) {
        if (space) {
          out += ' ';
          space = false;
        }
        run = i;
      }
      continue;
    }
    if (c === 32 && run >= 0 && i + 1 < end) {
      const next = value.charCodeAt(i + 1);
      if (next >= 65 && next <= 90) continue;
    }
    if (run >= 0) {
      out += value.slice(run, i);
      run = -1;
    }
    let r: string;
    if (isAsciiDigit(c) && isAsciiLetter(value.charCodeAt(i - 1)) && isAsciiLetter(value.charCodeAt(i + 1)))
      r = DIGIT_LOOKALIKES[c - 48]!;
    else if (c < TABLE_SIZE) r = TABLE[c]!;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < end ? value.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        r = replacementOfOther(((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000);
        i++;
      } else r = '';
    } else if (c >= 0xdc00 && c <= 0xdfff) r = '';
    else r = replacementOfOther(c);
    if (r === ' ') {
      if (out.length > 0) space = true;
    } else if (r !== '') {
      if (space) {
        out += ' ';
        space = false;
      }
      out += r;
    }
  }
  if (run >= 0) out += value.slice(run, end);
  return out;
}

const SUFFIXES = new Map<string, string>([
  ['JR', 'JR'],
  ['JNR', 'JR'],
  ['JUNIOR', 'JR'],
  ['SR', 'SR'],
  ['SNR', 'SR'],
  ['SENIOR', 'SR'],
  ['II', 'II'],
  ['2ND', 'II'],
  ['SECOND', 'II'],
  ['III', 'III'],
  ['3RD', 'III'],
  ['THIRD', 'III'],
  ['IV', 'IV'],
  ['4TH', 'IV'],
  ['FOURTH', 'IV'],
  ['V', 'V'],
  ['5TH', 'V'],
  ['FIFTH', 'V'],
  // A bare digit is a suffix only where a suffix is expected (the suffix field, the end of a
  // name): name fields lose digits in cleanName, and 'SMITH 3' means SMITH III.
  ['2', 'II'],
  ['3', 'III'],
  ['4', 'IV'],
  ['5', 'V'],
]);

/** Longest key of SUFFIXES: anything longer is not a suffix, whatever it holds. */
const MAX_SUFFIX_CHARS = 6;

/**
 * Standard suffix JR, SR, II, III, IV, V of a raw or cleaned value ('Jr.', 'JUNIOR', '3rd', '3',
 * ' III '), else ''. Professional suffixes (ESQ, MD, PHD) are not generational: ''.
 */
export function normalizeSuffix(value: string): string {
  const direct = SUFFIXES.get(value);
  if (direct !== undefined) return direct;
  // Keep letters (upper-cased) and digits only: 'J.R.', 'Jr.', ' 3rd ' all compact to a key.
  let compact = '';
  const length = value.length;
  for (let i = 0; i < length; i++) {
    const c = value.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 48 && c <= 57)) compact += value[i];
    else if (c >= 97 && c <= 122) compact += String.fromCharCode(c - 32);
    else continue;
    if (compact.length > MAX_SUFFIX_CHARS) return '';
  }
  return SUFFIXES.get(compact) ?? '';
}

/**
 * Courtesy titles and ranks removed from the front of a first name or full name (a veterans'
 * list writes `SGT JOHN SMITH`). None is a given name; SR is not here (it is Senior), nor SEN or
 * GOV (given names in some languages).
 */
const TITLES = new Set([
  'MR',
  'MRS',
  'MS',
  'MISS',
  'MX',
  'DR',
  'REV',
  'FR',
  'PROF',
  'HON',
  'PVT',
  'PFC',
  'CPL',
  'SGT',
  'LT',
  'CAPT',
  'MAJ',
  'COL',
  'GEN',
  'CDR',
  'ADM',
]);

/** Professional post-nominals dropped from the end of a full name (they are not generational). */
const PROFESSIONAL = new Set(['ESQ', 'PHD', 'MD', 'DDS', 'DVM', 'CPA']);

/**
 * Surname particles: in a full name, the surname starts at the first of these (after the first
 * word), so 'MARIA DE LA CRUZ' has last name 'DE LA CRUZ'. MC is not here: 'MC DONALD' is joined
 * into 'MCDONALD' instead, the way voter files spell it.
 */
const PARTICLES = new Set([
  'DE',
  'DEL',
  'DELA',
  'DELLA',
  'DELOS',
  'DI',
  'DA',
  'DAS',
  'DO',
  'DOS',
  'DU',
  'VAN',
  'VANDER',
  'VON',
  'DER',
  'DEN',
  'LA',
  'LAS',
  'LE',
  'LOS',
  'ST',
  'STE',
  'SAINT',
  'BIN',
  'IBN',
  'AL',
  'EL',
]);

/** Whether a cleaned word is a surname particle (DE, LA, VAN …); shared with the phonetic keys. */
export function isNameParticle(word: string): boolean {
  return PARTICLES.has(word);
}

/** Middle-name placeholders meaning "none" (DMV and some voter files write them). */
const NO_MIDDLE = new Set(['NMN', 'NMI', 'NONE']);

export interface PersonName {
  first: string;
  middle: string;
  last: string;
  suffix: string;
}

/**
 * If the raw value ends in a suffix written with digits ('Smith 3rd', 'Smith, 2nd'), returns the
 * index where that token starts, else -1. Letter-only suffixes survive cleanName and are found on
 * the cleaned words; this catches the ones cleanName would mangle ('3RD' → 'RD').
 */
function rawDigitSuffixStart(raw: string): number {
  let end = raw.length;
  // Skip trailing spaces and punctuation ('Smith 3rd.').
  while (end > 0) {
    const c = raw.charCodeAt(end - 1);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) break;
    end--;
  }
  let start = end;
  let digit = false;
  while (start > 0 && end - start <= MAX_SUFFIX_CHARS) {
    const c = raw.charCodeAt(start - 1);
    if (c >= 48 && c <= 57) digit = true;
    else if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122))) break;
    start--;
  }
  if (!digit || start === 0 || end - start > MAX_SUFFIX_CHARS) return -1;
  return normalizeSuffix(raw.slice(start, end)) === '' ? -1 : start;
}

/** A cleaned field split into the name part and a trailing generational suffix. */
interface Split {
  name: string;
  suffix: string;
}

/**
 * Cleans a name field and takes a trailing suffix off it ('SMITH JR' → SMITH + JR). A lone suffix
 * word is left alone (it is the whole name). `allowV`: the first-name field never gives suffix V,
 * because there 'JOHN V' is a middle initial.
 */
function cleanWithSuffix(raw: string, allowV: boolean): Split {
  let name = cleanName(raw);
  let suffix = '';
  if (name !== raw) {
    const start = rawDigitSuffixStart(raw.length > MAX_NAME_CHARS ? raw.slice(0, MAX_NAME_CHARS) : raw);
    if (start > 0) {
      const rest = cleanName(raw.slice(0, start));
      if (rest !== '') {
        suffix = normalizeSuffix(raw.slice(start));
        name = rest;
      }
    }
  }
  if (suffix === '') {
    const space = name.lastIndexOf(' ');
    if (space > 0) {
      // Suffix words are at most 6 letters: skip the slice and look-up for longer last words.
      const found =
        name.length - space <= MAX_SUFFIX_CHARS + 1 ? SUFFIXES.get(name.slice(space + 1)) : undefined;
      if (found !== undefined && (allowV || found !== 'V')) {
        suffix = found;
        name = name.slice(0, space);
      }
    }
  }
  return { name, suffix };
}

/** 'MC DONALD' → 'MCDONALD' (voter files write the prefix joined). */
function joinMc(last: string): string {
  if (last.length < 4 || !(last.startsWith('MC ') || last.includes(' MC '))) return last;
  const words = last.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (word === 'MC' && next !== undefined) {
      out.push(word + next);
      i++;
    } else out.push(word);
  }
  return out.join(' ');
}

/** Drops leading courtesy titles ('MR JOHN' → 'JOHN', 'REV DR JOHN' → 'JOHN', 'MR' → ''). */
function stripTitles(name: string): string {
  let rest = name;
  for (;;) {
    const space = rest.indexOf(' ');
    // Titles are at most 4 letters: a longer first word is returned without a slice.
    if ((space < 0 ? rest.length : space) > 4) return rest;
    if (!TITLES.has(space < 0 ? rest : rest.slice(0, space))) return rest;
    rest = space < 0 ? '' : rest.slice(space + 1);
  }
}

/**
 * The fields as a client (or the voter file) sends them → cleaned PersonName. A suffix at the end
 * of last ('SMITH JR') or first ('JOHN JR') moves to suffix (the suffix field wins when it has
 * one). Titles are dropped from first. With middle empty, a first name holding an initial is
 * split: 'JOHN Q' → JOHN / Q and 'J ROBERT' → J / ROBERT. Two full words ('MARY ANN', 'JUAN
 * CARLOS') stay together as the first name: compound given names are common and the matcher
 * compares first names by token overlap. 'NMN'/'NMI' middle names mean none.
 */
export function normalizePersonName(first: string, middle: string, last: string, suffix: string): PersonName {
  const l = cleanWithSuffix(last, true);
  const f = cleanWithSuffix(first, false);
  // Titles and the NMN placeholders are 2-4 letters: longer values skip the Set look-ups.
  let firstName = f.name;
  if (firstName.indexOf(' ') >= 0) firstName = stripTitles(firstName);
  else if (firstName.length <= 4 && TITLES.has(firstName)) firstName = '';
  let middleName = middle === '' ? '' : cleanName(middle);
  if (middleName.length >= 3 && middleName.length <= 4 && NO_MIDDLE.has(middleName)) middleName = '';
  if (middleName === '') {
    const space = firstName.indexOf(' ');
    if (space > 0) {
      const lastSpace = firstName.lastIndexOf(' ');
      if (firstName.length - lastSpace === 2) {
        // 'JOHN Q' (or 'MARY ANN Q'): the trailing initial is the middle name.
        middleName = firstName.slice(lastSpace + 1);
        firstName = firstName.slice(0, lastSpace);
      } else if (space === 1) {
        // 'J ROBERT': goes by the middle name; keep the initial as first.
        middleName = firstName.slice(2);
        firstName = firstName.slice(0, 1);
      }
    }
  }
  let s = suffix === '' ? '' : normalizeSuffix(suffix);
  if (s === '') s = l.suffix || f.suffix;
  return { first: firstName, middle: middleName, last: joinMc(l.name), suffix: s };
}

const EMPTY_NAME: PersonName = Object.freeze({ first: '', middle: '', last: '', suffix: '' });

/** Words of one comma-separated part of a full name, with a trailing suffix taken off. */
function partWords(raw: string, allowV: boolean): { words: string[]; suffix: string } {
  const split = cleanWithSuffix(raw, allowV);
  const name = joinMc(split.name);
  const words = name === '' ? [] : name.split(' ');
  let suffix = split.suffix;
  // 'JOHN SMITH III ESQ': drop post-nominals, then look once more for a generational suffix.
  while (words.length > 1 && PROFESSIONAL.has(words[words.length - 1]!)) words.pop();
  if (suffix === '' && words.length > 1) {
    const found = SUFFIXES.get(words[words.length - 1]!);
    if (found !== undefined && (allowV || found !== 'V')) {
      suffix = found;
      words.pop();
    }
  }
  return { words, suffix };
}

/** True when a comma part holds only suffixes / post-nominals ('Jr.', 'MD', 'III, Esq'). */
function isSuffixPart(raw: string): boolean {
  if (normalizeSuffix(raw) !== '') return true;
  const cleaned = cleanName(raw);
  if (cleaned === '') return true;
  for (const word of cleaned.split(' ')) if (!SUFFIXES.has(word) && !PROFESSIONAL.has(word)) return false;
  return true;
}

/**
 * One-field full name → PersonName.
 *
 * - 'LAST, FIRST MIDDLE' when a comma separates two name parts ('SMITH, JOHN Q', 'SMITH JR,
 *   JOHN'); a comma part that is only a suffix ('John Smith, Jr.', ', MD') is not a name part.
 * - Titles (MR, MRS, MS, DR, REV …) are dropped from the front; JR/SR/II/III/IV/V (also '3rd')
 *   from the end become the suffix; ESQ, MD, PHD … are dropped.
 * - Natural order, words w0..wn: one word → last only (first ''), since a lone word in a name
 *   column is far more often a surname, and the surname drives blocking; two → first, last.
 *   Three or more: the surname starts at the first particle after the first word ('MARIA DE LA
 *   CRUZ' → last 'DE LA CRUZ'; 'LUDWIG VAN BEETHOVEN'), else a hyphenated last word is the whole
 *   surname ('ANA MARIA GARCIA-LOPEZ'). Otherwise three words are first, middle, last ('MARY ANN
 *   ONEIL') and four or more keep the last two words as the surname ('JUAN CARLOS GARCIA LOPEZ'
 *   → JUAN / CARLOS / GARCIA LOPEZ), the Hispanic two-surname pattern; the matcher compares
 *   surnames by token overlap, so GARCIA LOPEZ still meets a voter GARCIA. Three words that are
 *   really two surnames ('JUAN GARCIA LOPEZ') cannot be told from first-middle-last and parse as
 *   such.
 * - 'MC DONALD' is joined into 'MCDONALD'.
 */
export function parseFullName(value: string): PersonName {
  const raw = value.length > MAX_NAME_CHARS ? value.slice(0, MAX_NAME_CHARS) : value;
  let suffix = '';
  const comma = raw.indexOf(',');
  if (comma >= 0) {
    const parts = raw.split(',');
    const names: string[] = [];
    for (const part of parts) {
      if (!isSuffixPart(part)) names.push(part);
      else if (suffix === '') suffix = normalizeSuffix(part) || firstSuffixWord(part);
    }
    if (names.length >= 2) {
      // 'LAST, FIRST MIDDLE [SUFFIX]'; parts beyond the second are noise.
      const lastPart = partWords(names[0]!, true);
      const givenPart = partWords(names[1]!, false);
      let given = givenPart.words;
      while (given.length > 0 && TITLES.has(given[0]!)) given = given.slice(1);
      let lastWords = lastPart.words;
      while (lastWords.length > 1 && TITLES.has(lastWords[0]!)) lastWords = lastWords.slice(1);
      return {
        first: given[0] ?? '',
        middle: given.slice(1).join(' '),
        last: lastWords.join(' '),
        suffix: suffix || lastPart.suffix || givenPart.suffix,
      };
    }
    if (names.length === 0) return suffix === '' ? EMPTY_NAME : { ...EMPTY_NAME, suffix };
    return naturalOrder(names[0]!, suffix);
  }
  return naturalOrder(raw, suffix);
}

/** The first generational suffix word of a suffix-only comma part ('III ESQ' → III). */
function firstSuffixWord(part: string): string {
  for (const word of cleanName(part).split(' ')) {
    const found = SUFFIXES.get(word);
    if (found !== undefined) return found;
  }
  return '';
}

function naturalOrder(raw: string, knownSuffix: string): PersonName {
  const part = partWords(raw, true);
  let words = part.words;
  let start = 0;
  // Titles, also a couple's joined by AND (MR AND MRS JOHN SMITH: one name, the husband's).
  while (
    start < words.length &&
    (TITLES.has(words[start]!) || (start > 0 && words[start] === 'AND' && TITLES.has(words[start + 1] ?? '')))
  )
    start++;
  if (start > 0) words = words.slice(start);
  const suffix = knownSuffix || part.suffix;
  const n = words.length;
  if (n === 0) return suffix === '' ? EMPTY_NAME : { ...EMPTY_NAME, suffix };
  if (n === 1) return { first: '', middle: '', last: words[0]!, suffix };
  if (n === 2) return { first: words[0]!, middle: '', last: words[1]!, suffix };
  // A middle initial last: a listing's LAST FIRST M without its comma (SMITH JOHN A), as no one
  // writes a surname of one letter.
  if (words[n - 1]!.length === 1) {
    const surnameWords = leadingSurnameWords(raw, words);
    if (surnameWords < n - 1) {
      return {
        first: words[surnameWords]!,
        middle: words.slice(surnameWords + 1).join(' '),
        last: words.slice(0, surnameWords).join(' '),
        suffix,
      };
    }
  }
  let surname = -1;
  for (let i = 1; i < n - 1; i++) {
    if (PARTICLES.has(words[i]!)) {
      surname = i;
      break;
    }
  }
  if (surname < 0) {
    const hyphenated = hyphenatedSurnameWords(raw);
    // An initial before the last word ends the given names (JO ANN M SMITH): a surname of two
    // words (GARCIA LOPEZ) never starts with one.
    surname =
      hyphenated >= 2 && hyphenated < n
        ? n - hyphenated
        : n === 3 || words[n - 2]!.length === 1
          ? n - 1
          : n - 2;
  }
  return {
    first: words[0]!,
    middle: words.slice(1, surname).join(' '),
    last: words.slice(surname).join(' '),
    suffix,
  };
}

/**
 * Words of a surname written first (LAST FIRST M): its particles and the word after them (DE LA
 * CRUZ), or a hyphenated one's parts (SMITH-JONES), else one.
 */
function leadingSurnameWords(raw: string, words: readonly string[]): number {
  let at = 0;
  while (at < words.length - 1 && PARTICLES.has(words[at]!)) at++;
  if (at > 0) return at + 1;
  const first = raw.trim().split(/[\s,]+/)[0] ?? '';
  if (!first.includes('-')) return 1;
  const cleaned = cleanName(first);
  return cleaned === '' ? 1 : cleaned.split(' ').length;
}

/**
 * How many cleaned words the last raw word makes when it is hyphenated ('Ana Garcia-Lopez Jr.' →
 * 2), else 0: a hyphen marks a compound surname, which then is the whole last name.
 */
function hyphenatedSurnameWords(raw: string): number {
  if (!raw.includes('-')) return 0;
  let end = raw.length;
  for (let pass = 0; pass < 2; pass++) {
    while (end > 0 && isBreak(raw.charCodeAt(end - 1))) end--;
    let start = end;
    while (start > 0 && !isBreak(raw.charCodeAt(start - 1))) start--;
    const word = raw.slice(start, end);
    if (word.includes('-')) {
      const cleaned = cleanName(word);
      return cleaned === '' ? 0 : cleaned.split(' ').length;
    }
    // A trailing suffix or post-nominal ('Jr.', 'MD'): look at the word before it once.
    const cleaned = cleanName(word);
    if (!(SUFFIXES.has(cleaned) || PROFESSIONAL.has(cleaned) || normalizeSuffix(word) !== '')) return 0;
    end = start;
  }
  return 0;
}

/** Whitespace, or the '.' / ',' that trail a word ('Jr.'). */
function isBreak(c: number): boolean {
  return c <= 32 || c === 44 || c === 46;
}

/**
 * A whole name written in the first or the last name cell with the other one empty ('SMITH,
 * JOHN' in last_name, 'SMITH, JOHN Q' in first_name): its parts, as full_name gives them; null
 * for anything else. Only with its comma: 'GARCIA LOPEZ' in last_name is a compound surname.
 */
export function wholeNameInOneCell(first: string, last: string): PersonName | null {
  const one = first === '' ? last : last === '' ? first : '';
  if (one === '' || !one.includes(',')) return null;
  const parsed = parseFullName(one);
  return parsed.first !== '' && parsed.last !== '' ? parsed : null;
}

/**
 * A name whose surname is written twice, at the end of the first name cell or at the start of
 * the surname cell as well ('JOHN SMITH' + 'SMITH', 'JOHN' + 'JOHN SMITH'): once.
 */
export function withoutRepeatedName(name: PersonName): PersonName {
  const { first, last } = name;
  if (first === '' || last === '') return name;
  if (first.length > last.length + 1 && first.endsWith(` ${last}`))
    return { ...name, first: first.slice(0, first.length - last.length - 1) };
  if (last.length > first.length + 1 && last.startsWith(`${first} `))
    return { ...name, last: last.slice(first.length + 1) };
  return name;
}

/**
 * A mailing list's forms around a full name, taken away: `CURRENT RESIDENT` and `OCCUPANT` (no
 * one: ''), `ESTATE OF`, `THE HONORABLE` before it, `ET AL`, `ET UX`, `& FAMILY` after it, and a
 * household by its surname (`THE SMITH FAMILY`: `SMITH`). The value as it is when nothing else is
 * left.
 */
export function withoutMailingWords(value: string): string {
  if (value.length > MAX_NAME_CHARS) return value;
  if (NO_ONE.test(value)) return '';
  const rest = value
    .replace(LEADING_MAILING_WORDS, '')
    .replace(TRAILING_MAILING_WORDS, '')
    .replace(FAMILY_OF, '$1');
  return rest === value ? value : rest.trim() || value;
}

/** A mailing list's name of no one: the resident, the occupant. */
const NO_ONE = /^\s*(current\s+)?(resident|occupant)s?\s*$/i;
/** Before a name: an estate's, a judge's or an official's form of address. */
const LEADING_MAILING_WORDS = /^\s*(estate\s+of\s+|(the\s+)?hon(orable|ourable)?\.?\s+)/i;
/** After a name: and others, and wife, and family. */
const TRAILING_MAILING_WORDS = /(\s*,)?\s+(et\.?\s*(al|ux)\.?|(&|and|\+)\s*family)\s*$/i;
/** A household by its surname: THE SMITH FAMILY, SMITH HOUSEHOLD. */
const FAMILY_OF = /^\s*(?:the\s+)?(.+?)\s+(family|household)\s*$/i;

/**
 * A name cell less its asides: a nickname or a maiden name written in parentheses, brackets or
 * quotes beside the name ('ROBERT (BOB)', 'Robert "Bob" Smith', 'Mary Smith (nee Jones)'). Read
 * with the rest, the aside became part of the first name or a middle name. An apostrophe inside
 * a name (O'BRIEN) is no quote. The cell as it is when nothing else is left.
 */
export function withoutAsides(value: string): string {
  if (!/[("[]|(^|\s)'/.test(value)) return value;
  const rest = value
    .replace(/\([^)]*\)?|\[[^\]]*\]?|"[^"]*"?|(^|\s)'[^']*'(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return rest === '' ? value : rest;
}

/**
 * A full name that holds two people, as household mailing lists write it in the one name column:
 * 'JOHN & MARY SMITH', 'John and Mary Smith', 'SMITH, JOHN & MARY', 'JOHN SMITH & MARY JONES'.
 * Each person's names (a given part of two words is first and middle: 'JOHN Q & MARY SMITH');
 * null for one person, also for a couple's titles before one name ('MR & MRS JOHN SMITH').
 */
export function parseCoupleName(value: string): PersonName[] | null {
  const raw = value.length > MAX_NAME_CHARS ? value.slice(0, MAX_NAME_CHARS) : value;
  const joined = raw.search(/[&+]|\band\b/i);
  if (joined < 0) return null;
  const comma = raw.indexOf(',');
  if (comma >= 0 && comma < joined) {
    // 'SMITH, JOHN & MARY': the surname before the comma, two given names after it.
    const last = parseFullName(raw.slice(0, comma)).last;
    const { firsts } = splitCombinedFirstNames(raw.slice(comma + 1), false);
    if (last === '' || firsts.length !== 2) return null;
    return firsts.map((given) => givenWithSurname(given, last));
  }
  if (comma >= 0) return null;
  const { firsts, last } = splitCombinedFirstNames(raw);
  if (firsts.length !== 2) return null;
  if (last !== '') return firsts.map((given) => givenWithSurname(given, last));
  // 'JOHN SMITH & MARY JONES': two full names.
  const persons = firsts.map((full) => parseFullName(full));
  return persons.every((person) => person.first !== '' && person.last !== '') ? persons : null;
}

/** 'JOHN Q' with SMITH: first JOHN, middle Q. */
function givenWithSurname(given: string, last: string): PersonName {
  const space = given.indexOf(' ');
  return space < 0
    ? { first: given, middle: '', last, suffix: '' }
    : { first: given.slice(0, space), middle: given.slice(space + 1), last, suffix: '' };
}

/** Characters that separate the people of a combined first-name field. */
function isCombinedSeparator(c: number): boolean {
  return c === 38 /* & */ || c === 47 /* / */ || c === 43 /* + */ || c === 44 /* , */ || c === 59 /* ; */;
}

/**
 * 'JOHN & MARY', 'John and Mary', 'JOHN/MARY', 'JOHN + MARY', 'JOHN, MARY' → firsts JOHN, MARY
 * (cleaned, titles dropped, at most the first two). A shared surname is returned separately:
 * - when the first name part is one word and the final one has more ('JOHN & MARY SMITH'), the
 *   final word of the final part is the surname (from a particle on: 'MARY DE LA CRUZ'). So
 *   'JOHN & MARY ANN' reads ANN as a surname: a combined first-name column rarely holds a
 *   compound name after the '&', and without a list of given names the two cannot be told apart.
 * - when every part has two or more words ending in the same word ('JOHN SMITH & MARY SMITH').
 * One part is returned whole as the only first name ('MARY ANN' → ['MARY ANN']). Without
 * `mayEndInSurname` (the surname was written apart: 'SMITH, GLORIA AND JUAN CARLOS'), no surname
 * is looked for and every word is a given name.
 */
export function splitCombinedFirstNames(
  value: string,
  mayEndInSurname = true,
): { firsts: string[]; last: string } {
  const raw = value.length > MAX_NAME_CHARS ? value.slice(0, MAX_NAME_CHARS) : value;
  const parts: string[][] = [];
  let from = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i < raw.length && !isCombinedSeparator(raw.charCodeAt(i))) continue;
    const cleaned = cleanName(raw.slice(from, i));
    from = i + 1;
    if (cleaned === '') continue;
    // 'JOHN AND MARY': AND separates too.
    let words: string[] = [];
    for (const word of cleaned.split(' ')) {
      if (word === 'AND') {
        if (words.length > 0) parts.push(words);
        words = [];
      } else if (!(words.length === 0 && TITLES.has(word))) words.push(word);
    }
    if (words.length > 0) parts.push(words);
  }
  let last = '';
  const n = parts.length;
  if (n >= 2 && mayEndInSurname) {
    const final = parts[n - 1]!;
    const shared = final[final.length - 1]!;
    if (parts[0]!.length === 1 && final.length >= 2) {
      // 'JOHN & MARY DE LA CRUZ': the surname starts at a particle, as in parseFullName; 'JOHN &
      // MARY SMITH-JONES': at the hyphenated surname's first word.
      const hyphenated = hyphenatedSurnameWords(raw);
      let at = hyphenated >= 2 && hyphenated < final.length ? final.length - hyphenated : final.length - 1;
      for (let i = 1; i < final.length - 1; i++) {
        if (PARTICLES.has(final[i]!)) {
          at = i;
          break;
        }
      }
      last = final.splice(at).join(' ');
    } else if (parts.every((p) => p.length >= 2 && p[p.length - 1] === shared)) {
      last = shared;
      for (const p of parts) p.pop();
    }
  }
  const firsts: string[] = [];
  for (let i = 0; i < n && firsts.length < 2; i++) firsts.push(parts[i]!.join(' '));
  return { firsts, last };
}
