import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sfc32 } from '../../../lab/synthetic/random.ts';
import { InMemoryVoterSnapshot } from '../../voters/in-memory-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS } from '../../voters/voter-columns.ts';
import { CELL_DEGREES, cellAt, cellOf, KEY } from '../index/blocking-keys.ts';
import { buildMatchIndex } from '../index/build-match-index.ts';
import { type MatchIndex, MatchIndexBuilder } from '../index/match-index.ts';
import { emptyPerson, type InputFields, normalizeInput } from '../normalize/person.ts';
import { distanceMiles, prepareQuery, type Query } from '../score/compare-person.ts';
import { CandidateSet } from './candidate-set.ts';
import {
  type CandidateOptions,
  DEFAULT_CANDIDATE_OPTIONS,
  dynamicRadius,
  generateCandidates,
  keepsTwoDateParts,
  MAX_RADIUS_MILES,
  MIN_RADIUS_MILES,
} from './generate-candidates.ts';

const AS_OF = new Date('2025-06-01T00:00:00Z');
type Column = (typeof CORE_VOTER_COLUMNS)[number];
type Voter = Partial<Record<Column, string>>;

const BASE_LAT = 35.78;
const BASE_LON = -78.64;
/** Three miles due north of the base point. */
const NORTH_3_MILES = (BASE_LAT + 3 / 69.05).toFixed(5);

const VOTERS: Voter[] = [
  /* 0 */ {
    voterbase_id: 'NC-0',
    state: 'NC',
    first_name: 'ROBERT',
    last_name: 'JOHNSON',
    address1: '12 OAK ST',
    city: 'RALEIGH',
    zip: '27601',
    latitude: '35.7800',
    longitude: '-78.6400',
    dob: '19700312',
    gender: 'M',
    email: 'robert.johnson@gmail.com',
    wireless_phone: '9194471042',
  },
  /* 1 */ {
    voterbase_id: 'NC-1',
    state: 'NC',
    first_name: 'MARY',
    last_name: 'SMITH',
    address1: '40 ELM AVE',
    city: 'RALEIGH',
    zip: '27601',
    latitude: '35.7850',
    longitude: '-78.6450',
    dob: '19820704',
    gender: 'F',
  },
  /* 2: three miles north of the base point */ {
    voterbase_id: 'NC-2',
    state: 'NC',
    first_name: 'ALICE',
    last_name: 'WALKER',
    address1: '300 PINE RD',
    city: 'RALEIGH',
    zip: '27609',
    latitude: NORTH_3_MILES,
    longitude: '-78.6400',
    dob: '19900215',
    gender: 'F',
  },
  /* 3: a namesake of 0, in Asheville (about 220 miles west) */ {
    voterbase_id: 'NC-3',
    state: 'NC',
    first_name: 'ROBERT',
    last_name: 'JOHNSON',
    address1: '5 HILL ST',
    city: 'ASHEVILLE',
    zip: '28801',
    latitude: '35.5951',
    longitude: '-82.5515',
    dob: '19651111',
    gender: 'M',
  },
  /* 4: no coordinates */ {
    voterbase_id: 'NC-4',
    state: 'NC',
    first_name: 'JOHN',
    last_name: 'SMITH',
    address1: '42 ELM AVE',
    city: 'RALEIGH',
    zip: '27601',
    dob: '19500101',
    gender: 'M',
  },
  /* 5: same map cell as 1 */ {
    voterbase_id: 'NC-5',
    state: 'NC',
    first_name: 'JAMES',
    middle_name: 'EDWARD',
    last_name: 'SMITH',
    address1: '44 ELM AVE',
    city: 'RALEIGH',
    zip: '27601',
    latitude: '35.7860',
    longitude: '-78.6460',
    dob: '19600606',
    gender: 'M',
  },
];

const snapshotRows = (voters: readonly Voter[]) =>
  voters.map((v) => CORE_VOTER_COLUMNS.map((c) => v[c] ?? ''));
