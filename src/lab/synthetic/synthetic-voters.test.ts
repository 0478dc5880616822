import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CONTACT_COLUMNS,
  contactListCsv,
  EXTRA_VOTER_COLUMNS,
  generateVoterRows,
  SYNTHETIC_VOTER_COLUMNS,
  sampleContactList,
  VOTER_COLUMNS,
  writeVotersCsv,
} from './synthetic-voters.ts';

const col = Object.fromEntries(VOTER_COLUMNS.map((name, i) => [name, i])) as Record<
  (typeof VOTER_COLUMNS)[number],
  number
>;
const ROWS = [...generateVoterRows({ rows: 20_000, seed: 7 })];

function value(row: readonly string[], name: (typeof VOTER_COLUMNS)[number]): string {
  return row[col[name]]!;
}

test('the facade keeps the voter-file contract: VOTER_COLUMNS, rows in that order, extras appended', () => {
  assert.deepEqual(
    [...VOTER_COLUMNS],
    (
      'voterbase_id,state,voter_id,smartvan_id,exact_track,first_name,middle_name,last_name,name_suffix,' +
      'address1,address2,city,zip,latitude,longitude,dob,gender,email,landline_phone,wireless_phone,' +
      'voip_phone,party,registration_status,vote_2024_general,vote_2022_general'
    ).split(','),
  );
  assert.deepEqual([...SYNTHETIC_VOTER_COLUMNS], [...VOTER_COLUMNS, ...EXTRA_VOTER_COLUMNS]);
  assert.ok(ROWS.every((row) => row.length === VOTER_COLUMNS.length));
  assert.equal(typeof writeVotersCsv, 'function');
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
      assert.ok(Number(row[3]!.split(' ')[0]) >= 90_000, 'non-member addresses are not in the file');
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
