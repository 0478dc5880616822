import assert from 'node:assert/strict';
import { test } from 'node:test';
import { downloadBase } from './result-files.ts';

test('download names: no doubled .csv, no trailing dots, never empty', () => {
  assert.equal(downloadBase('tmc_1a2b3c4d-5.csv'), 'tmc_1a2b3c4d-5');
  assert.equal(downloadBase('ripple_1234567890123'), 'ripple_1234567890123');
  assert.equal(downloadBase('list.'), 'list');
  assert.equal(downloadBase('x.csv.'), 'x.csv');
  assert.equal(downloadBase('a.CSV'), 'a');
  assert.equal(downloadBase('_.'), '_');
});
