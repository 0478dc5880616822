import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { zipTranspositions } from './zip-transposition.ts';

describe('zipTranspositions', () => {
  it('swaps each pair of neighbouring digits that differ', () => {
    assert.deepEqual(zipTranspositions(27601).sort(), [26701, 27061, 27610, 72601].sort());
  });
  it('keeps the leading zero as a digit (ZIPs as numbers)', () => {
    // 06614 (6614) and 60614 are one swap apart; 00501 swaps to 05001, 00051 and 00510.
    assert.ok(zipTranspositions(60614).includes(6614));
    assert.ok(zipTranspositions(6614).includes(60614));
    assert.deepEqual(zipTranspositions(501).sort(), [51, 510, 5001].sort());
  });
  it('none for a ZIP of one repeated digit, or out of range', () => {
    assert.deepEqual(zipTranspositions(11111), []);
    assert.deepEqual(zipTranspositions(100_000), []);
    assert.deepEqual(zipTranspositions(-1), []);
  });
});

describe('zipTranspositions as a relation', () => {
  it('is symmetric: each ZIP one swap away has the first among its own', () => {
    for (const zip of [27601, 60614, 501, 98765, 10001]) {
      for (const other of zipTranspositions(zip)) {
        assert.ok(zipTranspositions(zip).includes(other), `${zip} ${other}`);
        assert.ok(zipTranspositions(other).includes(zip), `${other} ${zip}`);
      }
    }
  });
  it('not the same ZIP, one digit changed, a swap of digits apart, or two swaps', () => {
    for (const other of [27601, 27602, 17620, 72610, 127601])
      assert.equal(zipTranspositions(27601).includes(other), false, `${other}`);
  });
});
