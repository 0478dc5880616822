import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertFolderFileName,
  assertKeyId,
  isFolderFileName,
  isTemporaryName,
  temporaryName,
} from './folder-names.ts';

test('folder file names: what deliveryArchiveName makes is accepted', () => {
  for (const name of ['tmc_ab12.zip', 'list.zip', 'result.zip', 'A-b_c.1.zip', 'report (2).pdf']) {
    assert.equal(isFolderFileName(name), true, name);
  }
});

test('folder file names: traversal, separators, hidden and control characters are refused', () => {
  for (const name of [
    '',
    '.',
    '..',
    '../key_x/smartmatch/a.zip',
    'a/../b.zip',
    'a/b.zip',
    'a\\b.zip',
    '.hidden.zip',
    '.a.zip.0011aabbcc.part',
    '%2e%2e',
    'a..zip',
    'a\u0000.zip',
    'a\n.zip',
    'trailing.',
    'trailing ',
    '-rf',
    'x'.repeat(201),
  ]) {
    assert.equal(isFolderFileName(name), false, JSON.stringify(name));
    assert.throws(() => assertFolderFileName(name), { code: 'NOT_FOUND' });
  }
});

test('temporary names are hidden, so never listed or served', () => {
  assert.equal(isFolderFileName(temporaryName('a.zip', 'abc')), false);
});

test('key ids must be well-formed before they name a folder', () => {
  assertKeyId('key_01JD0000000000000000000000');
  for (const id of [
    '',
    'key_',
    '..',
    'key_../../etc',
    'key_01jd0000000000000000000000',
    'job_01JD0000000000000000000000',
  ]) {
    assert.throws(() => assertKeyId(id), { code: 'INTERNAL' }, id);
  }
});

test('isTemporaryName recognizes exactly the names temporaryName makes', () => {
  assert.equal(isTemporaryName(temporaryName('list.zip', '0011aabbccdd')), true);
  for (const name of ['.profile', 'list.zip', '.list.zip.part', '.x.0011aabbccdd.partial']) {
    assert.equal(isTemporaryName(name), false, name);
  }
});
