import {
  CORE_VOTER_COLUMNS,
  type CoreVoterColumn,
  ID_INDEXES,
  type IdIndexName,
} from '../../voters/voter-columns.ts';
import { canonicalStreet, type ParsedAddress, parseAddress, routeName } from './address.ts';
import { isAsciiDigit } from './ascii.ts';
import {
  normalizeEmail,
  normalizeGender,
  normalizeLatLong,
  normalizePhone,
  normalizeStateCode,
  normalizeZip,
} from './contact.ts';
import {
  birthYearsFromAge,
  dateTypoVariants,
  invalidDateDigits,
  isPlaceholderDate,
  type PartialDate,
  parseDob,
} from './dates.ts';
import {
  cleanName,
  normalizePersonName,
  parseCoupleName,
  parseFullName,
  splitCombinedFirstNames,
  wholeNameInOneCell,
  withoutAsides,
  withoutMailingWords,
  withoutRepeatedName,
} from './names.ts';
import {
  type OneLineAddress,
  splitCityCell,
  splitOneLineAddress,
  splitStateCell,
  splitUnpunctuatedAddress,
} from './one-line-address.ts';
import { isPlaceholder, withoutTextGuard } from './spreadsheet-cells.ts';

/**
 * One person in the form both sides of a comparison share: a voter record at index build and an
 * input row at match time go through the same functions, so equal values mean equal people data.
 * Empty strings, null and NaN mean "not given" (neutral in scoring, never disagreement).
 */
export interface NormalizedPerson {
  first: string;
  middle: string;
  last: string;
  suffix: string;
  /** House number with its suffix ('123A'), or the box number of a PO box or rural route. */
  house: string;
  /** Standardized street ('N MAIN ST'), 'PO BOX', or 'RR 2'. */
  street: string;
  unit: string;
  city: string;
  state: string;
  zip: string;
  dob: PartialDate | null;
  /**
   * For a `dob` shaped like a date but not one (`19399222`: a digit typo), the full dates one
   * digit typo away (packed YYYYMMDD, ascending): searched and compared instead (dob=typo).
   */
  dobTypos: number[];
  /** From `age`: the two birth years the age allows as of the job date. */
  birthYears: [number, number] | null;
  gender: 'F' | 'M' | '';
  phones: string[];
  email: string;
  /** NaN when unknown. */
  lat: number;
  lon: number;
  /**
   * Where the whole voter file places the person, when its row is matched in several shards of
   * it (candidates/row-place.ts): each shard searches around that point and weighs the address
   * by the file's voters at it, as the whole file would. Absent: the index places it itself (an
   * unsharded file, a row of one shard, the queue's chunks).
   */
  place?: FilePlace;
}

/** What the whole voter file says of a person's place (NormalizedPerson.place). */
export interface FilePlace {
  /** The centre of its radius search when it gives no coordinates: its address's, else its ZIP's. */
  location: { lat: number; lon: number; source: 'address' | 'zip' } | null;
  /** The file's voters under its house number and street (the address's term frequency). */
  addressVoters: number;
}

export const emptyPerson = (): NormalizedPerson => ({
  first: '',
  middle: '',
  last: '',
  suffix: '',
  house: '',
  street: '',
  unit: '',
  city: '',
  state: '',
  zip: '',
  dob: null,
  dobTypos: [],
  birthYears: null,
  gender: '',
  phones: [],
  email: '',
  lat: Number.NaN,
  lon: Number.NaN,
});

/** House and street of a parsed address, with PO boxes and rural routes as pseudo-streets. */
export function addressParts(parsed: ParsedAddress): { house: string; street: string; unit: string } {
  // A street address wins over a PO box given with it: the voter file records the residence.
  const hasStreet = parsed.houseNumber !== '' && parsed.streetName !== '';
  if (!hasStreet && parsed.ruralRoute !== '')
    return { house: parsed.poBox, street: routeName(parsed), unit: '' };
  if (!hasStreet && parsed.poBox !== '') return { house: parsed.poBox, street: 'PO BOX', unit: '' };
  return {
    house: parsed.houseNumber + parsed.houseSuffix,
    street: canonicalStreet(parsed),
    unit: parsed.unit,
  };
}

