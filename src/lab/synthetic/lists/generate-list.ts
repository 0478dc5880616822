/**
 * Synthetic contact lists drawn from a voter CSV, with a documented error model (error-model.ts) and a
 * ground-truth file. One streaming pass over the voter file keeps only reservoir samples (members,
 * near-twin sources, a pool of names and places) and a fixed-size Bloom filter of identifying values,
 * so memory does not grow with the voter file. Nothing is written before the pass succeeds.
 */

import { createReadStream, createWriteStream } from 'node:fs';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readCsvTable } from '../../../domain/csv/csv-reader.ts';
import { CsvChunkWriter } from '../../../domain/csv/csv-writer.ts';
import { CORE_VOTER_COLUMNS } from '../../../domain/voters/voter-columns.ts';
import type { ErrorTag, TrapTag } from './error-model.ts';
import {
  ageOn,
  clearlyDifferentNames,
  coupleFullName,
  DOB_PLACEHOLDER,
  dobSwap,
  dobSwapEligible,
  dobYear,
  ERROR_RATES,
  ERROR_TAGS,
  emailCase,
  emailDomainTypo,
  emailDomainTypoEligible,
  emailDots,
  emailDotsEligible,
  emailKey,
  emailPlus,
  emailPlusEligible,
  formatDob,
  formatPhone,
  fullName,
  glueHouseNumber,
  hasNickname,
  houseNumberGluedEligible,
  invalidDob,
  isOddDob,
  jitterLatLong,
  mimicId,
  newHouseNumber,
  nicknameSwap,
  outOfRangeDob,
  parseDob,
  phoneDigits,
  placeholderDob,
  propertyName,
  randomizeDigits,
  scannedSlip,
  scannedSlipEligible,
  splitOrJoinStreet,
  streetSplitJoinEligible,
  streetWithoutUnit,
  TRAP_TAGS,
  titleCase,
  transposeZip,
  typo,
  typoEligible,
  unitOtherLine,
  unitOtherLineEligible,
  withNicknameAside,
  writeDobAs,
  zipTransposedEligible,
} from './error-model.ts';
import { ListRng, StringBloom } from './rng.ts';

export {
  ERROR_ELIGIBILITY,
  ERROR_RATES,
  ERROR_TAGS,
  type ErrorTag,
  NON_MEMBER_TAGS,
  TRAP_TAGS,
  type TrapTag,
} from './error-model.ts';

export const PATTERNS = [
  'name_address',
  'name_dob',
  'name_zip',
  'email',
  'phone',
  'ids',
  'latlong_name',
  'mixed',
] as const;
export type Pattern = (typeof PATTERNS)[number];
export type SubPattern = Exclude<Pattern, 'mixed'>;
export const SUB_PATTERNS: readonly SubPattern[] = PATTERNS.filter((p): p is SubPattern => p !== 'mixed');

/** All list columns in output order; each pattern's header is the subset it uses, after matchback_id. */
const COLUMN_ORDER = [
  'matchback_id',
  'voterbase_id',
  'voter_id',
  'smartvan_id',
  'exact_track',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'full_name',
  'first_name_combined',
  'address1',
  'address2',
  'city',
  'state',
  'zip',
  'dob',
  'age',
  'email',
  'phone',
  'latitude',
  'longitude',
] as const;
type Column = (typeof COLUMN_ORDER)[number];

export const SUB_PATTERN_COLUMNS: Readonly<Record<SubPattern, readonly Column[]>> = {
  name_address: [
    'first_name',
    'middle_name',
    'last_name',
    'name_suffix',
    'full_name',
    'first_name_combined',
    'address1',
    'address2',
    'city',
    'state',
    'zip',
    'dob',
  ],
  name_dob: ['first_name', 'last_name', 'full_name', 'dob', 'age', 'state'],
  name_zip: ['first_name', 'last_name', 'full_name', 'first_name_combined', 'city', 'state', 'zip'],
  email: ['first_name', 'email'],
  phone: ['phone'],
  ids: ['voterbase_id', 'voter_id', 'smartvan_id', 'state', 'exact_track'],
  latlong_name: ['first_name', 'last_name', 'full_name', 'latitude', 'longitude'],
};

function headerOf(pattern: Pattern): Column[] {
  const used = new Set<Column>(['matchback_id']);
  for (const sub of pattern === 'mixed' ? SUB_PATTERNS : [pattern]) {
    for (const column of SUB_PATTERN_COLUMNS[sub]) used.add(column);
  }
  return COLUMN_ORDER.filter((column) => used.has(column));
}

/** The list header of each pattern (`mixed`: the union of all others). */
export const PATTERN_HEADERS: Readonly<Record<Pattern, readonly string[]>> = Object.fromEntries(
  PATTERNS.map((p) => [p, headerOf(p)]),
) as unknown as Record<Pattern, readonly string[]>;

export const TRUTH_HEADER = ['matchback_id', 'voterbase_id', 'pattern', 'errors'] as const;

/** Voter columns read by name (others are ignored): the service's core columns. Only voterbase_id is required. */
const VOTER_FIELDS = CORE_VOTER_COLUMNS;

/** Upper bound on `rows`. */
export const MAX_LIST_ROWS = 20_000_000;
/** Default as-of date for ages: fixed so that outputs do not depend on the clock. */
export const DEFAULT_AS_OF = new Date(Date.UTC(2026, 0, 1));
/** Size of the reservoir of voters whose names and places invented people and movers reuse. */
const POOL_SIZE = 4096;

export interface ContactListOptions {
  /** Voter CSV bytes (header with at least voterbase_id; see README for the columns used). */
  voters: AsyncIterable<Uint8Array>;
  /** List rows to produce, 1..MAX_LIST_ROWS. */
  rows: number;
  /** Share of rows that are voters of the file, in [0, 1]; members = round(rows × matchRate). */
  matchRate: number;
  pattern: Pattern;
  /** Any safe integer; same options (and voter bytes) → byte-identical outputs. */
  seed: number;
  /** List CSV; ended when done. */
  out: Writable;
  /** Truth CSV (`matchback_id,voterbase_id,pattern,errors`); ended when done. */
  truth: Writable;
  /** Date for `age` values; default DEFAULT_AS_OF (2026-01-01). */
  asOf?: Date;
}

export interface ListReport {
  rows: number;
  members: number;
  nonMembers: number;
  nearTwins: number;
  /** Non-members that are a voter's relative absent from the file (trap_* tags). */
  traps: number;
  /** Non-members that are invented people (nonMembers − nearTwins − traps). */
  invented: number;
  /** Member rows that stand for two voters (first_name_combined). */
  couples: number;
  /** Data rows in the voter file, and how many could serve as members for the pattern. */
  voterRows: number;
  eligibleVoters: number;
  /** CSV problems in the voter file (ragged rows etc.). */
  voterWarnings: number;
  /** Rows per (sub-)pattern. */
  patterns: Record<SubPattern, number>;
  /** Rows carrying each error tag. */
  errors: Record<ErrorTag, number>;
  /** Rows eligible for each error tag (the denominator of its rate). */
  errorOpportunities: Record<ErrorTag, number>;
  /** ids rows per identifier used. */
  idKinds: Record<'voterbase_id' | 'voter_id' | 'smartvan_id' | 'exact_track', number>;
}

/** A person as a list row is built from: a voter, a near-twin or an invented person. */
interface Person {
  voterbaseId: string;
  state: string;
  voterId: string;
  smartvanId: string;
  exactTrack: string;
  first: string;
  middle: string;
  last: string;
  suffix: string;
  address1: string;
  address2: string;
  city: string;
  zip: string;
  lat: string;
  lon: string;
  dob: string;
  gender: string;
  email: string;
  phones: string[];
  /** Housemate with the same surname (members only): id and first name. */
  mateId: string;
  mateFirst: string;
}

function emptyPerson(): Person {
  return {
    voterbaseId: '',
    state: '',
    voterId: '',
    smartvanId: '',
    exactTrack: '',
    first: '',
    middle: '',
    last: '',
    suffix: '',
    address1: '',
    address2: '',
    city: '',
    zip: '',
    lat: '',
    lon: '',
    dob: '',
    gender: '',
    email: '',
    phones: [],
    mateId: '',
    mateFirst: '',
  };
}

function clonePerson(p: Person): Person {
  return { ...p, phones: [...p.phones] };
}

