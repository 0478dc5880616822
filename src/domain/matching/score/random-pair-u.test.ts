import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryVoterSnapshot } from '../../voters/in-memory-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS } from '../../voters/voter-columns.ts';
import { buildMatchIndex, voterFieldReader } from '../index/build-match-index.ts';
import { strangersPerHolder } from '../index/contact-sample.ts';
import { normalizeVoter } from '../normalize/person.ts';
import { fileAgreement } from './chance-agreement.ts';
import { F, FIELD_COUNT, L, LEVEL_COUNTS } from './comparison-levels.ts';
import { at } from './fellegi-sunter.ts';
import { estimateRandomPairU, voterAsPerson } from './random-pair-u.ts';

const AS_OF = new Date('2024-06-01T00:00:00Z');

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Skewed pools (already normalized, so the oracle can count the raw values).
const FIRSTS = ['JAMES', 'JAMES', 'JAMES', 'MARY', 'MARY', 'ROBERT', 'PATRICIA', 'LINDA', 'DAVID', 'ZELDA'];
const LASTS = ['SMITH', 'SMITH', 'SMITH', 'SMITH', 'JOHNSON', 'JOHNSON', 'BROWN', 'NGUYEN', 'OKAFOR'];
const STREETS = ['MAIN ST', 'OAK AVE', 'ELM ST', 'PINE RD'];
const PLACES = [
  { city: 'RALEIGH', state: 'NC', zip: '27601', lat: 35.78, lon: -78.64 },
  { city: 'RALEIGH', state: 'NC', zip: '27603', lat: 35.74, lon: -78.66 },
  { city: 'DURHAM', state: 'NC', zip: '27701', lat: 35.99, lon: -78.9 },
  { city: 'COLUMBIA', state: 'SC', zip: '29201', lat: 34.0, lon: -81.03 },
  { city: 'ATHENS', state: 'GA', zip: '30601', lat: 33.96, lon: -83.38 },
];

function voterRows(n: number, seed: number): Record<string, string>[] {
  const random = prng(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const rows: Record<string, string>[] = [];
  for (let i = 0; i < n; i++) {
    const place = pick(PLACES);
    const year = 1940 + Math.floor(random() * 60);
    const month = 1 + Math.floor(random() * 12);
    const day = 1 + Math.floor(random() * 28);
    const r = random();
    // Most voters have a full date, some only a year, some none.
    const dob =
      r < 0.8
        ? `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`
        : r < 0.9
          ? `${year}`
          : '';
    const located = random() < 0.7;
    rows.push({
      first_name: pick(FIRSTS),
      middle_name: random() < 0.5 ? pick(['A', 'ANN', 'LEE', 'B']) : '',
      last_name: pick(LASTS),
      address1: `${1 + Math.floor(random() * 400)} ${pick(STREETS)}`,
      city: place.city,
      state: place.state,
      zip: random() < 0.9 ? place.zip : '',
      dob,
      gender: pick(['F', 'M', '']),
      latitude: located ? (place.lat + (random() - 0.5) * 0.1).toFixed(5) : '',
      longitude: located ? (place.lon + (random() - 0.5) * 0.1).toFixed(5) : '',
      wireless_phone: random() < 0.3 ? `919${String(2_000_000 + i * 37).padStart(7, '0')}` : '',
      email: random() < 0.3 ? `voter${i}@example.com` : '',
    });
  }
  return rows;
}

const ROWS = voterRows(600, 2024);
const snapshot = () =>
  new InMemoryVoterSnapshot(
    CORE_VOTER_COLUMNS,
    ROWS.map((fields) => CORE_VOTER_COLUMNS.map((column) => fields[column] ?? '')),
  );
const VOTERS = snapshot();
const index = buildMatchIndex(VOTERS, AS_OF);
const u = estimateRandomPairU(index);

/** Σ p² over the non-empty values. */
function sumOfSquares(values: readonly string[]): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const value of values) {
    if (value === '') continue;
    counts.set(value, (counts.get(value) ?? 0) + 1);
    total++;
  }
  let sum = 0;
  for (const count of counts.values()) sum += (count / total) ** 2;
  return sum;
}

