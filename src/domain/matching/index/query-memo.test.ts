import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueryMemo } from './query-memo.ts';
import { StringDictionary } from './string-dictionary.ts';

/** Dictionaries of `size` values each (only their sizes matter here). */
function sizes(size: number) {
  const dictionary = StringDictionary.fromValues(
    Array.from({ length: size }, (_, i) => `V${i}`),
    new Uint32Array(size),
  );
  return { first: dictionary, last: dictionary, street: dictionary };
}

describe('QueryMemo', () => {
  it('answers a level only for the id and the query that stored it', () => {
    const memo = new QueryMemo();
    const one = memo.begin(sizes(10));
    memo.last.set(5, one, 3);
    assert.equal(memo.last.get(5, one), 3);
    assert.equal(memo.first.get(5, one), 0, 'each field has its own table');
    assert.equal(memo.last.get(6, one), 0);
    memo.last.set(6, one, 2);
    assert.equal(memo.last.get(6, one), 2);
    assert.equal(memo.last.get(5, one), 3);
    // The next query knows nothing of the last one's levels.
    const two = memo.begin(sizes(10));
    assert.notEqual(two, one);
    assert.equal(memo.last.get(6, two), 0);
    memo.last.set(7, two, 1);
    assert.equal(memo.last.get(7, one), 0);
    // A file with larger dictionaries: room for its ids, nothing known of them.
    const three = memo.begin(sizes(100_000));
    assert.equal(memo.street.get(99_999, three), 0);
    memo.street.set(99_999, three, 2);
    assert.equal(memo.street.get(99_999, three), 2);
  });
});
