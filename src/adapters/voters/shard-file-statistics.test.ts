import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileOrders } from './shard-file-statistics.ts';

test('fileOrders numbers the records kept across shards in file order, skipping lines no shard kept', () => {
  // Lines 2..40 of a file; 5, 31, 32 and 33 rejected (no shard holds them).
  const shards = [
    Uint32Array.from([2, 4, 7, 30, 34, 40]),
    Uint32Array.from([3, 6, 8, 9, 10]),
    Uint32Array.from([]),
    Uint32Array.from([
      11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 35, 36, 37, 38, 39,
    ]),
  ];
  const all = shards.flatMap((lines) => [...lines]).sort((a, b) => a - b);
  const orders = fileOrders(shards);
  shards.forEach((lines, s) => {
    assert.deepEqual(
      [...orders[s]!],
      [...lines].map((line) => all.indexOf(line)),
    );
  });
});
