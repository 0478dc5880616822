import { boundedEditDistance, jaroWinkler } from '../compare/string-similarity.ts';
import { zipTranspositions } from '../compare/zip-transposition.ts';
import { keyHouseStreet, valueKey } from '../index/blocking-keys.ts';
import type { MatchIndex } from '../index/match-index.ts';
import {
  CONTACT_EMAIL,
  CONTACT_PHONE,
  firstGroupsOf,
  GENDER_CODE,
  initialsOf,
  soundOf,
  streetSound,
} from '../index/match-index-fields.ts';
import { type QueryMemo, threadQueryMemo } from '../index/query-memo.ts';
import { withDirectionalsSpelled, writtenApartTest } from '../normalize/address.ts';
import { isDigitTypo, isWholeDate, packDate, plausibleDobFrom } from '../normalize/dates.ts';
import { areNicknameEquivalent } from '../normalize/nicknames.ts';
import type { FilePlace, NormalizedPerson } from '../normalize/person.ts';
import { F, L } from './comparison-levels.ts';

/** An input person prepared once for comparison against many candidates. */
export interface Query {
  person: NormalizedPerson;
  /** Dictionary ids of the text fields: 0 when empty, -1 when no voter has the value. */
  firstId: number;
  middleId: number;
  lastId: number;
  suffixId: number;
  houseId: number;
  streetId: number;
  unitId: number;
  cityId: number;
  stateId: number;
  /** House number and city as blocking-key parts (see valueKey). */
  houseKey: number;
  cityKey: number;
  /**
   * The states the row is searched in by its address and city, as blocking-key parts: its own;
   * for a row that gives none, every state of the file and none (voters filed without one), as a
   * list without a state or ZIP column is a list of one state's people; none for a state no voter
   * has.
   */
  stateKeys: readonly number[];
  firstGroups: readonly number[];
  /** The row's first or middle name has two words or more (sameGivenNames is worth trying). */
  givenNamesSpaced: boolean;
  firstSound: number;
  lastSound: number;
  zip: number;
  /**
   * For a ZIP no voter lives in, likely mistyped: the ZIPs two swapped neighbouring digits away
   * that voters do live in (searched by surname, and agreeing as zip=transposed); empty for a
   * ZIP the file has, which may be the person's (a namesake's neighbouring ZIP across town,
   * 27610 for 27601, would read as a typo of it).
   */
  zipTypos: readonly number[];
  /** yyyymmdd (month/day 0 when unknown), 0 when none. */
  dob: number;
  /**
   * The first plausible birth date (plausibleDobFrom of the job's date; 0: every date): an
   * earlier one on either side agrees only to the day and is otherwise not compared.
   */
  plausibleDobFrom: number;
  gender: number;
  /**
   * Blocking keys of the row's house number + street in each of its stateKeys (none without a
   * house number): candidate generation looks them up, and their count is the address's term
   * frequency.
   */
  houseStreetKeys: readonly number[];
  /** Voters listing the input phone / e-mail; null when the input has none. */
  phoneVoters: ReadonlySet<number> | null;
  emailVoters: ReadonlySet<number> | null;
  /** Where to search "within a radius" (coordinates, the address's, or the ZIP's centroid). */
  location: { lat: number; lon: number; source: 'coordinates' | 'address' | 'zip' } | null;
  radiusMiles: number;
  /** The thread's memo of name and street levels, and this query's generation in it. */
  memo: QueryMemo;
  generation: number;
  /** The row's street prepared for sameStreetWrittenApart, on first use. */
  writtenApart?: (street: string) => boolean;
  /** The row's street with its directional words spelled out (itself when it has none), on first use. */
  streetSpelled?: string;
}

const NO_ZIPS: readonly number[] = [];
const NO_KEYS: readonly number[] = [];

type Dictionary = MatchIndex['data']['dictionaries']['first'];

/**
 * The person's values looked up in a dictionary of shared values (a shard's first names,
 * surnames and states: WHOLE_FILE_VALUES), by their slot in its memo of shared numbers
 * (PersonPrep.numbers); its names as the other kind too (swapped names). The other fields' dictionaries
 * hold their own values: looked up as they are.
 */
const SLOT = { first: 0, last: 1, state: 2, firstAsLast: 3, lastAsFirst: 4 };

