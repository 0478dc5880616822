import assert from 'node:assert/strict';
import { test } from 'node:test';
import { address1, ageOn, NCVR_AS_OF } from './ncvr.ts';

test('age on 2026-01-01 is the completed years of someone born in that year (2025 − year)', () => {
  assert.equal(ageOn('1980', NCVR_AS_OF), '45');
  assert.equal(ageOn(' 2000 ', NCVR_AS_OF), '25');
  assert.equal(ageOn('1980', new Date('2026-06-15T00:00:00Z')), '46');
  assert.equal(ageOn('', NCVR_AS_OF), '');
  assert.equal(ageOn('19x0', NCVR_AS_OF), '');
  assert.equal(ageOn('2030', NCVR_AS_OF), '');
});

test('address1 joins house number and street name, either may be empty', () => {
  assert.equal(address1({ house_number: '12', street_name: 'MAIN ST' }), '12 MAIN ST');
  assert.equal(address1({ house_number: '', street_name: 'RURAL RTE 2' }), 'RURAL RTE 2');
  assert.equal(address1({ house_number: ' 7 ', street_name: '' }), '7');
});
