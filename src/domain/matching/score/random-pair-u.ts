import { dynamicRadius } from '../candidates/generate-candidates.ts';
import { zipTranspositions } from '../compare/zip-transposition.ts';
import { type ContactSample, strangersPerHolder } from '../index/contact-sample.ts';
import type { MatchIndex } from '../index/match-index.ts';
import type { TextField } from '../index/match-index-fields.ts';
import { isWholeDate } from '../normalize/dates.ts';
import { emptyPerson, type NormalizedPerson } from '../normalize/person.ts';
import { fileAgreement } from './chance-agreement.ts';
import { comparePerson, distanceLevel, distanceMiles, prepareQuery } from './compare-person.ts';
import { F, FIELD_COUNT, L, LEVEL_COUNTS, MAX_LEVELS } from './comparison-levels.ts';
import { at } from './fellegi-sunter.ts';

/** Random voter pairs sampled to estimate u. */
const SAMPLE_PAIRS = 40_000;

/**
 * u = P(level | two different people), estimated from the voter file itself: exact agreement
 * from value frequencies (Σ p², exact for any file size), the other levels from random pairs of
 * voters. Seeded, so the same voter file always gives the same model.
 */
export function estimateRandomPairU(index: MatchIndex): Float64Array {
  // The voters of this index (a shard's own, were it given one: a sharded import estimates the
  // whole file's u with estimateFileRandomPairU instead).
  return estimateFileRandomPairU(randomPairFigures(index), { index, voterAt: (position) => position });
}

/**
 * What u is estimated from besides the sampled voters: the voter file's size and its value
 * frequencies, each in order of first appearance in the file (the order of an index of the whole
 * file's dictionaries): u sums their shares in that order, and a floating-point sum depends on it.
 */
export interface RandomPairFigures {
  size: number;
  /** The file's first names (not the empty one) and their voters. */
  firstNames: readonly string[];
  firstCounts: ArrayLike<number>;
  /** Voters per surname, city and state (not the empty value). */
  lastCounts: ArrayLike<number>;
  cityCounts: ArrayLike<number>;
  stateCounts: ArrayLike<number>;
  /** Voters per ZIP (not 0), per date of birth (not 0, partial dates too). */
  zips: ReadonlyMap<number, number>;
  dobs: ReadonlyMap<number, number>;
  /** The file's sampled phones and e-mails with their holders' names (absent: stored before them). */
  contacts?: ContactSample;
}

/**
 * The voters u compares: an index holding at least those at the file positions
 * randomPairPositions samples, with the whole file's statistics (dictionary counts, first-name
 * genders, size, ZIPs, map-cell counts), and the index's voter at each such position.
 */
export interface RandomPairVoters {
  index: MatchIndex;
  voterAt(position: number): number;
}

/** The figures of the file an index holds whole. */
function randomPairFigures(index: MatchIndex): RandomPairFigures {
  const d = index.data.dictionaries;
  const dobs = new Map<number, number>();
  const fields = index.data.fields;
  for (let voter = 0; voter < fields.size; voter++) {
    const dob = fields.dob(voter);
    if (dob !== 0) dobs.set(dob, (dobs.get(dob) ?? 0) + 1);
  }
  // Dictionary id 0 is the empty value: not a value two voters can agree on.
  return {
    size: index.data.size,
    firstNames: d.first.values.slice(1),
    firstCounts: d.first.counts.subarray(1),
    lastCounts: d.last.counts.subarray(1),
    cityCounts: d.city.counts.subarray(1),
    stateCounts: d.state.counts.subarray(1),
    zips: zipCounts(index),
    dobs,
    ...(index.data.contacts === undefined ? {} : { contacts: index.data.contacts }),
  };
}

/**
 * The file positions of the voter pairs u samples (seeded by nothing but the file's size): the
 * pairs compared field by field, and the pairs whose distance is measured.
 */