/**
 * What every search of one person prepares alike, whatever voter file or shard it searches: its
 * values' numbers among the thread's shared values (StringDictionary.numberOf), by SLOT, the
 * parts of its query no index changes (its first name's groups and initials, its street's sound,
 * its address's keys), and its address's query in the last index it was prepared in. A row of a
 * sharded file searched in several shards (a dated row in every one: 26 of a national file) is
 * the same person object in each (its placed copy, withPlace, shares what was prepared), and
 * prepares them once instead of once a shard. A number of
 * -1: not looked up; -2 - n: not among the n values the table held then (while it holds n, no
 * dictionary of the field here has it; a shard opened since may have numbered it: looked up
 * again).
 */
interface PersonPrep {
  numbers: number[];
  firstGroups: readonly number[] | null;
  /** -1: not derived yet. */
  streetSound: number;
  /** The first name's initials (initialsOf); -1: not derived yet. */
  initials: number;
  /** The key parts of its house number, city and state (valueKey); null: not derived yet. */
  valueKeys: { house: number; city: number; state: number } | null;
  /** Its address's keys when the index holds its state (prepareAddress); null: not derived yet. */
  stateAddressKeys: { stateKeys: readonly number[]; houseStreetKeys: readonly number[] } | null;
  /**
   * The last index its address was prepared in, and what it gave: a row of a sharded file is
   * placed in its shard (row-place.ts) and then searched there.
   */
  address: { index: MatchIndex; query: AddressQuery } | null;
}

/**
 * Where a person keeps its PersonPrep: a symbol, not enumerable. A copy of the person with other
 * values (its names swapped: `{ ...person, first: person.last, … }`) does not take it along, nor
 * does a person sent to another thread, whose shared values are numbered otherwise. (A WeakMap
 * from person to numbers, with a typed array a person, took 3% of a sharded matching thread's
 * matching.)
 */
const PREPARED = Symbol('prepared person');

function prepared(person: NormalizedPerson): PersonPrep {
  const kept = (person as { [PREPARED]?: PersonPrep })[PREPARED];
  if (kept !== undefined) return kept;
  const prep: PersonPrep = {
    numbers: [-1, -1, -1, -1, -1],
    firstGroups: null,
    streetSound: -1,
    initials: -1,
    valueKeys: null,
    stateAddressKeys: null,
    address: null,
  };
  Object.defineProperty(person, PREPARED, { value: prep });
  return prep;
}

/** A dictionary's id of a value: 0 when empty, -1 when no voter has it (`memo`: PersonPrep.numbers). */
function idIn(dict: Dictionary, value: string, memo?: number[], slot = 0): number {
  if (value === '') return 0;
  if (memo === undefined) return dict.idOf(value);
  const known = memo[slot]!;
  if (known >= 0) return dict.idOfNumber(known);
  if (known < -1 && -2 - known === dict.sharedSize) return -1;
  const number = dict.numberOf(value);
  // A dictionary of its own values (a whole file's): no numbers to share.
  if (number === null) return dict.idOf(value);
  memo[slot] = number >= 0 ? number : -2 - dict.sharedSize;
  return number >= 0 ? dict.idOfNumber(number) : -1;
}

/**
 * The id in `dict` of the person's first name as a last name (`firstAsLast`) or of its last name
 * as a first name: what a search for its names swapped asks of every shard it is matched in.
 */
export function swappedNameId(
  dict: Dictionary,
  person: NormalizedPerson,
  which: 'firstAsLast' | 'lastAsFirst',
): number {
  const value = which === 'firstAsLast' ? person.first : person.last;
  return idIn(dict, value, numbersMemo(dict, person), SLOT[which]);
}

/** The person's numbers of shared values, for dictionaries of shared values (a shard's); else undefined. */
function numbersMemo(dict: Dictionary, person: NormalizedPerson): number[] | undefined {
  return dict.sharesValues ? prepared(person).numbers : undefined;
}

function streetSoundOf(person: NormalizedPerson): number {
  const prep = prepared(person);
  if (prep.streetSound < 0) prep.streetSound = streetSound(person.street);
  return prep.streetSound;
}

/**
 * A copy of a person with its place in the file (NormalizedPerson.place), keeping what was
 * prepared for it: its names and address are the same, and a row placed over its shards is then
 * searched in each of them.
 */
export function withPlace(person: NormalizedPerson, place: FilePlace): NormalizedPerson {
  const copy: NormalizedPerson = { ...person, place };
  const kept = (person as { [PREPARED]?: PersonPrep })[PREPARED];
  if (kept !== undefined) Object.defineProperty(copy, PREPARED, { value: kept });
  return copy;
}

