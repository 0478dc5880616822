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

test('shards of one file, made one after another, each give every value its own id', () => {
  // A file's names in its order, and four shards: each lists its own values first, then the
  // file's it lacks in the file's order (file-statistics.ts); the last is another file's, and one
  // is given a wrong count of own values. Each must answer as a dictionary of its own values.
  const file = ['ADAMS', 'BROWN', 'CLARK', 'DAVIS', 'EVANS', 'FOX', 'GREEN', 'HILL', 'IVES', 'JONES'];
  const shard = (own: string[]) => ['', ...own, ...file.filter((name) => !own.includes(name))];
  const shards: [string[], number][] = [
    [shard(['HILL', 'BROWN', 'FOX']), 4],
    [shard(['CLARK', 'ADAMS']), 3],
    [shard(['JONES', 'BROWN', 'EVANS', 'IVES']), 5],
    [shard(['GREEN']), 1], // a wrong own count: GREEN is read as one of the file's
    [['', 'ZHOU', 'JONES', 'YANG', 'ADAMS'], 2], // another file's
  ];
  for (const [values, own] of shards) {
    const shared = StringDictionary.fromSharedValues(
      'test-last-shards',
      values,
      Uint32Array.from(values, (_v, i) => i),
      own,
    );
    const plain = StringDictionary.fromValues(
      values,
      Uint32Array.from(values, (_v, i) => i),
    );
    for (const value of [...file, 'ZHOU', 'YANG', 'KIM', '']) {
      assert.equal(shared.idOf(value), plain.idOf(value), `${values.join('|')}: ${value}`);
    }
    assert.deepEqual(shared.values, values);
  }
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
    { step: 2 },
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

test('a dictionary handed to another thread as its numbers answers as the one numbered there', () => {
  // Two fields stand for one field on two threads: the receiver takes the sender's shared values
  // in its order, then the dictionaries' numbers as they are.
  const file = ['', 'SMITH', 'JONES', 'GARCIA', 'NGUYEN'];
  const made = [
    StringDictionary.fromSharedValues('test-handover-sender', file, counts(0, 5, 3, 2, 1), 2),
    StringDictionary.fromSharedValues(
      'test-handover-sender',
      ['', 'NGUYEN', 'SMITH', 'JONES', 'GARCIA'],
      counts(0, 1, 5, 3, 2),
      2,
    ),
  ];
  let sent = 0;
  for (const sender of made) {
    const values = StringDictionary.sharedValuesSince('test-handover-sender', sent);
    StringDictionary.appendSharedValues('test-handover-receiver', sent, values);
    sent += values.length;
    const numbers = sender.sharedNumbers()!;
    assert.ok(numbers.numbers.buffer instanceof SharedArrayBuffer, 'numbers in shared memory');
    assert.ok(numbers.local.buffer instanceof SharedArrayBuffer, 'their inverse too');
    const received = StringDictionary.fromSharedNumbers('test-handover-receiver', sender.counts, numbers);
    for (const value of [...file, 'LEE']) assert.equal(received.idOf(value), sender.idOf(value), value);
    assert.deepEqual(received.values, sender.values);
  }
  assert.equal(StringDictionary.fromValues(file, counts(0, 1, 1, 1, 1)).sharedNumbers(), null);
});

test('shared values handed over out of step are refused, never numbered otherwise', () => {
  StringDictionary.appendSharedValues('test-handover-step', 0, ['', 'SMITH']);
  // A gap (values 2-4 never received) and a repeat (values 0-1 again).
  assert.throws(() => StringDictionary.appendSharedValues('test-handover-step', 5, ['JONES']), /out of step/);
  assert.throws(
    () => StringDictionary.appendSharedValues('test-handover-step', 0, ['', 'SMITH']),
    /out of step/,
  );
  assert.throws(() => StringDictionary.appendSharedValues('test-handover-step', 2, ['SMITH']), /repeats/);
  // Numbers of values this thread lacks.
  const sender = StringDictionary.fromSharedValues(
    'test-handover-big',
    ['', 'A', 'B', 'C'],
    counts(0, 1, 1, 1),
  );
  assert.throws(
    () => StringDictionary.fromSharedNumbers('test-handover-step', sender.counts, sender.sharedNumbers()!),
    /lacks/,
  );
});

test('a byte derived from a value is derived once a thread, for own and shared values alike', () => {
  const calls: string[] = [];
  const length = (value: string) => {
    calls.push(value);
    return value.length;
  };
  const own = StringDictionary.fromValues(['', 'ANN', 'MARY ANN'], counts(0, 2, 1));
  assert.deepEqual(
    [
      own.derivedByte(2, length),
      own.derivedByte(1, length),
      own.derivedByte(2, length),
      own.derivedByte(0, length),
    ],
    [8, 3, 8, 0],
  );
  assert.deepEqual(calls, ['MARY ANN', 'ANN', '']);
  // Two shards of one file: a value's byte, derived in one, is the other's without deriving it.
  calls.length = 0;
  const a = StringDictionary.fromSharedValues('test-derived', ['', 'LEE', 'DE LA CRUZ'], counts(0, 1, 1));
  const b = StringDictionary.fromSharedValues(
    'test-derived',
    ['', 'DE LA CRUZ', 'LEE', 'NG'],
    counts(0, 1, 1, 1),
  );
  assert.equal(a.derivedByte(2, length), 10);
  assert.equal(b.derivedByte(1, length), 10);
  assert.equal(b.derivedByte(2, length), 3);
  assert.equal(a.derivedByte(1, length), 3);
  assert.equal(b.derivedByte(3, length), 2);
  assert.deepEqual(calls, ['DE LA CRUZ', 'LEE', 'NG']);
  // An id past the dictionary's end derives the empty value's, as `value` reads it.
  assert.equal(own.derivedByte(9, length), 0);
  // A second function would read the first one's bytes as its own: refused.
  assert.throws(() => own.derivedByte(1, (value) => value.length + 1), /one function only/);
  assert.throws(() => a.derivedByte(1, (value) => value.length + 1), /one function only/);
});
