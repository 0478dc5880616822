import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CORE_VOTER_COLUMNS } from '../../../domain/voters/voter-columns.ts';
import { mix32, Permutation, Rng, WeightedTable } from '../random.ts';
import type { Origin } from './names.ts';
import {
  ACCENTED,
  ASIAN_FIRST_NAMES,
  DECADE_FIRST_NAMES,
  FIRST_NAME_DECADES,
  GENERAL_FIRST_NAMES,
  HISPANIC_FIRST_NAMES,
  MIDDLE_NAMES,
  NATIONAL_ORIGIN_SHARE,
  RARE_FIRST_PARTS,
  SURNAME_HEAD,
  tailSurname,
} from './names.ts';
import type { PlaceInfo, StateInfo } from './places.ts';
import { STATES } from './places.ts';
import { COMPOUND_FIRST, COMPOUND_SECOND, DIRECTIONALS, STREET_NAMES, SUFFIXES } from './streets.ts';

/**
 * Realistic deterministic synthetic U.S. voter file. See README.md beside this file for the model
 * (names, households, addresses, geography, contact data, ids) and its measured distributions.
 */

/** The voter-file format of the service (its core columns), then the appendable fields we generate. */
export const VOTER_COLUMNS = [
  ...CORE_VOTER_COLUMNS,
  'party',
  'registration_status',
  'vote_2024_general',
  'vote_2022_general',
] as const;

export type VoterColumn = (typeof VOTER_COLUMNS)[number];

/**
 * Extra columns after VOTER_COLUMNS (with `extraColumns: true`, the default of writeVotersCsv):
 * `household_id` (`HH` + 10 digits, shared by everyone at one address) and `area_type` (URBAN,
 * SUBURBAN, TOWN or RURAL: where the generator placed the household).
 */
export const EXTRA_VOTER_COLUMNS = ['household_id', 'area_type'] as const;

export const SYNTHETIC_VOTER_COLUMNS = [...VOTER_COLUMNS, ...EXTRA_VOTER_COLUMNS] as const;

export type AreaType = 'URBAN' | 'SUBURBAN' | 'TOWN' | 'RURAL';

/** State codes the generator knows (the accepted values of `states`). */
export const SYNTHETIC_STATES: readonly string[] = STATES.map((s) => s.code);

/** Upper bound on `rows`, well inside every id space. */
export const MAX_SYNTHETIC_ROWS = 50_000_000;

export interface VoterGeneratorOptions {
  /** Number of rows to produce, 0..MAX_SYNTHETIC_ROWS. */
  rows: number;
  /** Any safe integer; the same options always give the same rows. */
  seed: number;
  /** Two-letter codes from SYNTHETIC_STATES (case-insensitive); all of them when omitted. */
  states?: string[];
  /** Append EXTRA_VOTER_COLUMNS to every row (default false for generateVoterRows). */
  extraColumns?: boolean;
}

export interface WriteVotersOptions extends VoterGeneratorOptions {
  out: Writable;
  /** End `out` when done and wait for it to finish (default true). */
  end?: boolean;
}

/**
 * Yields `rows` voter rows, each a fresh array of strings in VOTER_COLUMNS order (then
 * EXTRA_VOTER_COLUMNS when `extraColumns`), households of people sharing an address in consecutive
 * rows. Output depends only on the options, and a longer run begins with exactly the rows of a
 * shorter one. Memory stays flat (two fixed 16 MiB bitmaps keep phones and e-mails unique). No value
 * contains a comma, a double quote or a line break, so rows can be joined with commas.
 * Options are validated when called (RangeError naming the option), before the first row.
 */
export function generateVoterRows(options: VoterGeneratorOptions): Generator<string[]> {
  const factory = createFactory(options);
  return emitRows(factory, options.rows);
}

function* emitRows(factory: VoterFactory, rows: number): Generator<string[]> {
  let emitted = 0;
  const batch: string[][] = [];
  while (emitted < rows) {
    batch.length = 0;
    factory.household(batch);
    for (const row of batch) {
      if (emitted >= rows) return;
      emitted++;
      yield row;
    }
  }
}

/**
 * Writes the header (SYNTHETIC_VOTER_COLUMNS, or VOTER_COLUMNS with `extraColumns: false`) and
 * `rows` rows to `out` as CSV with LF endings, in ~64 KiB string chunks, waiting for `drain`
 * whenever `out` asks for backpressure. Resolves after the stream finished (unless `end: false`). Bad options throw a RangeError at once.
 */
export function writeVotersCsv(options: WriteVotersOptions): Promise<{ rows: number; bytes: number }> {
  const extra = options.extraColumns ?? true;
  const factory = createFactory({ ...options, extraColumns: extra });
  return writeRows(factory, options, extra);
}

async function writeRows(
  factory: VoterFactory,
  options: WriteVotersOptions,
  extra: boolean,
): Promise<{ rows: number; bytes: number }> {
  const { out, rows } = options;
  let failure: unknown;
  const onError = (error: unknown) => {
    failure ??= error;
  };
  out.on('error', onError);
  try {
    let chunk = `${(extra ? SYNTHETIC_VOTER_COLUMNS : VOTER_COLUMNS).join(',')}\n`;
    let bytes = 0;
    let emitted = 0;
    const batch: string[][] = [];
    while (emitted < rows) {
      batch.length = 0;
      factory.household(batch);
      for (let i = 0; i < batch.length && emitted < rows; i++, emitted++) {
        chunk += `${batch[i]!.join(',')}\n`;
      }
      if (chunk.length >= 65_536) {
        const buffer = Buffer.from(chunk, 'utf8');
        chunk = '';
        bytes += buffer.length;
        if (failure !== undefined) throw failure;
        // Keep up to MAX_BUFFERED bytes queued so generation overlaps the file system's writes,
        // however small the stream's highWaterMark; then wait for the queue to drain.
        out.write(buffer);
        if (out.writableNeedDrain && out.writableLength >= MAX_BUFFERED) await once(out, 'drain');
      }
    }
    const last = Buffer.from(chunk, 'utf8');
    bytes += last.length;
    if (failure !== undefined) throw failure;
    if (options.end ?? true) {
      await new Promise<void>((resolve, reject) => {
        out.once('error', reject);
        out.end(last, () => resolve());
      });
    } else if (last.length > 0 && !out.write(last)) {
      await once(out, 'drain');
    }
    if (failure !== undefined) throw failure;
    return { rows: emitted, bytes };
  } finally {
    out.off('error', onError);
  }
}