function firstGroupsOfPerson(person: NormalizedPerson): readonly number[] {
  const prep = prepared(person);
  prep.firstGroups ??= firstGroupsOf(person.first);
  return prep.firstGroups;
}

/** The initials a person's first name may be filed under (initialsOf), derived once a person. */
export function initialsOfPerson(person: NormalizedPerson): number {
  if (person.first === '') return 0;
  const prep = prepared(person);
  if (prep.initials < 0) prep.initials = initialsOf(person.first);
  return prep.initials;
}

function valueKeysOf(person: NormalizedPerson): NonNullable<PersonPrep['valueKeys']> {
  const prep = prepared(person);
  prep.valueKeys ??= {
    house: valueKey(person.house),
    city: valueKey(person.city),
    state: valueKey(person.state),
  };
  return prep.valueKeys;
}

/** What a person's address is searched and weighed by in an index (prepareQuery's address part). */
export type AddressQuery = Pick<
  Query,
  'houseId' | 'streetId' | 'stateId' | 'houseKey' | 'zip' | 'stateKeys' | 'houseStreetKeys'
>;

export function prepareAddress(index: MatchIndex, person: NormalizedPerson): AddressQuery {
  const prep = prepared(person);
  if (prep.address?.index === index) return prep.address.query;
  const query = addressQueryOf(index, person);
  prep.address = { index, query };
  return query;
}

function addressQueryOf(index: MatchIndex, person: NormalizedPerson): AddressQuery {
  const d = index.data.dictionaries;
  const houseId = idIn(d.house, person.house);
  const stateId = idIn(d.state, person.state, numbersMemo(d.state, person), SLOT.state);
  // A state no voter has (-1) can match no voter's key; no state at all (0) matches the voters
  // filed without one, and is searched in every state besides.
  const keys = valueKeysOf(person);
  const houseKey = keys.house;
  let stateKeys: readonly number[];
  let houseStreetKeys: readonly number[];
  if (stateId > 0) {
    // The same in every shard that holds the state: kept with the person (a dated row is
    // prepared in every shard of a file, and placed besides).
    const prep = prepared(person);
    prep.stateAddressKeys ??= stateAddressKeys(person, keys.state, houseKey);
    ({ stateKeys, houseStreetKeys } = prep.stateAddressKeys);
    if (houseId <= 0) houseStreetKeys = NO_KEYS;
  } else {
    stateKeys = stateId < 0 ? NO_KEYS : [0, ...index.stateKeys()];
    const sound = houseId > 0 ? streetSoundOf(person) : 0;
    houseStreetKeys =
      houseId > 0 ? stateKeys.map((state) => keyHouseStreet(houseKey, sound, state)) : NO_KEYS;
  }
  return {
    houseId,
    streetId: idIn(d.street, person.street),
    stateId,
    houseKey,
    zip: person.zip === '' ? 0 : Number(person.zip),
    stateKeys,
    houseStreetKeys,
  };
}

/** A person's state key and its house-and-street key in that state (for an index holding a house number of its). */
function stateAddressKeys(
  person: NormalizedPerson,
  stateKey: number,
  houseKey: number,
): NonNullable<PersonPrep['stateAddressKeys']> {
  const stateKeys = [stateKey];
  return {
    stateKeys,
    houseStreetKeys:
      person.house === '' ? NO_KEYS : [keyHouseStreet(houseKey, streetSoundOf(person), stateKey)],
  };
}

export function prepareQuery(index: MatchIndex, person: NormalizedPerson, asOf?: Date): Query {
  const d = index.data.dictionaries;
  const dob = person.dob === null ? 0 : packDate(person.dob);
  const address = prepareAddress(index, person);
  const zip = address.zip;
  const memo = threadQueryMemo;
  const numbers = numbersMemo(d.first, person);
  const firstId = idIn(d.first, person.first, numbers, SLOT.first);
  const lastId = idIn(d.last, person.last, numbers, SLOT.last);
  return {
    person,
    firstId,
    middleId: idIn(d.middle, person.middle),
    lastId,
    suffixId: idIn(d.suffix, person.suffix),
    ...address,
    unitId: idIn(d.unit, person.unit),
    cityId: idIn(d.city, person.city),
    cityKey: valueKeysOf(person).city,
    firstGroups: firstGroupsOfPerson(person),
    givenNamesSpaced: person.first.includes(' ') || person.middle.includes(' '),
    // A name some voter has: its stored sound.
    firstSound: firstId > 0 ? index.firstSound(firstId) : person.first === '' ? 0 : soundOf(person.first),
    lastSound: lastId > 0 ? index.lastSound(lastId) : person.last === '' ? 0 : soundOf(person.last),
    zipTypos:
      zip === 0 || index.hasZip(zip) ? NO_ZIPS : zipTranspositions(zip).filter((z) => index.hasZip(z)),
    dob,
    plausibleDobFrom: asOf === undefined ? 0 : plausibleDobFrom(asOf),
    gender: GENDER_CODE[person.gender],
    phoneVoters: null,
    emailVoters: null,
    location: null,
    radiusMiles: 0,
    memo,
    generation: memo.begin(d),
  };
}

