import {
  CELL_DEGREES,
  CELL_KEY_WORDS,
  cellAt,
  cellOf,
  KEY,
  keyCellFirst,
  keyCellLast,
  keyCityFirst,
  keyCityLast,
  keyDobFirst,
  keyDobLast,
  keyEmail,
  keyEmailCheck,
  keyFirstYear,
  keyHouseZip,
  keyLastYear,
  keyPhone,
  keyPhoneCheck,
  keyStateName,
  keyZipFirst,
  keyZipLast,
  mayHoldCellKey,
} from '../index/blocking-keys.ts';
import { lowerBound } from '../index/lower-bound.ts';
import type { MatchIndex } from '../index/match-index.ts';
import { initialOf, lowestInitial } from '../index/match-index-fields.ts';
import { isWholeDate } from '../normalize/dates.ts';
import { initialsOfPerson, type Query } from '../score/compare-person.ts';
import type { CandidateSet } from './candidate-set.ts';
import { KeyBatch, Uint32List } from './key-batch.ts';
import { addressPoint } from './row-place.ts';
import { radiusTest, reachInBand } from './within-radius.ts';

/**
 * Candidate generation: the union of the voters listed under each blocking key the input row
 * can form, plus the voters with a similar name within a radius of the row's location.
 * Fills `out` with voter → bit mask of the key kinds that found it.
 */
export interface CandidateOptions {
  /** A key listing more voters than this is too common to block on (counted, skipped). */
  maxPostings: number;
  /** Fixed radius (spec `search_radius`), or null for the density-based radius. */
  searchRadiusMiles: number | null;
}

export const DEFAULT_CANDIDATE_OPTIONS: CandidateOptions = { maxPostings: 5000, searchRadiusMiles: null };

/** Voters within the dynamic radius: about this many (the radius adapts to density). */
const RADIUS_TARGET_VOTERS = 1500;
export const MIN_RADIUS_MILES = 0.5;
export const MAX_RADIUS_MILES = 25;
/** Miles in a degree of latitude (and of longitude at the equator). */
export const MILES_PER_DEGREE_LAT = 69.05;