/** Bytes writeVotersCsv lets queue up in `out` before it waits for `drain`. */
const MAX_BUFFERED = 16 * 1024 * 1024;

function createFactory(options: VoterGeneratorOptions): VoterFactory {
  const { rows, seed } = options;
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 0 || rows > MAX_SYNTHETIC_ROWS) {
    throw new RangeError(`rows must be an integer in [0, ${MAX_SYNTHETIC_ROWS}], got ${String(rows)}`);
  }
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) {
    throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
  }
  return new VoterFactory(seed, selectStates(options.states), options.extraColumns ?? false);
}

function selectStates(codes: string[] | undefined): StateInfo[] {
  if (codes === undefined) return [...STATES];
  if (!Array.isArray(codes)) throw new RangeError('states must be an array of two-letter state codes');
  const wanted = new Set(codes.map((code) => String(code).trim().toUpperCase()));
  if (wanted.size === 0) throw new RangeError('states must not be empty');
  for (const code of wanted) {
    if (!SYNTHETIC_STATES.includes(code)) {
      throw new RangeError(`states: unknown state ${code}; known: ${SYNTHETIC_STATES.join(' ')}`);
    }
  }
  return STATES.filter((s) => wanted.has(s.code));
}

// ---------------------------------------------------------------------------------------------
// Tables

const STREAM_VOTERS = 1;
const KEY_VOTERBASE = 11;
const KEY_EXACT_TRACK = 12;
const KEY_VOTER_ID = 13;
const KEY_SMARTVAN = 14;
const KEY_HOUSEHOLD = 15;
const KEY_ODD_DOB = 17;

/**
 * Odd dates of birth that voter files hold: the placeholder 1900-01-01 for an unknown date, and a
 * real-looking date of 1900-1910 (a mistyped century or year). Each voter's draw is a keyed hash of
 * its row number, not the row stream, so the rest of every row is the same as without them.
 */
export const VOTER_DOB_PLACEHOLDER = '19000101';
export const VOTER_DOB_PLACEHOLDER_SHARE = 0.005;
export const VOTER_DOB_OUT_OF_RANGE_SHARE = 0.002;

/** Share of each state's voters scattered around its towns (the sparse rural population). */
const RURAL_SHARE = 0.1;
/** Share of the state's land the rural population spreads over. */
const RURAL_LAND = 0.85;
/** Residents per square mile at the centre of a core city, a suburb and a small town. */
const CORE_DENSITY = 16_000;
const SUBURB_DENSITY = 3_000;
const TOWN_DENSITY = 2_500;
/** Core-city points within this many standard deviations of the centre are URBAN, beyond SUBURBAN. */
const URBAN_SIGMAS = 1.3;
/** Share of a core city's points inside URBAN_SIGMAS (2-D normal: 1 - exp(-k²/2)). */
const URBAN_PART = 1 - Math.exp(-(URBAN_SIGMAS ** 2) / 2);
/** Chance that a household gets a PO box instead of the next address of its segment. */
const PO_BOX: Readonly<Record<AreaType, number>> = { URBAN: 0.005, SUBURBAN: 0.01, TOWN: 0.05, RURAL: 0.07 };
/**
 * Mean households per segment (see `newSegment`: buildings × mean units + streets × mean houses, plus
 * PO-box households that do not use up the segment). Zones are drawn per segment, so their weights
 * are divided by this to give each zone its intended share of households.
 */
const SEGMENT_HOUSEHOLDS: Readonly<Record<AreaType, number>> = {
  URBAN: (0.35 * (4 + 44 / 3 - 0.5) + 0.65 * 7) / (1 - PO_BOX.URBAN),
  SUBURBAN: (0.12 * 14 + 0.88 * 6) / (1 - PO_BOX.SUBURBAN),
  TOWN: (0.05 * 7.5 + 0.95 * 3.5) / (1 - PO_BOX.TOWN),
  RURAL: 1.5 / (1 - PO_BOX.RURAL),
};
const MILES_PER_DEGREE = 69.05;

/** Tail ranks of generated surnames run from the head size to this (density ∝ 1/rank). */
const TAIL_MAX_RANK = 5_000_000;

const surnameHead = {
  G: SURNAME_HEAD.filter((s) => s.origin === 'G'),
  H: SURNAME_HEAD.filter((s) => s.origin === 'H'),
  A: SURNAME_HEAD.filter((s) => s.origin === 'A'),
};

interface SurnameGroup {
  readonly head: WeightedTable<string>;
  /** Probability that a person of the group has a head (listed) surname. */
  readonly headShare: number;
}

function surnameGroup(origin: Origin): SurnameGroup {
  const entries = surnameHead[origin];
  const headMass = entries.reduce((sum, e) => sum + e.frequency, 0);
  return {
    head: new WeightedTable(
      entries.map((e) => e.name),
      entries.map((e) => e.frequency),
    ),
    headShare: Math.min(0.95, headMass / NATIONAL_ORIGIN_SHARE[origin]),
  };
}

const SURNAMES: Readonly<Record<Origin, SurnameGroup>> = {
  G: surnameGroup('G'),
  H: surnameGroup('H'),
  A: surnameGroup('A'),
};
const LOG_TAIL_SPAN = Math.log(TAIL_MAX_RANK / SURNAME_HEAD.length);

function ranked(items: readonly string[], offset: number, exponent = 1): WeightedTable<string> {
  return WeightedTable.ranked(items, offset, exponent);
}

const DECADE_TABLES = {
  F: DECADE_FIRST_NAMES.F.map((list) => ranked(list, 1.5, 0.9)),
  M: DECADE_FIRST_NAMES.M.map((list) => ranked(list, 1.5, 0.9)),
};
const GENERAL_TABLES = { F: ranked(GENERAL_FIRST_NAMES.F, 40), M: ranked(GENERAL_FIRST_NAMES.M, 40) };
const HISPANIC_TABLES = { F: ranked(HISPANIC_FIRST_NAMES.F, 3), M: ranked(HISPANIC_FIRST_NAMES.M, 3) };
const ASIAN_TABLES = { F: ranked(ASIAN_FIRST_NAMES.F, 4), M: ranked(ASIAN_FIRST_NAMES.M, 4) };
const MIDDLE_TABLES = { F: ranked(MIDDLE_NAMES.F, 3), M: ranked(MIDDLE_NAMES.M, 3) };
/** Share of first names from the birth decade's top list (older cohorts concentrate more). */
const DECADE_SHARE = [0.6, 0.58, 0.55, 0.5, 0.46, 0.42, 0.38, 0.34];
const INITIALS = new WeightedTable(
  [...'ABCDEFGHIJKLMNOPQRSTUVWYZ'],
  [5, 3, 4, 4, 5, 2, 2, 2, 1, 8, 3, 6, 7, 2, 1, 3, 0.2, 6, 4, 3, 0.5, 1, 3, 0.5, 0.3],
);
const NAME_SUFFIX = new WeightedTable(['JR', 'SR', 'II', 'III'], [60, 10, 15, 15]);