/** Fills `levels` (one per field, 0 = not compared) for the query against one voter. */
export function comparePerson(index: MatchIndex, q: Query, voter: number, levels: Uint8Array): void {
  const data = index.data;
  const fields = data.fields;
  const dict = data.dictionaries;
  const { memo, generation } = q;
  levels.fill(0);

  // First name.
  const vFirst = fields.first(voter);
  if (q.firstId !== 0 && vFirst !== 0) {
    let level = memo.first.get(vFirst, generation);
    if (level === 0) {
      level = compareFirst(q, vFirst, dict.first.value(vFirst), index);
      memo.first.set(vFirst, generation, level);
    }
    levels[F.first] = level;
  }
  // Last name.
  const vLast = fields.last(voter);
  if (q.lastId !== 0 && vLast !== 0) {
    let level = memo.last.get(vLast, generation);
    if (level === 0) {
      level = compareLast(q.person.last, q.lastId, q.lastSound, vLast, dict.last.value(vLast), index);
      memo.last.set(vLast, generation, level);
    }
    levels[F.last] = level;
  }
  // Middle name or initial.
  const vMiddle = fields.middle(voter);
  if (q.middleId !== 0 && vMiddle !== 0) {
    levels[F.middle] = middleLevel(q.person.middle, dict.middle.value(vMiddle));
  }
  // A first name that disagrees may be the one a person goes by: the voter's middle name, or the
  // row's middle name is the voter's first. Then the other two given names are compared crosswise
  // (ROBERT J and JAMES ROBERT agree); when they disagree (HANNAH WILLIAM and WILLIAM JOHN) the
  // row's names are someone else's who shares one of them.
  if (levels[F.first] === L.first.differ && vFirst !== 0) {
    const voterFirst = dict.first.value(vFirst);
    const voterMiddle = vMiddle === 0 ? '' : dict.middle.value(vMiddle);
    const crossed = goesByMiddleName(q, voterMiddle, voterFirst);
    const other =
      crossed === 'voter-middle'
        ? middleLevel(q.person.middle, voterFirst)
        : crossed === 'row-middle'
          ? middleLevel(q.person.first, voterMiddle)
          : L.middle.differ;
    if (other !== L.middle.differ) {
      levels[F.first] = L.first.middle;
      levels[F.middle] = other;
    }
  }
  // The same given names split otherwise between first and middle: written together as one first
  // name on either side (MICHAEL BRIAN for MICHAEL B. BRIAN, a voter filed as MARY ANN for a row's
  // MARY and ANN), or split at another word (a row's JO / ANN M, from SMITH, JO ANN M, and a
  // voter's JO ANN / M; the last may be an initial on one side). Looked at only where the split can
  // differ: the row's first or middle name has two words, or the row has a middle and the voter none.
  if (
    levels[F.first] !== L.first.exact &&
    vFirst !== 0 &&
    (q.givenNamesSpaced || (q.middleId !== 0 && vMiddle === 0))
  ) {
    const level = sameGivenNames(
      q.person.first,
      q.person.middle,
      dict.first.value(vFirst),
      vMiddle === 0 ? '' : dict.middle.value(vMiddle),
    );
    if (level !== 0) {
      levels[F.first] = L.first.exact;
      levels[F.middle] = level;
    }
  }
  const vSuffix = fields.suffix(voter);
  if (q.suffixId !== 0 && vSuffix !== 0)
    levels[F.suffix] = q.suffixId === vSuffix ? L.binary.exact : L.binary.differ;

  // Date of birth; a birth year (an age, a year-only date on either side) as age. A date no
  // living voter has (a placeholder, 1900-01-01) agrees only to the day; its disagreement with
  // another date, or with an age, says nothing.
  const vDob = fields.dob(voter);
  if (vDob !== 0 && (vDob < q.plausibleDobFrom || (q.dob !== 0 && q.dob < q.plausibleDobFrom))) {
    if (q.dob === vDob && isWholeDate(vDob)) levels[F.dob] = L.dob.exact;
  } else if (vDob !== 0) {
    if (q.dob !== 0) {
      if (Math.floor(q.dob / 100) % 100 === 0 || Math.floor(vDob / 100) % 100 === 0) {
        const rowYear = Math.floor(q.dob / 10000);
        levels[F.age] = ageLevel(Math.floor(vDob / 10000), rowYear, rowYear);
      } else levels[F.dob] = compareDob(q.dob, vDob);
    } else if (q.person.dobTypos.length > 0) {
      // An impossible date (a digit typo): the dates it may have been typed from, against a full
      // date of the voter's.
      if (isWholeDate(vDob)) levels[F.dob] = q.person.dobTypos.includes(vDob) ? L.dob.typo : L.dob.differ;
    } else if (q.person.birthYears !== null) {
      levels[F.age] = ageLevel(Math.floor(vDob / 10000), q.person.birthYears[0], q.person.birthYears[1]);
    }
  }
  const vGender = fields.gender(voter);
  if (q.gender !== 0 && vGender !== 0)
    levels[F.gender] = q.gender === vGender ? L.binary.exact : L.binary.differ;

  // Address: house number + street (+ unit).
  const vHouse = fields.house(voter);
  if (q.houseId !== 0 && vHouse !== 0 && q.person.street !== '') {
    const vStreet = fields.street(voter);
    if (q.houseId === vHouse) {
      if (q.streetId === vStreet) {
        const vUnit = fields.unit(voter);
        levels[F.address] =
          q.unitId === 0 || vUnit === 0 || q.unitId === vUnit ? L.address.exact : L.address.unit;
      } else {
        levels[F.address] = similarStreet(q, vStreet, index) ? L.address.typo : L.address.differ;
      }
    } else {
      levels[F.address] =
        q.streetId === vStreet || similarStreet(q, vStreet, index) ? L.address.street : L.address.differ;
    }
  }
  // ZIP; city only without a ZIP on either side, state only without both.
  const vZip = fields.zip(voter);
  const zipCompared = q.zip !== 0 && vZip !== 0;
  if (zipCompared) {
    levels[F.zip] =
      q.zip === vZip ? L.zip.exact : q.zipTypos.includes(vZip) ? L.zip.transposed : L.zip.differ;
  }
  const vCity = fields.city(voter);
  const cityCompared = !zipCompared && q.cityId !== 0 && vCity !== 0;
  if (cityCompared) levels[F.city] = q.cityId === vCity ? L.binary.exact : L.binary.differ;
  const vState = fields.state(voter);
  if (!zipCompared && !cityCompared && q.stateId !== 0 && vState !== 0) {
    levels[F.state] = q.stateId === vState ? L.binary.exact : L.binary.differ;
  }

  const contact = fields.contact(voter);
  if (q.phoneVoters !== null && contact & CONTACT_PHONE) {
    levels[F.phone] = q.phoneVoters.has(voter) ? L.binary.exact : L.binary.differ;
  }
  if (q.emailVoters !== null && contact & CONTACT_EMAIL) {
    levels[F.email] = q.emailVoters.has(voter) ? L.binary.exact : L.binary.differ;
  }

  // Distance, for input coordinates only (a derived location repeats the address or ZIP).
  if (q.location?.source === 'coordinates' && levels[F.address] === 0) {
    const lat = fields.lat(voter);
    if (!Number.isNaN(lat)) {
      const miles = distanceMiles(q.location.lat, q.location.lon, lat, fields.lon(voter));
      levels[F.distance] = distanceLevel(miles, q.radiusMiles);
    }
  }
}

