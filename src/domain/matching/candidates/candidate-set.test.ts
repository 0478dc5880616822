import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CandidateSet } from './candidate-set.ts';

describe('CandidateSet', () => {
  it('ORs the bits of a voter found twice and keeps the order of first finding', () => {
    const set = new CandidateSet(16);
    set.add(7, 1);
    set.add(3, 2);
    set.add(7, 4);
    assert.equal(set.size, 2);
    assert.deepEqual(set.voters(), [7, 3]);
    assert.equal(set.get(7), 5);
    assert.equal(set.bitsAt(0), 5);
    assert.equal(set.get(3), 2);
    assert.equal(set.get(99), 0);
    assert.ok(set.has(3) && !set.has(99));
  });

  it('agrees with a Map over many random adds, through growth and clears', () => {
    const set = new CandidateSet(16);
    let seed = 12345;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (let round = 0; round < 20; round++) {
      set.clear();
      const reference = new Map<number, number>();
      const adds = 1 + (random() % 5000);
      for (let i = 0; i < adds; i++) {
        // Small ranges collide often; large ones spread over the table.
        const voter = round % 2 === 0 ? random() % 300 : random() % 2 ** 31;
        const bit = 1 << (random() % 12);
        set.add(voter, bit);
        reference.set(voter, (reference.get(voter) ?? 0) | bit);
      }
      assert.equal(set.size, reference.size);
      assert.deepEqual(set.voters(), [...reference.keys()]);
      for (let i = 0; i < set.size; i++) assert.equal(set.bitsAt(i), reference.get(set.voterAt(i)));
      for (const [voter, bits] of reference) assert.equal(set.get(voter), bits);
    }
  });

  it('forgets everything on clear', () => {
    const set = CandidateSet.of([
      [1, 1],
      [2, 2],
    ]);
    set.clear();
    assert.equal(set.size, 0);
    assert.equal(set.get(1), 0);
    assert.deepEqual(set.voters(), []);
    set.add(2, 8);
    assert.deepEqual(set.voters(), [2]);
    assert.equal(set.get(2), 8);
  });
});
