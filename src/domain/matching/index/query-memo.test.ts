import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueryMemo } from './query-memo.ts';

describe('QueryMemo', () => {
  it('answers a level only for the id and the query that stored it', () => {
    const memo = new QueryMemo();
    const one = memo.begin();
    memo.last.set(5, one, 3);
    assert.equal(memo.last.get(5, one), 3);
    assert.equal(memo.first.get(5, one), 0, 'each field has its own table');
    // Another id of the same slot: unknown, and once stored it takes the slot.
    assert.equal(memo.last.get(5 + 4096, one), 0);
    memo.last.set(5 + 4096, one, 2);
    assert.equal(memo.last.get(5 + 4096, one), 2);
    assert.equal(memo.last.get(5, one), 0);
    // The next query knows nothing of the last one's levels.
    const two = memo.begin();
    assert.notEqual(two, one);
    assert.equal(memo.last.get(5 + 4096, two), 0);
    memo.last.set(7, two, 1);
    assert.equal(memo.last.get(7, one), 0);
  });
});