/**
 * The row's street and another voter street: one with a typo, or written apart (spaces moved, a
 * route word or suffix mistyped). Remembered per street for the query.
 */
function similarStreet(q: Query, vStreet: number, index: MatchIndex): boolean {
  const known = q.memo.street.get(vStreet, q.generation);
  if (known !== 0) return known === 2;
  const a = q.person.street;
  const b = index.data.dictionaries.street.value(vStreet);
  q.writtenApart ??= writtenApartTest(a);
  const similar =
    jaroWinkler(a, b, SIMILAR_STREETS) >= SIMILAR_STREETS || q.writtenApart(b) || similarSpelled(q, a, b);
  q.memo.street.set(vStreet, q.generation, similar ? 2 : 1);
  return similar;
}

/**
 * The middle level at which two people's given names are the same names in the same order,
 * however first and middle split them (JO / ANN M and JO ANN / M: exact; JO ANN / M and JO /
 * ANN MARIE: initial), or 0. Both sides need a middle name, or it is a first name against a
 * first name.
 */
export function sameGivenNames(
  rowFirst: string,
  rowMiddle: string,
  voterFirst: string,
  voterMiddle: string,
): number {
  if (rowMiddle === '' && voterMiddle === '') return 0;
  const row = rowMiddle === '' ? rowFirst : `${rowFirst} ${rowMiddle}`;
  const voter = voterMiddle === '' ? voterFirst : `${voterFirst} ${voterMiddle}`;
  if (row === voter) return L.middle.exact;
  const rowLast = row.lastIndexOf(' ');
  const voterLast = voter.lastIndexOf(' ');
  if (rowLast < 0 || voterLast < 0 || row.slice(0, rowLast) !== voter.slice(0, voterLast)) return 0;
  // The last given name by its initial on one side, and not the first name itself.
  const a = row.slice(rowLast + 1);
  const b = voter.slice(voterLast + 1);
  const byInitial = (a.length === 1 || b.length === 1) && a.charCodeAt(0) === b.charCodeAt(0);
  return byInitial && rowLast >= rowFirst.length && voterLast >= voterFirst.length ? L.middle.initial : 0;
}