function table(pairs: readonly (readonly [string, number])[]): WeightedTable<string> {
  return new WeightedTable(
    pairs.map(([v]) => v),
    pairs.map(([, w]) => w),
  );
}

const SUFFIX_TABLES = {
  urban: table(SUFFIXES.urban),
  suburban: table(SUFFIXES.suburban),
  town: table(SUFFIXES.town),
  rural: table(SUFFIXES.rural),
};
const STREET = ranked(STREET_NAMES, 15);

/** Voter share by age band (18-24 ... 85-100), used for the people who head a household. */
const AGE = (() => {
  const bands: readonly (readonly [number, number, number])[] = [
    [18, 24, 9],
    [25, 34, 15],
    [35, 44, 16],
    [45, 54, 16],
    [55, 64, 18],
    [65, 74, 16],
    [75, 84, 8],
    [85, 100, 2.5],
  ];
  const ages: number[] = [];
  const weights: number[] = [];
  for (const [low, high, weight] of bands) {
    for (let age = low; age <= high; age++) {
      ages.push(age);
      weights.push(weight / (high - low + 1));
    }
  }
  return new WeightedTable(ages, weights);
})();
const AGE_MIN = 18;
const AGE_MAX = 100;

/** Household shapes (see `household`), with weights. */
const SHAPE = new WeightedTable(
  ['single', 'couple', 'family', 'parent', 'multigen', 'roommates', 'relatives'] as const,
  [33, 31, 13, 7, 4, 9, 3],
);

const PROVIDERS_BY_AGE = [
  // under 35, 35-59, 60+; the last item stands for the state's internet providers.
  table([
    ['gmail.com', 60],
    ['icloud.com', 12],
    ['yahoo.com', 8],
    ['outlook.com', 8],
    ['hotmail.com', 6],
    ['aol.com', 1],
    ['', 5],
  ]),
  table([
    ['gmail.com', 45],
    ['yahoo.com', 16],
    ['hotmail.com', 9],
    ['outlook.com', 7],
    ['icloud.com', 7],
    ['aol.com', 5],
    ['', 11],
  ]),
  table([
    ['gmail.com', 30],
    ['yahoo.com', 20],
    ['aol.com', 15],
    ['hotmail.com', 8],
    ['msn.com', 3],
    ['outlook.com', 5],
    ['icloud.com', 4],
    ['', 15],
  ]),
];
/** E-mail local-part patterns, see `email()`. */
const EMAIL_PATTERN = new WeightedTable(
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  [20, 12, 14, 6, 10, 4, 5, 5, 8, 3, 4, 9],
);
const PARTIES = ['DEM', 'REP', 'UNA', 'LIB'] as const;

/** Ages are as of this date. */
const AS_OF_YEAR = 2026;
const ELIGIBLE_2024 = 20061105;
const ELIGIBLE_2022 = 20041108;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// ---------------------------------------------------------------------------------------------
// Runtime structures

interface StateRuntime {
  readonly info: StateInfo;
  readonly code: string;
  readonly parties: WeightedTable<string>;
  readonly voterIds: Permutation;
  readonly voterIdDigits: number;
  readonly smartvanIds: Permutation;
  readonly allAreaCodes: readonly number[];
  readonly pHispanic: number;
  readonly pAsian: number;
  readonly isps: readonly string[];
  count: number;
}

interface PlaceRuntime {
  readonly info: PlaceInfo;
  readonly state: StateRuntime;
  readonly name: string;
  readonly salt: number;
  readonly latPerMile: number;
  readonly lonPerMile: number;
  /** Standard deviation of the settlement, miles. */
  readonly sigma: number;
  readonly areaCodes: readonly number[];
  /** The place's ZIPs as strings, zipStart first. */
  readonly zips: readonly string[];
}

interface Zone {
  readonly place: PlaceRuntime;
  readonly rural: boolean;
  /** Outer radius of the rural area around a town, miles. */
  readonly ruralRadius: number;
}

/** A run of neighbouring addresses on one street (or one apartment building / rural road). */
interface Segment {
  zone: Zone;
  area: AreaType;
  remaining: number;
  zip: string;
  lat: number;
  lon: number;
  dLat: number;
  dLon: number;
  /** For houses: `${number} ${street}` is built per household; for buildings address1 is fixed. */
  street: string;
  houseNumber: number;
  houseStep: number;
  building: boolean;
  address1: string;
  unitStyle: number;
  unitNext: number;
  /** Rural route style: `RR n BOX m`. */
  ruralRoute: number;
}

interface Member {
  sex: 'F' | 'M';
  age: number;
  first: string;
  middle: string;
  last: string;
  suffix: string;
  origin: Origin;
  /** dob (YYYYMMDD) shared with a twin, or 0 to draw one. */
  dob: number;
}

const SMARTVAN_BASE = 10_000_000;
const SMARTVAN_SPACE = 990_000_000;
const VOTERBASE_SPACE = 1_000_000_000;
const EXACT_TRACK_SPACE = 36 ** 10;
const HOUSEHOLD_SPACE = 10_000_000_000;
/** Bits of the e-mail uniqueness bitmap (2^26 bits = 8 MiB). */
const BITMAP_BITS = 26;
const KEY_PHONE = 16;
/** Valid exchanges (NXX 200-999 without N11 and 555) and the numbers per area code they give. */
const EXCHANGES = Array.from({ length: 800 }, (_, i) => 200 + i).filter((x) => x % 100 !== 11 && x !== 555);
const PHONE_SPACE = EXCHANGES.length * 10_000;

class VoterFactory {
  private readonly rng: Rng;
  private readonly zones: WeightedTable<Zone>;
  private readonly voterbaseIds: Permutation;
  private readonly exactTracks: Permutation;
  private readonly householdIds: Permutation;
  private readonly extra: boolean;
  private readonly seed: number;
  private readonly phoneCounts = new Float64Array(1000);
  private readonly phonePermutations: (Permutation | undefined)[] = [];
  private readonly emailsUsed = new Uint32Array(2 ** (BITMAP_BITS - 5));
  private readonly oddDobKey: number;
  private segment: Segment | undefined;
  private index = 0;
  private householdIndex = 0;

