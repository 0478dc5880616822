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

test('build() from pairs equals inserting one by one, including the order of equal hashes', () => {
  const pairs = new Float64Array(2 * 20_001);
  for (let i = 0; i < 20_000; i++) {
    pairs[i * 2] = hash52(`OH|${i}`);
    pairs[i * 2 + 1] = i;
  }
  pairs[40_000] = hash52('OH|7');
  pairs[40_001] = 55_555;
  const built = IdHashTable.build(pairs, 20_001);
  assert.equal(built.count, 20_001);
  assert.deepEqual(built.find(hash52('OH|7')), [7, 55_555]);
  for (let i = 0; i < 20_000; i += 997) assert.deepEqual(built.find(hash52(`OH|${i}`)), [i]);
  assert.deepEqual(built.find(hash52('OH|20000')), []);
});

test('insertUnique refuses the same key but keeps colliding different keys', () => {
  const table = IdHashTable.create();
  const keyOf = ['A', 'B', 'A'];
  assert.equal(
    table.insertUnique(42, 0, (r) => keyOf[r] === 'A'),
    true,
  );
  // Same hash, different key (a collision): stored beside it.
  assert.equal(
    table.insertUnique(42, 1, (r) => keyOf[r] === 'B'),
    true,
  );
  assert.equal(
    table.insertUnique(42, 2, (r) => keyOf[r] === 'A'),
    false,
  );
  assert.deepEqual(table.find(42), [0, 1]);
  assert.equal(table.count, 2);
});