/** Jaro-Winkler at which two standardized streets are one street with a typo. */
const SIMILAR_STREETS = 0.88;

/**
 * The two streets alike once directional words are spelled out: a street named for a direction
 * is stored abbreviated (`SOUTH ST` as `S ST`), which leaves a typo of its name (`SUTH ST`)
 * nothing to be compared with but one letter.
 */
function similarSpelled(q: Query, a: string, b: string): boolean {
  q.streetSpelled ??= withDirectionalsSpelled(a) ?? a;
  const spelledB = withDirectionalsSpelled(b);
  if (spelledB === null && q.streetSpelled === a) return false;
  return jaroWinkler(q.streetSpelled, spelledB ?? b, SIMILAR_STREETS) >= SIMILAR_STREETS;
}

/** Jaro-Winkler at which two names are 'similar' (below it, the lowest that tells the levels apart). */
const SIMILAR_NAMES = 0.8;

function compareFirst(q: Query, vFirst: number, voterFirst: string, index: MatchIndex): number {
  if (q.firstId === vFirst) return L.first.exact;
  const a = q.person.first;
  const b = voterFirst;
  // MARYANN and MARY ANN, JEANPAUL and JEAN PAUL: one name, with or without its space.
  const marks = rowFirstMarks.of(a) | index.data.dictionaries.first.derivedByte(vFirst, nameMarks);
  if (sameButForSpaces(a, b, marks)) return L.first.exact;
  if (a.length === 1 || b.length === 1)
    return a.charCodeAt(0) === b.charCodeAt(0) ? L.first.initial : L.first.differ;
  if (q.firstGroups.length > 0 && areNicknameEquivalent(a, b)) return L.first.nickname;
  // A man's name and a woman's that read alike (MICHAEL, MICHELLE) are two people's.
  const qGender = index.firstNameGender(q.firstId);
  const vGender = qGender === 0 ? 0 : index.firstNameGender(vFirst);
  if (vGender !== 0 && vGender !== qGender) return L.first.differ;
  const similarity = jaroWinkler(a, b, SIMILAR_NAMES);
  if (isTypo(a, b, similarity, marks)) return L.first.typo;
  // A three-letter name one keystroke off (TOM as TCM, JIN as IJN) where the row's is no name
  // the voter file knows: a typo. Between two names people are given (AMY, MAY) it is another
  // person's, a twin's or a sister's.
  if (Math.min(a.length, b.length) === 3 && !isEstablishedFirstName(q.firstId, index)) {
    if (boundedEditDistance(a, b, 1) <= 1) return L.first.typo;
  }
  if (q.firstSound === index.firstSound(vFirst)) return L.first.similar;
  if (similarity < SIMILAR_NAMES) return L.first.differ;
  // Spelled alike but sounding different: a misspelling when the row's name is not one the
  // voter file knows, two people when both are names many voters have (LISA and LINDA, MARY
  // and MARLENE: sisters, twins, namesakes), as alike in spelling as names go.
  return isEstablishedFirstName(q.firstId, index) && isEstablishedFirstName(vFirst, index)
    ? L.first.differ
    : L.first.similar;
}