  constructor(seed: number, states: readonly StateInfo[], extra: boolean) {
    this.rng = new Rng(seed, STREAM_VOTERS);
    this.seed = seed;
    this.extra = extra;
    this.voterbaseIds = new Permutation(VOTERBASE_SPACE, keyOf(seed, KEY_VOTERBASE, 0));
    this.exactTracks = new Permutation(EXACT_TRACK_SPACE, keyOf(seed, KEY_EXACT_TRACK, 0));
    this.householdIds = new Permutation(HOUSEHOLD_SPACE, keyOf(seed, KEY_HOUSEHOLD, 0));
    this.oddDobKey = keyOf(seed, KEY_ODD_DOB, 0);
    const zones: Zone[] = [];
    const weights: number[] = [];
    for (const info of states) {
      const stateIndex = STATES.indexOf(info);
      const allAreaCodes = [...new Set(info.places.flatMap((p) => p.areaCodes))];
      const runtime: StateRuntime = {
        info,
        code: info.code,
        parties: new WeightedTable(PARTIES, info.parties),
        voterIds: new Permutation(10 ** (info.voterIdDigits - 1), keyOf(seed, KEY_VOTER_ID, stateIndex)),
        voterIdDigits: info.voterIdDigits,
        smartvanIds: new Permutation(SMARTVAN_SPACE, keyOf(seed, KEY_SMARTVAN, stateIndex)),
        allAreaCodes,
        pHispanic: info.hispanic,
        pAsian: info.asian,
        isps: info.isps,
        count: 0,
      };
      const settled = info.places.reduce((sum, p) => sum + p.population, 0);
      const towns = info.places.filter((p) => p.kind === 'T');
      const ruralRadius = Math.min(
        60,
        Math.sqrt((RURAL_LAND * info.area) / (Math.PI * Math.max(1, towns.length))),
      );
      info.places.forEach((place, placeIndex) => {
        const density =
          place.kind === 'C' ? CORE_DENSITY : place.kind === 'S' ? SUBURB_DENSITY : TOWN_DENSITY;
        const cosLat = Math.cos((place.latitude * Math.PI) / 180);
        const placeRuntime: PlaceRuntime = {
          info: place,
          state: runtime,
          name: place.name,
          salt: mix32(stateIndex * 1000 + placeIndex + 1),
          latPerMile: 1 / MILES_PER_DEGREE,
          lonPerMile: 1 / (MILES_PER_DEGREE * cosLat),
          sigma: Math.sqrt((place.population * 1000) / (2 * Math.PI * density)),
          areaCodes: place.areaCodes,
          zips: Array.from({ length: place.zipCount }, (_, i) => pad(place.zipStart + i, 5)),
        };
        zones.push({ place: placeRuntime, rural: false, ruralRadius: 0 });
        const perSegment =
          place.kind === 'C'
            ? URBAN_PART * SEGMENT_HOUSEHOLDS.URBAN + (1 - URBAN_PART) * SEGMENT_HOUSEHOLDS.SUBURBAN
            : SEGMENT_HOUSEHOLDS[place.kind === 'S' ? 'SUBURBAN' : 'TOWN'];
        weights.push((info.weight * (1 - RURAL_SHARE) * place.population) / settled / perSegment);
        if (place.kind === 'T') {
          zones.push({ place: placeRuntime, rural: true, ruralRadius });
          weights.push((info.weight * RURAL_SHARE) / towns.length / SEGMENT_HOUSEHOLDS.RURAL);
        }
      });
    }
    this.zones = new WeightedTable(zones, weights);
  }

  /** Appends the next household's rows (1-6 people at one address) to `out`. */
  household(out: string[][]): void {
    const rng = this.rng;
    let segment = this.segment;
    if (segment === undefined || segment.remaining <= 0) {
      segment = this.newSegment();
      this.segment = segment;
    }
    const place = segment.zone.place;
    const state = place.state;

    // Address.
    let address1: string;
    let address2 = '';
    let lat = segment.lat;
    let lon = segment.lon;
    let zip = segment.zip;
    const poBox = rng.chance(PO_BOX[segment.area]);
    if (poBox) {
      // PO boxes geocode to the post office (the place centre) and use its first ZIP.
      address1 = `PO BOX ${rng.chance(0.8) ? rng.range(1, 2999) : rng.range(3000, 99999)}`;
      lat = place.info.latitude;
      lon = place.info.longitude;
      zip = place.zips[0]!;
    } else {
      segment.remaining--;
      if (segment.building) {
        address2 = unitLabel(segment.unitStyle, segment.unitNext);
        segment.unitNext = nextUnit(
          segment.unitStyle,
          segment.unitNext,
          rng.chance(0.8) ? 1 : rng.range(2, 3),
        );
        address1 = segment.address1;
        if (rng.chance(0.03)) {
          address1 = `${address1} ${address2}`;
          address2 = '';
        }
      } else if (segment.ruralRoute > 0) {
        address1 = `RR ${segment.ruralRoute} BOX ${segment.houseNumber}`;
        segment.houseNumber += rng.range(1, 25);
      } else {
        address1 = `${segment.houseNumber} ${segment.street}`;
        segment.houseNumber += segment.houseStep;
        if (segment.area !== 'RURAL' && rng.chance(segment.area === 'URBAN' ? 0.05 : 0.02)) {
          address2 = rng.chance(0.5) ? `UNIT ${'ABCD'[rng.int(4)]}` : `APT ${rng.range(1, 4)}`;
        } else if (segment.area !== 'URBAN' && rng.chance(0.015)) {
          address2 = `LOT ${rng.range(1, 120)}`;
        }
        segment.lat += segment.dLat;
        segment.lon += segment.dLon;
      }
    }
    const latitude = lat.toFixed(6);
    const longitude = lon.toFixed(6);
    const householdId = this.extra ? `HH${pad(this.householdIds.apply(this.householdIndex), 10)}` : '';
    this.householdIndex++;

    // People.
    const members = this.members(state);
    const householdParty = state.parties.pick(rng);
    const headAge = members[0]!.age;
    const landlineChance = headAge >= 65 ? 0.45 : headAge >= 45 ? 0.2 : 0.07;
    const landline = rng.chance(landlineChance) ? this.phone(place, false) : '';
    const sharedEmail = members.length >= 2 && rng.chance(0.02);
    let firstEmail = '';
    for (const m of members) {
      const row = this.person(m, state, place, householdParty, landline);
      row[9] = address1;
      row[10] = address2;
      row[11] = place.name;
      row[12] = zip;
      row[13] = latitude;
      row[14] = longitude;
      if (sharedEmail && firstEmail !== '' && row[17] === '') row[17] = firstEmail;
      if (firstEmail === '') firstEmail = row[17]!;
      if (this.extra) {
        row.push(householdId, segment.area);
      }
      out.push(row);
    }
  }