/** Column positions of VOTER_FIELDS in the voter file (-1: absent). */
interface VoterIndex {
  readonly [key: string]: number;
}

function cell(fields: readonly string[], i: number): string {
  if (i < 0) return '';
  const v = fields[i] ?? '';
  const n = v.length;
  return n > 0 && (v.charCodeAt(0) === 32 || v.charCodeAt(n - 1) === 32) ? v.trim() : v;
}

function isTenDigits(v: string): boolean {
  if (v.length !== 10) return false;
  for (let i = 0; i < 10; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Overwrites `p` with the voter row (no allocation apart from the phones array reuse). */
function fillPerson(p: Person, fields: readonly string[], ix: VoterIndex): void {
  p.voterbaseId = cell(fields, ix.voterbase_id!);
  p.state = cell(fields, ix.state!).toUpperCase();
  p.voterId = cell(fields, ix.voter_id!);
  p.smartvanId = cell(fields, ix.smartvan_id!);
  p.exactTrack = cell(fields, ix.exact_track!);
  p.first = cell(fields, ix.first_name!);
  p.middle = cell(fields, ix.middle_name!);
  p.last = cell(fields, ix.last_name!);
  p.suffix = cell(fields, ix.name_suffix!);
  p.address1 = cell(fields, ix.address1!);
  p.address2 = cell(fields, ix.address2!);
  p.city = cell(fields, ix.city!);
  p.zip = cell(fields, ix.zip!);
  p.lat = cell(fields, ix.latitude!);
  p.lon = cell(fields, ix.longitude!);
  p.dob = cell(fields, ix.dob!);
  p.gender = cell(fields, ix.gender!).toUpperCase();
  p.email = cell(fields, ix.email!);
  p.phones.length = 0;
  for (const i of [ix.wireless_phone!, ix.landline_phone!, ix.voip_phone!]) {
    const v = cell(fields, i);
    if (v === '') continue;
    const digits = isTenDigits(v) ? v : phoneDigits(v);
    if (digits !== '') p.phones.push(digits);
  }
  p.mateId = '';
  p.mateFirst = '';
}

function supports(p: Person, pattern: SubPattern): boolean {
  const named = p.first !== '' && p.last !== '';
  switch (pattern) {
    case 'name_address':
      return named && p.address1 !== '';
    case 'name_dob':
      return named && parseDob(p.dob) !== null;
    case 'name_zip':
      return named && (p.zip !== '' || p.city !== '');
    case 'email':
      return p.email.includes('@');
    case 'phone':
      return p.phones.length > 0;
    case 'ids':
      return p.voterbaseId !== '';
    case 'latlong_name':
      return named && Number.isFinite(Number.parseFloat(p.lat)) && Number.isFinite(Number.parseFloat(p.lon));
  }
}

function supportsPattern(p: Person, pattern: Pattern): boolean {
  if (pattern !== 'mixed') return supports(p, pattern);
  for (const sub of SUB_PATTERNS) if (supports(p, sub)) return true;
  return false;
}

function validate(
  options: Pick<ContactListOptions, 'rows' | 'matchRate' | 'pattern' | 'seed' | 'asOf'>,
): Date {
  const { rows, matchRate, pattern, seed, asOf } = options;
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 1 || rows > MAX_LIST_ROWS) {
    throw new RangeError(`rows must be an integer from 1 to ${MAX_LIST_ROWS}, got ${String(rows)}`);
  }
  if (typeof matchRate !== 'number' || !(matchRate >= 0 && matchRate <= 1)) {
    throw new RangeError(`matchRate must be a number from 0 to 1, got ${String(matchRate)}`);
  }
  if (!(PATTERNS as readonly string[]).includes(pattern)) {
    throw new RangeError(`pattern must be one of ${PATTERNS.join(', ')}; got ${JSON.stringify(pattern)}`);
  }
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) {
    throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
  }
  const date = asOf ?? DEFAULT_AS_OF;
  if (!(date instanceof Date) || Number.isNaN(date.getTime()))
    throw new RangeError('asOf must be a valid Date');
  return date;
}

const PATTERN_NEEDS: Readonly<Record<Pattern, string>> = {
  name_address: 'first_name, last_name and address1',
  name_dob: 'first_name, last_name and a valid dob (YYYYMMDD)',
  name_zip: 'first_name, last_name and zip or city',
  email: 'an email',
  phone: 'a 10-digit phone',
  ids: 'a voterbase_id',
  latlong_name: 'first_name, last_name, latitude and longitude',
  mixed: 'the fields of at least one pattern',
};

/** Streams stream numbers of ListRng. */
const STREAM_SAMPLE = 1;
const STREAM_ROWS = 2;
const STREAM_ORDER = 3;
/** Its own stream, so that the member, near-twin and pool samples do not depend on it. */
const STREAM_ADDRESSES = 4;
/** Street addresses remembered per ZIP (reservoir) for movers within a ZIP or a city. */
const ADDRESSES_PER_ZIP = 4;

/** A voter's street address, as movers within a ZIP or a city take it. */
interface Address {
  address1: string;
  address2: string;
  city: string;
  state: string;
  zip: string;
  lat: string;
  lon: string;
}

/** A reservoir of the street addresses of one ZIP; `seen`: voters with one, so far. */
interface ZipAddresses {
  seen: number;
  items: Address[];
}

interface Sample {
  members: Person[];
  twins: Person[];
  /** Voters with names and an address whose relatives precision traps invent; `suffixed`: those with JR or SR. */
  relatives: Person[];
  suffixed: Person[];
  pool: Person[];
  /** Street addresses by ZIP, and the ZIPs of each `city|state` (movers within a ZIP or a city). */
  zips: Map<string, ZipAddresses>;
  cityZips: Map<string, string[]>;
  bloom: StringBloom;
  voterRows: number;
  eligible: number;
  warnings: number;
}

/** Which identifying values of the voter file must be remembered (Bloom filter) for a pattern. */
function bloomKinds(pattern: Pattern): {
  ids: boolean;
  email: boolean;
  phone: boolean;
  nameDob: boolean;
  household: boolean;
} {
  const all = pattern === 'mixed';
  return {
    ids: all || pattern === 'ids',
    email: all || pattern === 'email',
    phone: all || pattern === 'phone',
    nameDob: all || pattern === 'name_dob' || pattern === 'name_address',
    household: TRAP_TAGS.some((tag) => trapPossible(tag, pattern)),
  };
}

/** Sub-patterns whose rows can tell each trap from its voter (jr_sr by dob or suffix, twin by first name, spouse by first name beside the shared e-mail). */
const TRAP_SUB_PATTERNS: Readonly<Record<TrapTag, readonly SubPattern[]>> = {
  trap_jr_sr: ['name_dob', 'name_address'],
  trap_twin: ['name_address', 'name_dob', 'name_zip', 'latlong_name'],
  trap_spouse: ['email'],
};

function trapPossible(tag: TrapTag, pattern: Pattern): boolean {
  return pattern === 'mixed' || TRAP_SUB_PATTERNS[tag].includes(pattern);
}

/** Bloom key of a first name, last name and dob: a person the file holds. */
const nameDobKey = (first: string, last: string, dob: string): string =>
  `N|${first.toUpperCase()}|${last.toUpperCase()}|${dob}`;
const householdKey = (first: string, last: string, address1: string, zip: string): string =>
  `G|${first.toUpperCase()}|${last.toUpperCase()}|${address1.toUpperCase()}|${zip}`;
const suffixedKey = (p: Pick<Person, 'first' | 'last' | 'suffix' | 'address1' | 'zip'>): string =>
  `H|${p.first.toUpperCase()}|${p.last.toUpperCase()}|${p.suffix.toUpperCase()}|${p.address1.toUpperCase()}|${p.zip}`;