/**
 * Share of the voters, and the least count, that make a first name an established one (a name
 * people are given, not a mistyping of one): 1 in 20,000 voters, at least 5.
 */
const ESTABLISHED_NAME_SHARE = 1 / 20_000;
const ESTABLISHED_NAME_MIN = 5;

function isEstablishedFirstName(id: number, index: MatchIndex): boolean {
  if (id <= 0) return false;
  const count = index.data.dictionaries.first.count(id);
  return count >= ESTABLISHED_NAME_MIN && count >= index.size * ESTABLISHED_NAME_SHARE;
}

/**
 * Whether the row's first name is the voter's (full) middle name ('voter-middle'), or the row's
 * middle name the voter's first ('row-middle'): the same person under the name they go by.
 */
function goesByMiddleName(
  q: Query,
  voterMiddle: string,
  voterFirst: string,
): 'voter-middle' | 'row-middle' | null {
  const first = q.person.first;
  if (voterMiddle.length > 1 && (voterMiddle === first || areNicknameEquivalent(voterMiddle, first))) {
    return 'voter-middle';
  }
  const rowMiddle = q.person.middle;
  if (rowMiddle.length > 1 && (rowMiddle === voterFirst || areNicknameEquivalent(rowMiddle, voterFirst))) {
    return 'row-middle';
  }
  return null;
}

/**
 * Two middle names (or initials): exact, initial when one side is only the other's initial,
 * differ otherwise (two different full names with the same initial too); 0 when a side has none.
 */
function middleLevel(a: string, b: string): number {
  if (a === '' || b === '') return 0;
  if (a === b) return a.length > 1 ? L.middle.exact : L.middle.initial;
  if (a.charCodeAt(0) !== b.charCodeAt(0)) return L.middle.differ;
  return a.length > 1 && b.length > 1 ? L.middle.differ : L.middle.initial;
}

function compareLast(
  a: string,
  aId: number,
  aSound: number,
  vLast: number,
  b: string,
  index: MatchIndex,
): number {
  if (aId === vLast) return L.last.exact;
  // DE LA CRUZ and DELACRUZ, VAN DER BERG and VANDERBERG, ST JOHN and STJOHN: one name.
  const marks = rowLastMarks.of(a) | index.data.dictionaries.last.derivedByte(vLast, nameMarks);
  if (sameButForSpaces(a, b, marks)) return L.last.exact;
  const similarity = jaroWinkler(a, b, SIMILAR_NAMES);
  if (isTypo(a, b, similarity, marks)) return L.last.typo;
  if (sharesWord(a, b, marks)) return L.last.part;
  if (aSound === index.lastSound(vLast) || similarity >= SIMILAR_NAMES) return L.last.similar;
  if (aId < 0 && isMisspellingOf(a, b)) return L.last.similar;
  return L.last.differ;
}

/**
 * A surname no voter has (`aId` < 0) is a misspelling of someone's; two keystrokes from the
 * voter's, with its initial, it is likelier hers or his mistyped twice (DIS for DAVIS, SNITC for
 * SMITH, LXE for LEE) than another surname, which a man's would otherwise be (isAnotherPerson).
 */
function isMisspellingOf(a: string, b: string): boolean {
  return (
    a.charCodeAt(0) === b.charCodeAt(0) &&
    Math.min(a.length, b.length) >= 3 &&
    boundedEditDistance(a, b, 2) <= 2
  );
}

/**
 * What the name tests below look for in either name, as bits (nameMarks): a space (names in
 * parts) and a scan's letter pair (RN, VV). Most pairs of names have neither, and one pass over
 * the voter's name (the row's is kept between calls) tells so where each test searched both
 * names for each mark: eight searches a pair of names. A voter's name's marks are derived once a
 * thread (StringDictionary.derivedByte): the pass over it was 7% of a lookup thread's time at 10M
 * voters, where a row's candidates hold hundreds of distinct surnames.
 */
const SPACE_MARK = 1;
const SCAN_MARK = 2;

function nameMarks(name: string): number {
  let marks = 0;
  let previous = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 32) marks |= SPACE_MARK;
    // RN, VV
    else if ((c === 78 && previous === 82) || (c === 86 && previous === 86)) marks |= SCAN_MARK;
    previous = c;
  }
  return marks;
}

/** nameMarks of a row's name, kept: the scorer compares one row's name with many voters'. */
class RowNameMarks {
  #of = '';
  #marks = 0;

