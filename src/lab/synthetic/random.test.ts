import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Permutation, Rng, WeightedTable } from './random.ts';

test('Rng is deterministic per seed and stream', () => {
  const draw = (seed: number, stream: number) => {
    const rng = new Rng(seed, stream);
    return Array.from({ length: 8 }, () => rng.next());
  };
  assert.deepEqual(draw(1, 0), draw(1, 0));
  assert.notDeepEqual(draw(1, 0), draw(2, 0));
  assert.notDeepEqual(draw(1, 0), draw(1, 1));
  assert.notDeepEqual(draw(1, 0), draw(2 ** 40 + 1, 0));
  const rng = new Rng(3);
  for (let i = 0; i < 10_000; i++) {
    const x = rng.float();
    assert.ok(x >= 0 && x < 1);
    const n = rng.range(-2, 2);
    assert.ok(Number.isInteger(n) && n >= -2 && n <= 2);
  }
});

test('Permutation is a bijection on [0, size), including non-square sizes', () => {
  for (const size of [1, 2, 10, 97, 1000, 65_537]) {
    const permutation = new Permutation(size, 12345);
    const seen = new Set<number>();
    for (let i = 0; i < size; i++) {
      const v = permutation.apply(i);
      assert.ok(Number.isInteger(v) && v >= 0 && v < size);
      seen.add(v);
    }
    assert.equal(seen.size, size);
  }
  const big = new Permutation(36 ** 10, 1);
  assert.ok(big.apply(36 ** 10 - 1) < 36 ** 10);
  assert.notEqual(new Permutation(1000, 1).apply(5), new Permutation(1000, 2).apply(5));
});

test('WeightedTable follows its weights', () => {
  const table = new WeightedTable(['a', 'b', 'c'], [6, 3, 1]);
  const rng = new Rng(9);
  const counts = { a: 0, b: 0, c: 0 };
  for (let i = 0; i < 100_000; i++) counts[table.pick(rng) as 'a' | 'b' | 'c']++;
  assert.ok(Math.abs(counts.a / 100_000 - 0.6) < 0.01);
  assert.ok(Math.abs(counts.c / 100_000 - 0.1) < 0.01);
});