export function generateCandidates(
  index: MatchIndex,
  q: Query,
  options: CandidateOptions,
  out: CandidateSet,
): void {
  const postings = index.data.postings;
  const p = q.person;
  // The row's keys are gathered first and looked up together (see KeyBatch).
  const keys = blockingKeys;
  keys.clear();
  const collect = (kind: number, hash: number) => keys.push(hash, kind);

  // Phone and e-mail: a voter agrees when both independent hashes list it.
  if (p.phones.length > 0) {
    q.phoneVoters = intersect(index, keyPhone(p.phones[0]!), keyPhoneCheck(p.phones[0]!));
    for (const voter of q.phoneVoters) out.add(voter, 1 << KEY.phone);
  }
  if (p.email !== '') {
    q.emailVoters = intersect(index, keyEmail(p.email), keyEmailCheck(p.email));
    for (const voter of q.emailVoters) out.add(voter, 1 << KEY.email);
  }

  const lastInitial = initialOf(p.last);
  if (q.zip !== 0) {
    if (q.lastSound !== 0) collect(KEY.zipLast, keyZipLast(q.zip, q.lastSound));
    for (const group of q.firstGroups) collect(KEY.zipFirst, keyZipFirst(q.zip, group));
    // A ZIP no voter has: the surname in the ZIPs two swapped digits away that the file has
    // (27601 for 27061). A mistyped ZIP, with nothing else local, would otherwise find no one.
    if (q.lastSound !== 0) for (const zip of q.zipTypos) collect(KEY.zipLast, keyZipLast(zip, q.lastSound));
  } else if (q.cityId > 0 && q.lastSound !== 0) {
    for (const state of q.stateKeys) {
      // Voters filed without a state have no city key.
      if (state === 0) continue;
      collect(KEY.cityLast, keyCityLast(q.cityKey, state, q.lastSound));
      for (const group of q.firstGroups) collect(KEY.cityFirst, keyCityFirst(q.cityKey, state, group));
    }
  } else if (q.stateId > 0 && q.lastSound !== 0) {
    // Nothing local to block on: the same name anywhere in the state (a common name lists too
    // many voters and is skipped; the scorer's competition keeps the rest honest).
    for (const group of q.firstGroups)
      collect(KEY.stateName, keyStateName(q.stateKeys[0]!, q.lastSound, group));
  }

  // Date of birth (and its day/month swap), or the years an age allows.
  const initials = initialsOfPerson(p);
  if (q.dob !== 0) {
    const year = Math.floor(q.dob / 10000);
    const month = Math.floor(q.dob / 100) % 100;
    const day = q.dob % 100;
    if (day !== 0) {
      collectDateKeys(keys, q.dob, initials, q.lastSound);
      if (month !== 0 && day <= 12 && day !== month)
        collectDateKeys(keys, year * 10000 + day * 100 + month, initials, q.lastSound);
    }
    if (q.lastSound !== 0) collectYearKeys(keys, q, initials, lastInitial, year - 1, year + 1);
  } else if (p.dobTypos.length > 0) {
    // An impossible date: the dates one digit typo away (a few dozen at most).
    for (const date of p.dobTypos) collectDateKeys(keys, date, initials, q.lastSound);
  } else if (p.birthYears !== null && q.lastSound !== 0) {
    collectYearKeys(keys, q, initials, lastInitial, p.birthYears[0] - 1, p.birthYears[1] + 1);
  }

  if (q.houseId > 0 && q.zip !== 0) collect(KEY.houseZip, keyHouseZip(q.houseKey, q.zip));
  for (const key of q.houseStreetKeys) collect(KEY.houseStreet, key);

  keys.lookUp(postings);
  const wholeDate = isWholeDate(q.dob);
  const fields = index.data.fields;
  for (let k = 0; k < keys.size; k++) {
    const start = keys.starts[k]!;
    const end = keys.ends[k]!;
    // A shard skips the keys the whole file skips, by the file's count.
    if (index.filePostings(keys.hashes[k]!, end - start) > options.maxPostings) continue;
    const kind = keys.kinds[k]!;
    const bit = 1 << kind;
    if (wholeDate && (kind === KEY.lastYear || kind === KEY.firstYear)) {
      // A birth year's key, for a row with a whole date: its voters whose date is the row's with
      // one part mistyped (see keepsTwoDateParts). The others born that year, in every state,
      // are hundreds a key in a national file (half of a name and date list's time at 10M
      // voters); leaving them out lost no match on the lists measured.
      for (let i = start; i < end; i++) {
        const voter = postings.voterAt(i);
        if (keepsTwoDateParts(fields.dob(voter), q.dob)) out.add(voter, bit);
      }
    } else for (let i = start; i < end; i++) out.add(postings.voterAt(i), bit);
  }

  locate(index, q, options);
  if (q.location !== null && (q.lastSound !== 0 || q.firstGroups.length > 0)) {
    q.radiusMiles = options.searchRadiusMiles ?? dynamicRadius(index, q.location.lat, q.location.lon);
    searchRadius(index, q, options, out);
  }
}

/**
 * A whole date's keys: with each initial the first name may be filed under, and with the
 * surname's sound (0: none). Plain loops: a search runs in every shard a dated row is routed to,
 * and a callback per initial was garbage each time.
 */
function collectDateKeys(keys: KeyBatch, date: number, initials: number, lastSound: number): void {
  for (let m = initials; m !== 0; m &= m - 1) keys.push(keyDobFirst(date, lowestInitial(m)), KEY.dobFirst);
  if (lastSound !== 0) keys.push(keyDobLast(date, lastSound), KEY.dobLast);
}

/** The birth years' keys from `from` to `to`: surname sound with each initial, first-name groups with the surname's initial. */
function collectYearKeys(
  keys: KeyBatch,
  q: Query,
  initials: number,
  lastInitial: number,
  from: number,
  to: number,
): void {
  for (let y = from; y <= to; y++) {
    for (let m = initials; m !== 0; m &= m - 1)
      keys.push(keyLastYear(q.lastSound, lowestInitial(m), y), KEY.lastYear);
    if (lastInitial !== 0)
      for (const group of q.firstGroups) keys.push(keyFirstYear(group, lastInitial, y), KEY.firstYear);
  }
}

/**
 * Whether a voter's date (yyyymmdd) could be the row's whole date with one part of it mistyped:
 * two of the year, month and day the same, or the day and month swapped (a date written the
 * other way round). A voter without a whole date (a birth year alone, none) is kept: nothing
 * tells its date apart. What the birth-year keys are for: the row's date with a typo, which the
 * whole date's keys miss. Measured (50k-row `mixed` and `name_dob` lists against 1M and 10M
 * voters): the same precision and recall as every voter of the keys, 0.61-0.68× the time of the
 * `name_dob` list at 10M and 0.80-0.88× that of the `mixed` one.
 */
