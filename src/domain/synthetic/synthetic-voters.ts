import { Permutation, Rng, WeightedTable } from './random.ts';
import type { CityInfo, StateInfo } from './reference-data.ts';
import {
  DIRECTIONALS,
  EMAIL_PROVIDERS,
  FEMALE_FIRST_NAMES,
  MALE_FIRST_NAMES,
  STATES,
  STREET_NAMES,
  STREET_SUFFIXES,
  SURNAMES,
} from './reference-data.ts';

/**
 * Minimal deterministic synthetic U.S. voter file for the demo and tests. A fuller generator will
 * replace it; keep callers on the exported API below.
 */

export const VOTER_COLUMNS = [
  'voterbase_id',
  'state',
  'voter_id',
  'smartvan_id',
  'exact_track',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'address1',
  'address2',
  'city',
  'zip',
  'latitude',
  'longitude',
  'dob',
  'gender',
  'email',
  'landline_phone',
  'wireless_phone',
  'voip_phone',
  'party',
  'registration_status',
  'vote_2024_general',
  'vote_2022_general',
] as const;

export type VoterColumn = (typeof VOTER_COLUMNS)[number];

/** State codes the generator knows (the accepted values of `states`). */
export const SYNTHETIC_STATES: readonly string[] = STATES.map((state) => state.code);

/** Upper bound on `rows`, well inside every id space. */
export const MAX_SYNTHETIC_ROWS = 50_000_000;

export interface VoterGeneratorOptions {
  /** Number of rows to produce, 0..MAX_SYNTHETIC_ROWS. */
  rows: number;
  /** Any safe integer; the same options always give the same rows. */
  seed: number;
  /** Two-letter codes from SYNTHETIC_STATES (case-insensitive); all of them when omitted. */
  states?: string[];
}

/**
 * Yields `rows` voter rows, each a fresh array of strings in VOTER_COLUMNS order, grouped in
 * households of 1-4 people sharing an address. Output depends only on the options, and a run with
 * more rows begins with exactly the rows of a shorter run with the same seed and states. Nothing is
 * accumulated, so memory stays flat. No value contains a comma, a double quote or a line break, so
 * rows can be written as CSV by joining with commas (surnames such as O'BRIEN keep their apostrophe).
 *
 * Ids: `voterbase_id` (`AZ-123456789`) and `exact_track` (`ET` + 10 base-36 characters) are unique
 * across the run; `voter_id` (10 digits, zero-padded) and `smartvan_id` (8-9 digits) are unique
 * within a state. Options are validated when called (RangeError), before the first row.
 */
