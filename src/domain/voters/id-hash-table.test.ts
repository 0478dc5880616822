import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hash52, IdHashTable } from './id-hash-table.ts';

test('finds every inserted row after growth, with multi-valued keys', () => {
  const table = IdHashTable.create(10);
  for (let i = 0; i < 50_000; i++) table.insert(hash52(`NC-${i}`), i);
  table.insert(hash52('NC-7'), 99_999);
  assert.deepEqual(table.find(hash52('NC-7')), [7, 99_999]);
  assert.deepEqual(table.find(hash52('NC-49999')), [49_999]);
  assert.deepEqual(table.find(hash52('NC-50000')), []);
  assert.equal(table.count, 50_001);
});

test('round-trips through its typed arrays', () => {
  const table = IdHashTable.create();
  table.insert(hash52('A'), 1);
  const copy = new IdHashTable(Float64Array.from(table.slots), table.count);
  assert.deepEqual(copy.find(hash52('A')), [1]);
});

test('hash52 is a non-zero safe integer and spreads similar strings', () => {
  const seen = new Set<number>();
  for (let i = 0; i < 100_000; i++) {
    const h = hash52(String(i));
    assert.ok(Number.isSafeInteger(h) && h > 0);
    seen.add(h);
  }
  assert.equal(seen.size, 100_000);
});