export function keepsTwoDateParts(voterDate: number, rowDate: number): boolean {
  if (!isWholeDate(voterDate)) return true;
  const year = Math.floor(voterDate / 10000) === Math.floor(rowDate / 10000) ? 1 : 0;
  const month = Math.floor(voterDate / 100) % 100;
  const day = voterDate % 100;
  const rowMonth = Math.floor(rowDate / 100) % 100;
  const rowDay = rowDate % 100;
  if (year + (month === rowMonth ? 1 : 0) + (day === rowDay ? 1 : 0) >= 2) return true;
  return year === 1 && month === rowDay && day === rowMonth;
}

function intersect(index: MatchIndex, hash: number, check: number): ReadonlySet<number> {
  const postings = index.data.postings;
  const [start, end] = postings.range(hash);
  // Most shards of a row searched in several hold no voter of its phone: no set for them.
  if (end === start) return NO_VOTERS;
  const found = new Set<number>();
  const [checkStart, checkEnd] = postings.range(check);
  for (let i = start; i < end; i++) {
    const voter = postings.voterAt(i);
    for (let j = checkStart; j < checkEnd; j++) {
      if (postings.voterAt(j) === voter) {
        found.add(voter);
        break;
      }
    }
  }
  return found;
}

/**
 * The row's location: its coordinates, else where the whole voter file places it when its row is
 * matched shard by shard (NormalizedPerson.place), else its address's (the voter there first in
 * the file: addressPoint), else its ZIP's centroid.
 */
function locate(index: MatchIndex, q: Query, options: CandidateOptions): void {
  const p = q.person;
  if (!Number.isNaN(p.lat)) {
    // Latitude and longitude given the wrong way round, an export's slip: the point where the
    // voter file has voters, when the one as given has none in its map cell.
    const swapped =
      Math.abs(p.lon) <= 90 &&
      index.cellCount(cellOf(p.lat, p.lon)) === 0 &&
      index.cellCount(cellOf(p.lon, p.lat)) > 0;
    q.location = swapped
      ? { lat: p.lon, lon: p.lat, source: 'coordinates' }
      : { lat: p.lat, lon: p.lon, source: 'coordinates' };
    return;
  }
  if (p.place !== undefined) {
    q.location = p.place.location === null ? null : { ...p.place.location };
    return;
  }
  const address = addressPoint(index, q, options.maxPostings);
  if (address !== null) {
    q.location = { lat: address.lat, lon: address.lon, source: 'address' };
    return;
  }
  if (q.zip !== 0) {
    const centroid = index.zipCentroid(q.zip);
    if (centroid !== null) q.location = { lat: centroid[0], lon: centroid[1], source: 'zip' };
  }
}

/**
 * Radius holding about RADIUS_TARGET_VOTERS voters at the density of the 3 × 3 map cells around
 * the point: a fraction of a mile in a city, many miles in the country.
 */
export function dynamicRadius(index: MatchIndex, lat: number, lon: number): number {
  const row = Math.floor((lat + 90) / CELL_DEGREES);
  const column = Math.floor((lon + 180) / CELL_DEGREES);
  let voters = 0;
  // The whole file's density, in a shard too: the same radius however the file is stored.
  const { cellIds, cellCounts } = index.densityCells();
  for (let dr = -1; dr <= 1; dr++) {
    const west = cellAt(row + dr, column - 1);
    const east = cellAt(row + dr, column + 1);
    if (east - west !== 2) {
      // Around the antimeridian: cell by cell.
      for (let dc = -1; dc <= 1; dc++) voters += index.cellCount(cellAt(row + dr, column + dc));
      continue;
    }
    // Three consecutive cell ids: one search, then the occupied ones among them.
    for (let i = lowerBound(cellIds, west); i < cellIds.length && cellIds[i]! <= east; i++)
      voters += cellCounts[i]!;
  }
  const cellMiles = CELL_DEGREES * MILES_PER_DEGREE_LAT;
  const area = 9 * cellMiles * cellMiles * Math.max(0.2, Math.cos((lat * Math.PI) / 180));
  if (voters === 0) return MAX_RADIUS_MILES;
  const radius = Math.sqrt(RADIUS_TARGET_VOTERS / (Math.PI * (voters / area)));
  return Math.min(MAX_RADIUS_MILES, Math.max(MIN_RADIUS_MILES, radius));
}

