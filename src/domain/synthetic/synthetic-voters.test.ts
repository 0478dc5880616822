import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STATES } from './reference-data.ts';
import {
  CONTACT_COLUMNS,
  contactListCsv,
  generateVoterRows,
  SYNTHETIC_STATES,
  sampleContactList,
  VOTER_COLUMNS,
} from './synthetic-voters.ts';

const col = Object.fromEntries(VOTER_COLUMNS.map((name, i) => [name, i])) as Record<
  (typeof VOTER_COLUMNS)[number],
  number
>;
const ROWS = [...generateVoterRows({ rows: 50_000, seed: 7 })];

function value(row: readonly string[], name: (typeof VOTER_COLUMNS)[number]): string {
  return row[col[name]]!;
}

function share(predicate: (row: readonly string[]) => boolean): number {
  return ROWS.filter(predicate).length / ROWS.length;
}

test('the same options give identical rows, and a longer run extends a shorter one', () => {
  const again = [...generateVoterRows({ rows: 50_000, seed: 7 })];
  assert.deepEqual(again, ROWS);
  assert.deepEqual([...generateVoterRows({ rows: 1234, seed: 7 })], ROWS.slice(0, 1234));
});

test('a different seed gives different rows', () => {
  const other = [...generateVoterRows({ rows: 1000, seed: 8 })];
  const same = other.filter((row, i) => row.join(',') === ROWS[i]!.join(',')).length;
  assert.equal(same, 0);
});

test('yields exactly the requested number of rows', () => {
  for (const rows of [0, 1, 2, 3, 17]) {
    assert.equal([...generateVoterRows({ rows, seed: 1 })].length, rows);
  }
});

test('ids are unique across 50k rows (voter_id and smartvan_id within a state)', () => {
  const unique = (key: (row: readonly string[]) => string) => new Set(ROWS.map(key)).size;
  assert.equal(
    unique((r) => value(r, 'voterbase_id')),
    ROWS.length,
  );
  assert.equal(
    unique((r) => value(r, 'exact_track')),
    ROWS.length,
  );
  assert.equal(
    unique((r) => `${value(r, 'state')}|${value(r, 'voter_id')}`),
    ROWS.length,
  );
  assert.equal(
    unique((r) => `${value(r, 'state')}|${value(r, 'smartvan_id')}`),
    ROWS.length,
  );
  // The matcher compares voter_id without leading zeros: still unique.
  assert.equal(
    unique((r) => `${value(r, 'state')}|${Number(value(r, 'voter_id'))}`),
    ROWS.length,
  );
});

test('ids have the documented formats', () => {
  for (const row of ROWS) {
    const state = value(row, 'state');
    assert.match(value(row, 'voterbase_id'), new RegExp(`^${state}-\\d{9}$`));
    assert.match(value(row, 'voter_id'), /^\d{10}$/);
    assert.match(value(row, 'smartvan_id'), /^[1-9]\d{7,8}$/);
    assert.match(value(row, 'exact_track'), /^ET[0-9A-Z]{10}$/);
  }
});