  private newSegment(): Segment {
    const rng = this.rng;
    const zone = this.zones.pick(rng);
    const place = zone.place;
    const info = place.info;
    let x: number;
    let y: number;
    let area: AreaType;
    if (zone.rural) {
      // Uniform over the annulus 1.5 .. ruralRadius miles around the town.
      const r0 = 1.5;
      const r = Math.sqrt(r0 * r0 + rng.float() * (zone.ruralRadius ** 2 - r0 * r0));
      const angle = rng.float() * 2 * Math.PI;
      x = r * Math.cos(angle);
      y = r * Math.sin(angle);
      area = 'RURAL';
    } else {
      x = rng.normalish() * place.sigma;
      y = rng.normalish() * place.sigma;
      if (info.kind === 'C') {
        area = x * x + y * y < (URBAN_SIGMAS * place.sigma) ** 2 ? 'URBAN' : 'SUBURBAN';
      } else {
        area = info.kind === 'S' ? 'SUBURBAN' : 'TOWN';
      }
    }
    const cell = area === 'URBAN' ? 1.6 : area === 'SUBURBAN' ? 2.5 : 6;
    const zipIndex =
      info.zipCount === 1
        ? 0
        : mix32((Math.floor(x / cell) * 73856093) ^ (Math.floor(y / cell) * 19349663) ^ place.salt) %
          info.zipCount;
    const segment: Segment = {
      zone,
      area,
      remaining: 1,
      zip: place.zips[zipIndex]!,
      lat: info.latitude + y * place.latPerMile,
      lon: info.longitude + x * place.lonPerMile,
      dLat: 0,
      dLon: 0,
      street: '',
      houseNumber: 0,
      houseStep: 2,
      building: false,
      address1: '',
      unitStyle: 0,
      unitNext: 1,
      ruralRoute: 0,
    };
    const buildingChance = area === 'URBAN' ? 0.35 : area === 'SUBURBAN' ? 0.12 : area === 'TOWN' ? 0.05 : 0;
    if (rng.chance(buildingChance)) {
      segment.building = true;
      segment.remaining =
        area === 'URBAN'
          ? 4 + Math.floor(rng.float() ** 2 * 44)
          : area === 'SUBURBAN'
            ? rng.range(4, 24)
            : rng.range(3, 12);
      segment.address1 = `${this.houseNumber(area)} ${this.streetName(area, place.state.code)}`;
      const lot = area === 'TOWN' && rng.chance(0.4);
      segment.unitStyle = lot ? 5 : rng.int(5);
      segment.unitNext = segment.unitStyle === 0 || segment.unitStyle === 2 ? 101 : 1;
      return segment;
    }
    // A run of houses along a street: grid-aligned in most places.
    const spacing =
      area === 'URBAN' ? 0.01 : area === 'SUBURBAN' ? 0.02 : area === 'TOWN' ? 0.03 : 0.6 + rng.float() * 0.9;
    let dx: number;
    let dy: number;
    if (area !== 'RURAL' && rng.chance(0.75)) {
      const axis = rng.int(4);
      dx = axis === 0 ? 1 : axis === 1 ? -1 : 0;
      dy = axis === 2 ? 1 : axis === 3 ? -1 : 0;
    } else {
      const angle = rng.float() * 2 * Math.PI;
      dx = Math.cos(angle);
      dy = Math.sin(angle);
    }
    segment.dLat = dy * spacing * place.latPerMile;
    segment.dLon = dx * spacing * place.lonPerMile;
    segment.remaining =
      area === 'URBAN'
        ? rng.range(2, 12)
        : area === 'SUBURBAN'
          ? rng.range(2, 10)
          : area === 'TOWN'
            ? rng.range(1, 6)
            : rng.range(1, 2);
    segment.houseNumber = this.houseNumber(area);
    segment.houseStep = area === 'RURAL' ? rng.range(20, 400) : rng.chance(0.7) ? 2 : rng.range(2, 10) * 2;
    if (area === 'RURAL' && rng.chance(0.15)) {
      segment.ruralRoute = rng.range(1, 9);
      segment.houseNumber = rng.range(1, 400);
    } else {
      segment.street = this.streetName(area, place.state.code);
    }
    return segment;
  }

  private houseNumber(area: AreaType): number {
    const rng = this.rng;
    switch (area) {
      case 'URBAN':
        return rng.chance(0.1) ? rng.range(1, 99) : rng.range(100, 8999);
      case 'SUBURBAN':
        return rng.chance(0.7) ? rng.range(100, 9999) : rng.range(10000, 19999);
      case 'TOWN':
        return rng.chance(0.15) ? rng.range(1, 99) : rng.range(100, 2999);
      default:
        return rng.chance(0.3) ? rng.range(100, 9999) : rng.range(1000, 29999);
    }
  }

  /** Street name with suffix and optional directionals, e.g. `N OAK ST`, `WILLOW CREEK DR`, `COUNTY ROAD 12`. */
  private streetName(area: AreaType, stateCode: string): string {
    const rng = this.rng;
    if (area === 'RURAL' || (area === 'TOWN' && rng.chance(0.1))) {
      const roll = rng.float();
      if (roll < 0.18) return `COUNTY ROAD ${rng.range(1, 450)}`;
      if (roll < 0.24) return `STATE ROUTE ${rng.range(1, 300)}`;
      if (roll < 0.3) return `HIGHWAY ${rng.range(1, 500)}`;
      if (roll < 0.33) return `US HIGHWAY ${rng.range(1, 99)}`;
      if (roll < 0.38 && stateCode === 'TX') return `FM ${rng.range(100, 3500)}`;
    }
    const suffixes =
      area === 'URBAN'
        ? SUFFIX_TABLES.urban
        : area === 'SUBURBAN'
          ? SUFFIX_TABLES.suburban
          : area === 'TOWN'
            ? SUFFIX_TABLES.town
            : SUFFIX_TABLES.rural;
    let name: string;
    const numbered = area === 'URBAN' ? 0.2 : area === 'TOWN' ? 0.1 : area === 'SUBURBAN' ? 0.04 : 0;
    const roll = rng.float();
    if (roll < numbered) name = ordinal(1 + Math.floor(rng.float() ** 2 * 120));
    else if (area !== 'URBAN' && roll < numbered + (area === 'SUBURBAN' ? 0.45 : 0.15)) {
      name = `${rng.pick(COMPOUND_FIRST)} ${rng.pick(COMPOUND_SECOND)}`;
    } else name = STREET.pick(rng);
    const pre = rng.chance(area === 'URBAN' ? 0.25 : 0.1) ? `${rng.pick(DIRECTIONALS)} ` : '';
    const post = pre === '' && rng.chance(0.03) ? ` ${rng.pick(DIRECTIONALS)}` : '';
    return `${pre}${name} ${suffixes.pick(rng)}${post}`;
  }