/** The voter-file columns the matcher reads, by name. */
/** The voter-file columns the matcher reads: the core columns but the ids (matched apart). */
export type VoterField = Exclude<CoreVoterColumn, IdIndexName>;
export const VOTER_FIELDS: readonly VoterField[] = CORE_VOTER_COLUMNS.filter(
  (column): column is VoterField => !(ID_INDEXES as readonly string[]).includes(column),
);
export type VoterFields = Record<VoterField, string>;

/** A voter record, normalized. The voter file is clean, so this is the cheap path. */
export function normalizeVoter(v: VoterFields, asOf: Date): NormalizedPerson {
  return normalizeVoterWith(v, asOf, null);
}

/**
 * normalizeVoter for a whole file in order: members of a household are consecutive records with
 * the same address, so the last address parsed is reused.
 */
export function voterNormalizer(asOf: Date): (v: VoterFields) => NormalizedPerson {
  const last = { address1: '\u0000', address2: '', parts: null as ReturnType<typeof addressParts> | null };
  return (v) => normalizeVoterWith(v, asOf, last);
}

/**
 * A voter record's normalized phones (wireless first, each once) and e-mail ('' when none): what
 * the match index and a sharded import's directory (adapters/voters/sharded-import.ts) hold.
 */
export function voterContact(
  v: Pick<VoterFields, 'wireless_phone' | 'landline_phone' | 'voip_phone' | 'email'>,
): { phones: string[]; email: string } {
  const phones: string[] = [];
  for (const raw of [v.wireless_phone, v.landline_phone, v.voip_phone]) {
    const phone = raw === '' ? null : normalizePhone(raw);
    if (phone !== null && !phones.includes(phone)) phones.push(phone);
  }
  return { phones, email: v.email === '' ? '' : (normalizeEmail(v.email) ?? '') };
}

function normalizeVoterWith(
  v: VoterFields,
  asOf: Date,
  last: { address1: string; address2: string; parts: ReturnType<typeof addressParts> | null } | null,
): NormalizedPerson {
  // A database's export writes NULL (or a spreadsheet #N/A) where a value is missing.
  const name = normalizePersonName(
    givenName(v.first_name),
    givenValue(v.middle_name),
    givenName(v.last_name),
    givenValue(v.name_suffix),
  );
  const address1 = givenValue(v.address1);
  const address2 = givenValue(v.address2);
  let address: ReturnType<typeof addressParts> | null;
  if (address1 === '') address = null;
  else if (last !== null && last.address1 === address1 && last.address2 === address2) address = last.parts;
  else {
    address = addressParts(parseAddress(address1, address2));
    if (last !== null) {
      last.address1 = address1;
      last.address2 = address2;
      last.parts = address;
    }
  }
  const city = givenValue(v.city);
  const location = normalizeLatLong(v.latitude, v.longitude);
  const contact = voterContact(v);
  return {
    first: name.first,
    middle: name.middle,
    last: name.last,
    suffix: name.suffix,
    house: address?.house ?? '',
    street: address?.street ?? '',
    unit: address?.unit ?? '',
    city: city === '' ? '' : cleanName(city),
    state: normalizeStateCode(v.state) ?? '',
    zip: normalizeZip(v.zip) ?? '',
    dob: v.dob === '' ? null : parseDob(v.dob, asOf),
    dobTypos: [],
    birthYears: null,
    gender: normalizeGender(v.gender),
    phones: contact.phones,
    email: contact.email,
    lat: location?.[0] ?? Number.NaN,
    lon: location?.[1] ?? Number.NaN,
  };
}

/** The list's cells that hold a first or last name (NULL and NONE are names there). */
const NAME_CELLS: ReadonlySet<string> = new Set([
  'first_name',
  'last_name',
  'full_name',
  'first_name_combined',
]);

/** A voter file's cell, '' for a placeholder of a missing value (NULL, #N/A). */
const givenValue = (value: string): string => (isPlaceholder(value) ? '' : value);
/** A first or last name's cell: NULL and NONE are names there. */
const givenName = (value: string): string => (isPlaceholder(value, true) ? '' : value);

/** Identifier values of one input row (spec §2.6 names; absent when the cell is empty). */
export type InputFields = Partial<Record<string, string>>;

export interface NormalizedInput {
  /** One person, or two for a `first_name_combined` row or a full_name of two ("JOHN & MARY SMITH"). */
  persons: NormalizedPerson[];
  /** Values that were present but unusable (counted in the summary), e.g. 'invalid_phone'. */
  problems: string[];
}

/** Cells longer than this are not identifiers; they are cut before any parsing. */
const MAX_CELL_CHARS = 500;