async function samplePass(
  options: ContactListOptions,
  memberCount: number,
  twinCount: number,
  relativeCount: number,
): Promise<Sample> {
  const rng = new ListRng(options.seed, STREAM_SAMPLE);
  const bloom = new StringBloom();
  const kinds = bloomKinds(options.pattern);
  const members: Person[] = [];
  const twins: Person[] = [];
  const relatives: Person[] = [];
  const suffixed: Person[] = [];
  let relativesSeen = 0;
  let suffixedSeen = 0;
  const pool: Person[] = [];
  const zips = new Map<string, ZipAddresses>();
  const cityZips = new Map<string, string[]>();
  const addressRng = new ListRng(options.seed, STREAM_ADDRESSES);
  const movers = ['name_address', 'name_zip', 'latlong_name', 'mixed'].includes(options.pattern);
  let index: VoterIndex | null = null;
  let voterRows = 0;
  let eligible = 0;
  let twinSeen = 0;
  let warnings = 0;
  const cur = emptyPerson();
  // The previous row, for housemate links.
  let prevId = '';
  let prevFirst = '';
  let prevLast = '';
  let prevAddress = '';
  let prevZip = '';
  let prevSampled: Person | null = null;

  for await (const event of readCsvTable(options.voters, {
    maxRowBytes: 1 << 20,
    onWarning: () => {
      warnings++;
    },
  })) {
    if (event.kind === 'header') {
      const names = event.header.map((h) => h.trim().toLowerCase());
      index = Object.fromEntries(VOTER_FIELDS.map((name) => [name, names.indexOf(name)]));
      if (index.voterbase_id! < 0) {
        throw new RangeError('the voter file has no voterbase_id column (columns are found by header name)');
      }
      continue;
    }
    const ix = index!;
    for (const record of event.rows) {
      fillPerson(cur, record.fields, ix);
      if (cur.voterbaseId === '') continue;
      voterRows++;
      addToBloom(bloom, cur, kinds);
      let copy: Person | null = null;
      let sampled: Person | null = null;
      if (supportsPattern(cur, options.pattern)) {
        eligible++;
        if (members.length < memberCount) {
          sampled = copy = clonePerson(cur);
          members.push(copy);
        } else if (memberCount > 0) {
          const j = rng.bigInt(eligible);
          if (j < memberCount) {
            sampled = copy = clonePerson(cur);
            members[j] = copy;
          }
        }
      }
      // Housemates: consecutive rows with the same address, ZIP and surname.
      if (
        prevAddress !== '' &&
        prevAddress === cur.address1 &&
        prevZip === cur.zip &&
        prevLast !== '' &&
        prevLast === cur.last &&
        prevFirst !== cur.first &&
        prevFirst !== '' &&
        cur.first !== ''
      ) {
        if (sampled !== null) {
          sampled.mateId = prevId;
          sampled.mateFirst = prevFirst;
        }
        if (prevSampled !== null && prevSampled.mateId === '') {
          prevSampled.mateId = cur.voterbaseId;
          prevSampled.mateFirst = cur.first;
        }
      }
      if (twinCount > 0 && cur.first !== '' && cur.last !== '' && cur.city !== '') {
        twinSeen++;
        const j = twins.length < twinCount ? twins.length : rng.bigInt(twinSeen);
        if (j < twinCount) {
          if (copy === null) copy = clonePerson(cur);
          twins[j] = copy;
        }
      }
      if (relativeCount > 0 && cur.first !== '' && cur.last !== '' && cur.address1 !== '') {
        const jr = cur.suffix === 'JR' || cur.suffix === 'SR';
        const seen = jr ? ++suffixedSeen : ++relativesSeen;
        const into = jr ? suffixed : relatives;
        const j = into.length < relativeCount ? into.length : rng.bigInt(seen);
        if (j < relativeCount) {
          if (copy === null) copy = clonePerson(cur);
          into[j] = copy;
        }
      }
      if (movers) addAddress(addressRng, zips, cityZips, cur);
      const k = pool.length < POOL_SIZE ? pool.length : rng.bigInt(voterRows);
      if (k < POOL_SIZE) {
        if (copy === null) copy = clonePerson(cur);
        pool[k] = copy;
      }
      prevId = cur.voterbaseId;
      prevFirst = cur.first;
      prevLast = cur.last;
      prevAddress = cur.address1;
      prevZip = cur.zip;
      prevSampled = sampled;
    }
  }
  if (index === null) throw new RangeError('the voter file is empty (no header row)');
  return {
    members,
    twins,
    relatives,
    suffixed,
    pool,
    zips,
    cityZips,
    bloom,
    voterRows,
    eligible,
    warnings,
  };
}

/** Remembers a voter's street address (a house number first, with coordinates) in its ZIP's reservoir. */
function addAddress(
  rng: ListRng,
  zips: Map<string, ZipAddresses>,
  cityZips: Map<string, string[]>,
  p: Person,
): void {
  const c = p.address1.charCodeAt(0);
  if (!(c >= 48 && c <= 57) || p.zip === '' || p.city === '' || p.lat === '' || p.lon === '') return;
  let bucket = zips.get(p.zip);
  if (bucket === undefined) {
    bucket = { seen: 0, items: [] };
    zips.set(p.zip, bucket);
    const key = `${p.city}|${p.state}`;
    const list = cityZips.get(key);
    if (list === undefined) cityZips.set(key, [p.zip]);
    else list.push(p.zip);
  }
  bucket.seen++;
  const j = bucket.items.length < ADDRESSES_PER_ZIP ? bucket.items.length : rng.bigInt(bucket.seen);
  if (j < ADDRESSES_PER_ZIP) {
    bucket.items[j] = {
      address1: p.address1,
      address2: p.address2,
      city: p.city,
      state: p.state,
      zip: p.zip,
      lat: p.lat,
      lon: p.lon,
    };
  }
}

function stripZeros(id: string): string {
  const s = id.replace(/^0+/, '');
  return s === '' ? '0' : s;
}

function addToBloom(bloom: StringBloom, p: Person, kinds: ReturnType<typeof bloomKinds>): void {
  if (kinds.ids) {
    bloom.add(`B|${p.voterbaseId}`);
    if (p.voterId !== '') bloom.add(`V|${p.state}|${stripZeros(p.voterId)}`);
    if (p.smartvanId !== '') bloom.add(`S|${p.state}|${stripZeros(p.smartvanId)}`);
    if (p.exactTrack !== '') bloom.add(`E|${p.exactTrack.toUpperCase()}`);
  }
  if (kinds.email && p.email !== '') bloom.add(`M|${emailKey(p.email)}`);
  if (kinds.phone) for (const phone of p.phones) bloom.add(`P|${phone}`);
  if (kinds.nameDob) bloom.add(nameDobKey(p.first, p.last, p.dob));
  if (kinds.household && p.address1 !== '') {
    bloom.add(householdKey(p.first, p.last, p.address1, p.zip));
    bloom.add(suffixedKey(p));
  }
}

/** Fisher-Yates shuffle in place. */
function shuffle<T>(rng: ListRng, items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
}

