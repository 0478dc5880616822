import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyPostings, PostingsCollector, sortPostingBlocks } from './key-postings.ts';

/** Deterministic 32-bit PRNG (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

function voterList(postings: KeyPostings, hash: number): number[] {
  const [start, end] = postings.range(hash);
  return Array.from(postings.voters.subarray(start, end));
}

const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);

describe('KeyPostings', () => {
  it('range, forEach and count give exactly the voters of each hash (50k random pairs)', () => {
    const next = random(12345);
    // A pool of 5000 distinct hashes, so most hashes repeat, plus the extremes and neighbours
    // that share a directory bucket.
    const pool = new Set<number>([0, 1, 0xffffffff, 0xfffffffe, 0x80000000, 0x7fffffff]);
    while (pool.size < 5000) pool.add(next());
    const hashesPool = [...pool];
    const count = 50_000;
    const hashes = new Uint32Array(count);
    const voters = new Uint32Array(count);
    const oracle = new Map<number, number[]>();
    for (let i = 0; i < count; i++) {
      // The extremes get a fair share of entries.
      const h = i % 50 === 0 ? 0 : i % 50 === 1 ? 0xffffffff : hashesPool[next() % hashesPool.length]!;
      // Small voter range: the same (hash, voter) pair occurs more than once.
      const v = next() % 20_000;
      hashes[i] = h;
      voters[i] = v;
      const list = oracle.get(h);
      if (list === undefined) oracle.set(h, [v]);
      else list.push(v);
    }
    const postings = KeyPostings.build(hashes, voters, count);
    assert.equal(postings.size, count);
    assert.ok(oracle.get(0)!.length >= 1000 && oracle.get(0xffffffff)!.length >= 1000);
    assert.ok(
      [...oracle.values()].some((list) => list.length !== new Set(list).size),
      'duplicate pairs',
    );

    for (let i = 1; i < count; i++) assert.ok(postings.hashes[i - 1]! <= postings.hashes[i]!, 'sorted');
    for (const [hash, expected] of oracle) {
      const [start, end] = postings.range(hash);
      for (let i = start; i < end; i++) assert.equal(postings.hashes[i], hash);
      assert.deepEqual(sorted(voterList(postings, hash)), sorted(expected), `voters of ${hash}`);
      assert.equal(postings.count(hash), expected.length);
      const visited: number[] = [];
      const returned = postings.forEach(hash, (voter) => {
        visited.push(voter);
        return true;
      });
      assert.equal(returned, expected.length);
      assert.deepEqual(sorted(visited), sorted(expected));
    }
    // Hashes never added, including ones next to present hashes: nothing.
    let absent = 0;
    for (const hash of hashesPool) {
      for (const probe of [(hash + 1) >>> 0, (hash - 1) >>> 0]) {
        if (oracle.has(probe)) continue;
        absent++;
        assert.equal(postings.count(probe), 0);
        const [start, end] = postings.range(probe);
        assert.equal(start, end);
        assert.equal(
          postings.forEach(probe, () => assert.fail('visited an absent hash')),
          0,
        );
      }
    }
    assert.ok(absent > 5000);
    for (let i = 0; i < 2000; i++) {
      const probe = next();
      if (!oracle.has(probe)) assert.equal(postings.count(probe), 0);
    }
  });

  it('treats a negative int32 like the same unsigned hash', () => {
    const postings = KeyPostings.build(Uint32Array.of(0xffffffff, 0x80000000, 5), Uint32Array.of(1, 2, 3), 3);
    assert.deepEqual(voterList(postings, -1), [1]);
    assert.equal(postings.count(-1), 1);
    assert.equal(postings.count(0x80000000 | 0), 1);
    assert.equal(postings.count(5), 1);
  });

  it('builds from only the first `count` pairs of longer arrays', () => {
    const postings = KeyPostings.build(Uint32Array.of(7, 7, 9, 7), Uint32Array.of(1, 2, 3, 4), 2);
    assert.equal(postings.size, 2);
    assert.deepEqual(sorted(voterList(postings, 7)), [1, 2]);
    assert.equal(postings.count(9), 0);
  });

  it('empty postings find nothing', () => {
    const postings = KeyPostings.build(new Uint32Array(0), new Uint32Array(0), 0);
    assert.equal(postings.size, 0);
    for (const hash of [0, 1, 0x12345678, 0xffffffff]) {
      assert.deepEqual(postings.range(hash), [0, 0]);
      assert.equal(postings.count(hash), 0);
      assert.equal(
        postings.forEach(hash, () => assert.fail('visited')),
        0,
      );
    }
    assert.equal(new PostingsCollector().build().count(0), 0);
  });

  it('forEach stops when visit returns false, and still returns the entry count', () => {
    const count = 10;
    const postings = KeyPostings.build(
      new Uint32Array(count).fill(42),
      Uint32Array.from({ length: count }, (_, i) => i),
      count,
    );
    let visits = 0;
    assert.equal(
      postings.forEach(42, () => ++visits < 3),
      count,
    );
    assert.equal(visits, 3);
    // Returning nothing (undefined) does not stop.
    visits = 0;
    assert.equal(
      postings.forEach(42, () => {
        visits++;
        return undefined;
      }),
      count,
    );
    assert.equal(visits, count);
  });

  for (const count of [0, 1, 15, 16, 17, 100_000]) {
    it(`directory sizing keeps lookups right for ${count} entries`, () => {
      const next = random(count + 1);
      const distinct = new Set<number>();
      while (distinct.size < count) distinct.add(next());
      const hashes = Uint32Array.from(distinct);
      const voters = Uint32Array.from({ length: count }, (_, i) => i);
      const postings = KeyPostings.build(hashes, voters, count);
      const slots = postings.directory.length - 1;
      assert.equal(slots, 2 ** postings.bits, 'a power of two plus one');
      assert.ok(postings.bits >= 4 && postings.bits <= 24);
      // About one directory slot per 16 entries, never fewer.
      assert.ok(count <= 16 * slots, `${count} entries in ${slots} slots`);
      if (count > 256) assert.ok(slots * 4 < count, 'not oversized');
      assert.equal(postings.directory[0], 0);
      assert.equal(postings.directory[slots], count);
      for (let b = 1; b <= slots; b++) assert.ok(postings.directory[b - 1]! <= postings.directory[b]!);
      for (let i = 0; i < count; i++) {
        assert.equal(postings.count(hashes[i]!), 1);
        assert.deepEqual(voterList(postings, hashes[i]!), [i]);
      }
      for (let i = 0; i < 1000; i++) {
        const probe = next();
        if (!distinct.has(probe)) assert.equal(postings.count(probe), 0);
      }
    });
  }
});

describe('PostingsCollector', () => {
  it('keeps every pair while its arrays grow past the initial capacity', () => {
    const collector = new PostingsCollector();
    const initial = collector.hashes.length;
    const count = initial * 3 + 5;
    const next = random(99);
    const hashes = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      hashes[i] = next() % 1000;
      collector.add(hashes[i]!, i);
    }
    assert.equal(collector.count, count);
    assert.ok(collector.hashes.length >= count && collector.voters.length >= count);
    assert.deepEqual(collector.hashes.subarray(0, count), hashes);
    assert.deepEqual(
      collector.voters.subarray(0, count),
      Uint32Array.from({ length: count }, (_, i) => i),
    );

    const postings = collector.build();
    assert.equal(postings.size, count);
    const oracle = new Map<number, number[]>();
    for (let i = 0; i < count; i++) oracle.set(hashes[i]!, [...(oracle.get(hashes[i]!) ?? []), i]);
    for (const [hash, expected] of oracle) assert.deepEqual(sorted(voterList(postings, hash)), expected);
  });

  it('stores hashes given as negative int32 as unsigned', () => {
    const collector = new PostingsCollector();
    collector.add(-1, 3);
    collector.add(0xffffffff, 4);
    const postings = collector.build();
    assert.deepEqual(sorted(voterList(postings, 0xffffffff)), [3, 4]);
  });
});

describe('sortPostingBlocks', () => {
  it('is a stable sort by unsigned hash across blocks, with crowded and empty buckets', () => {
    const next = random(99);
    const count = 60_000;
    const pairs = Array.from({ length: count }, (_, voter) => {
      const r = next();
      // A third share a few hot hashes (one top-bits bucket far larger than the rest), a third
      // differ only in their low bits, the rest are anywhere in the 32-bit range.
      const hash =
        voter % 3 === 0
          ? (0xabc00000 + (r % 5)) >>> 0
          : voter % 3 === 1
            ? (0x12300000 | (r & 0xfffff)) >>> 0
            : r >>> 0;
      return { hash, voter };
    });
    const blockSize = 7_000;
    const blocks = [];
    for (let start = 0; start < count; start += blockSize) {
      const hashes = new Uint32Array(blockSize);
      const voters = new Uint32Array(blockSize);
      pairs.slice(start, start + blockSize).forEach((p, i) => {
        hashes[i] = p.hash;
        voters[i] = p.voter;
      });
      blocks.push({ hashes, voters });
    }
    const sorted = sortPostingBlocks(blocks, count);
    const expected = [...pairs].sort((a, b) => a.hash - b.hash); // Array#sort is stable
    assert.deepEqual(
      [...sorted.hashes],
      expected.map((p) => p.hash),
    );
    assert.deepEqual(
      [...sorted.voters],
      expected.map((p) => p.voter),
    );
  });
});