/** An input row, normalized; never throws, whatever the cells hold. */
export function normalizeInput(fields: InputFields, asOf: Date): NormalizedInput {
  const problems: string[] = [];
  const cell = (name: string): string => cellOf(fields, name);
  const person = emptyPerson();

  // Names: parsed components win; full_name fills what they lack. Two first names in the first
  // name cell ('John & Mary') are a couple, as in first_name_combined.
  const firstWritten = withoutAsides(cell('first_name'));
  const combinedCell = cell('first_name_combined');
  const coupleInFirst = combinedCell === '' ? coupleInFirstName(firstWritten) : '';
  const combined = combinedCell || coupleInFirst;
  const firstCell = coupleInFirst === '' ? firstWritten : '';
  // A surname's aside is kept: 'SMITH (JONES)' reads as a compound surname, which agrees with
  // either (a maiden name beside the married one).
  const lastCell = withoutMailingWords(cell('last_name'));
  const whole = wholeNameInOneCell(firstCell, lastCell);
  let name = withoutRepeatedName(
    normalizePersonName(
      whole?.first ?? firstCell,
      withoutAsides(cell('middle_name')) || (whole?.middle ?? ''),
      whole?.last ?? lastCell,
      cell('name_suffix') || (whole?.suffix ?? ''),
    ),
  );
  const full = withoutMailingWords(withoutAsides(cell('full_name')));
  // Two people in the one name column ('JOHN & MARY SMITH'): the row's two persons, as
  // first_name_combined gives them, unless name columns say whom the row is about (then the
  // other's first name is no middle name to lend).
  const twoInFull = full === '' ? null : parseCoupleName(full);
  const couple = name.first === '' && combined === '' ? twoInFull : null;
  if (twoInFull !== null && couple === null && name.last === '') {
    const same = twoInFull.find((each) => each.first === name.first) ?? twoInFull[0]!;
    name = { ...name, last: same.last };
  }
  if (twoInFull === null && full !== '' && (name.first === '' || name.last === '' || name.middle === '')) {
    const parsed = parseFullName(full);
    // With both names given, full_name only lends its middle name, and only when it names the
    // same person.
    const samePerson = parsed.first === name.first && parsed.last === name.last;
    if (name.first === '' || name.last === '' || samePerson) {
      name = {
        first: name.first || parsed.first,
        middle: name.middle || parsed.middle,
        last: name.last || parsed.last,
        suffix: name.suffix || parsed.suffix,
      };
    }
  }
  let combinedFirsts: string[] = [];
  if (combined !== '') {
    const split = splitCombinedFirstNames(combined);
    combinedFirsts = split.firsts;
    if (name.last === '' && split.last !== '') name = { ...name, last: split.last };
  }
  person.first = name.first;
  person.middle = name.middle;
  person.last = name.last;
  person.suffix = name.suffix;
  for (const [column, value] of [
    ['first_name', cell('first_name')],
    ['last_name', cell('last_name')],
  ] as const) {
    if (value !== '' && /[0-9]/.test(value) && cleanName(value) === '') problems.push(`invalid_${column}`);
  }

  const { address1, city, state, zip } = addressCells(cell);
  if (address1 !== '') {
    const parts = addressParts(parseAddress(address1, cell('address2')));
    person.house = parts.house;
    person.street = parts.street;
    person.unit = parts.unit;
  }
  person.city = city === '' ? '' : cleanName(city);
  if (state !== '') {
    person.state = normalizeStateCode(state) ?? '';
    if (person.state === '') problems.push('invalid_state');
  }
  if (zip !== '') {
    person.zip = normalizeZip(zip) ?? '';
    if (person.zip === '') problems.push('invalid_zip');
  }

  const dates = dateValues(cell('dob'), cell('age'), asOf);
  person.dob = dates.dob;
  person.dobTypos = dates.dobTypos;
  person.birthYears = dates.birthYears;
  problems.push(...dates.problems);
  person.gender = normalizeGender(cell('gender'));
  const phone = cell('phone');
  if (phone !== '') {
    const normalized = normalizePhone(phone);
    if (normalized === null) problems.push('invalid_phone');
    else person.phones = [normalized];
  }
  const email = cell('email');
  if (email !== '') {
    person.email = normalizeEmail(email, { fixProviderTypo: true }) ?? '';
    if (person.email === '') problems.push('invalid_email');
  }
  const lat = cell('latitude');
  const lon = cell('longitude');
  if (lat !== '' || lon !== '') {
    const location = normalizeLatLong(lat, lon);
    if (location === null) problems.push('invalid_coordinates');
    else [person.lat, person.lon] = location;
  }

  // Two people in one row: each keeps the shared last name, address and contact data; the dob
  // and gender cannot be told apart, so they are left out for both.
  const shared: NormalizedPerson = { ...person, dob: null, dobTypos: [], birthYears: null, gender: '' };
  if (couple !== null) {
    // Each keeps the middle name written with it; a last_name column wins, as with
    // first_name_combined.
    const persons = couple.map((each) => ({ ...shared, ...each, last: person.last || each.last }));
    return { persons, problems };
  }
  if (combinedFirsts.length >= 2 && person.first === '') {
    // Nor can the middle name: it stands once for the two.
    const persons = combinedFirsts.slice(0, 2).map((first) => ({ ...shared, first, middle: '' }));
    return { persons, problems };
  }
  if (combinedFirsts.length === 1 && person.first === '') person.first = combinedFirsts[0]!;
  return { persons: [person], problems };
}