export function generateVoterRows(options: VoterGeneratorOptions): Generator<string[]> {
  const { rows, seed } = options;
  if (!Number.isSafeInteger(rows) || rows < 0 || rows > MAX_SYNTHETIC_ROWS) {
    throw new RangeError(`rows must be an integer in [0, ${MAX_SYNTHETIC_ROWS}], got ${rows}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  const states = selectStates(options.states);
  return emitRows(new VoterFactory(seed, states), rows);
}

function* emitRows(factory: VoterFactory, rows: number): Generator<string[]> {
  let emitted = 0;
  while (emitted < rows) {
    for (const row of factory.household()) {
      if (emitted >= rows) return;
      emitted++;
      yield row;
    }
  }
}

function selectStates(codes: string[] | undefined): StateInfo[] {
  if (codes === undefined) return [...STATES];
  const wanted = new Set(codes.map((code) => code.trim().toUpperCase()));
  if (wanted.size === 0) throw new RangeError('states must not be empty');
  for (const code of wanted) {
    if (!SYNTHETIC_STATES.includes(code)) {
      throw new RangeError(`unknown state ${code}; known: ${SYNTHETIC_STATES.join(' ')}`);
    }
  }
  return STATES.filter((state) => wanted.has(state.code));
}

// ---------------------------------------------------------------------------------------------
// Shared tables and value builders (also used by the contact-list sampler)

const STREAM_VOTERS = 1;
const STREAM_CONTACTS = 2;
const KEY_VOTERBASE = 11;
const KEY_EXACT_TRACK = 12;
const KEY_VOTER_ID = 13;
const KEY_SMARTVAN = 14;

const FEMALE = WeightedTable.ranked(FEMALE_FIRST_NAMES, 3);
const MALE = WeightedTable.ranked(MALE_FIRST_NAMES, 3);
const SURNAME = WeightedTable.ranked(SURNAMES, 5);
const STREET = WeightedTable.ranked(STREET_NAMES, 20);
const SUFFIX = new WeightedTable(
  STREET_SUFFIXES.map(([suffix]) => suffix),
  STREET_SUFFIXES.map(([, weight]) => weight),
);
const PROVIDER = new WeightedTable(
  EMAIL_PROVIDERS.map(([domain]) => domain),
  EMAIL_PROVIDERS.map(([, weight]) => weight),
);
const HOUSEHOLD_SIZE = new WeightedTable([1, 2, 3, 4], [30, 40, 17, 13]);
const HOUSE_DIGITS = new WeightedTable([1, 2, 3, 4], [4, 14, 36, 46]);
const NAME_SUFFIX = new WeightedTable(['JR', 'SR', 'II', 'III'], [55, 15, 15, 15]);
const PARTIES = ['DEM', 'REP', 'UNA', 'LIB'] as const;
const INITIALS = 'ABCDEFGHJKLMNPRSTW';
/** Phone kinds per person as bit masks: 1 wireless, 2 landline, 4 voip; at most two set. */
const PHONE_MIX = new WeightedTable([0, 1, 2, 3, 4, 5, 6], [18, 40, 8, 20, 5, 6, 3]);
/** Email local-part patterns, see `email()`. */
const EMAIL_PATTERN = new WeightedTable([0, 1, 2, 3, 4, 5, 6], [30, 20, 15, 10, 10, 5, 10]);

const AGE_MIN = 18;
const AGE_MAX = 95;
/** Ages of household heads: few very young heads, a long plateau, fewer of the very old. */
const HEAD_AGE = new WeightedTable(
  Array.from({ length: AGE_MAX - AGE_MIN + 1 }, (_, i) => AGE_MIN + i),
  Array.from({ length: AGE_MAX - AGE_MIN + 1 }, (_, i) => {
    const age = AGE_MIN + i;
    if (age < 25) return 0.3;
    if (age < 70) return 1;
    if (age < 80) return 0.75;
    if (age < 88) return 0.4;
    return 0.15;
  }),
);

/** Ages are as of this date; dates of birth are therefore 1930-01-02..2008-01-01. */
const AS_OF_YEAR = 2026;
/** Born on or before these dates means 18 or older on election day. */
const ELIGIBLE_2024 = 20061105;
const ELIGIBLE_2022 = 20041108;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface CityRuntime {
  readonly info: CityInfo;
  readonly state: string;
  readonly latSpread: number;
  readonly lonSpread: number;
}

function cityRuntime(state: StateInfo, info: CityInfo): CityRuntime {
  const latSpread = 0.015 + 0.0022 * Math.sqrt(info.weight);
  return {
    info,
    state: state.code,
    latSpread,
    lonSpread: latSpread / Math.cos((info.latitude * Math.PI) / 180),
  };
}

const asciiCache = new Map<string, string>();

/** Lower-case ASCII letters only ("MUÑOZ" → "munoz", "O'BRIEN" → "obrien"), for emails. */
function asciiLetters(name: string): string {
  let out = asciiCache.get(name);
  if (out === undefined) {
    out = name
      .normalize('NFD')
      .replace(/[^A-Za-z]/g, '')
      .toLowerCase();
    asciiCache.set(name, out);
  }
  return out;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}TH`;
  const last = n % 10;
  return `${n}${last === 1 ? 'ST' : last === 2 ? 'ND' : last === 3 ? 'RD' : 'TH'}`;
}

function firstName(rng: Rng, sex: 'F' | 'M'): string {
  return (sex === 'F' ? FEMALE : MALE).pick(rng);
}

/** A street line such as `1234 N OAK ST`; voters use house numbers below 10,000. */
function streetLine(rng: Rng, houseNumber: number): string {
  const direction = rng.chance(0.18) ? `${rng.pick(DIRECTIONALS)} ` : '';
  const street = rng.chance(0.15) ? ordinal(1 + Math.floor(rng.float() ** 2 * 60)) : STREET.pick(rng);
  return `${houseNumber} ${direction}${street} ${SUFFIX.pick(rng)}`;
}

function voterHouseNumber(rng: Rng): number {
  const digits = HOUSE_DIGITS.pick(rng);
  const low = digits === 1 ? 1 : 10 ** (digits - 1);
  return rng.range(low, 10 ** digits - 1);
}

function unitLine(rng: Rng): string {
  const r = rng.float();
  if (r < 0.7) {
    const letter = rng.chance(0.4) ? 'ABCDEF'[rng.int(6)] : '';
    return `APT ${rng.range(1, rng.chance(0.5) ? 9 : 450)}${letter}`;
  }
  if (r < 0.9) return `UNIT ${rng.range(1, 120)}`;
  return `LOT ${rng.range(1, 80)}`;
}

function zipOf(rng: Rng, city: CityInfo): string {
  return pad(city.zipStart + rng.int(city.zipCount), 5);
}

/** 10 digits: a local area code, an exchange 200-999 that is not N11, then 4 digits. */
function phone(rng: Rng, city: CityInfo): string {
  const area = rng.pick(city.areaCodes);
  let exchange = rng.range(200, 999);
  if (exchange % 100 === 11) exchange++;
  return `${area}${exchange}${pad(rng.int(10000), 4)}`;
}

function email(rng: Rng, first: string, middle: string, last: string, birthYear: number): string {
  const f = asciiLetters(first);
  const l = asciiLetters(last);
  const m = asciiLetters(middle);
  let local: string;
  switch (EMAIL_PATTERN.pick(rng)) {
    case 1:
      local = `${f}${l}${rng.range(1, 99)}`;
      break;
    case 2:
      local = `${f.charAt(0)}${l}`;
      break;
    case 3:
      local = `${f}_${l}${birthYear}`;
      break;
    case 4:
      local = `${f}${l.charAt(0)}${rng.range(100, 999)}`;
      break;
    case 5:
      local = `${l}.${f}`;
      break;
    case 6:
      local = m === '' ? `${f}.${l}` : `${f}.${m.charAt(0)}.${l}`;
      break;
    default:
      local = `${f}.${l}`;
  }
  return `${local}@${PROVIDER.pick(rng)}`;
}

// ---------------------------------------------------------------------------------------------
// Voter rows

interface StateRuntime {
  readonly code: string;
  readonly cities: WeightedTable<CityRuntime>;
  readonly parties: WeightedTable<string>;
  readonly voterIds: Permutation;
  readonly smartvanIds: Permutation;
  count: number;
}

interface Household {
  readonly state: StateRuntime;
  readonly city: CityRuntime;
  readonly zip: string;
  readonly address1: string;
  readonly address2: string;
  readonly latitude: string;
  readonly longitude: string;
  readonly surname: string;
  readonly party: string;
  landline: string;
}

const VOTER_ID_SPACE = 1_000_000_000;
const SMARTVAN_BASE = 10_000_000;
const SMARTVAN_SPACE = 990_000_000;
const EXACT_TRACK_SPACE = 36 ** 10;

class VoterFactory {
  private readonly rng: Rng;
  private readonly states: WeightedTable<StateRuntime>;
  private readonly voterbaseIds: Permutation;
  private readonly exactTracks: Permutation;
  private index = 0;

  constructor(seed: number, states: readonly StateInfo[]) {
    this.rng = new Rng(seed, STREAM_VOTERS);
    this.voterbaseIds = new Permutation(VOTER_ID_SPACE, keyOf(seed, KEY_VOTERBASE, 0));
    this.exactTracks = new Permutation(EXACT_TRACK_SPACE, keyOf(seed, KEY_EXACT_TRACK, 0));
    const runtimes = states.map((state): StateRuntime => {
      const stateIndex = STATES.indexOf(state);
      return {
        code: state.code,
        cities: new WeightedTable(
          state.cities.map((city) => cityRuntime(state, city)),
          state.cities.map((city) => city.weight),
        ),
        parties: new WeightedTable(PARTIES, state.parties),
        voterIds: new Permutation(VOTER_ID_SPACE, keyOf(seed, KEY_VOTER_ID, stateIndex)),
        smartvanIds: new Permutation(SMARTVAN_SPACE, keyOf(seed, KEY_SMARTVAN, stateIndex)),
        count: 0,
      };
    });
    this.states = new WeightedTable(
      runtimes,
      states.map((state) => state.weight),
    );
  }

  /** The next household's rows (1-4). Members are built together so a father and son can be SR/JR. */
  household(): string[][] {
    const rng = this.rng;
    const state = this.states.pick(rng);
    const city = state.cities.pick(rng);
    const info = city.info;
    const h: Household = {
      state,
      city,
      zip: zipOf(rng, info),
      address1: streetLine(rng, voterHouseNumber(rng)),
      address2: rng.chance(0.13) ? unitLine(rng) : '',
      latitude: (info.latitude + rng.normalish() * city.latSpread).toFixed(6),
      longitude: (info.longitude + rng.normalish() * city.lonSpread).toFixed(6),
      surname: SURNAME.pick(rng),
      party: state.parties.pick(rng),
      landline: '',
    };
    const size = HOUSEHOLD_SIZE.pick(rng);
    const headSex = rng.chance(0.52) ? 'F' : 'M';
    const headAge = HEAD_AGE.pick(rng);
    const headFirst = firstName(rng, headSex);
    const rows = [this.person(h, headSex, headFirst, headAge, h.surname)];
    for (let member = 1; member < size; member++) {
      if (member === 1 && headAge >= 21 && rng.chance(0.8)) {
        // Partner: usually the other sex, a similar age, often the same surname.
        const sex = rng.chance(0.92) ? (headSex === 'F' ? 'M' : 'F') : headSex;
        const age = clampAge(headAge + rng.range(-7, 7));
        const surname = rng.chance(0.82) ? h.surname : SURNAME.pick(rng);
        rows.push(this.person(h, sex, firstName(rng, sex), age, surname));
      } else if (headAge >= 42) {
        // Adult child.
        const sex = rng.chance(0.5) ? 'F' : 'M';
        const age = AGE_MIN + rng.int(Math.min(headAge - 38, 36));
        const junior = sex === 'M' && headSex === 'M' && rng.chance(0.15);
        const row = this.person(h, sex, junior ? headFirst : firstName(rng, sex), age, h.surname);
        if (junior) {
          row[8] = 'JR';
          if (rows[0]![8] === '') rows[0]![8] = 'SR';
        }
        rows.push(row);
      } else {
        // Roommate or relative.
        const sex = rng.chance(0.5) ? 'F' : 'M';
        const age = clampAge(headAge + rng.range(-10, 10));
        const surname = rng.chance(0.4) ? h.surname : SURNAME.pick(rng);
        rows.push(this.person(h, sex, firstName(rng, sex), age, surname));
      }
    }
    return rows;
  }

  private person(h: Household, sex: 'F' | 'M', first: string, age: number, surname: string): string[] {
    const rng = this.rng;
    const state = h.state;
    const info = h.city.info;
    const index = this.index++;
    const local = state.count++;

    let middle = '';
    const middleRoll = rng.float();
    if (middleRoll < 0.28) {
      middle = firstName(rng, sex);
      if (middle === first) middle = firstName(rng, sex);
      if (middle === first) middle = '';
    } else if (middleRoll < 0.4) {
      middle = INITIALS[rng.int(INITIALS.length)]!;
    }
    const suffix = sex === 'M' && rng.chance(0.035) ? NAME_SUFFIX.pick(rng) : '';

    // Date of birth: a uniform day among those giving `age` on AS_OF_YEAR-01-01.
    const year0 = AS_OF_YEAR - 1 - age;
    const leap0 = isLeap(year0);
    let dayOfYear = 1 + rng.int(leap0 ? 366 : 365); // days after Jan 1 of year0
    let year = year0;
    let month = 0;
    if (dayOfYear === (leap0 ? 366 : 365)) {
      year = year0 + 1;
      dayOfYear = 0;
    } else {
      while (true) {
        const length = month === 1 && leap0 ? 29 : MONTH_DAYS[month]!;
        if (dayOfYear < length) break;
        dayOfYear -= length;
        month++;
      }
    }
    const dobKey = year * 10000 + (month + 1) * 100 + dayOfYear + 1;
    const dob = rng.chance(0.04) ? String(year) : String(dobKey);

    const gender = rng.chance(0.012) ? 'U' : sex;
    const mail = rng.chance(0.5) ? email(rng, first, middle, surname, year) : '';

    const phones = PHONE_MIX.pick(rng);
    const wireless = phones & 1 ? phone(rng, info) : '';
    let landline = '';
    if (phones & 2) {
      if (h.landline === '') h.landline = phone(rng, info);
      landline = h.landline;
    }
    const voip = phones & 4 ? phone(rng, info) : '';

    const party = rng.chance(0.7) ? h.party : state.parties.pick(rng);
    const active = !rng.chance(0.08);
    const turnout = (0.5 + 0.38 * Math.min(1, (age - AGE_MIN) / 45)) * (active ? 1 : 0.15);
    let vote2024 = '';
    if (dobKey <= ELIGIBLE_2024 && !rng.chance(0.03)) vote2024 = rng.chance(turnout) ? 'Y' : 'N';
    let vote2022 = '';
    if (dobKey <= ELIGIBLE_2022 && !rng.chance(0.05)) {
      vote2022 = rng.chance(vote2024 === 'Y' ? 0.78 : 0.12) ? 'Y' : 'N';
    }

    return [
      `${state.code}-${pad(this.voterbaseIds.apply(index), 9)}`,
      state.code,
      pad(state.voterIds.apply(local), 10),
      String(SMARTVAN_BASE + state.smartvanIds.apply(local)),
      exactTrack(this.exactTracks.apply(index)),
      first,
      middle,
      surname,
      suffix,
      h.address1,
      h.address2,
      info.name,
      h.zip,
      h.latitude,
      h.longitude,
      dob,
      gender,
      mail,
      landline,
      wireless,
      voip,
      party,
      active ? 'ACTIVE' : 'INACTIVE',
      vote2024,
      vote2022,
    ];
  }
}

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const BASE36_5 = 36 ** 5;

/** `ET` + 10 upper-case base-36 digits (built by hand: Number#toString(36) is slow above 2^32). */
function exactTrack(value: number): string {
  const high = Math.floor(value / BASE36_5);
  return `ET${base36x5(high)}${base36x5(value - high * BASE36_5)}`;
}

function base36x5(value: number): string {
  let v = value;
  let out = '';
  for (let i = 0; i < 5; i++) {
    const digit = v % 36;
    out = BASE36[digit]! + out;
    v = (v - digit) / 36;
  }
  return out;
}

function keyOf(seed: number, purpose: number, stateIndex: number): number {
  // A throwaway generator turns (seed, purpose, state) into a well-mixed permutation key.
  return new Rng(seed, purpose * 1000 + stateIndex).next();
}

function clampAge(age: number): number {
  return Math.min(AGE_MAX, Math.max(AGE_MIN, age));
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

// ---------------------------------------------------------------------------------------------
// Demo contact list

export const CONTACT_COLUMNS = [
  'matchback_id',
  'first_name',
  'last_name',
  'address1',
  'city',
  'state',
  'zip',
  'voter_id',
  'email',
] as const;

export interface ContactListOptions {
  /** Voter rows in VOTER_COLUMNS order, e.g. from generateVoterRows; read once, to the end. */
  voters: Iterable<readonly string[]>;
  /** Contact rows to produce, 0..100,000. */
  rows: number;
  seed: number;
  /** Fraction of rows copied from real voters, 0..1. */
  matchRate: number;
  /** Fraction of those voter rows that keep their voter_id (default 0.5); the rest leave it empty. */
  idRate?: number;
}

export interface ContactList {
  /** CONTACT_COLUMNS. */
  header: string[];
  /** Rows in header order; matchback_ids run MB000001, MB000002, ... in row order. */
  rows: string[][];
  /** matchback_id → voterbase_id of every row copied from a voter. */
  members: Map<string, string>;
}

/**
 * Builds a small demo contact list from voter rows: `round(rows × matchRate)` voters are drawn
 * uniformly (reservoir sampling, so only the sample is held) and copied with their name, address1,
 * city, state, zip and email; `round(members × idRate)` of them keep `voter_id` so the deterministic
 * id matcher finds them, the others carry no id. The remaining rows are invented non-members from the
 * same states: their house numbers (10000-39999) and emails (`first.last.123@...`) never occur in
 * the voter file, although a common name may still recur in their ZIP. Rows are shuffled, then
 * numbered. If `voters` holds fewer rows than requested members, all of them are used and the list
 * is topped up with non-members, so it always has `rows` rows. Deterministic for a given seed and
 * voter sequence.
 */
export function sampleContactList(options: ContactListOptions): ContactList {
  const { rows, seed, matchRate } = options;
  const idRate = options.idRate ?? 0.5;
  if (!Number.isSafeInteger(rows) || rows < 0 || rows > 100_000) {
    throw new RangeError(`rows must be an integer in [0, 100000], got ${rows}`);
  }
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  if (!(matchRate >= 0 && matchRate <= 1))
    throw new RangeError(`matchRate must be in [0, 1], got ${matchRate}`);
  if (!(idRate >= 0 && idRate <= 1)) throw new RangeError(`idRate must be in [0, 1], got ${idRate}`);

  const rng = new Rng(seed, STREAM_CONTACTS);
  const wanted = Math.round(rows * matchRate);
  const sample: (readonly string[])[] = [];
  const seenStates = new Set<string>();
  let seen = 0;
  for (const voter of options.voters) {
    seenStates.add(voter[1] ?? '');
    if (wanted === 0) continue;
    if (sample.length < wanted) sample.push(voter);
    else {
      const slot = rng.int(seen + 1);
      if (slot < wanted) sample[slot] = voter;
    }
    seen++;
  }

  const withIds = Math.round(sample.length * idRate);
  const drafts: { row: string[]; voterbaseId: string }[] = sample.map((voter, i) => ({
    row: [
      '',
      voter[5] ?? '',
      voter[7] ?? '',
      voter[9] ?? '',
      voter[11] ?? '',
      voter[1] ?? '',
      voter[12] ?? '',
      i < withIds ? (voter[2] ?? '') : '',
      voter[17] ?? '',
    ],
    voterbaseId: voter[0] ?? '',
  }));

  const known = STATES.filter((state) => seenStates.has(state.code));
  const states = known.length > 0 ? known : STATES;
  const stateTable = new WeightedTable(
    states.map((state) => state.cities.map((city) => cityRuntime(state, city))),
    states.map((state) => state.weight),
  );
  for (let i = drafts.length; i < rows; i++) {
    const cities = stateTable.pick(rng);
    const city = cities[rng.int(cities.length)]!;
    const sex = rng.chance(0.5) ? 'F' : 'M';
    const first = firstName(rng, sex);
    const last = SURNAME.pick(rng);
    const mail = rng.chance(0.5)
      ? `${asciiLetters(first)}.${asciiLetters(last)}.${rng.range(100, 999)}@${PROVIDER.pick(rng)}`
      : '';
    const address1 = streetLine(rng, rng.range(10_000, 39_999));
    drafts.push({
      row: ['', first, last, address1, city.info.name, city.state, zipOf(rng, city.info), '', mail],
      voterbaseId: '',
    });
  }

  for (let i = drafts.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const swap = drafts[i]!;
    drafts[i] = drafts[j]!;
    drafts[j] = swap;
  }
  const members = new Map<string, string>();
  const out = drafts.map((draft, i) => {
    const id = `MB${pad(i + 1, 6)}`;
    draft.row[0] = id;
    if (draft.voterbaseId !== '') members.set(id, draft.voterbaseId);
    return draft.row;
  });
  return { header: [...CONTACT_COLUMNS], rows: out, members };
}

/** The contact list as CSV text: header line, one line per row, `\n` endings (RFC 4180 quoting if needed). */
export function contactListCsv(list: ContactList): string {
  const lines = [list.header, ...list.rows].map((row) => row.map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