function asciiLower(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

type Cells = Partial<Record<Column, string>>;
type IdKind = 'voterbase_id' | 'voter_id' | 'smartvan_id' | 'exact_track';

/** Builds rows one at a time; owns the row RNG and the report counters. */
class RowBuilder {
  readonly rng: ListRng;
  readonly report: ListReport;
  readonly #pool: Person[];
  readonly #bloom: StringBloom;
  readonly #asOf: Date;
  readonly #femaleFirst: string[] = [];
  readonly #maleFirst: string[] = [];
  readonly #middles: string[] = [];
  readonly #lasts: string[] = [];
  readonly #domains: string[] = [];
  readonly #byCity = new Map<string, Person[]>();
  readonly #zips: Map<string, ZipAddresses>;
  readonly #cityZips: Map<string, string[]>;
  /** Given and middle names (≥ 2 characters) of the pool's women and men, for other people's names. */
  readonly #givenNames: Record<'F' | 'M', string[]> = { F: [], M: [] };
  readonly #middleNames: Record<'F' | 'M', string[]> = { F: [], M: [] };
  readonly #byState = new Map<string, Person[]>();
  readonly #idSamples: Record<IdKind, string[]> = {
    voterbase_id: [],
    voter_id: [],
    smartvan_id: [],
    exact_track: [],
  };

  constructor(seed: number, sample: Sample, asOf: Date, report: ListReport) {
    this.rng = new ListRng(seed, STREAM_ROWS);
    this.report = report;
    this.#pool = sample.pool;
    this.#bloom = sample.bloom;
    this.#asOf = asOf;
    this.#zips = sample.zips;
    this.#cityZips = sample.cityZips;
    for (const p of sample.pool) {
      if (p.gender === 'F' || p.gender === 'M') {
        if (p.first.length >= 2) this.#givenNames[p.gender].push(p.first);
        if (p.middle.length >= 2) this.#middleNames[p.gender].push(p.middle);
      }
      if (p.first !== '') (p.gender === 'M' ? this.#maleFirst : this.#femaleFirst).push(p.first);
      if (p.middle.length > 1) this.#middles.push(p.middle);
      if (p.last !== '') this.#lasts.push(p.last);
      if (p.email.includes('@'))
        this.#domains.push(p.email.slice(p.email.lastIndexOf('@') + 1).toLowerCase());
      if (p.city !== '') {
        const key = `${p.city}|${p.state}`;
        const list = this.#byCity.get(key);
        if (list === undefined) this.#byCity.set(key, [p]);
        else list.push(p);
        const inState = this.#byState.get(p.state);
        if (inState === undefined) this.#byState.set(p.state, [p]);
        else inState.push(p);
      }
      if (p.voterbaseId !== '') this.#idSamples.voterbase_id.push(p.voterbaseId);
      if (p.voterId !== '') this.#idSamples.voter_id.push(p.voterId);
      if (p.smartvanId !== '') this.#idSamples.smartvan_id.push(p.smartvanId);
      if (p.exactTrack !== '') this.#idSamples.exact_track.push(p.exactTrack);
    }
    if (this.#femaleFirst.length === 0) this.#femaleFirst.push(...this.#maleFirst, 'MARY');
    if (this.#maleFirst.length === 0) this.#maleFirst.push(...this.#femaleFirst, 'JOHN');
    if (this.#lasts.length === 0) this.#lasts.push('SMITH');
    if (this.#domains.length === 0) this.#domains.push('gmail.com', 'yahoo.com');
  }

  #roll(tag: ErrorTag, tags: ErrorTag[]): boolean {
    this.report.errorOpportunities[tag]++;
    if (this.rng.float() < ERROR_RATES[tag]) {
      tags.push(tag);
      return true;
    }
    return false;
  }

  #unique(make: () => string, key: (value: string) => string): string {
    let value = make();
    for (let attempt = 0; attempt < 100 && this.#bloom.has(key(value)); attempt++) value = make();
    return value;
  }

  #idLike(kind: IdKind, fallback: string): string {
    const samples = this.#idSamples[kind];
    return samples.length > 0 ? this.rng.pick(samples) : fallback;
  }

  #newPhone(area: string): string {
    const rng = this.rng;
    return this.#unique(
      () => {
        let exchange = rng.range(200, 999);
        if (exchange % 100 === 11) exchange++;
        return `${area}${exchange}${String(rng.int(10000)).padStart(4, '0')}`;
      },
      (v) => `P|${v}`,
    );
  }

  #newEmail(first: string, last: string, birthYear: string): string {
    const rng = this.rng;
    const f = asciiLower(first) || 'voter';
    const l = asciiLower(last) || 'mail';
    return this.#unique(
      () => {
        const domain = rng.pick(this.#domains);
        switch (rng.int(6)) {
          case 0:
            return `${f}.${l}${rng.range(1, 999)}@${domain}`;
          case 1:
            return `${f}${l}${rng.range(1, 99)}@${domain}`;
          case 2:
            return `${f}_${l}${birthYear}@${domain}`;
          case 3:
            return `${f.charAt(0)}${l}${rng.range(10, 9999)}@${domain}`;
          case 4:
            return `${l}.${f}${rng.range(1, 99)}@${domain}`;
          default:
            return `${f}${l.charAt(0)}${rng.range(100, 999)}@${domain}`;
        }
      },
      (v) => `M|${emailKey(v)}`,
    );
  }

  #newDob(first: string, last: string, avoidYear: number): string {
    const rng = this.rng;
    const asOfYear = this.#asOf.getUTCFullYear();
    return this.#unique(
      () => {
        let year = asOfYear - rng.range(19, 92);
        if (year === avoidYear) year -= rng.range(1, 9);
        const month = rng.range(1, 12);
        const day = rng.range(1, month === 2 ? 28 : 30);
        return formatDob(year, month, day);
      },
      (v) => nameDobKey(first, last, v),
    );
  }

  /**
   * A non-member's dob: now and then (ERROR_RATES.dob_out_of_range, as often as voter files hold
   * one) a real-looking date of 1900-1910, so that such a date does not tell a member; else #newDob.
   */
  #personDob(first: string, last: string, avoidYear: number): string {
    if (!this.rng.chance(ERROR_RATES.dob_out_of_range)) return this.#newDob(first, last, avoidYear);
    return this.#unique(
      () => outOfRangeDob(this.rng),
      (v) => nameDobKey(first, last, v),
    );
  }

  /** New ids shaped like the file's ids and absent from it. */
  #newIds(p: Person): void {
    const rng = this.rng;
    const state = p.state;
    p.voterbaseId = this.#unique(
      () => {
        const sample = this.#idLike('voterbase_id', `${state}-000000000`);
        const m = /^[A-Z]{2}-/.exec(sample);
        return m !== null && state !== ''
          ? `${state}-${mimicId(rng, sample.slice(3))}`
          : mimicId(rng, sample);
      },
      (v) => `B|${v}`,
    );
    p.voterId = this.#unique(
      () => mimicId(rng, this.#idLike('voter_id', '0000000000')),
      (v) => `V|${state}|${stripZeros(v)}`,
    );
    p.smartvanId = this.#unique(
      () => randomizeDigits(rng, this.#idLike('smartvan_id', '100000000')),
      (v) => `S|${state}|${stripZeros(v)}`,
    );
    p.exactTrack = this.#unique(
      () => mimicId(rng, this.#idLike('exact_track', 'ET0000000000')),
      (v) => `E|${v.toUpperCase()}`,
    );
  }

  /** A place (street address, city, ZIP, coordinates) of a pool voter: new house and unit numbers. */
  #placeFrom(p: Person, place: Person): void {
    const rng = this.rng;
    p.address1 = newHouseNumber(rng, place.address1);
    p.address2 = randomizeDigits(rng, place.address2);
    p.city = place.city;
    p.state = place.state;
    p.zip = place.zip;
    const lat = Number.parseFloat(place.lat);
    const lon = Number.parseFloat(place.lon);
    if (Number.isFinite(lat) && Number.isFinite(lon)) [p.lat, p.lon] = jitterLatLong(rng, lat, lon, 20, 800);
    else {
      p.lat = '';
      p.lon = '';
    }
  }

  nearTwin(v: Person): Person {
    const rng = this.rng;
    const p: Person = { ...v, phones: [], mateId: '', mateFirst: '', suffix: '' };
    p.middle = rng.chance(0.4) && this.#middles.length > 0 ? rng.pick(this.#middles) : '';
    if (p.middle === v.middle) p.middle = '';
    const cityPlaces = this.#byCity.get(`${v.city}|${v.state}`) ?? [];
    // Another ZIP of the same city when the city has one, else another place of the state: a
    // near-twin shares the name (and the city where it can) but never every locating field a
    // list carries; one that did would be the same row as its voter's, which no matcher can tell apart.
    const elsewhere = cityPlaces.filter((place) => place.zip !== v.zip);
    const inState =
      elsewhere.length > 0 ? [] : (this.#byState.get(v.state) ?? []).filter((place) => place.zip !== v.zip);
    const candidates = elsewhere.length > 0 ? elsewhere : inState.length > 0 ? inState : cityPlaces;
    const place = candidates.length > 0 ? rng.pick(candidates) : v;
    this.#placeFrom(p, place);
    p.city = elsewhere.length > 0 || inState.length === 0 ? v.city : place.city;
    p.state = v.state;
    for (let i = 0; i < 10 && p.address1 === v.address1; i++) p.address1 = newHouseNumber(rng, v.address1);
    const vDob = parseDob(v.dob);
    p.dob = this.#personDob(p.first, p.last, vDob === null ? -1 : vDob[0]);
    const area = v.phones[0]?.slice(0, 3) ?? this.#areaCode();
    p.phones = [this.#newPhone(area)];
    p.email = this.#newEmail(p.first, p.last, p.dob.slice(0, 4));
    p.voterbaseId = '';
    this.#newIds(p);
    return p;
  }

  #areaCode(): string {
    for (let i = 0; i < 20; i++) {
      const p = this.rng.pick(this.#pool);
      if (p.phones.length > 0) return p.phones[0]!.slice(0, 3);
    }
    return String(this.rng.range(201, 989));
  }

  invented(): Person {
    const rng = this.rng;
    const place = rng.pick(this.#pool);
    const gender = rng.chance(0.52) ? 'F' : 'M';
    const first = rng.pick(gender === 'F' ? this.#femaleFirst : this.#maleFirst);
    const last = rng.pick(this.#lasts);
    const p: Person = {
      voterbaseId: '',
      state: place.state,
      voterId: '',
      smartvanId: '',
      exactTrack: '',
      first,
      middle: rng.chance(0.5) && this.#middles.length > 0 ? rng.pick(this.#middles) : '',
      last,
      suffix: rng.chance(0.03) ? rng.pick(['JR', 'SR', 'II', 'III']) : '',
      address1: '',
      address2: '',
      city: '',
      zip: '',
      lat: '',
      lon: '',
      dob: '',
      gender,
      email: '',
      phones: [],
      mateId: '',
      mateFirst: '',
    };
    if (p.middle === first) p.middle = '';
    this.#placeFrom(p, place);
    if (p.address1 === '') p.address1 = `${rng.range(1, 9999)} MAIN ST`;
    p.dob = this.#personDob(first, last, -1);
    p.phones = [this.#newPhone(place.phones[0]?.slice(0, 3) ?? this.#areaCode())];
    p.email = this.#newEmail(first, last, p.dob.slice(0, 4));
    this.#newIds(p);
    return p;
  }

  /**
   * A precision trap: a relative of a sampled voter who is not in the voter file, and the
   * sub-pattern of its row (one whose columns can tell the two apart). Null when 30 tries found
   * no voter that fits (the row is then an invented person).
   */
  trap(
    tag: TrapTag,
    pattern: Pattern,
    sample: Pick<Sample, 'relatives' | 'suffixed'>,
  ): { person: Person; sub: SubPattern } | null {
    const rng = this.rng;
    for (let attempt = 0; attempt < 30; attempt++) {
      const subs = TRAP_SUB_PATTERNS[tag].filter((sub) => pattern === 'mixed' || sub === pattern);
      const sub = rng.pick(subs);
      const jrByName = tag === 'trap_jr_sr' && sub === 'name_address';
      const sources = jrByName ? sample.suffixed : sample.relatives;
      if (sources.length === 0) continue;
      const v = rng.pick(sources);
      // A relative of a voter filed with a placeholder or 1900s date would carry that date too.
      if (!supports(v, sub) || isOddDob(v.dob)) continue;
      const person =
        tag === 'trap_jr_sr'
          ? this.#fatherOrSon(v, sub)
          : tag === 'trap_twin'
            ? this.#twin(v)
            : this.#spouse(v);
      if (person !== null) return { person, sub };
    }
    return null;
  }

  /** A relative's first name: clearly not the voter's first name, nor the middle name the voter may go by. */
  #notTheVotersName(first: string, v: Person): boolean {
    return (
      clearlyDifferentNames(first, v.first) && (v.middle.length < 2 || clearlyDifferentNames(first, v.middle))
    );
  }

  /** A relative sharing the voter's surname and home, with new phones, e-mail and ids. */
  #housemate(v: Person): Person {
    const p: Person = { ...v, phones: [], mateId: '', mateFirst: '', suffix: '', voterbaseId: '' };
    p.phones = [this.#newPhone(v.phones[0]?.slice(0, 3) ?? this.#areaCode())];
    this.#newIds(p);
    return p;
  }

  /** Father (SR) or son (JR) of the voter: same names and address, born 20-35 years apart. */
  #fatherOrSon(v: Person, sub: SubPattern): Person | null {
    const rng = this.rng;
    if (sub === 'name_address' && v.suffix !== 'JR' && v.suffix !== 'SR') return null;
    const p = this.#housemate(v);
    p.suffix = v.suffix === 'JR' ? 'SR' : v.suffix === 'SR' ? 'JR' : rng.pick(['JR', 'SR']);
    // Not in the file with that suffix, nor (a father or son filed without one) with none; a
    // voter without a suffix is the one filed without (name_dob rows, told apart by the date).
    if (this.#bloom.has(suffixedKey(p))) return null;
    if (v.suffix !== '' && this.#bloom.has(suffixedKey({ ...p, suffix: '' }))) return null;
    const year = Number(v.dob.slice(0, 4));
    if (!Number.isFinite(year) || year < 1000) return null;
    const gap = rng.range(20, 35);
    const born = p.suffix === 'SR' ? year - gap : year + gap;
    const asOfYear = this.#asOf.getUTCFullYear();
    if (born > asOfYear - 19 || born < asOfYear - 99) return null;
    p.dob = formatDob(born, rng.range(1, 12), rng.range(1, 28));
    if (this.#bloom.has(nameDobKey(p.first, p.last, p.dob))) return null;
    p.email = this.#newEmail(p.first, p.last, p.dob.slice(0, 4));
    return p;
  }

  /** A twin of the voter: same surname, address and dob, another first name. */
  #twin(v: Person): Person | null {
    const rng = this.rng;
    const p = this.#housemate(v);
    p.first = rng.pick(v.gender === 'F' ? this.#femaleFirst : this.#maleFirst);
    if (!this.#notTheVotersName(p.first, v)) return null;
    if (this.#bloom.has(householdKey(p.first, p.last, p.address1, p.zip))) return null;
    if (this.#bloom.has(nameDobKey(p.first, p.last, p.dob))) return null;
    p.middle = rng.chance(0.5) && this.#middles.length > 0 ? rng.pick(this.#middles) : '';
    p.email = this.#newEmail(p.first, p.last, p.dob.slice(0, 4));
    return p;
  }

  /** The voter's spouse: same surname and address, born within 6 years, giving the voter's e-mail. */
  #spouse(v: Person): Person | null {
    const rng = this.rng;
    const p = this.#housemate(v);
    p.gender = v.gender === 'F' ? 'M' : 'F';
    p.first = rng.pick(p.gender === 'F' ? this.#femaleFirst : this.#maleFirst);
    if (!this.#notTheVotersName(p.first, v)) return null;
    if (this.#bloom.has(householdKey(p.first, p.last, p.address1, p.zip))) return null;
    const year = Number(v.dob.slice(0, 4));
    p.dob =
      Number.isFinite(year) && year > 1000
        ? formatDob(year + rng.range(-6, 6), rng.range(1, 12), rng.range(1, 28))
        : this.#newDob(p.first, p.last, -1);
    p.middle = '';
    p.email = v.email;
    return p;
  }

  /** The sub-pattern of a row: the list's pattern, or for `mixed` a uniform pick the person supports. */
  subPattern(pattern: Pattern, p: Person): SubPattern {
    if (pattern !== 'mixed') return pattern;
    const rng = this.rng;
    const first = rng.pick(SUB_PATTERNS);
    if (supports(p, first)) return first;
    const ok = SUB_PATTERNS.filter((s) => supports(p, s));
    return ok.length > 0 ? rng.pick(ok) : 'ids';
  }

  /** Applies the error model to a copy of `source` and returns the row's cells and tags. */
  build(
    source: Person,
    sub: SubPattern,
    member: boolean,
    trap = false,
    avoidZip = '',
  ): { cells: Cells; tags: ErrorTag[]; couple: boolean } {
    const rng = this.rng;
    const p: Person = { ...source };
    const tags: ErrorTag[] = [];
    const cells: Cells = {};
    const hasNames =
      sub === 'name_address' || sub === 'name_dob' || sub === 'name_zip' || sub === 'latlong_name';
    const hasFirst = hasNames || sub === 'email';
    let couple = false;

    if ((sub === 'name_address' || sub === 'name_zip') && member && p.mateId !== '') {
      couple = this.#roll('first_name_combined', tags);
    }
    if (hasNames && !couple && p.middle.length >= 2) {
      if (this.#roll('middle_as_first', tags)) p.first = p.middle;
      else if (this.#roll('first_middle_joined', tags)) p.first = `${p.first} ${p.middle}`;
      if (tags.includes('middle_as_first') || tags.includes('first_middle_joined')) p.middle = '';
    } else if (hasNames && !couple && !trap && p.middle === '') {
      // A relative's first name is what tells a trap apart: traps keep theirs.
      if (this.#roll('goes_by_middle_no_middle', tags)) p.first = this.#otherName(p, 'middle');
    }
    if (hasNames && !couple && !trap && p.first === source.first && this.#roll('first_replaced', tags)) {
      p.first = this.#otherName(p, 'first');
    }
    if (hasFirst && !couple) {
      if (hasNickname(p.first) && this.#roll('nickname', tags)) p.first = nicknameSwap(rng, p.first);
      if (typoEligible(p.first) && this.#roll('typo_first', tags)) p.first = typo(rng, p.first).value;
    }
    if (hasNames) {
      if (!couple && p.gender === 'F' && this.#roll('married_surname', tags)) {
        let last = rng.pick(this.#lasts);
        for (let i = 0; i < 10 && last === p.last; i++) last = rng.pick(this.#lasts);
        p.last = last;
      }
      if (typoEligible(p.last) && this.#roll('typo_last', tags)) p.last = typo(rng, p.last).value;
      if (scannedSlipEligible(p.last) && this.#roll('name_scanned', tags)) p.last = scannedSlip(rng, p.last);
      if (!couple && p.first !== '' && p.last !== '' && this.#roll('names_swapped', tags)) {
        [p.first, p.last] = [p.last, p.first];
      }
    }
    if (sub === 'name_address' && !couple && p.middle.length >= 2) {
      this.report.errorOpportunities.middle_dropped++;
      this.report.errorOpportunities.middle_initial++;
      const r = rng.float();
      if (r < ERROR_RATES.middle_dropped) {
        p.middle = '';
        tags.push('middle_dropped');
      } else if (r < ERROR_RATES.middle_dropped + ERROR_RATES.middle_initial) {
        p.middle = p.middle.charAt(0);
        tags.push('middle_initial');
      }
    }
    const movable = sub === 'name_address' || sub === 'name_zip' || sub === 'latlong_name';
    if (movable && this.#roll('mover', tags)) {
      let place = rng.pick(this.#pool);
      for (let i = 0; i < 20 && (place.zip === p.zip || place.city === ''); i++) place = rng.pick(this.#pool);
      this.#placeFrom(p, place);
    } else if (movable) this.#shortMove(p, sub, tags, avoidZip);
    if (sub === 'name_address' && /[A-Z]{3}/.test(p.address1) && this.#roll('typo_street', tags)) {
      // The typo goes into the street part, after the house number.
      const space = p.address1.search(/ [A-Z]{3}/);
      const head = p.address1.slice(0, space + 1);
      p.address1 = head + typo(rng, p.address1.slice(space + 1)).value;
    }
    if (sub === 'name_address') this.#messyAddress(p, tags);
    if (sub === 'name_address' || sub === 'name_zip') {
      if (typoEligible(p.city) && this.#roll('typo_city', tags)) p.city = typo(rng, p.city).value;
      if (zipTransposedEligible(p.zip) && this.#roll('zip_transposed', tags))
        p.zip = transposeZip(rng, p.zip);
    }

    switch (sub) {
      case 'name_address': {
        if (couple) this.#coupleCells(p, tags, cells);
        else if (this.#roll('full_name', tags)) {
          cells.full_name = fullName(rng, p.first, p.middle, p.last, p.suffix, trap);
        } else {
          cells.first_name = this.#firstCell(p, tags);
          cells.middle_name = p.middle;
          cells.last_name = p.last;
          cells.name_suffix = p.suffix;
        }
        if (this.#roll('one_line_address', tags)) {
          const line = p.address2 === '' ? p.address1 : `${p.address1} ${p.address2}`;
          const comma = this.#roll('one_line_no_commas', tags) ? '' : ',';
          cells.address1 = `${line}${comma} ${p.city} ${p.state} ${p.zip}`.replace(/\s+/g, ' ').trim();
        } else {
          let [address1, address2] = [p.address1, p.address2];
          if (/^\d/.test(address1) && this.#roll('address_lines_swapped', tags)) {
            if (address2 !== '' && rng.chance(0.5)) [address1, address2] = [address2, address1];
            else {
              address2 = address2 === '' ? address1 : `${address1} ${address2}`;
              address1 = propertyName(rng, p.city);
            }
          }
          cells.address1 = address1;
          cells.address2 = address2;
          cells.city = p.city;
          cells.state = p.state;
          cells.zip = p.zip;
        }
        if (this.#roll('with_dob', tags)) cells.dob = this.#oddDob(p, member, trap, tags) ?? p.dob;
        break;
      }
      case 'name_zip': {
        if (couple) this.#coupleCells(p, tags, cells);
        else this.#nameCells(p, tags, cells);
        if (p.city !== '' && this.#roll('city_state_instead_of_zip', tags)) {
          cells.city = p.city;
          cells.state = p.state;
        } else if (p.zip !== '') {
          cells.zip = p.zip;
        } else {
          cells.city = p.city;
          cells.state = p.state;
        }
        break;
      }
      case 'name_dob': {
        this.#nameCells(p, tags, cells);
        const odd = this.#oddDob(p, member, trap, tags);
        let dob = odd ?? p.dob;
        if (odd !== null) {
          // The odd date as is, no other dob error.
        } else if (this.#roll('dob_missing', tags)) dob = '';
        else {
          if (dobSwapEligible(dob) && this.#roll('dob_swap', tags)) dob = dobSwap(dob);
          else if (this.#roll('dob_year', tags)) dob = dobYear(rng, dob);
          else if (this.#roll('dob_invalid', tags)) dob = invalidDob(rng, dob);
          else if (this.#roll('dob_year_only', tags)) dob = dob.slice(0, 4);
          if (this.#roll('age_instead_of_dob', tags)) {
            // An impossible or partial date still has a year: age from the date as read (day clamped).
            const valid = parseDob(dob) !== null ? dob : dob.slice(0, 4) + p.dob.slice(4);
            let age = ageOn(valid, this.#asOf);
            if (this.#roll('age_off_by_one', tags)) age += age <= 18 || rng.chance(0.5) ? 1 : -1;
            cells.age = String(age);
            dob = '';
          }
        }
        if (odd === null && dob === p.dob && dob !== '' && this.#roll('dob_format', tags)) {
          dob = writeDobAs(rng, dob);
        }
        cells.dob = dob;
        cells.state = p.state;
        break;
      }
      case 'latlong_name': {
        this.#nameCells(p, tags, cells);
        const lat = Number.parseFloat(p.lat);
        const lon = Number.parseFloat(p.lon);
        if (Number.isFinite(lat) && Number.isFinite(lon) && this.#roll('latlong_jitter', tags)) {
          [cells.latitude, cells.longitude] = jitterLatLong(rng, lat, lon);
        } else {
          cells.latitude = p.lat;
          cells.longitude = p.lon;
        }
        break;
      }
      case 'email': {
        let email = p.email;
        if (emailDotsEligible(email) && this.#roll('email_dots', tags)) email = emailDots(rng, email);
        if (emailPlusEligible(email) && this.#roll('email_plus', tags)) email = emailPlus(rng, email);
        if (emailDomainTypoEligible(email) && this.#roll('email_domain_typo', tags))
          email = emailDomainTypo(rng, email);
        if (this.#roll('email_case', tags)) email = emailCase(rng, email);
        cells.email = email;
        // A spouse trap names its first name: without it the row is the voter's own.
        if (rng.chance(0.5) || trap) cells.first_name = p.first;
        break;
      }
      case 'phone': {
        let digits = rng.float() < 0.7 ? p.phones[0]! : rng.pick(p.phones);
        if (this.#roll('stale_phone', tags)) digits = this.#newPhone(digits.slice(0, 3));
        cells.phone = this.#roll('phone_format', tags) ? formatPhone(rng, digits) : digits;
        break;
      }
      case 'ids': {
        const kinds: ('voterbase_id' | 'voter_id' | 'smartvan_id' | 'exact_track')[] = [];
        const r = rng.float();
        kinds.push(
          r < 0.4 ? 'voterbase_id' : r < 0.65 ? 'voter_id' : r < 0.85 ? 'smartvan_id' : 'exact_track',
        );
        let kind = kinds[0]!;
        if (
          this.#idOf(p, kind) === '' ||
          (kind !== 'voterbase_id' && kind !== 'exact_track' && p.state === '')
        ) {
          kind = 'voterbase_id';
        }
        this.report.idKinds[kind]++;
        if (kind === 'voter_id') {
          let id = p.voterId;
          if (/^0\d/.test(id) && this.#roll('voter_id_unpadded', tags)) id = stripZeros(id);
          cells.voter_id = id;
          cells.state = p.state;
        } else if (kind === 'smartvan_id') {
          cells.smartvan_id = p.smartvanId;
          cells.state = p.state;
        } else if (kind === 'exact_track') cells.exact_track = p.exactTrack;
        else cells.voterbase_id = p.voterbaseId;
        break;
      }
    }

    if (sub !== 'phone' && sub !== 'ids') {
      this.report.errorOpportunities.case_lower++;
      this.report.errorOpportunities.case_title++;
      const r = rng.float();
      let change: ((s: string) => string) | null = null;
      if (r < ERROR_RATES.case_lower) {
        tags.push('case_lower');
        change = (s) => s.toLowerCase();
      } else if (r < ERROR_RATES.case_lower + ERROR_RATES.case_title) {
        tags.push('case_title');
        change = titleCase;
      }
      if (change !== null) {
        for (const column of CASED_COLUMNS) {
          const value = cells[column];
          if (value !== undefined && value !== '') cells[column] = change(value);
        }
        if (cells.address1 !== undefined && tags.includes('one_line_address')) {
          // Keep the state code in a one-line address upper case, as people write it.
          cells.address1 = cells.address1.replace(/ ([a-zA-Z]{2}) (\S*)$/, (_, st: string, zip: string) => {
            return ` ${st.toUpperCase()} ${zip}`;
          });
        }
      }
    }
    return { cells, tags, couple };
  }

  /** House number changed or left out, street words split or joined, the unit in the other line. */
  #messyAddress(p: Person, tags: ErrorTag[]): void {
    const rng = this.rng;
    const moved = tags.includes('mover') || tags.includes('mover_in_city') || tags.includes('mover_in_zip');
    if (!moved && /^\d+ \S/.test(p.address1)) {
      this.report.errorOpportunities.house_number_changed++;
      this.report.errorOpportunities.house_number_missing++;
      const r = rng.float();
      if (r < ERROR_RATES.house_number_changed) {
        const before = p.address1;
        for (let i = 0; i < 10 && p.address1 === before; i++) p.address1 = newHouseNumber(rng, before);
        tags.push('house_number_changed');
      } else if (r < ERROR_RATES.house_number_changed + ERROR_RATES.house_number_missing) {
        p.address1 = p.address1.replace(/^\d+ /, '');
        tags.push('house_number_missing');
      }
    }
    if (streetSplitJoinEligible(p.address1) && this.#roll('street_split_join', tags)) {
      p.address1 = splitOrJoinStreet(rng, p.address1);
    }
    if (houseNumberGluedEligible(p.address1) && this.#roll('house_number_glued', tags)) {
      p.address1 = glueHouseNumber(p.address1);
    }
    if (unitOtherLineEligible(p.address1, p.address2) && this.#roll('unit_other_line', tags)) {
      [p.address1, p.address2] = unitOtherLine(p.address1, p.address2);
    }
  }

  /**
   * A move within the city (another of its ZIPs), else within the ZIP (another street address of
   * it), to a voter's address remembered in the sample pass: its street line (unit number
   * changed), city, ZIP and coordinates. `avoidZip`: a near-twin's voter's ZIP, never taken.
   */
  #shortMove(p: Person, sub: SubPattern, tags: ErrorTag[], avoidZip: string): void {
    const rng = this.rng;
    const inCity = (this.#cityZips.get(`${p.city}|${p.state}`) ?? []).filter(
      (zip) => zip !== p.zip && zip !== avoidZip,
    );
    if (inCity.length > 0 && this.#roll('mover_in_city', tags)) {
      this.#moveTo(p, rng.pick(this.#zips.get(rng.pick(inCity))!.items));
      return;
    }
    // A name_zip row gives no more than the ZIP, which a move within it does not change.
    if (sub === 'name_zip') return;
    // Another street address: not the person's, nor another unit of the person's building.
    const street = streetWithoutUnit(p.address1);
    const inZip = (this.#zips.get(p.zip)?.items ?? []).filter(
      (a) => streetWithoutUnit(a.address1) !== street,
    );
    if (inZip.length > 0 && this.#roll('mover_in_zip', tags)) this.#moveTo(p, rng.pick(inZip));
  }

  #moveTo(p: Person, a: Address): void {
    p.address1 = a.address1;
    p.address2 = a.address2 === '' ? '' : randomizeDigits(this.rng, a.address2);
    p.city = a.city;
    p.state = a.state;
    p.zip = a.zip;
    p.lat = a.lat;
    p.lon = a.lon;
  }

  /**
   * Another given name (`first`) or middle name (`middle`) of the person's gender from the file: not
   * a nickname of the person's first or middle name nor within one edit of them, nor the first name
   * of someone filed at the person's address (or with their surname and dob); another first letter
   * when one of 15 draws has it.
   */
  #otherName(p: Person, kind: 'first' | 'middle'): string {
    const rng = this.rng;
    const gender = p.gender === 'F' || p.gender === 'M' ? p.gender : rng.chance(0.5) ? 'F' : 'M';
    const names = (kind === 'middle' ? this.#middleNames : this.#givenNames)[gender];
    const fits = (name: string): boolean =>
      clearlyDifferentNames(name, p.first) &&
      (p.middle.length < 2 || clearlyDifferentNames(name, p.middle)) &&
      !this.#bloom.has(householdKey(name, p.last, p.address1, p.zip)) &&
      !this.#bloom.has(nameDobKey(name, p.last, p.dob));
    if (names.length > 0) {
      for (let attempt = 0; attempt < 30; attempt++) {
        const name = rng.pick(names);
        if ((attempt >= 15 || name.charAt(0) !== p.first.charAt(0)) && fits(name)) return name;
      }
    }
    return FALLBACK_NAMES[gender].find(fits) ?? FALLBACK_NAMES[gender][0]!;
  }

  /**
   * The dob a row gives when it is an odd one, with its tag: a member whose voter is filed with the
   * placeholder gives a real-looking date (invented); a person born 1900-1910 gives that date as
   * is; else, now and then, the list's own placeholder (not for a trap, whose dob may be what
   * tells it apart). Null: the person's dob, to which the row's other dob errors may apply.
   */
  #oddDob(p: Person, member: boolean, trap: boolean, tags: ErrorTag[]): string | null {
    const opportunities = this.report.errorOpportunities;
    if (member) {
      opportunities.voter_dob_placeholder++;
      if (p.dob === DOB_PLACEHOLDER) {
        tags.push('voter_dob_placeholder');
        return this.#newDob(p.first, p.last, -1);
      }
    }
    if (p.dob !== DOB_PLACEHOLDER) {
      opportunities.dob_out_of_range++;
      if (isOddDob(p.dob)) {
        tags.push('dob_out_of_range');
        return p.dob;
      }
    }
    if (!trap && parseDob(p.dob) !== null && this.#roll('dob_placeholder', tags)) {
      return placeholderDob(this.rng);
    }
    return null;
  }

  #idOf(p: Person, kind: 'voterbase_id' | 'voter_id' | 'smartvan_id' | 'exact_track'): string {
    if (kind === 'voterbase_id') return p.voterbaseId;
    if (kind === 'voter_id') return p.voterId;
    if (kind === 'smartvan_id') return p.smartvanId;
    return p.exactTrack;
  }

  /** A couple row's names: first_name_combined and last_name, or the two in full_name. */
  #coupleCells(p: Person, tags: ErrorTag[], cells: Cells): void {
    const rng = this.rng;
    const [a, b] = rng.chance(0.5) ? [p.first, p.mateFirst] : [p.mateFirst, p.first];
    if (this.#roll('couple_in_full_name', tags)) {
      cells.full_name = coupleFullName(rng, a, b, p.last);
      return;
    }
    cells.first_name_combined = rng.chance(0.8) ? `${a} & ${b}` : `${a} AND ${b}`;
    cells.last_name = p.last;
  }

  /** The first_name cell: the first name, now and then with its other form beside it. */
  #firstCell(p: Person, tags: ErrorTag[]): string {
    if (!hasNickname(p.first) || !this.#roll('nickname_aside', tags)) return p.first;
    return withNicknameAside(this.rng, p.first);
  }

  #nameCells(p: Person, tags: ErrorTag[], cells: Cells): void {
    if (this.#roll('full_name', tags)) {
      cells.full_name = fullName(this.rng, p.first, '', p.last, '');
    } else {
      cells.first_name = this.#firstCell(p, tags);
      cells.last_name = p.last;
    }
  }
}

/** Other people's names when the pool has none that fit (a tiny voter file). */
const FALLBACK_NAMES: Readonly<Record<'F' | 'M', readonly string[]>> = {
  F: ['PATRICIA', 'BARBARA', 'DOROTHY', 'GLORIA', 'HELEN'],
  M: ['THOMAS', 'GEORGE', 'HAROLD', 'WALTER', 'KENNETH'],
};

const CASED_COLUMNS: readonly Column[] = [
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'full_name',
  'first_name_combined',
  'address1',
  'address2',
  'city',
];

function matchbackId(rng: ListRng, i: number): string {
  const r = rng.float();
  if (r < 0.5) return String(100_000 + i);
  if (r < 0.75) return `MB-${String(i).padStart(7, '0')}`;
  return `${rng.next().toString(16).padStart(8, '0')}-${i.toString(36)}`;
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

/**
 * Generates a contact list and its truth file from a voter CSV. Validates options (RangeError) before
 * reading; throws a RangeError after the read pass when the voter file cannot supply
 * `round(rows × matchRate)` distinct members for the pattern. Nothing is written until then.
 */
export async function generateContactList(options: ContactListOptions): Promise<ListReport> {
  const asOf = validate(options);
  const { rows, matchRate, pattern, seed } = options;
  const memberCount = Math.round(rows * matchRate);
  const nonMemberCount = rows - memberCount;
  const twinCount = Math.round(nonMemberCount * ERROR_RATES.near_twin);
  const trapCounts = TRAP_TAGS.map((tag) =>
    trapPossible(tag, pattern) ? Math.round(nonMemberCount * ERROR_RATES[tag]) : 0,
  );
  const trapCount = trapCounts.reduce((a, b) => a + b, 0);

  const sample = await samplePass(options, memberCount, twinCount, trapCount > 0 ? 2 * trapCount + 64 : 0);
  if (sample.voterRows === 0) throw new RangeError('the voter file has no data rows with a voterbase_id');
  if (sample.eligible < memberCount) {
    throw new RangeError(
      `rows × matchRate = ${memberCount} members needed, but the voter file has only ${sample.eligible} ` +
        `voters with ${PATTERN_NEEDS[pattern]} (pattern ${pattern}); lower rows or matchRate`,
    );
  }
  if (twinCount > 0 && sample.twins.length === 0) {
    throw new RangeError(
      'near-twins need voters with first_name, last_name and city; the voter file has none',
    );
  }

  const report: ListReport = {
    rows,
    members: memberCount,
    nonMembers: nonMemberCount,
    nearTwins: twinCount,
    traps: 0,
    invented: nonMemberCount - twinCount,
    couples: 0,
    voterRows: sample.voterRows,
    eligibleVoters: sample.eligible,
    voterWarnings: sample.warnings,
    patterns: zeroCounts(SUB_PATTERNS),
    errors: zeroCounts(ERROR_TAGS),
    errorOpportunities: zeroCounts(ERROR_TAGS),
    idKinds: zeroCounts(['voterbase_id', 'voter_id', 'smartvan_id', 'exact_track'] as const),
  };
  report.errorOpportunities.near_twin = nonMemberCount;
  report.errors.near_twin = twinCount;
  for (const tag of TRAP_TAGS)
    if (trapPossible(tag, pattern)) report.errorOpportunities[tag] = nonMemberCount;

  // Output order: codes ≥ 0 are member indices, -1 - k near-twin k, -2 - rows - t a trap of
  // TRAP_TAGS[t], -1 - rows invented.
  const order = new Int32Array(rows);
  const trapOf: number[] = trapCounts.flatMap((count, t) => Array.from({ length: count }, () => t));
  for (let i = 0; i < rows; i++) {
    const nonMember = i - memberCount;
    order[i] =
      i < memberCount
        ? i
        : nonMember < twinCount
          ? -1 - nonMember
          : nonMember - twinCount < trapOf.length
            ? -2 - rows - trapOf[nonMember - twinCount]!
            : -1 - rows;
  }
  const orderRng = new ListRng(seed, STREAM_ORDER);
  for (let i = rows - 1; i > 0; i--) {
    const j = orderRng.int(i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  shuffle(orderRng, sample.members);

  const builder = new RowBuilder(seed, sample, asOf, report);
  const rng = builder.rng;
  const header = PATTERN_HEADERS[pattern] as readonly Column[];
  const plain = header.map(() => false);
  const list = new CsvChunkWriter(options.out);
  const truth = new CsvChunkWriter(options.truth);
  await list.writeRow(header, plain);
  await truth.writeRow(TRUTH_HEADER, [false, false, false, false]);
  const fields: string[] = new Array<string>(header.length).fill('');
  const truthFields = ['', '', '', ''];

  for (let i = 0; i < rows; i++) {
    const code = order[i]!;
    const member = code >= 0;
    const trapTag = code < -1 - rows ? TRAP_TAGS[-2 - rows - code]! : null;
    const trap = trapTag === null ? null : builder.trap(trapTag, pattern, sample);
    let source: Person;
    // A near-twin never moves into its voter's ZIP (mover_in_city).
    let avoidZip = '';
    if (member) source = sample.members[code]!;
    else if (code > -1 - rows) {
      const voter = sample.twins[(-1 - code) % sample.twins.length]!;
      source = builder.nearTwin(voter);
      avoidZip = voter.zip;
    } else source = trap?.person ?? builder.invented();
    const sub = trap?.sub ?? builder.subPattern(pattern, source);
    const { cells, tags, couple } = builder.build(source, sub, member, trap !== null, avoidZip);
    if (!member && code > -1 - rows) tags.push('near_twin');
    if (trap !== null) {
      tags.push(trapTag!);
      report.traps++;
      report.invented--;
    }
    cells.matchback_id = matchbackId(rng, i);
    for (let c = 0; c < header.length; c++) fields[c] = cells[header[c]!] ?? '';
    report.patterns[sub]++;
    for (const tag of tags) if (tag !== 'near_twin') report.errors[tag]++;
    if (couple) report.couples++;
    truthFields[0] = cells.matchback_id;
    truthFields[1] = member ? (couple ? `${source.voterbaseId}|${source.mateId}` : source.voterbaseId) : '';
    truthFields[2] = sub;
    truthFields[3] = tags.join(';');
    const w1 = list.writeRow(fields, plain);
    if (w1 !== undefined) await w1;
    const w2 = truth.writeRow(truthFields, [false, false, false, false]);
    if (w2 !== undefined) await w2;
  }
  await list.end();
  await truth.end();
  return report;
}

export interface ContactListFileOptions extends Omit<ContactListOptions, 'voters' | 'out' | 'truth'> {
  /** Path of the voter CSV. */
  from: string;
  /** Path of the list CSV to write. */
  out: string;
  /** Path of the truth CSV to write. */
  truth: string;
}

/** File-path convenience around generateContactList (the outputs are created only after validation). */
export async function generateContactListFromFile(options: ContactListFileOptions): Promise<ListReport> {
  const { from, out, truth, ...rest } = options;
  validate(rest);
  const listPass = new PassThrough();
  const truthPass = new PassThrough();
  let listDone: Promise<void> | null = null;
  let truthDone: Promise<void> | null = null;
  // Open the output files lazily, on the first byte, so a failed read pass leaves no files behind.
  const lazy = (pass: PassThrough, path: string, set: (p: Promise<void>) => void): void => {
    pass.once('readable', () => {
      const done = pipeline(pass, createWriteStream(path));
      done.catch(() => {}); // surfaced by the await below or by generateContactList's own write error
      set(done);
    });
  };
  lazy(listPass, out, (p) => {
    listDone = p;
  });
  lazy(truthPass, truth, (p) => {
    truthDone = p;
  });
  const report = await generateContactList({
    ...rest,
    voters: createReadStream(from, { highWaterMark: 1 << 20 }),
    out: listPass,
    truth: truthPass,
  });
  await (listDone as Promise<void> | null);
  await (truthDone as Promise<void> | null);
  return report;
}