/** A name cell's mark of two people: '&', '+', '/' or the word AND. */
const MAY_HOLD_COUPLE = /[&+/]|\band\b/i;

/** A first name cell that holds two people's first names ('John & Mary', 'JOHN/MARY'), else ''. */
function coupleInFirstName(first: string): string {
  if (!MAY_HOLD_COUPLE.test(first)) return '';
  return splitCombinedFirstNames(first).firsts.length === 2 ? first : '';
}

/** A cell's value as the normalization reads it: cut to MAX_CELL_CHARS and trimmed ('' when absent). */
function cellOf(fields: InputFields, name: string): string {
  const value = fields[name];
  if (value === undefined || isPlaceholder(value, NAME_CELLS.has(name))) return '';
  const cut = value.length > MAX_CELL_CHARS ? value.slice(0, MAX_CELL_CHARS) : value;
  return withoutTextGuard(cut.trim());
}

/** The address cells; a one-line address ("12 OAK ST, RALEIGH NC 27601") gives its city, state and ZIP. */
function addressCells(cell: (name: string) => string) {
  // A cell of several lines (a spreadsheet's address block) is one line with commas.
  let address1 = withLinesAsCommas(cell('address1'));
  let city = cell('city');
  let state = cell('state');
  let zip = cell('zip');
  // With commas only when the city cell is empty ('123 Main St, Apt 4' beside a city is a street
  // and its unit); without, a line that ends with a state and a ZIP is a whole address wherever
  // the city cell stands, and that cell keeps its value.
  let split: OneLineAddress | null = null;
  if (!address1.includes(',')) split = splitUnpunctuatedAddress(address1);
  else if (city === '') split = splitOneLineAddress(address1);
  if (split !== null) {
    address1 = split.street;
    city = city || split.city;
    state = state || split.state;
    zip = zip || split.zip;
  }
  // The state and ZIP written in the city's cell ('Raleigh, NC 27601'), or the ZIP in the state's.
  if (city !== '') {
    const place = splitCityCell(city);
    city = place.city;
    state = state || place.state;
    zip = zip || place.zip;
  }
  // Only a cell that ends in a digit can hold a ZIP (and no state's code or name has one).
  const stateAndZip = isAsciiDigit(state.charCodeAt(state.length - 1)) ? splitStateCell(state) : null;
  if (stateAndZip !== null) {
    state = stateAndZip.state;
    zip = zip || stateAndZip.zip;
  }
  return { address1, city, state, zip };
}

/** Line breaks inside a cell as ', ' (a cell's own commas stay). */
function withLinesAsCommas(value: string): string {
  if (value.indexOf('\n') < 0 && value.indexOf('\r') < 0) return value;
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(', ');
}

