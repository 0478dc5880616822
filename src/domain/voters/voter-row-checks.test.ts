import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidDob, VoterRowChecker } from './voter-row-checks.ts';

test('dob: full, year-month and year forms; impossible dates refused (leap years right)', () => {
  for (const ok of ['19800101', '20000229', '19960229', '198012', '1980', '18800101'])
    assert.ok(isValidDob(ok), ok);
  for (const bad of [
    '19000229',
    '19810229',
    '19800230',
    '19801301',
    '19800100',
    '198000',
    '1879',
    '2101',
    '80',
    '1980-01-01',
    '',
  ]) {
    assert.ok(!isValidDob(bad), bad);
  }
});

test('clears bad values in place and reports each kind; good values untouched, state upper-cased', () => {
  const checker = new VoterRowChecker(['voterbase_id', 'state', 'dob', 'latitude', 'longitude']);
  const bad = ['X-1', 'North', '19801301', '95', '-78'];
  assert.deepEqual(checker.check(bad), [
    'invalid_dob_cleared',
    'invalid_coordinates_cleared',
    'invalid_state_cleared',
  ]);
  assert.deepEqual(bad, ['X-1', '', '', '', '']);
  const good = ['X-2', 'nc', '1980', '35.77', '-78.63'];
  assert.deepEqual(checker.check(good), []);
  assert.deepEqual(good, ['X-2', 'NC', '1980', '35.77', '-78.63']);
  const half = ['X-3', '', '', '35.77', ''];
  assert.deepEqual(checker.check(half), ['invalid_coordinates_cleared']);
});
