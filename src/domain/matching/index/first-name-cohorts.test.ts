import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FirstNameCohortCount } from './first-name-cohorts.ts';

describe('FirstNameCohortCount', () => {
  // A file of 2,000 voters named 3 born over 70 years; names 1 and 2: 100 voters each, name 1
  // all born in 1960 or 1961, name 2 spread over the 70 years like the file.
  const counted = () => {
    const count = new FirstNameCohortCount(5);
    for (let i = 0; i < 2000; i++) count.add(3, (1930 + (i % 70)) * 10000 + 101);
    for (let i = 0; i < 100; i++) count.add(1, (1960 + (i % 2)) * 10000 + 101);
    for (let i = 0; i < 100; i++) count.add(2, (1930 + (i % 70)) * 10000 + 101);
    return count;
  };

  it('a name whose voters share their years is concentrated, one spread like the file is not', () => {
    const ratios = counted().concentrations();
    assert.ok(ratios[1]! > 5, `concentrated name: ${ratios[1]}`);
    assert.ok(ratios[2]! < 1.2, `spread name: ${ratios[2]}`);
    assert.ok(Math.abs(ratios[3]! - 1) < 0.2, `the file's own spread: ${ratios[3]}`);
    assert.equal(ratios[0], 1, 'the empty name');
    assert.equal(ratios[4], 1, 'a name no voter has');
  });

  it('voters without a date, or without a first name, are not counted', () => {
    const count = counted();
    const before = count.concentrations();
    count.add(1, 0);
    count.add(0, 19600101);
    assert.deepEqual(count.concentrations(), before);
  });

  it('a rare name is pulled toward 1', () => {
    const count = new FirstNameCohortCount(3);
    for (let i = 0; i < 1000; i++) count.add(1, (1930 + (i % 70)) * 10000 + 101);
    count.add(2, 19800101);
    count.add(2, 19800101);
    const ratios = count.concentrations();
    // Two voters of one year: alone they would say 70 times the file; with 20 voters at 1, about 7.
    assert.ok(ratios[2]! > 1 && ratios[2]! < 10, `rare name: ${ratios[2]}`);
  });

  it('counts past a batch of keys as within one: a file of 1.1M voters', () => {
    // Name 1: 700,000 voters born in 1960; name 2: 400,000 over 1970 and 1971, every other one.
    const count = new FirstNameCohortCount(3);
    for (let i = 0; i < 1_100_000; i++) {
      if (i % 11 < 7) count.add(1, 19600101);
      else count.add(2, (i % 2 === 0 ? 1970 : 1971) * 10000 + 101);
    }
    const ratios = count.concentrations();
    // The unbiased shares of pairs born in one year, by their counts (see the class).
    const pairShare = (counts: number[]) => {
      const n = counts.reduce((a, b) => a + b, 0);
      return (counts.reduce((a, c) => a + c * c, 0) - n) / (n * (n - 1));
    };
    const file = pairShare([700_000, 200_000, 200_000]);
    const expected = (n: number, share: number) => (n * (share / file) + 20) / (n + 20);
    assert.equal(ratios[1], Math.fround(expected(700_000, 1)));
    assert.equal(ratios[2], Math.fround(expected(400_000, pairShare([200_000, 200_000]))));
  });
});