test('every row has one value per column and none needs CSV quoting', () => {
  for (const row of ROWS) {
    assert.equal(row.length, VOTER_COLUMNS.length);
    for (const cell of row) {
      assert.equal(typeof cell, 'string');
      assert.doesNotMatch(cell, /[",\r\n]/);
      assert.equal(cell, cell.trim());
    }
  }
});

test('the states filter is respected, case-insensitively, and unknown states are refused', () => {
  const rows = [...generateVoterRows({ rows: 5000, seed: 3, states: ['nc', 'WI'] })];
  assert.deepEqual(new Set(rows.map((r) => value(r, 'state'))), new Set(['NC', 'WI']));
  for (const row of rows) assert.ok(value(row, 'voterbase_id').startsWith(`${value(row, 'state')}-`));
  assert.throws(() => generateVoterRows({ rows: 1, seed: 1, states: ['ZZ'] }), RangeError);
  assert.throws(() => generateVoterRows({ rows: 1, seed: 1, states: [] }), RangeError);
  assert.throws(() => generateVoterRows({ rows: -1, seed: 1 }), RangeError);
  assert.throws(() => generateVoterRows({ rows: 1, seed: 0.5 }), RangeError);
  assert.deepEqual(new Set(ROWS.map((r) => value(r, 'state'))), new Set(SYNTHETIC_STATES));
});

test('dob is YYYYMMDD (or YYYY) for ages 18-95 on 2026-01-01', () => {
  let yearOnly = 0;
  for (const row of ROWS) {
    const dob = value(row, 'dob');
    if (/^\d{4}$/.test(dob)) {
      yearOnly++;
      assert.ok(Number(dob) >= 1930 && Number(dob) <= 2008, dob);
      continue;
    }
    assert.match(dob, /^\d{8}$/);
    const [y, m, d] = [Number(dob.slice(0, 4)), Number(dob.slice(4, 6)), Number(dob.slice(6))];
    const date = new Date(Date.UTC(y, m - 1, d));
    assert.equal(date.getUTCMonth(), m - 1, dob);
    assert.equal(date.getUTCDate(), d, dob);
    assert.ok(dob >= '19300102' && dob <= '20080101', dob);
  }
  assert.ok(yearOnly > 0 && yearOnly < ROWS.length * 0.1);
});

test('city, zip, coordinates and phones agree with the state', () => {
  const cities = new Map(STATES.flatMap((s) => s.cities.map((c) => [`${s.code}|${c.name}`, c] as const)));
  for (const row of ROWS) {
    const city = cities.get(`${value(row, 'state')}|${value(row, 'city')}`);
    assert.ok(city, `${value(row, 'state')} ${value(row, 'city')}`);
    const zip = Number(value(row, 'zip'));
    assert.match(value(row, 'zip'), /^\d{5}$/);
    assert.ok(zip >= city.zipStart && zip < city.zipStart + city.zipCount);
    assert.match(value(row, 'latitude'), /^-?\d+\.\d{6}$/);
    assert.ok(Math.abs(Number(value(row, 'latitude')) - city.latitude) < 0.5);
    assert.ok(Math.abs(Number(value(row, 'longitude')) - city.longitude) < 0.7);
    const phones = ['landline_phone', 'wireless_phone', 'voip_phone'] as const;
    const present = phones.map((p) => value(row, p)).filter((p) => p !== '');
    assert.ok(present.length <= 2);
    for (const phone of present) {
      assert.match(phone, /^[2-9]\d{2}[2-9]\d{6}$/);
      assert.ok(city.areaCodes.includes(Number(phone.slice(0, 3))), phone);
    }
  }
});

test('categorical values stay in their vocabularies', () => {
  for (const row of ROWS) {
    assert.match(value(row, 'gender'), /^[FMU]$/);
    assert.match(value(row, 'party'), /^(DEM|REP|UNA|LIB)$/);
    assert.match(value(row, 'registration_status'), /^(ACTIVE|INACTIVE)$/);
    assert.match(value(row, 'vote_2024_general'), /^[YN]?$/);
    assert.match(value(row, 'vote_2022_general'), /^[YN]?$/);
    assert.match(value(row, 'name_suffix'), /^(JR|SR|II|III)?$/);
    assert.match(value(row, 'address1'), /^\d{1,4} [A-Z0-9 ]+$/);
    assert.match(value(row, 'address2'), /^((APT|UNIT|LOT) [0-9]+[A-F]?)?$/);
    const email = value(row, 'email');
    if (email !== '') assert.match(email, /^[a-z0-9._]+@[a-z]+\.(com|net)$/);
    for (const name of ['first_name', 'middle_name', 'last_name'] as const) {
      const text = value(row, name);
      assert.equal(text, text.toUpperCase());
    }
  }
});

test('names and households look like a voter file', () => {
  const middle = share((r) => value(r, 'middle_name') !== '');
  assert.ok(middle > 0.33 && middle < 0.47, `middle names ${middle}`);
  assert.ok(share((r) => value(r, 'middle_name').length === 1) > 0.05);
  const suffix = share((r) => value(r, 'name_suffix') !== '');
  assert.ok(suffix > 0.015 && suffix < 0.05, `suffixes ${suffix}`);
  const email = share((r) => value(r, 'email') !== '');
  assert.ok(email > 0.45 && email < 0.55, `emails ${email}`);
  assert.ok(share((r) => value(r, 'gender') === 'U') > 0);

  const surnames = new Map<string, number>();
  for (const row of ROWS)
    surnames.set(value(row, 'last_name'), (surnames.get(value(row, 'last_name')) ?? 0) + 1);
  const top = Math.max(...surnames.values());
  assert.ok(top > ROWS.length * 0.02, 'the most common surname repeats a lot');
  assert.ok(
    [...surnames.keys()].some((s) => /[' -]/.test(s)),
    'some hyphenated or multi-word surnames',
  );
  assert.ok(
    ROWS.some((r) => /[^\x20-\x7e]/.test(value(r, 'last_name') + value(r, 'first_name'))),
    'some non-ASCII names',
  );

  // Households: consecutive rows at one address, mostly 1-4 people, usually one surname.
  const address = (r: readonly string[]) =>
    ['address1', 'address2', 'zip', 'city'].map((c) => value(r, c as never));
  let shared = 0;
  let sameSurname = 0;
  let run = 1;
  let longest = 1;
  for (let i = 1; i < ROWS.length; i++) {
    const same = address(ROWS[i]!).join('|') === address(ROWS[i - 1]!).join('|');
    run = same ? run + 1 : 1;
    longest = Math.max(longest, run);
    if (!same) continue;
    shared++;
    if (value(ROWS[i]!, 'last_name') === value(ROWS[i - 1]!, 'last_name')) sameSurname++;
    assert.equal(value(ROWS[i]!, 'latitude'), value(ROWS[i - 1]!, 'latitude'));
  }
  assert.ok(shared > ROWS.length * 0.3, `rows sharing the previous row's address: ${shared}`);
  assert.ok(sameSurname > shared * 0.6);
  assert.ok(longest <= 8, 'households are small (two adjacent may collide by chance)');
});

test('sampleContactList mixes copied voters (some with voter_id) and invented non-members', () => {
  const voters = ROWS.slice(0, 2000);
  const list = sampleContactList({ voters, rows: 40, seed: 5, matchRate: 0.5 });
  assert.deepEqual(list.header, [...CONTACT_COLUMNS]);
  assert.equal(list.rows.length, 40);
  assert.equal(list.members.size, 20);
  const byVoterbase = new Map(voters.map((v) => [value(v, 'voterbase_id'), v]));
  let withId = 0;
  list.rows.forEach((row, i) => {
    assert.equal(row.length, CONTACT_COLUMNS.length);
    assert.equal(row[0], `MB${String(i + 1).padStart(6, '0')}`);
    const voterbaseId = list.members.get(row[0]!);
    if (voterbaseId === undefined) {
      assert.equal(row[7], '');
      assert.ok(Number(row[3]!.split(' ')[0]) >= 10_000, 'non-member addresses are not in the file');
      return;
    }
    const voter = byVoterbase.get(voterbaseId)!;
    assert.deepEqual(
      [row[1], row[2], row[3], row[4], row[5], row[6], row[8]],
      ['first_name', 'last_name', 'address1', 'city', 'state', 'zip', 'email'].map((c) =>
        value(voter, c as never),
      ),
    );
    if (row[7] !== '') {
      withId++;
      assert.equal(row[7], value(voter, 'voter_id'));
    }
  });
  assert.equal(withId, 10);

  const again = sampleContactList({ voters, rows: 40, seed: 5, matchRate: 0.5 });
  assert.deepEqual(again, list);
  const csv = contactListCsv(list);
  assert.equal(csv.split('\n')[0], CONTACT_COLUMNS.join(','));
  assert.equal(csv.trimEnd().split('\n').length, 41);
});

test('sampleContactList reads a voter generator and tops up when voters run short', () => {
  const list = sampleContactList({
    voters: generateVoterRows({ rows: 3, seed: 1, states: ['PA'] }),
    rows: 10,
    seed: 1,
    matchRate: 0.8,
    idRate: 1,
  });
  assert.equal(list.rows.length, 10);
  assert.equal(list.members.size, 3);
  assert.ok(list.rows.every((row) => row[5] === 'PA'));
  assert.equal(list.rows.filter((row) => row[7] !== '').length, 3);
  assert.throws(() => sampleContactList({ voters: [], rows: 1, seed: 1, matchRate: 2 }), RangeError);
});