function searchRadius(index: MatchIndex, q: Query, options: CandidateOptions, out: CandidateSet): void {
  const { lat, lon } = q.location!;
  const radius = q.radiusMiles;
  const dLat = radius / MILES_PER_DEGREE_LAT;
  const dLon = radius / (MILES_PER_DEGREE_LAT * Math.max(0.05, Math.cos((lat * Math.PI) / 180)));
  const rowFrom = Math.floor((lat - dLat + 90) / CELL_DEGREES);
  const rowTo = Math.floor((lat + dLat + 90) / CELL_DEGREES);
  const columnFrom = Math.floor((lon - dLon + 180) / CELL_DEGREES);
  const columnTo = Math.floor((lon + dLon + 180) / CELL_DEGREES);
  const byFirst = q.location!.source === 'coordinates';
  // The keys of every occupied cell first, then their postings, then the voters' coordinates:
  // each step for all of them at once (see PackedPostings.ranges), in the order a cell-by-cell
  // walk would add them.
  // A key the cell's filter does not hold was never posted there: not looked up.
  const keys = radiusKeys;
  keys.clear();
  const { cellIds, cellKeyFilters } = index.data;
  const addCell = (cell: number, at: number) => {
    const filter = at * CELL_KEY_WORDS;
    if (q.lastSound !== 0) {
      const hash = keyCellLast(cell, q.lastSound);
      if (mayHoldCellKey(cellKeyFilters, filter, hash)) keys.push(hash, KEY.cellLast);
    }
    if (byFirst) {
      for (const group of q.firstGroups) {
        const hash = keyCellFirst(cell, group);
        if (mayHoldCellKey(cellKeyFilters, filter, hash)) keys.push(hash, KEY.cellFirst);
      }
    }
  };
  for (let row = rowFrom; row <= rowTo; row++) {
    // The row's cells within the test's reach (a circle's, not its square's).
    const south = row * CELL_DEGREES - 90;
    const reach = reachInBand(lat, radius, south, south + CELL_DEGREES);
    if (reach < 0) continue;
    const rowColumnFrom = Math.max(columnFrom, Math.floor((lon - reach + 180) / CELL_DEGREES));
    const rowColumnTo = Math.min(columnTo, Math.floor((lon + reach + 180) / CELL_DEGREES));
    if (rowColumnFrom > rowColumnTo) continue;
    const first = cellAt(row, rowColumnFrom);
    const last = cellAt(row, rowColumnTo);
    if (last - first === rowColumnTo - rowColumnFrom) {
      // A row's cells have consecutive ids: walk the occupied ones only (a wide radius over
      // empty country, or over a state another shard holds, spans thousands of empty cells).
      for (let i = lowerBound(cellIds, first); i < cellIds.length && cellIds[i]! <= last; i++) {
        addCell(cellIds[i]!, i);
      }
      continue;
    }
    // The range wraps around the antimeridian: cell by cell.
    for (let column = rowColumnFrom; column <= rowColumnTo; column++) {
      const cell = cellAt(row, column);
      const at = index.cellIndex(cell);
      if (at >= 0) addCell(cell, at);
    }
  }
  const postings = index.data.postings;
  keys.lookUp(postings);
  const voters = radiusVoters;
  voters.clear();
  for (let k = 0; k < keys.size; k++) {
    const start = keys.starts[k]!;
    const end = keys.ends[k]!;
    if (index.filePostings(keys.hashes[k]!, end - start) > options.maxPostings) continue;
    for (let i = start; i < end; i++) voters.push(postings.voterAt(i));
  }
  const fields = index.data.fields;
  const within = radiusTest(lat, lon, radius);
  const bit = 1 << KEY.cellLast;
  for (let i = 0; i < voters.size; i++) {
    const voter = voters.values[i]!;
    if (within(fields.lat(voter), fields.lon(voter))) out.add(voter, bit);
  }
}

const NO_VOTERS: ReadonlySet<number> = new Set<number>();

/** A row's blocking keys; a radius search's cell keys and the voters their postings list. */
const blockingKeys = new KeyBatch();
const radiusKeys = new KeyBatch();
const radiusVoters = new Uint32List();
