import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addExact, addExactParts, roundExact } from './exact-sum.ts';

const sumOf = (terms: readonly number[]) => {
  const parts: number[] = [];
  for (const term of terms) addExact(parts, term);
  return parts;
};

/** A deterministic stream of odds of very different sizes (as a person's candidates have). */
function terms(count: number, seed: number): number[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from({ length: count }, () => 2 ** (next() * 60 - 30) * (1 + next()));
}

describe('exact sums', () => {
  it('are exact where plain addition is not', () => {
    assert.equal(roundExact(sumOf([1e16, 1, -1e16])), 1);
    assert.notEqual(1e16 + 1 - 1e16, 1);
    assert.equal(roundExact(sumOf(Array(10).fill(0.1))), 1);
    assert.notEqual(
      Array(10)
        .fill(0.1)
        .reduce((a, b) => a + b, 0),
      1,
    );
    assert.equal(roundExact([]), 0);
  });

  it('do not depend on the order of the terms, nor on how they are split into parts', () => {
    const all = terms(500, 7);
    const whole = roundExact(sumOf(all));
    const reversed = roundExact(sumOf([...all].reverse()));
    const sorted = roundExact(sumOf([...all].sort((a, b) => a - b)));
    assert.equal(reversed, whole);
    assert.equal(sorted, whole);
    // As four shards would give them: each part's own exact sum, then the parts added.
    const merged: number[] = [];
    for (let shard = 0; shard < 4; shard++)
      addExactParts(merged, sumOf(all.filter((_, i) => i % 4 === shard)));
    assert.equal(roundExact(merged), whole);
    // Plain addition differs between these orders (what made a sharded fit differ).
    const plain = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    assert.ok(
      plain(all) !== plain([...all].reverse()) || plain(all) !== plain([...all].sort((a, b) => a - b)),
      'the test terms round differently in plain sums',
    );
  });

  it('subtract exactly: a sum less its own terms is what remains', () => {
    const all = terms(50, 3);
    const parts = sumOf(all);
    for (const term of all.slice(10)) addExact(parts, -term);
    assert.equal(roundExact(parts), roundExact(sumOf(all.slice(0, 10))));
  });

  it('hold a sum past the range of a double as infinite, in a form JSON carries', () => {
    const parts = sumOf([Number.MAX_VALUE, Number.MAX_VALUE, 1]);
    assert.equal(roundExact(parts), Number.POSITIVE_INFINITY);
    const carried = JSON.parse(JSON.stringify(parts)) as number[];
    addExact(carried, -1e300);
    assert.equal(roundExact(carried), Number.POSITIVE_INFINITY);
    assert.equal(roundExact(sumOf([1, Number.POSITIVE_INFINITY])), Number.POSITIVE_INFINITY);
  });
});