  of(name: string): number {
    if (name !== this.#of) {
      this.#of = name;
      this.#marks = nameMarks(name);
    }
    return this.#marks;
  }
}

/** The row's first and last names' (compared in turn, candidate by candidate). */
const rowFirstMarks = new RowNameMarks();
const rowLastMarks = new RowNameMarks();

/** The same letters with or without the spaces between a name's parts: one name written two ways. */
function sameButForSpaces(a: string, b: string, marks: number): boolean {
  return (marks & SPACE_MARK) !== 0 && a.replaceAll(' ', '') === b.replaceAll(' ', '');
}

/**
 * One edit (substitution, insertion, deletion or transposition), a very high Jaro-Winkler
 * (`similarity`, the caller's jaroWinkler(a, b) with a floor of at most 0.94), or a scanning slip.
 */
function isTypo(a: string, b: string, similarity: number, marks: number): boolean {
  if (Math.abs(a.length - b.length) > 2) return false;
  if (similarity >= 0.94) return true;
  return (
    (Math.min(a.length, b.length) >= 4 && boundedEditDistance(a, b, 1) <= 1) || sameButScanned(a, b, marks)
  );
}

/**
 * The same name once the letter pairs a scan reads for one letter are read as it (RN for M, VV
 * for W: RNARY, VVILLIAMS). No name pair told apart only by them is common; CL for D is left
 * out, since CLAY and DAY, CLAYTON and DAYTON are two families.
 */
function sameButScanned(a: string, b: string, marks: number): boolean {
  return (marks & SCAN_MARK) !== 0 && asScanned(a) === asScanned(b);
}

const asScanned = (name: string) => name.replaceAll('RN', 'M').replaceAll('VV', 'W');

/** Compound surnames: "GARCIA LOPEZ" and "LOPEZ", "SMITH-JONES" and "JONES". */
function sharesWord(a: string, b: string, marks: number): boolean {
  if ((marks & SPACE_MARK) === 0) return false;
  const words = a.split(' ');
  for (const word of b.split(' ')) if (word.length > 1 && words.includes(word)) return true;
  return false;
}

/**
 * A voter's birth year against the years a row allows (`from`-`to`: an age's two, a year-only
 * date's one): one of them, one year outside them, or another.
 */
function ageLevel(year: number, from: number, to: number): number {
  if (year >= from && year <= to) return L.age.year;
  return year === from - 1 || year === to + 1 ? L.age.near : L.age.differ;
}

/**
 * Two dates with a month on both sides (a year-only one is compared as age, ageLevel): 'exact'
 * needs two full dates, equal year and month with a day missing is 'month'; two full dates one
 * digit typo apart (a digit substituted, two neighbours swapped), or a year apart to the day
 * (1999-08-03 and 2000-08-03: a year mistyped across a decade), are 'typo'. A stranger's full
 * date is a year apart to the day about as rarely as it is one digit off, while a year next to
 * an age's is common; one level for both made the full dates' agreement count as little as an
 * age's.
 */
function compareDob(q: number, v: number): number {
  const qy = Math.floor(q / 10000);
  const qm = Math.floor(q / 100) % 100;
  const qd = q % 100;
  const vy = Math.floor(v / 10000);
  const vm = Math.floor(v / 100) % 100;
  const vd = v % 100;
  const full = qm !== 0 && qd !== 0 && vm !== 0 && vd !== 0;
  if (qy === vy) {
    if (qm === vm) {
      if (qd === vd && full) return L.dob.exact;
      if (qd === 0 || vd === 0) return L.dob.month;
    } else if (full && qm === vd && qd === vm) return L.dob.swapped;
  } else if (Math.abs(qy - vy) === 1 && full && qm === vm && qd === vd) return L.dob.typo;
  return full && isDigitTypo(q, v) ? L.dob.typo : L.dob.differ;
}

/** Distance level: within 0.1 mile, half a mile, the row's radius, or beyond it. */
export function distanceLevel(miles: number, radius: number): number {
  if (miles <= 0.1) return L.distance.near;
  if (miles <= 0.5) return L.distance.close;
  return miles <= radius ? L.distance.radius : L.distance.far;
}

export const EARTH_RADIUS_MILES = 3958.8;

/** Great-circle distance (haversine). */
export function distanceMiles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const toRad = Math.PI / 180;
  const dLat = (lat2 - lat1) * toRad;
  const dLon = (lon2 - lon1) * toRad;
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * toRad) * Math.cos(lat2 * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_MILES * Math.asin(Math.min(1, Math.sqrt(h)));
}
