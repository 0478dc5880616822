import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StringDictionary } from './string-dictionary.ts';

const counts = (...values: number[]) => Uint32Array.from(values);

test('dictionaries of shared values answer as their own values say, each in its own ids', () => {
  // Two shards' last names: the same file's names in each shard's order (its own first).
  const a = StringDictionary.fromSharedValues(
    'test-last',
    ['', 'SMITH', 'JONES', 'GARCIA'],
    counts(0, 5, 3, 2),
  );
  const b = StringDictionary.fromSharedValues(
    'test-last',
    ['', 'GARCIA', 'SMITH', 'JONES', 'NGUYEN'],
    counts(0, 2, 5, 3, 1),
  );
  const plain = StringDictionary.fromValues(['', 'SMITH', 'JONES', 'GARCIA'], counts(0, 5, 3, 2));
  for (const value of ['', 'SMITH', 'JONES', 'GARCIA', 'NGUYEN', 'LEE']) {
    assert.equal(a.idOf(value), plain.idOf(value), `${value}: as an unshared dictionary`);
  }
  assert.deepEqual(
    ['GARCIA', 'SMITH', 'JONES', 'NGUYEN', 'LEE'].map((v) => b.idOf(v)),
    [1, 2, 3, 4, -1],
  );
  // A value numbered after `a` was made (NGUYEN, by `b`) is not in `a`.
  assert.equal(a.idOf('NGUYEN'), -1);
  assert.deepEqual([b.value(1), b.value(4), b.value(9)], ['GARCIA', 'NGUYEN', '']);
  assert.deepEqual([a.count(a.idOf('SMITH')), b.count(b.idOf('SMITH')), b.count(-1)], [5, 5, 0]);
  assert.deepEqual([a.size, b.size], [4, 5]);
  // The strings themselves are held once.
  assert.equal(a.values[1], b.values[2]);
});

test('shared values of another field are numbered apart', () => {
  const first = StringDictionary.fromSharedValues('test-first', ['', 'MARY'], counts(0, 1));
  const last = StringDictionary.fromSharedValues('test-last-2', ['', 'SMITH', 'MARY'], counts(0, 1, 1));
  assert.deepEqual([first.idOf('MARY'), last.idOf('MARY'), first.idOf('SMITH')], [1, 2, -1]);
});

test('a dictionary made in steps answers as one made at once, pausing between its steps', async () => {
  const values = ['', 'SMITH', 'JONES', 'GARCIA', 'NGUYEN', 'LEE', 'SMITH'];
  const at = counts(0, 5, 3, 2, 1, 4, 9);
  let pauses = 0;
  const stepped = await StringDictionary.fromValuesInSteps(
    values,
    at,
    async () => {
      pauses++;
    },
    2,
  );
  const whole = StringDictionary.fromValues(values, at);
  assert.equal(pauses, 3, 'between 4 steps of 2 values');
  for (const value of [...values, 'KIM']) {
    assert.equal(stepped.idOf(value), whole.idOf(value), value);
    assert.equal(stepped.count(stepped.idOf(value)), whole.count(whole.idOf(value)), value);
  }
  // A repeated value names its last id, as at once.
  assert.equal(stepped.idOf('SMITH'), 6);
});