const INDEX = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, snapshotRows(VOTERS)), AS_OF);

function candidates(
  fields: InputFields,
  options: Partial<CandidateOptions> = {},
  index: MatchIndex = INDEX,
): { q: Query; out: CandidateSet } {
  const person = normalizeInput(fields, AS_OF).persons[0]!;
  const q = prepareQuery(index, person);
  const out = new CandidateSet();
  generateCandidates(index, q, { ...DEFAULT_CANDIDATE_OPTIONS, ...options }, out);
  return { q, out };
}

const has = (out: CandidateSet, voter: number, kind: number) => (out.get(voter) & (1 << kind)) !== 0;

function assertFoundBy(out: CandidateSet, voter: number, kind: keyof typeof KEY): void {
  assert.ok(out.has(voter), `voter ${voter} not found (found ${out.voters().join(', ') || 'nobody'})`);
  assert.ok(has(out, voter, KEY[kind]), `voter ${voter} found, but not by ${kind} (bits ${out.get(voter)})`);
}

describe('generateCandidates', () => {
  it('the fixture builds as the tests expect', () => {
    assert.equal(INDEX.size, VOTERS.length);
    assert.equal(cellOf(35.785, -78.645), cellOf(35.786, -78.646), 'voters 1 and 5 share a cell');
    const d = distanceMiles(BASE_LAT, BASE_LON, Number(NORTH_3_MILES), BASE_LON);
    assert.ok(d > 2.9 && d < 3.1, `${d}`);
  });

  describe('name + ZIP', () => {
    it('a surname typo with the same sound: zipLast (and zipFirst)', () => {
      const { out } = candidates({ first_name: 'Robert', last_name: 'Jonson', zip: '27601' });
      assertFoundBy(out, 0, 'zipLast');
      assertFoundBy(out, 0, 'zipFirst');
      assert.ok(!out.has(3), 'the namesake in another ZIP');
    });

    it('a surname typo that changes the sound: zipFirst only', () => {
      const { out } = candidates({ first_name: 'Robert', last_name: 'Kohnson', zip: '27601' });
      assertFoundBy(out, 0, 'zipFirst');
      assert.ok(!has(out, 0, KEY.zipLast));
    });

    it('a nickname (BOB for ROBERT) finds the formal name by zipFirst', () => {
      const { out } = candidates({ first_name: 'Bob', last_name: 'Kohnson', zip: '27601' });
      assertFoundBy(out, 0, 'zipFirst');
      const bob = candidates({ first_name: 'Bob', last_name: 'Johnson', zip: '27601' }).out;
      assertFoundBy(bob, 0, 'zipFirst');
      assertFoundBy(bob, 0, 'zipLast');
    });

    it('a married surname: zipFirst, not zipLast', () => {
      const { out } = candidates({ first_name: 'Mary', last_name: 'Jones', zip: '27601' });
      assertFoundBy(out, 1, 'zipFirst');
      assert.ok(!has(out, 1, KEY.zipLast));
      assert.ok(!out.has(4) && !out.has(5), 'other first names of the ZIP');
    });

    it('a ZIP with two neighbouring digits swapped: zipLast in the ZIP the file has', () => {
      // Voter 2 lives in 27609; 27069 and 27690 are one swap away, and no voter's ZIP.
      for (const zip of ['27069', '27690']) {
        const { out } = candidates({ first_name: 'Alice', last_name: 'Walker', zip });
        assertFoundBy(out, 2, 'zipLast');
        assert.ok(!has(out, 2, KEY.zipFirst), 'the first name is not searched in the swapped ZIP');
      }
      const { out } = candidates({ first_name: 'Alice', last_name: 'Walker', zip: '27608' });
      assert.ok(!out.has(2), 'one digit changed is not a swap');
    });

    it('the ZIP rules out the name + city keys', () => {
      const { out } = candidates({
        first_name: 'Robert',
        last_name: 'Johnson',
        city: 'Raleigh',
        state: 'NC',
        zip: '27601',
      });
      assert.ok(!has(out, 0, KEY.cityLast) && !has(out, 0, KEY.cityFirst));
    });
  });

  describe('name + city, no ZIP', () => {
    it('finds by cityLast and cityFirst', () => {
      const { out } = candidates({
        first_name: 'Robert',
        last_name: 'Johnson',
        city: 'Raleigh',
        state: 'NC',
      });
      assertFoundBy(out, 0, 'cityLast');
      assertFoundBy(out, 0, 'cityFirst');
      assert.ok(!out.has(3), 'the namesake in Asheville');
    });

    it('a changed surname: cityFirst only', () => {
      const { out } = candidates({ first_name: 'Mary', last_name: 'Jones', city: 'Raleigh', state: 'NC' });
      assertFoundBy(out, 1, 'cityFirst');
      assert.ok(!has(out, 1, KEY.cityLast));
    });

    it('state only: the same name anywhere in the state (stateName)', () => {
      const { out } = candidates({ first_name: 'Bob', last_name: 'Johnson', state: 'NC' });
      assertFoundBy(out, 0, 'stateName');
      assertFoundBy(out, 3, 'stateName');
      assert.ok(!out.has(1));
    });
  });

  describe('date of birth and age', () => {
    it('full dob with only the first initial: dobFirst', () => {
      const { out } = candidates({ first_name: 'R', last_name: 'Williams', dob: '03/12/1970' });
      assertFoundBy(out, 0, 'dobFirst');
      assert.ok(!has(out, 0, KEY.dobLast));
      assert.deepEqual(out.voters(), [0]);
    });

    it('a nickname’s initial reaches the formal name’s dob key', () => {
      const { out } = candidates({ first_name: 'Bob', last_name: 'Williams', dob: '1970-03-12' });
      assertFoundBy(out, 0, 'dobFirst');
    });

    it('the wrong initial does not', () => {
      const { out } = candidates({ first_name: 'T', last_name: 'Williams', dob: '1970-03-12' });
      assert.ok(!out.has(0));
    });

    it('day and month swapped: dobFirst and dobLast on the swapped date', () => {
      const { out } = candidates({ first_name: 'Robert', last_name: 'Johnson', dob: '1970-12-03' });
      assertFoundBy(out, 0, 'dobLast');
      assertFoundBy(out, 0, 'dobFirst');
      // Another day of March is 1970-03-12 mistyped: only the year keys find it.
      const other = candidates({ first_name: 'Robert', last_name: 'Johnson', dob: '1970-03-19' }).out;
      assertFoundBy(other, 0, 'lastYear');
      assertFoundBy(other, 0, 'firstYear');
      assert.ok(!has(other, 0, KEY.dobLast) && !has(other, 0, KEY.dobFirst));
      // Another day of December is neither a swap of it nor one mistyped part: no key finds it.
      const december = candidates({ first_name: 'Robert', last_name: 'Johnson', dob: '1970-12-04' }).out;
      assert.ok(!december.has(0));
    });

    it('the year keys keep, for a whole date, the voters with two of its three parts', () => {
      const johnsons = (dob: string, state: string): Voter => ({
        voterbase_id: `${state}-${dob}`,
        state,
        first_name: 'ROBERT',
        last_name: 'JOHNSON',
        zip: state === 'NC' ? '27601' : '44101',
        dob,
      });
      // The row lives in NC; these namesakes live in Ohio, where no key of its place reaches.
      const voters = [
        johnsons('19700312', 'NC'),
        johnsons('19700319', 'OH'), // the day mistyped
        johnsons('19700812', 'OH'), // the month
        johnsons('19710312', 'OH'), // the year, one off
        johnsons('19701203', 'OH'), // day and month swapped
        johnsons('19700000', 'OH'), // a birth year alone: nothing to tell apart
        johnsons('19701204', 'OH'), // two parts
        johnsons('19711119', 'OH'), // three
      ];
      const index = buildMatchIndex(
        new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, snapshotRows(voters)),
        AS_OF,
      );
      const row = { first_name: 'Robert', last_name: 'Johnson', zip: '27601', state: 'NC' };
      const { out } = candidates({ ...row, dob: '1970-03-12' }, {}, index);
      assert.deepEqual(out.voters().sort(), [0, 1, 2, 3, 4, 5]);
      for (const voter of [1, 2, 3, 5]) assertFoundBy(out, voter, 'lastYear');
      // A row with a birth year alone (an age, `1970*`) keeps every voter of its years.
      const byAge = candidates({ ...row, age: '55' }, {}, index).out;
      assert.deepEqual(byAge.voters().sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('a dob a year off: lastYear and firstYear', () => {
      const { out } = candidates({ first_name: 'Robert', last_name: 'Johnson', dob: '1971-03-12' });
      assertFoundBy(out, 0, 'lastYear');
      assertFoundBy(out, 0, 'firstYear');
      assert.ok(!out.has(3), 'born 1965');
    });

    it('an age: the two birth years it allows (and one either side)', () => {
      // 55 on 2025-06-01: born 1969 or 1970.
      const { q, out } = candidates({ first_name: 'Robert', last_name: 'Johnson', age: '55' });
      assert.deepEqual(q.person.birthYears, [1969, 1970]);
      assertFoundBy(out, 0, 'lastYear');
      assertFoundBy(out, 0, 'firstYear');
      assert.ok(!out.has(3), 'born 1965');
      // 59: born 1965 or 1966.
      const older = candidates({ first_name: 'Robert', last_name: 'Johnson', age: '59' }).out;
      assertFoundBy(older, 3, 'lastYear');
      assert.ok(!older.has(0), 'born 1970 is outside 1964-1967');
    });

    it('the middle name as first name with an age: lastYear by the middle initial', () => {
      // JAMES EDWARD SMITH, born 1960, going by EDWARD: 64 on 2025-06-01 allows 1960 and 1961.
      const { out } = candidates({ first_name: 'Edward', last_name: 'Smith', age: '64' });
      assertFoundBy(out, 5, 'lastYear');
      const other = candidates({ first_name: 'Thomas', last_name: 'Smith', age: '64' }).out;
      assert.ok(!other.has(5), 'neither JAMES nor EDWARD begins with T');
    });

    it('first and middle name written as one, under another surname: the first word’s keys', () => {
      // JAMES EDWARD SMITH as JAMES EDWARD WALLACE (a surname the file does not hold there).
      const { out } = candidates({ first_name: 'James Edward', last_name: 'Wallace', zip: '27601' });
      assertFoundBy(out, 5, 'zipFirst');
    });

    it('keepsTwoDateParts: one part mistyped, the day and month swapped, or no whole date', () => {
      const row = 19700312;
      for (const date of [19700312, 19700319, 19700812, 19710312, 19900312, 19701203, 19700000, 0])
        assert.ok(keepsTwoDateParts(date, row), `${date}`);
      for (const date of [19701204, 19710319, 19711203, 19690101])
        assert.ok(!keepsTwoDateParts(date, row), `${date}`);
    });

    it('an age with a misspelled surname: firstYear by the surname initial', () => {
      const { out } = candidates({ first_name: 'Robert', last_name: 'Jameson', age: '55' });
      assertFoundBy(out, 0, 'firstYear');
      assert.ok(!has(out, 0, KEY.lastYear));
    });
  });

  describe('address', () => {
    it('house number + street without a ZIP: houseStreet', () => {
      const { out } = candidates({ address1: '12 Oak Street', state: 'NC' });
      assertFoundBy(out, 0, 'houseStreet');
      assert.deepEqual(out.voters(), [0]);
    });

    it('a row that gives no state is searched by its address and city in every state of the file', () => {
      const twoStates = buildMatchIndex(
        new InMemoryVoterSnapshot(
          CORE_VOTER_COLUMNS,
          snapshotRows([
            {
              voterbase_id: 'NC-0',
              state: 'NC',
              first_name: 'ANN',
              last_name: 'LEE',
              address1: '9 PINE RD',
              city: 'CLINTON',
            },
            {
              voterbase_id: 'SC-0',
              state: 'SC',
              first_name: 'ANN',
              last_name: 'LEE',
              address1: '9 PINE RD',
              city: 'CLINTON',
            },
            { voterbase_id: 'XX-0', first_name: 'ANN', last_name: 'LEE', address1: '9 PINE RD' },
          ]),
        ),
        AS_OF,
      );
      const byAddress = candidates({ address1: '9 Pine Rd' }, {}, twoStates).out;
      for (const voter of [0, 1, 2]) assertFoundBy(byAddress, voter, 'houseStreet');
      const byCity = candidates({ first_name: 'Ann', last_name: 'Lee', city: 'Clinton' }, {}, twoStates).out;
      for (const voter of [0, 1]) assertFoundBy(byCity, voter, 'cityLast');
      // A row's own state keeps the search in it.
      assert.deepEqual(candidates({ address1: '9 Pine Rd', state: 'SC' }, {}, twoStates).out.voters(), [1]);
    });

    it('house number + ZIP with a misspelled street: houseZip', () => {
      const { out } = candidates({ address1: '12 Oka St', zip: '27601' });
      assertFoundBy(out, 0, 'houseZip');
      assert.ok(!has(out, 0, KEY.houseStreet));
    });

    it('another house number on the street is not listed', () => {
      const { out } = candidates({ address1: '14 Oak St', zip: '27601', state: 'NC' });
      assert.ok(!has(out, 0, KEY.houseZip) && !has(out, 0, KEY.houseStreet));
    });
  });

  describe('phone and e-mail', () => {
    for (const phone of [
      '9194471042',
      '(919) 447-1042',
      '919.447.1042',
      '+1 919 447 1042',
      '1-919-447-1042',
    ]) {
      it(`finds the phone written ${phone}`, () => {
        const { q, out } = candidates({ phone });
        assertFoundBy(out, 0, 'phone');
        assert.deepEqual(q.phoneVoters, new Set([0]));
        assert.deepEqual(out.voters(), [0]);
      });
    }

    it('a phone not in the file finds nobody and leaves an empty set', () => {
      const { q, out } = candidates({ phone: '919-867-5309' });
      assert.equal(out.size, 0);
      assert.ok(q.phoneVoters instanceof Set);
      assert.equal(q.phoneVoters.size, 0);
      assert.equal(q.emailVoters, null, 'no e-mail given');
    });

    it('no phone given: phoneVoters stays null', () => {
      assert.equal(candidates({ first_name: 'Robert', last_name: 'Johnson' }).q.phoneVoters, null);
    });

    it('e-mail with Gmail dots, +tag and capitals', () => {
      const { q, out } = candidates({ email: 'Robert.Johnson+news@GMAIL.com' });
      assertFoundBy(out, 0, 'email');
      assert.deepEqual(q.emailVoters, new Set([0]));
      const none = candidates({ email: 'robert.johnson@example.com' });
      assert.equal(none.out.size, 0);
      assert.equal(none.q.emailVoters?.size, 0);
    });
  });

  describe('within a radius', () => {
    it('a similar name near the coordinates: cellLast; a namesake far away is not found', () => {
      const { q, out } = candidates({
        first_name: 'Robert',
        last_name: 'Jonson',
        latitude: '35.7830',
        longitude: '-78.6420',
      });
      assert.equal(q.location?.source, 'coordinates');
      assertFoundBy(out, 0, 'cellLast');
      assert.ok(q.radiusMiles >= MIN_RADIUS_MILES && q.radiusMiles <= MAX_RADIUS_MILES);
      assert.ok(!out.has(3), 'Asheville is far outside any radius');
    });

    it('latitude and longitude the wrong way round: the point where the file has voters', () => {
      const { q, out } = candidates({
        first_name: 'Robert',
        last_name: 'Jonson',
        latitude: '-78.6420',
        longitude: '35.7830',
      });
      assert.deepEqual([q.location?.lat, q.location?.lon], [35.783, -78.642]);
      assertFoundBy(out, 0, 'cellLast');
      // Where the given point has voters, or neither has, it is kept.
      assert.deepEqual(
        [candidates({ last_name: 'Jonson', latitude: '35.7830', longitude: '-78.6420' }).q.location?.lat],
        [35.783],
      );
      assert.deepEqual(
        [candidates({ last_name: 'Jonson', latitude: '-10', longitude: '20' }).q.location?.lat],
        [-10],
      );
    });

    it('a changed surname near the coordinates is found by first name', () => {
      const { out } = candidates({
        first_name: 'Mary',
        last_name: 'Jones',
        latitude: '35.7850',
        longitude: '-78.6440',
      });
      assert.ok(out.has(1));
      assert.ok(!out.has(0) && !out.has(4) && !out.has(5));
    });

    it('respects search_radius: 3 miles away is in at 5 and out at 1', () => {
      const input = { first_name: 'Alice', last_name: 'Walker', latitude: '35.78', longitude: '-78.64' };
      const wide = candidates(input, { searchRadiusMiles: 5 });
      assert.equal(wide.q.radiusMiles, 5);
      assertFoundBy(wide.out, 2, 'cellLast');
      const narrow = candidates(input, { searchRadiusMiles: 1 });
      assert.equal(narrow.q.radiusMiles, 1);
      assert.ok(!narrow.out.has(2));
      // At 2.9 miles the voter's map cell is scanned: the distance itself must exclude it.
      const justShort = candidates(input, { searchRadiusMiles: 2.9 });
      assert.ok(!justShort.out.has(2));
      const dynamic = candidates(input);
      assert.equal(dynamic.q.radiusMiles, dynamicRadius(INDEX, 35.78, -78.64));
    });

    it('no name: no radius search', () => {
      const { q, out } = candidates({ latitude: '35.78', longitude: '-78.64' });
      assert.equal(q.location?.source, 'coordinates');
      assert.equal(out.size, 0);
      assert.equal(q.radiusMiles, 0);
    });
  });

  describe('dynamicRadius', () => {
    // A dense cluster (3000 voters in one map cell) and one isolated voter.
    const builder = new MatchIndexBuilder();
    const CLUSTER = 3000;
    for (let i = 0; i < CLUSTER; i++) {
      const person = emptyPerson();
      person.last = 'SMITH';
      person.lat = 35.781 + (i % 50) * 0.0001;
      person.lon = -78.639 - Math.floor(i / 50) * 0.0001;
      builder.add(i, person);
    }
    const lone = emptyPerson();
    lone.last = 'HERMIT';
    lone.lat = 45.1;
    lone.lon = -100.1;
    builder.add(CLUSTER, lone);
    const index = builder.finish();

    it('is smaller in a dense cluster than at an isolated point, within the bounds', () => {
      const dense = dynamicRadius(index, 35.781, -78.639);
      const isolated = dynamicRadius(index, 45.1, -100.1);
      assert.ok(dense < isolated, `${dense} < ${isolated}`);
      for (const r of [dense, isolated]) assert.ok(r >= MIN_RADIUS_MILES && r <= MAX_RADIUS_MILES, `${r}`);
      // About 1500 voters within the radius at the density of the 3 × 3 cells around the point.
      const cellMiles = CELL_DEGREES * 69.05;
      const area = 9 * cellMiles * cellMiles * Math.cos((35.781 * Math.PI) / 180);
      const expected = Math.PI * dense * dense * (CLUSTER / area);
      assert.ok(Math.abs(expected - 1500) < 1, `${expected} voters in the radius`);
      // One voter would need a radius far over the maximum: clamped.
      assert.equal(isolated, MAX_RADIUS_MILES);
      assert.equal(dynamicRadius(index, 0.5, 0.5), MAX_RADIUS_MILES, 'nobody around');
    });

    it('counts the 3 × 3 cells around a point as cell-by-cell counts do, across the antimeridian too', () => {
      const spread = new MatchIndexBuilder();
      const rng = new Sfc32(3, 4, 5);
      const random = () => rng.float();
      const places = [
        [35.78, -78.64],
        [51.5, 179.99],
        [51.5, -179.99],
      ] as const;
      for (let i = 0; i < 3000; i++) {
        const [lat, lon] = places[i % 3]!;
        const person = emptyPerson();
        person.last = 'SMITH';
        person.lat = lat + (random() - 0.5) * 0.1;
        person.lon = Math.max(-180, Math.min(179.999999, lon + (random() - 0.5) * 0.1));
        spread.add(i, person);
      }
      const spreadIndex = spread.finish();
      const cellByCell = (lat: number, lon: number) => {
        const row = Math.floor((lat + 90) / CELL_DEGREES);
        const column = Math.floor((lon + 180) / CELL_DEGREES);
        let voters = 0;
        for (let dr = -1; dr <= 1; dr++)
          for (let dc = -1; dc <= 1; dc++) voters += spreadIndex.cellCount(cellAt(row + dr, column + dc));
        return voters;
      };
      for (let k = 0; k < 300; k++) {
        const [lat, lon] = places[k % 3]!;
        const qLat = lat + (random() - 0.5) * 0.12;
        const qLon = Math.max(-180, Math.min(179.999999, lon + (random() - 0.5) * 0.12));
        const voters = cellByCell(qLat, qLon);
        const radius = dynamicRadius(spreadIndex, qLat, qLon);
        if (voters === 0) assert.equal(radius, MAX_RADIUS_MILES);
        else {
          const cellMiles = CELL_DEGREES * 69.05;
          const area = 9 * cellMiles * cellMiles * Math.max(0.2, Math.cos((qLat * Math.PI) / 180));
          const expected = Math.sqrt(1500 / (Math.PI * (voters / area)));
          assert.equal(
            radius,
            Math.min(MAX_RADIUS_MILES, Math.max(MIN_RADIUS_MILES, expected)),
            `${qLat}, ${qLon}`,
          );
        }
      }
    });

    it('counts the neighbouring cells too', () => {
      // Next to the cluster's cell (not in it), the cluster still counts.
      const next = dynamicRadius(index, 35.781 + CELL_DEGREES, -78.639);
      assert.ok(next < MAX_RADIUS_MILES, `${next}`);
      const twoAway = dynamicRadius(index, 35.781 + 2.5 * CELL_DEGREES, -78.639);
      assert.equal(twoAway, MAX_RADIUS_MILES);
    });

    it('never goes below the minimum however dense', () => {
      const cell = cellOf(40.7, -74);
      const crowded = new (index.constructor as typeof MatchIndex)({
        ...index.data,
        cellIds: Uint32Array.of(cell),
        cellCounts: Uint32Array.of(2_000_000),
      });
      assert.equal(dynamicRadius(crowded, 40.7, -74), MIN_RADIUS_MILES);
    });

    it('the radius search uses it for a query', () => {
      const { q } = candidates({ last_name: 'Smith', latitude: '35.781', longitude: '-78.639' }, {}, index);
      assert.equal(q.radiusMiles, dynamicRadius(index, 35.781, -78.639));
      assert.ok(q.radiusMiles < 2);
    });
  });

  describe('maxPostings', () => {
    it('skips a key listing more voters than maxPostings', () => {
      // ZIP 27601 + SMITH lists voters 1, 4 and 5.
      const input = { first_name: 'John', last_name: 'Smith', zip: '27601' };
      const at3 = candidates(input, { maxPostings: 3 }).out;
      for (const voter of [1, 4, 5]) assertFoundBy(at3, voter, 'zipLast');
      const at2 = candidates(input, { maxPostings: 2 }).out;
      for (const voter of [1, 4, 5]) assert.ok(!has(at2, voter, KEY.zipLast), `voter ${voter}`);
      // The rarer key (ZIP + JOHN) still finds John.
      assertFoundBy(at2, 4, 'zipFirst');
    });

    it('applies to the map-cell keys of the radius search', () => {
      // The cell of voters 1 and 5 lists two SMITHs.
      const input = { last_name: 'Smith', latitude: '35.7855', longitude: '-78.6455' };
      const at2 = candidates(input, { maxPostings: 2 }).out;
      assertFoundBy(at2, 1, 'cellLast');
      assertFoundBy(at2, 5, 'cellLast');
      const at1 = candidates(input, { maxPostings: 1 }).out;
      assert.ok(!at1.has(1) && !at1.has(5));
    });
  });

  describe('location of the row', () => {
    it('its own coordinates first', () => {
      const { q } = candidates({
        last_name: 'Johnson',
        address1: '12 Oak St',
        zip: '27601',
        latitude: '35.7',
        longitude: '-78.5',
      });
      assert.deepEqual(q.location, { lat: 35.7, lon: -78.5, source: 'coordinates' });
    });

    it('else the coordinates of a voter at the address', () => {
      const { q, out } = candidates({ last_name: 'Johnson', address1: '12 Oak St', zip: '27601' });
      assert.deepEqual(q.location, {
        lat: INDEX.data.fields.lat(0),
        lon: INDEX.data.fields.lon(0),
        source: 'address',
      });
      assertFoundBy(out, 0, 'houseZip');
    });

    it('else the ZIP centroid (an unknown address, or one whose voter has no coordinates)', () => {
      const centroid = INDEX.zipCentroid(27601);
      assert.ok(centroid !== null);
      for (const address1 of ['99 Nowhere Ln', '42 Elm Ave']) {
        const { q } = candidates({ last_name: 'Johnson', address1, zip: '27601' });
        assert.deepEqual(q.location, { lat: centroid[0], lon: centroid[1], source: 'zip' }, address1);
      }
      // The centroid averages voters 0, 1 and 5 (voter 4 has no coordinates).
      assert.equal(centroid[0], Math.fround((35.78 + 35.785 + 35.786) / 3));
    });

    it('none without coordinates, a known address or a known ZIP', () => {
      assert.equal(candidates({ last_name: 'Johnson', zip: '90210' }).q.location, null);
      assert.equal(candidates({ last_name: 'Johnson', state: 'NC' }).q.location, null);
    });

    it('an address-derived location searches by surname within the radius', () => {
      const { q, out } = candidates(
        { last_name: 'Walker', address1: '12 Oak St', zip: '27601' },
        { searchRadiusMiles: 5 },
      );
      assert.equal(q.location?.source, 'address');
      assertFoundBy(out, 2, 'cellLast');
    });
  });

  it('adds to the bits already in the map', () => {
    const person = normalizeInput({ phone: '9194471042' }, AS_OF).persons[0]!;
    const q = prepareQuery(INDEX, person);
    const out = CandidateSet.of([
      [0, 1 << KEY.email],
      [3, 1 << KEY.zipLast],
    ]);
    generateCandidates(INDEX, q, DEFAULT_CANDIDATE_OPTIONS, out);
    assert.equal(out.get(0), (1 << KEY.email) | (1 << KEY.phone));
    assert.equal(out.get(3), 1 << KEY.zipLast);
  });
});