export function randomPairPositions(n: number): { pairs: Uint32Array; distance: Uint32Array } {
  let state = 0x2545f491;
  const next = () => {
    // xorshift32: enough for sampling, no dependency on Math.random.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  if (n < 2) return { pairs: new Uint32Array(0), distance: new Uint32Array(0) };
  const pairs = new Uint32Array(2 * SAMPLE_PAIRS);
  for (let s = 0; s < SAMPLE_PAIRS; s++) {
    const i = Math.floor(next() * n);
    let j = Math.floor(next() * (n - 1));
    if (j >= i) j++;
    pairs[2 * s] = i;
    pairs[2 * s + 1] = j;
  }
  const distance = new Uint32Array(2 * SAMPLE_PAIRS);
  for (let s = 0; s < SAMPLE_PAIRS; s++) {
    distance[2 * s] = Math.floor(next() * n);
    distance[2 * s + 1] = Math.floor(next() * n);
  }
  return { pairs, distance };
}

/**
 * u of a voter file from its figures and its sampled voters: the same numbers whether the file's
 * index is held whole or the file was imported as shards (the voters then gathered from them).
 */
export function estimateFileRandomPairU(figures: RandomPairFigures, voters: RandomPairVoters): Float64Array {
  const n = figures.size;
  const { index, voterAt } = voters;
  const counts = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  const levels = new Uint8Array(FIELD_COUNT);
  const { pairs, distance } = randomPairPositions(n);
  for (let s = 0; s < pairs.length; s += 2) {
    const q = prepareQuery(index, voterAsPerson(index, voterAt(pairs[s]!)));
    q.radiusMiles = 1;
    if (!Number.isNaN(q.person.lat))
      q.location = { lat: q.person.lat, lon: q.person.lon, source: 'coordinates' };
    comparePerson(index, q, voterAt(pairs[s + 1]!), levels);
    for (let f = 0; f < FIELD_COUNT; f++) if (levels[f] !== 0) counts[at(f, levels[f]!)]! += 1;
  }
  const u = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  for (let f = 0; f < FIELD_COUNT; f++) {
    let total = 0;
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) total += counts[at(f, l)]!;
    for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) {
      // Half a pair for an unseen level: small, never zero.
      u[at(f, l)] = (counts[at(f, l)]! + 0.5) / (total + 0.5 * LEVEL_COUNTS[f]!);
    }
  }
  // Exact agreement from frequencies: random pairs see a ZIP or a surname agree too rarely.
  const zips = figures.zips;
  const exact: [number, number][] = [
    [F.first, shareSquares(Array.from(figures.firstCounts))],
    [F.last, shareSquares(Array.from(figures.lastCounts))],
    [F.city, shareSquares(Array.from(figures.cityCounts))],
    [F.state, shareSquares(Array.from(figures.stateCounts))],
    [F.zip, shareSquares(zips.values())],
  ];
  for (const [field, share] of exact) setExact(u, field, Math.max(share, 0.5 / Math.max(n, 1)));
  setZipTransposed(u, zips, n);
  // A phone number or e-mail address names about one person in the whole population, not one
  // in the voter file: the chance that a stranger's equals a given voter's is that of a
  // recycled number or a shared inbox, as often as the file holds its own numbers under other
  // names (fileChance). Voters who share one (a household landline) split the posterior among
  // themselves through the scorer's competition. Each list's fit learns it again from its own
  // persons, with this as its prior (chance-agreement.ts).
  setExact(u, F.phone, fileAgreement(figures.contacts && strangersPerHolder(figures.contacts.phone), n));
  setExact(u, F.email, fileAgreement(figures.contacts && strangersPerHolder(figures.contacts.email), n));
  setDobLevels(u, figures.dobs, n);
  // Voter pairs never compare a bare initial (voter files hold full first names), but lists
  // do: an initial agrees by chance as often as two random first letters do.
  u[at(F.first, L.first.initial)] = initialAgreement(figures.firstNames, figures.firstCounts);
  setDistanceLevels(u, voters, distance);
  return u;
}

/**
 * Date-of-birth and age levels from the distribution of dates and years: random pairs of voters
 * show a year-only agreement (an age, a YYYY date) only when the file lacks full dates, yet
 * lists send ages all the time. An age allows two birth years, so age's 'year' and 'near' count
 * two (a year-only date's one: a little less evidence than it carries).
 */
const TYPO_NEIGHBOURS = 25;

function setDobLevels(u: Float64Array, dobs: ReadonlyMap<number, number>, n: number): void {
  // Years and full dates in order of first appearance, as the dates are.
  const years = new Map<number, number>();
  const dates = new Map<number, number>();
  for (const [dob, count] of dobs) {
    const year = Math.floor(dob / 10000);
    years.set(year, (years.get(year) ?? 0) + count);
    if (isWholeDate(dob)) dates.set(dob, (dates.get(dob) ?? 0) + count);
  }
  const floor = 0.5 / Math.max(n, 1);
  const yearSq = years.size === 0 ? 1 / 80 : shareSquares(years.values());
  const dateSq = dates.size === 0 ? yearSq / 365 : shareSquares(dates.values());
  const levels: [number, number][] = [
    [L.dob.exact, dateSq],
    [L.dob.swapped, dateSq],
    [L.dob.month, yearSq / 12],
    // A date has about 25 valid dates one digit typo away (other days, months, years and
    // decades), each about as likely for a stranger as the date itself.
    [L.dob.typo, Math.min(0.25, TYPO_NEIGHBOURS * dateSq)],
  ];
  let agree = 0;
  for (const [level, share] of levels) {
    u[at(F.dob, level)] = Math.max(share, floor);
    agree += Math.max(share, floor);
  }
  u[at(F.dob, L.dob.differ)] = Math.max(0.5, 1 - agree);
  const year = Math.max(2 * yearSq, floor);
  u[at(F.age, L.age.year)] = year;
  u[at(F.age, L.age.near)] = year;
  u[at(F.age, L.age.differ)] = Math.max(0.5, 1 - 2 * year);
}

/**
 * Distance levels from random pairs of located voters, each against the dynamic radius at the
 * first one (the pairs above skip distance: voters have addresses, which take precedence).
 */