  // -------------------------------------------------------------------------------------------
  // Household members

  private origin(state: StateRuntime): Origin {
    const u = this.rng.float();
    return u < state.pHispanic ? 'H' : u < state.pHispanic + state.pAsian ? 'A' : 'G';
  }

  private surname(origin: Origin): string {
    const rng = this.rng;
    const group = SURNAMES[origin];
    let name: string;
    if (rng.chance(group.headShare)) name = group.head.pick(rng);
    else {
      const rank = Math.floor(SURNAME_HEAD.length * Math.exp(rng.float() * LOG_TAIL_SPAN));
      name = tailSurname(origin, rank, mix32);
    }
    if (origin === 'H') {
      if (rng.chance(0.06)) name = ACCENTED.get(name) ?? name;
      if (rng.chance(0.05)) {
        const second = SURNAMES.H.head.pick(rng);
        if (second !== name) name = rng.chance(0.5) ? `${name} ${second}` : `${name}-${second}`;
      }
    }
    return name;
  }

  private firstName(sex: 'F' | 'M', age: number, origin: Origin): string {
    const rng = this.rng;
    let name: string;
    if (origin === 'H' && rng.chance(0.55)) {
      name = HISPANIC_TABLES[sex].pick(rng);
      if (rng.chance(0.08)) name = ACCENTED.get(name) ?? name;
      return name;
    }
    if (origin === 'A' && rng.chance(0.4)) return ASIAN_TABLES[sex].pick(rng);
    const birthYear = AS_OF_YEAR - 1 - age;
    const decade = Math.min(FIRST_NAME_DECADES.length - 1, Math.max(0, Math.floor((birthYear - 1930) / 10)));
    const u = rng.float();
    const share = DECADE_SHARE[decade]!;
    if (u < share) return DECADE_TABLES[sex][decade]!.pick(rng);
    if (u < 0.975) return GENERAL_TABLES[sex].pick(rng);
    const [starts, middles, ends] = RARE_FIRST_PARTS[sex];
    return rng.pick(starts!) + (rng.chance(0.5) ? rng.pick(middles!) : '') + rng.pick(ends!);
  }

  private middleName(sex: 'F' | 'M', first: string, age: number, origin: Origin): string {
    const rng = this.rng;
    const u = rng.float();
    if (u < 0.36) {
      const middle = MIDDLE_TABLES[sex].pick(rng);
      return middle === first ? '' : middle;
    }
    if (u < 0.56) {
      const middle = this.firstName(sex, age, origin);
      return middle === first ? '' : middle;
    }
    if (u < 0.7) return INITIALS.pick(rng);
    return '';
  }

  private member(sex: 'F' | 'M', age: number, last: string, origin: Origin): Member {
    const first = this.firstName(sex, age, origin);
    return {
      sex,
      age,
      first,
      middle: this.middleName(sex, first, age, origin),
      last,
      suffix: '',
      origin,
      dob: 0,
    };
  }

  private randomSex(): 'F' | 'M' {
    return this.rng.chance(0.53) ? 'F' : 'M';
  }

  private members(state: StateRuntime): Member[] {
    const rng = this.rng;
    const origin = this.origin(state);
    const surname = this.surname(origin);
    const shape = SHAPE.pick(rng);
    const out: Member[] = [];
    switch (shape) {
      case 'single':
        out.push(this.member(this.randomSex(), AGE.pick(rng), surname, origin));
        break;
      case 'couple':
      case 'family':
      case 'multigen': {
        const minAge = shape === 'family' ? 38 : shape === 'multigen' ? 35 : 21;
        const maxAge = shape === 'multigen' ? 68 : AGE_MAX;
        let headAge = AGE.pick(rng);
        if (headAge < minAge || headAge > maxAge) headAge = rng.range(minAge, Math.min(maxAge, 85));
        const [husband, wife] = this.couple(state, headAge, surname, origin);
        // Either partner may be listed first.
        if (rng.chance(0.5)) out.push(husband, wife);
        else out.push(wife, husband);
        if (shape === 'family') this.children(out, husband, headAge, surname, origin);
        if (shape === 'multigen') {
          const parentAge = Math.min(AGE_MAX, headAge + rng.range(20, 34));
          const sex = rng.chance(0.7) ? 'F' : 'M';
          out.push(this.member(sex, parentAge, rng.chance(0.6) ? surname : this.surname(origin), origin));
        }
        break;
      }
      case 'parent': {
        const sex = rng.chance(0.75) ? 'F' : 'M';
        const age = rng.range(38, 75);
        const parent = this.member(sex, age, surname, origin);
        out.push(parent);
        const childSurname = rng.chance(0.75) ? surname : this.surname(origin);
        this.children(out, sex === 'M' ? parent : undefined, age, childSurname, origin);
        break;
      }
      case 'roommates': {
        const count = rng.chance(0.7) ? 2 : rng.chance(0.73) ? 3 : 4;
        out.push(this.member(this.randomSex(), rng.range(19, 40), surname, origin));
        for (let i = 1; i < count; i++) {
          const o = this.origin(state);
          out.push(this.member(this.randomSex(), rng.range(19, 40), this.surname(o), o));
        }
        break;
      }
      default: {
        const age = AGE.pick(rng);
        out.push(this.member(this.randomSex(), age, surname, origin));
        out.push(this.member(this.randomSex(), clampAge(age + rng.range(-8, 8)), surname, origin));
      }
    }
    for (const m of out) {
      if (m.sex === 'M' && m.suffix === '' && rng.chance(0.03)) m.suffix = NAME_SUFFIX.pick(rng);
    }
    return out;
  }