const close = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} vs ${expected}`);

describe('estimateRandomPairU', () => {
  it('u of exact first, last, zip, city and state is Σ p² of the value frequencies', () => {
    close(u[at(F.first, L.first.exact)]!, sumOfSquares(ROWS.map((r) => r.first_name!)), 'first');
    close(u[at(F.last, L.last.exact)]!, sumOfSquares(ROWS.map((r) => r.last_name!)), 'last');
    close(u[at(F.zip, L.zip.exact)]!, sumOfSquares(ROWS.map((r) => r.zip!)), 'zip');
    close(u[at(F.city, L.binary.exact)]!, sumOfSquares(ROWS.map((r) => r.city!)), 'city');
    close(u[at(F.state, L.binary.exact)]!, sumOfSquares(ROWS.map((r) => r.state!)), 'state');
  });

  it('the other levels of a frequency-set field are rescaled to keep its sum at 1', () => {
    for (const field of [F.last, F.zip, F.city, F.state, F.phone, F.email]) {
      let sum = 0;
      for (let l = 1; l <= LEVEL_COUNTS[field]!; l++) sum += u[at(field, l)]!;
      assert.ok(Math.abs(sum - 1) < 1e-9, `field ${field} sums to ${sum}`);
    }
  });

  it('phone and e-mail exact u is the chance of a recycled number or shared inbox', () => {
    assert.ok(u[at(F.phone, L.binary.exact)]! > 0 && u[at(F.phone, L.binary.exact)]! < 1e-6);
    assert.ok(u[at(F.email, L.binary.exact)]! > 0 && u[at(F.email, L.binary.exact)]! < 1e-6);
  });

  it('phone exact u is as often as the file holds its own numbers under other names (its sample)', () => {
    // 4,000 voters, every number held by two of them: strangers (ZELDA OKAFOR, JAMES SMITH, …)
    // for the first 3,000, a couple sharing a surname for the last 1,000.
    const rows = Array.from({ length: 4000 }, (_, i) => {
      const pair = Math.floor(i / 2);
      const couple = i >= 3000;
      return CORE_VOTER_COLUMNS.map(
        (column) =>
          ({
            first_name: FIRSTS[i % FIRSTS.length]! + (i % 2 === 0 ? '' : 'A'),
            last_name: couple ? 'LEE' : `${LASTS[i % LASTS.length]!}${i % 2 === 0 ? '' : 'SON'}`,
            state: 'NC',
            wireless_phone: `919${String(3_000_000 + pair * 13).padStart(7, '0')}`,
          })[column as string] ?? '',
      );
    });
    const shared = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, rows), AS_OF);
    const sample = shared.data.contacts ?? assert.fail('the index samples its phones');
    const counted = strangersPerHolder(sample.phone);
    assert.ok(counted.holders >= 30, `${counted.holders} holders sampled, one number in 64`);
    // Each holder of a strangers' number has one stranger; a couple's, none.
    assert.ok(counted.strangers > 0 && counted.strangers < counted.holders);
    const phone = estimateRandomPairU(shared)[at(F.phone, L.binary.exact)]!;
    assert.equal(phone, fileAgreement(counted, 4000));
    // About 0.75 strangers per holder, the prior (10⁻⁸ a pair) weighing as 50 holders.
    assert.ok(phone * 4000 > 0.3, `strangers per holder ${phone * 4000}`);
    // Nobody holds an e-mail: the prior's.
    assert.equal(
      estimateRandomPairU(shared)[at(F.email, L.binary.exact)],
      fileAgreement({ holders: 0, strangers: 0 }, 4000),
    );
  });

  it('every level of every field has u in (0, 1]', () => {
    for (let f = 0; f < FIELD_COUNT; f++) {
      for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) {
        const value = u[at(f, l)]!;
        assert.ok(value > 0 && value <= 1, `field ${f} level ${l}: ${value}`);
      }
    }
  });

  it('dob: exact u is Σ p² of full dates, month a twelfth of the birth years’ Σ p²; age’s year and near twice it', () => {
    const years = ROWS.map((r) => r.dob!.slice(0, 4));
    const dates = ROWS.map((r) => (r.dob!.length === 8 ? r.dob! : ''));
    const yearSq = sumOfSquares(years);
    close(u[at(F.age, L.age.year)]!, 2 * yearSq, 'age year');
    close(u[at(F.age, L.age.near)]!, 2 * yearSq, 'age near');
    close(u[at(F.age, L.age.differ)]!, 1 - 4 * yearSq, 'age differ');
    close(u[at(F.dob, L.dob.month)]!, Math.max(yearSq / 12, 0.5 / ROWS.length), 'dob month');
    close(u[at(F.dob, L.dob.exact)]!, Math.max(sumOfSquares(dates), 0.5 / ROWS.length), 'dob exact');
    assert.ok(u[at(F.dob, L.dob.differ)]! >= 0.5);
  });

  it('initial u is Σ p² of first initials (voters hold full first names)', () => {
    close(
      u[at(F.first, L.first.initial)]!,
      sumOfSquares(ROWS.map((r) => r.first_name!.slice(0, 1))),
      'first initial',
    );
  });

  it('random pairs agree rarely: every exact level is below its differ level where it matters', () => {
    assert.ok(u[at(F.first, L.first.exact)]! < u[at(F.first, L.first.differ)]!);
    assert.ok(u[at(F.address, L.address.exact)]! < u[at(F.address, L.address.differ)]!);
    assert.ok(u[at(F.distance, L.distance.near)]! < u[at(F.distance, L.distance.far)]!);
  });

  it('is deterministic: the same voter file gives the same u', () => {
    assert.deepEqual(estimateRandomPairU(index), u);
    assert.deepEqual(estimateRandomPairU(buildMatchIndex(snapshot(), AS_OF)), u);
  });

  it('u of a ZIP two neighbouring digits away is Σ p(z) · p(z′) over the swaps z′ of z', () => {
    // 27601 (half the voters) and 27610 (a quarter) are one swap apart; 99999 has no swap.
    const zips = ['27601', '27601', '27610', '99999'];
    const su = estimateRandomPairU(
      buildMatchIndex(
        new InMemoryVoterSnapshot(
          CORE_VOTER_COLUMNS,
          zips.map((zip, i) => {
            const fields: Record<string, string> = { first_name: `A${i}`, last_name: 'B', state: 'NC', zip };
            return CORE_VOTER_COLUMNS.map((c) => fields[c] ?? '');
          }),
        ),
        AS_OF,
      ),
    );
    close(su[at(F.zip, L.zip.transposed)]!, 2 * 0.5 * 0.25, 'transposed');
    close(su[at(F.zip, L.zip.exact)]!, 0.5 ** 2 + 2 * 0.25 ** 2, 'exact');
    close(su[at(F.zip, L.zip.differ)]!, 1 - 0.25 - 0.375, 'differ');
    // The fixture's ZIPs are no swap of one another: the floor, half a voter pair's chance.
    close(u[at(F.zip, L.zip.transposed)]!, 0.5 / ROWS.length, 'no swaps');
  });

  it('gives u in (0, 1] for an empty voter file', () => {
    const su = estimateRandomPairU(buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, []), AS_OF));
    for (let f = 0; f < FIELD_COUNT; f++) {
      for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) {
        const value = su[at(f, l)]!;
        assert.ok(value > 0 && value <= 1, `field ${f} level ${l}: ${value}`);
      }
    }
  });

  it('keeps every u in (0, 1] for a single-state voter file', {}, () => {
    const nc: Record<string, string>[] = ROWS.map((fields) => ({ ...fields, state: 'NC' }));
    const su = estimateRandomPairU(
      buildMatchIndex(
        new InMemoryVoterSnapshot(
          CORE_VOTER_COLUMNS,
          nc.map((fields) => CORE_VOTER_COLUMNS.map((column) => fields[column] ?? '')),
        ),
        AS_OF,
      ),
    );
    assert.ok(su[at(F.state, L.binary.exact)]! > 0.99); // every random pair agrees
    const differ = su[at(F.state, L.binary.differ)]!;
    assert.ok(differ > 0 && differ < 1, `u(state=differ) = ${differ}`);
  });
});

describe('voterAsPerson', () => {
  it("reproduces a voter's indexed fields (phones and e-mail are not kept per voter)", () => {
    const read = voterFieldReader(VOTERS.columns);
    for (const voter of [0, 1, 17, 250, 599]) {
      const expected = normalizeVoter(read(VOTERS.record(voter)), AS_OF);
      const person = voterAsPerson(index, voter);
      assert.deepEqual(
        { ...person, lat: 0, lon: 0 },
        { ...expected, phones: [], email: '', lat: 0, lon: 0 },
        `voter ${voter}`,
      );
      // Coordinates are stored as 32-bit floats.
      if (Number.isNaN(expected.lat)) assert.ok(Number.isNaN(person.lat) && Number.isNaN(person.lon));
      else {
        assert.equal(person.lat, Math.fround(expected.lat));
        assert.equal(person.lon, Math.fround(expected.lon));
      }
    }
  });

  it('keeps a leading-zero ZIP and a year-only dob', () => {
    const fields = { first_name: 'ANA', last_name: 'SILVA', zip: '02138', dob: '1975', state: 'MA' };
    const one = buildMatchIndex(
      new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, [
        CORE_VOTER_COLUMNS.map((column) => (fields as Record<string, string>)[column] ?? ''),
      ]),
      AS_OF,
    );
    const person = voterAsPerson(one, 0);
    assert.equal(person.zip, '02138');
    assert.deepEqual(person.dob, { year: 1975, month: 0, day: 0 });
    assert.equal(person.state, 'MA');
    assert.equal(person.gender, '');
    assert.ok(Number.isNaN(person.lat));
  });
});