function setDistanceLevels(u: Float64Array, voters: RandomPairVoters, pairs: Uint32Array): void {
  const { index, voterAt } = voters;
  const fields = index.data.fields;
  const counts = [0, 0, 0, 0, 0];
  let total = 0;
  for (let s = 0; s < pairs.length; s += 2) {
    if (pairs[s] === pairs[s + 1]) continue;
    const i = voterAt(pairs[s]!);
    const j = voterAt(pairs[s + 1]!);
    if (Number.isNaN(fields.lat(i)) || Number.isNaN(fields.lat(j))) continue;
    const miles = distanceMiles(fields.lat(i), fields.lon(i), fields.lat(j), fields.lon(j));
    const radius = dynamicRadius(index, fields.lat(i), fields.lon(i));
    counts[distanceLevel(miles, radius)]!++;
    total++;
  }
  for (let l = 1; l <= 4; l++) u[at(F.distance, l)] = (counts[l]! + 0.5) / (total + 2);
}

function initialAgreement(names: readonly string[], counts: ArrayLike<number>): number {
  const byInitial = new Map<number, number>();
  for (let i = 0; i < names.length; i++) {
    const c = names[i]!.charCodeAt(0);
    byInitial.set(c, (byInitial.get(c) ?? 0) + counts[i]!);
  }
  return byInitial.size === 0 ? 1 / 26 : shareSquares(byInitial.values());
}

/**
 * u of a ZIP two neighbouring digits away, from the ZIPs' shares (Σ p(z) · Σ p(z') over z's
 * transpositions z'): random pairs seldom see one, and a city's consecutive ZIPs (27601, 27610)
 * make it likelier than chance. The disagreement keeps the rest.
 */
function setZipTransposed(u: Float64Array, counts: ReadonlyMap<number, number>, n: number): void {
  let total = 0;
  for (const count of counts.values()) total += count;
  let transposed = 0;
  if (total > 0) {
    for (const [zip, count] of counts) {
      let near = 0;
      for (const other of zipTranspositions(zip)) near += counts.get(other) ?? 0;
      transposed += (count / total) * (near / total);
    }
  }
  // At most half of what the exact agreement leaves (a file of a few ZIPs), so differing still costs.
  const rest = 1 - u[at(F.zip, L.zip.exact)]!;
  const value = Math.min(rest / 2, Math.max(transposed, 0.5 / Math.max(n, 1)));
  u[at(F.zip, L.zip.transposed)] = value;
  u[at(F.zip, L.zip.differ)] = rest - value;
}

/** Sets u of level 1 and rescales the other levels to keep the field's sum at 1. */
function setExact(u: Float64Array, field: number, share: number): void {
  // A field every voter shares (a one-state file) must still make a disagreement cost something.
  const exact = Math.min(share, MAX_EXACT_SHARE);
  let rest = 0;
  for (let l = 2; l <= LEVEL_COUNTS[field]!; l++) rest += u[at(field, l)]!;
  for (let l = 2; l <= LEVEL_COUNTS[field]!; l++) {
    u[at(field, l)] =
      rest > 0 ? (u[at(field, l)]! / rest) * (1 - exact) : (1 - exact) / (LEVEL_COUNTS[field]! - 1);
  }
  u[at(field, 1)] = exact;
}

/** Highest u of an exact agreement: leaves disagreement a u of at least 1 in 1,000. */
const MAX_EXACT_SHARE = 0.999;

/** Σ p² of the values whose counts are given: the chance that two random picks are equal. */
function shareSquares(counts: Iterable<number>): number {
  const list = Array.from(counts);
  let total = 0;
  for (const count of list) total += count;
  if (total === 0) return 0;
  let sum = 0;
  for (const count of list) sum += (count / total) ** 2;
  return sum;
}

/** How many voters hold each ZIP, in order of first appearance. */
function zipCounts(index: MatchIndex): Map<number, number> {
  const counts = new Map<number, number>();
  const fields = index.data.fields;
  for (let voter = 0; voter < fields.size; voter++) {
    const zip = fields.zip(voter);
    if (zip !== 0) counts.set(zip, (counts.get(zip) ?? 0) + 1);
  }
  return counts;
}

/** A voter's indexed fields as a person (phones and e-mail are not kept per voter). */
export function voterAsPerson(index: MatchIndex, voter: number): NormalizedPerson {
  const data = index.data;
  const fields = data.fields;
  const person = emptyPerson();
  const text = (field: TextField) => data.dictionaries[field].value(fields.id(field, voter));
  person.first = text('first');
  person.middle = text('middle');
  person.last = text('last');
  person.suffix = text('suffix');
  person.house = text('house');
  person.street = text('street');
  person.unit = text('unit');
  person.city = text('city');
  person.state = text('state');
  const zip = fields.zip(voter);
  person.zip = zip === 0 ? '' : String(zip).padStart(5, '0');
  const dob = fields.dob(voter);
  person.dob =
    dob === 0 ? null : { year: Math.floor(dob / 10000), month: Math.floor(dob / 100) % 100, day: dob % 100 };
  const gender = fields.gender(voter);
  person.gender = gender === 1 ? 'F' : gender === 2 ? 'M' : '';
  person.lat = fields.lat(voter);
  person.lon = fields.lon(voter);
  return person;
}