  /** A couple: usually opposite sexes; the wife keeps, takes or hyphenates surnames. */
  private couple(state: StateRuntime, headAge: number, surname: string, origin: Origin): [Member, Member] {
    const rng = this.rng;
    const age2 = clampAge(headAge + Math.round(rng.normalish() * 3) + (rng.chance(0.5) ? 2 : 0));
    if (rng.chance(0.04)) {
      const sex = this.randomSex();
      const o = this.origin(state);
      return [this.member(sex, headAge, surname, origin), this.member(sex, age2, this.surname(o), o)];
    }
    const husband = this.member('M', rng.chance(0.5) ? headAge : age2, surname, origin);
    const wifeAge = husband.age === headAge ? age2 : headAge;
    const u = rng.float();
    let wifeOrigin = origin;
    let last = surname;
    if (u >= 0.74) {
      wifeOrigin = rng.chance(0.75) ? origin : this.origin(state);
      const maiden = this.surname(wifeOrigin);
      if (u < 0.93 || maiden.length + surname.length > 24 || maiden.includes('-')) last = maiden;
      else last = `${maiden}-${surname}`;
    }
    return [husband, this.member('F', wifeAge, last, wifeOrigin)];
  }

  /** Adult children (18+) of a parent aged `parentAge`; a son may be JR, two children may be twins. */
  private children(
    out: Member[],
    father: Member | undefined,
    parentAge: number,
    surname: string,
    origin: Origin,
  ): void {
    const rng = this.rng;
    const oldest = Math.min(parentAge - 19, 40);
    if (oldest < AGE_MIN) return;
    const count = rng.chance(0.6) ? 1 : rng.chance(0.75) ? 2 : 3;
    let previous: Member | undefined;
    for (let i = 0; i < count; i++) {
      const sex = this.randomSex();
      if (previous !== undefined && rng.chance(0.07)) {
        // Twins: same dob and surname, different first names (often the same initial).
        const twin = this.member(sex, previous.age, surname, origin);
        if (rng.chance(0.3)) {
          for (let tries = 0; tries < 4 && twin.first[0] !== previous.first[0]; tries++) {
            twin.first = this.firstName(sex, twin.age, origin);
          }
          if (twin.first === previous.first) twin.first = this.firstName(sex, twin.age, origin);
        }
        if (previous.dob === 0) previous.dob = this.dob(previous.age);
        twin.dob = previous.dob;
        out.push(twin);
        previous = twin;
        continue;
      }
      const child = this.member(sex, rng.range(AGE_MIN, oldest), surname, origin);
      if (
        father !== undefined &&
        father.sex === 'M' &&
        sex === 'M' &&
        father.last === surname &&
        rng.chance(0.12)
      ) {
        child.first = father.first;
        child.middle = father.middle;
        if (father.suffix === 'JR') child.suffix = 'III';
        else {
          child.suffix = rng.chance(0.85) ? 'JR' : 'II';
          if (father.suffix === '' && rng.chance(0.6)) father.suffix = 'SR';
        }
        father = undefined;
      }
      out.push(child);
      previous = child;
    }
  }

  // -------------------------------------------------------------------------------------------
  // One person's row