/** The birth date (or, for an invalid one, its typo readings) and, without a date, the age's birth years. */
function dateValues(dobCell: string, ageCell: string, asOf: Date) {
  const problems: string[] = [];
  let dob: NormalizedPerson['dob'] = null;
  let dobTypos: NormalizedPerson['dobTypos'] = [];
  let birthYears: NormalizedPerson['birthYears'] = null;
  if (dobCell !== '') {
    dob = parseDob(dobCell, asOf);
    if (dob === null) {
      const digits = invalidDateDigits(dobCell);
      // An age in the date's column, with none in its own: the two birth years it allows.
      const age = ageCell === '' && digits === null ? birthYearsFromAge(dobCell, asOf) : null;
      if (age !== null) birthYears = age;
      else problems.push('invalid_dob');
      // A placeholder (1900-01-01) is no mistyped date: the dates one typo away are no one's.
      if (digits !== null && !isPlaceholderDate(digits, asOf)) dobTypos = dateTypoVariants(digits, asOf);
    }
  }
  if (ageCell !== '' && dob === null) {
    birthYears = birthYearsFromAge(ageCell, asOf);
    // A birth date in the age's column, with none in its own.
    if (birthYears === null && dobCell === '') dob = parseDob(ageCell, asOf);
    if (birthYears === null && dob === null) problems.push('invalid_age');
  }
  return { dob, dobTypos, birthYears, problems };
}

/**
 * What places a row among the shards of a sharded voter file (route-rows.ts): the values the
 * normalization gives for them.
 */
export interface RowPlace {
  /** Normalized state and ZIP, from their cells or a one-line address ('' when absent or unusable). */
  state: string;
  zip: string;
  phones: readonly string[];
  emails: readonly string[];
  /** A birth date, a mistyped one or an age: the row could find a voter anywhere. */
  dated: boolean;
  /**
   * A street address or a city without a state: the row is searched by them in every state of
   * the voter file (prepareQuery), so in any shard.
   */
  addressedWithoutState: boolean;
}

/** A house number and street, or a city: what a row without a state is searched by everywhere. */
const isAddressed = (house: string, street: string, city: string) =>
  (house !== '' && street !== '') || city !== '';

/** isAddressed of a row's cells (read only for a row without a state). */
function isAddressedRow(address1: string, address2: string, city: string): boolean {
  if (city !== '' && cleanName(city) !== '') return true;
  if (address1 === '') return false;
  const parts = addressParts(parseAddress(address1, address2));
  return isAddressed(parts.house, parts.street, '');
}

/** The place of a normalized row. */
export function placeOfNormalized(input: NormalizedInput): RowPlace {
  // One pass, no closures; a one-person row (most) keeps its person's phones without a copy.
  let state = '';
  let zip = '';
  let phones: readonly string[] = [];
  const emails: string[] = [];
  let dated = false;
  let addressedWithoutState = false;
  for (const p of input.persons) {
    if (state === '') state = p.state;
    if (zip === '') zip = p.zip;
    if (p.phones.length > 0) phones = phones.length === 0 ? p.phones : [...phones, ...p.phones];
    if (p.email !== '') emails.push(p.email);
    dated ||= p.dob !== null || p.dobTypos.length > 0 || p.birthYears !== null;
    addressedWithoutState ||= p.state === '' && isAddressed(p.house, p.street, p.city);
  }
  return { state, zip, phones, emails, dated, addressedWithoutState };
}

/**
 * placeOfNormalized(normalizeInput(fields, asOf)), without normalizing the names or parsing the
 * street (most of the normalization's cost): to route a row before, or without, matching it.
 */
export function placeOf(fields: InputFields, asOf: Date): RowPlace {
  // Two people in one row: what each carries depends on the names, so the whole normalization
  // decides (also for a couple written in full_name or first_name).
  if (
    cellOf(fields, 'first_name_combined') !== '' ||
    MAY_HOLD_COUPLE.test(cellOf(fields, 'full_name')) ||
    MAY_HOLD_COUPLE.test(cellOf(fields, 'first_name'))
  )
    return placeOfNormalized(normalizeInput(fields, asOf));
  const cell = (name: string): string => cellOf(fields, name);
  const { address1, city, state, zip } = addressCells(cell);
  const phone = cell('phone');
  const phones = phone === '' ? null : normalizePhone(phone);
  const email = cell('email');
  const emails = email === '' ? '' : (normalizeEmail(email, { fixProviderTypo: true }) ?? '');
  const dates = dateValues(cell('dob'), cell('age'), asOf);
  const stateCode = state === '' ? '' : (normalizeStateCode(state) ?? '');
  return {
    state: stateCode,
    zip: zip === '' ? '' : (normalizeZip(zip) ?? ''),
    phones: phones === null ? [] : [phones],
    emails: emails === '' ? [] : [emails],
    dated: dates.dob !== null || dates.dobTypos.length > 0 || dates.birthYears !== null,
    addressedWithoutState: stateCode === '' && isAddressedRow(address1, cell('address2'), city),
  };
}