  private person(
    m: Member,
    state: StateRuntime,
    place: PlaceRuntime,
    householdParty: string,
    landline: string,
  ): string[] {
    const rng = this.rng;
    const index = this.index++;
    const local = state.count++;
    const dobKey = m.dob !== 0 ? m.dob : this.dob(m.age);
    const birthYear = Math.floor(dobKey / 10000);
    const yearOnly = rng.chance(0.02);
    const dob = this.oddDob(index) ?? (yearOnly ? String(birthYear) : String(dobKey));
    const age = m.age;

    const gender = rng.chance(0.01) ? 'U' : m.sex;
    const emailChance = age < 30 ? 0.7 : age < 50 ? 0.68 : age < 65 ? 0.55 : age < 80 ? 0.4 : 0.22;
    const mail = rng.chance(emailChance) ? this.email(m, birthYear, state, index) : '';

    const wirelessChance = age < 65 ? 0.72 : age < 80 ? 0.55 : 0.35;
    const wireless = rng.chance(wirelessChance) ? this.phone(place, true) : '';
    const homePhone = landline !== '' && rng.chance(0.9) ? landline : '';
    const voip = rng.chance(0.05) ? this.phone(place, true) : '';

    const party = rng.chance(0.72) ? householdParty : state.parties.pick(rng);
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
      pad(state.voterIds.apply(local), state.voterIdDigits),
      String(SMARTVAN_BASE + state.smartvanIds.apply(local)),
      exactTrack(this.exactTracks.apply(index)),
      m.first,
      m.middle,
      m.last,
      m.suffix,
      '',
      '',
      '',
      '',
      '',
      '',
      dob,
      gender,
      mail,
      homePhone,
      wireless,
      voip,
      party,
      active ? 'ACTIVE' : 'INACTIVE',
      vote2024,
      vote2022,
    ];
  }

  /**
   * The file's dob of row `index` when it is an odd one: VOTER_DOB_PLACEHOLDER for
   * VOTER_DOB_PLACEHOLDER_SHARE of rows, a uniform day of 1900-1910 for VOTER_DOB_OUT_OF_RANGE_SHARE;
   * else null. A keyed hash of the row number, so the row stream draws the same numbers either way.
   */
  private oddDob(index: number): string | null {
    const h1 = mix32(this.oddDobKey ^ mix32(index));
    const u = h1 / 4294967296;
    if (u < VOTER_DOB_PLACEHOLDER_SHARE) return VOTER_DOB_PLACEHOLDER;
    if (u >= VOTER_DOB_PLACEHOLDER_SHARE + VOTER_DOB_OUT_OF_RANGE_SHARE) return null;
    const h2 = mix32(h1 ^ 0x5bd1e995);
    const year = 1900 + (h2 % 11);
    const month = 1 + (Math.floor(h2 / 11) % 12);
    const days = month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]!;
    const day = 1 + (Math.floor(h2 / 132) % days);
    const date = year * 10000 + month * 100 + day;
    // 1900-01-01 is the placeholder, not a date of this kind.
    return String(date === 19000101 ? 19000102 : date);
  }

  /** A uniform day among those giving `age` on AS_OF_YEAR-01-01: YYYYMMDD (2% only YYYY). */
  private dob(age: number): number {
    const rng = this.rng;
    const year0 = AS_OF_YEAR - 1 - age;
    const leap0 = isLeap(year0);
    let dayOfYear = 1 + rng.int(leap0 ? 366 : 365);
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
    return year * 10000 + (month + 1) * 100 + dayOfYear + 1;
  }

  /**
   * 10 digits, unique in the run: an area code of the place (12% of mobiles: anywhere in the state),
   * then the next number of that area code's keyed permutation of its valid NXX-XXXX numbers.
   */
  private phone(place: PlaceRuntime, mobile: boolean): string {
    const rng = this.rng;
    const codes = mobile && rng.chance(0.12) ? place.state.allAreaCodes : place.areaCodes;
    let area = codes[rng.int(codes.length)]!;
    if (this.phoneCounts[area]! >= PHONE_SPACE) {
      const spare = place.state.allAreaCodes.find((code) => this.phoneCounts[code]! < PHONE_SPACE);
      if (spare === undefined) throw new RangeError(`phone numbers of ${place.state.code} exhausted`);
      area = spare;
    }
    const count = this.phoneCounts[area]!;
    this.phoneCounts[area] = count + 1;
    let permutation = this.phonePermutations[area];
    if (permutation === undefined) {
      permutation = new Permutation(PHONE_SPACE, keyOf(this.seed, KEY_PHONE, area));
      this.phonePermutations[area] = permutation;
    }
    const v = permutation.apply(count);
    const exchange = EXCHANGES[Math.floor(v / 10_000)]!;
    return String(area * 10_000_000 + exchange * 10_000 + (v % 10_000));
  }

  private email(m: Member, birthYear: number, state: StateRuntime, index: number): string {
    const rng = this.rng;
    const f = asciiLetters(m.first);
    const l = asciiLetters(m.last);
    const provider = PROVIDERS_BY_AGE[m.age < 35 ? 0 : m.age < 60 ? 1 : 2]!.pick(rng);
    const domain = provider === '' ? rng.pick(state.isps) : provider;
    let local: string;
    switch (EMAIL_PATTERN.pick(rng)) {
      case 0:
        local = `${f}.${l}`;
        break;
      case 1:
        local = `${f}${l}`;
        break;
      case 2:
        local = `${f}${l}${rng.range(1, 99)}`;
        break;
      case 3:
        local = `${f}.${l}${rng.range(1, 99)}`;
        break;
      case 4:
        local = `${f.charAt(0)}${l}`;
        break;
      case 5:
        local = `${f.charAt(0)}.${l}`;
        break;
      case 6:
        local = `${f}_${l}`;
        break;
      case 7:
        local = `${f}${l.charAt(0)}${rng.range(100, 999)}`;
        break;
      case 8:
        local = rng.chance(0.5) ? `${f}${l}${birthYear % 100}` : `${f}${birthYear}`;
        break;
      case 9:
        local = `${l}${f}`;
        break;
      case 10: {
        const middle = asciiLetters(m.middle);
        local = middle === '' ? `${f}.${l}` : `${f}.${middle.charAt(0)}.${l}`;
        break;
      }
      default:
        local = `${f}${l.slice(0, 4)}${rng.range(1000, 9999)}`;
    }
    let address = `${local}@${domain}`;
    if (testAndSet(this.emailsUsed, stringBit(address))) {
      address = `${f}${l}${rng.range(100, 9999)}@${domain}`;
      if (testAndSet(this.emailsUsed, stringBit(address))) {
        // Guaranteed unique: the person's serial number, which no other pattern produces after a dot.
        address = `${f}.${l}.${index + 10_000}@${domain}`;
      }
    }
    return address;
  }
}

/** Unit styles: 0 `APT 204` (floor × 100 + door), 1 `APT 7`, 2 `APT 3B`, 3 `UNIT 12`, 4 `# 5`, 5 `LOT 31`. */
function unitLabel(style: number, n: number): string {
  switch (style) {
    case 0:
    case 1:
      return `APT ${n}`;
    case 2:
      return `APT ${Math.floor(n / 100)}${'ABCDEFGH'[((n % 100) - 1) % 8]}`;
    case 3:
      return `UNIT ${n}`;
    case 4:
      return `# ${n}`;
    default:
      return `LOT ${n}`;
  }
}

function nextUnit(style: number, n: number, step: number): number {
  if (style !== 0 && style !== 2) return n + step;
  const doors = style === 0 ? 12 : 8;
  const door = (n % 100) + step;
  return door > doors ? (Math.floor(n / 100) + 1) * 100 + 1 : n + step;
}

function testAndSet(bits: Uint32Array, bit: number): boolean {
  const word = bit >>> 5;
  const mask = 1 << (bit & 31);
  const value = bits[word]!;
  if ((value & mask) !== 0) return true;
  bits[word] = value | mask;
  return false;
}

function stringBit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h) >>> (32 - BITMAP_BITS);
}

const PLAIN = /^[A-Z]+$/;

/** Lower-case ASCII letters only (`MUÑOZ` → `munoz`, `O'BRIEN` → `obrien`), for e-mails. */
function asciiLetters(name: string): string {
  if (PLAIN.test(name)) return name.toLowerCase();
  return name
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
}

const ZEROS = [
  '',
  '0',
  '00',
  '000',
  '0000',
  '00000',
  '000000',
  '0000000',
  '00000000',
  '000000000',
  '0000000000',
];

function pad(value: number, width: number): string {
  const text = String(value);
  return text.length >= width ? text : ZEROS[width - text.length]! + text;
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}TH`;
  const last = n % 10;
  return `${n}${last === 1 ? 'ST' : last === 2 ? 'ND' : last === 3 ? 'RD' : 'TH'}`;
}

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const BASE36_5 = 36 ** 5;

/** `ET` + 10 upper-case base-36 digits. */
function exactTrack(value: number): string {
  const high = Math.floor(value / BASE36_5);
  return `ET${base36x5(high)}${base36x5(value - high * BASE36_5)}`;
}

const BASE36_PAIRS = Array.from({ length: 36 * 36 }, (_, i) => BASE36[Math.floor(i / 36)]! + BASE36[i % 36]!);

function base36x5(value: number): string {
  const low = value % 1296;
  const rest = (value - low) / 1296;
  const mid = rest % 1296;
  return BASE36[(rest - mid) / 1296]! + BASE36_PAIRS[mid]! + BASE36_PAIRS[low]!;
}

function keyOf(seed: number, purpose: number, stateIndex: number): number {
  return new Rng(seed, purpose * 1000 + stateIndex).next();
}

function clampAge(age: number): number {
  return Math.min(AGE_MAX, Math.max(AGE_MIN, age));
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
