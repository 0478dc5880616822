import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyPostings, sortPostings } from './key-postings.ts';
import { PackedPostings } from './packed-postings.ts';

/** Pairs with many repeated hashes (common keys), unique ones, and the extreme hash values. */
function pairs(count: number, voters: number, seed: number) {
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x;
  };
  const hashes = new Uint32Array(count);
  const owners = new Uint32Array(count);
  const common = Array.from({ length: 20 }, next);
  for (let i = 0; i < count; i++) {
    const roll = next() % 10;
    hashes[i] =
      roll < 3 ? common[next() % common.length]! : roll === 3 ? (i % 2 === 0 ? 0 : 0xffffffff) : next();
    owners[i] = next() % voters;
  }
  return { hashes, owners };
}

describe('PackedPostings', () => {
  for (const [voters, count] of [
    [1000, 5_000],
    [2 ** 24 + 10, 50_000],
    [3_000_000, 400_000],
  ] as const) {
    it(`answers every lookup as the unpacked postings do (${count} entries, ${voters} voters)`, () => {
      const { hashes, owners } = pairs(count, voters, count);
      const sorted = sortPostings(hashes, owners, count);
      const plain = KeyPostings.fromSorted(sorted.hashes, sorted.voters);
      const packed = PackedPostings.fromSorted(sorted.hashes, sorted.voters, voters);
      assert.equal(packed.voterBytes, voters > 2 ** 24 ? 4 : 3);
      assert.equal(packed.size, count);
      // Keys present, and keys absent spread over every bucket (a lookup lands between entries).
      const absent = Array.from({ length: 3000 }, (_, i) => Math.imul(i + 1, 2654435761) >>> 0);
      const probes = [
        ...new Set([...hashes.subarray(0, 3000), ...absent, 0, 1, 2, 12345, 0x80000000, 0xffffffff]),
      ];
      for (const hash of probes) {
        const [s1, e1] = plain.range(hash);
        const [s2, e2] = packed.range(hash);
        assert.equal(e2 - s2, e1 - s1, `count of ${hash}`);
        const expected = Array.from(plain.voters.subarray(s1, e1));
        const actual = Array.from({ length: e2 - s2 }, (_, i) => packed.voterAt(s2 + i));
        assert.deepEqual(actual, expected, `voters of ${hash}`);
        assert.equal(packed.count(hash), e1 - s1);
      }
      // Laid out from a residual per entry (an index stored as format 11 or 12): the same arrays.
      const span = 2 ** (32 - packed.bits);
      const residuals = Uint16Array.from(sorted.hashes, (h) => h % span);
      const converted = PackedPostings.fromEntryResiduals(
        packed.directory,
        residuals,
        packed.voterData,
        packed.voterBytes,
      );
      assert.deepEqual(converted.keyDirectory, packed.keyDirectory);
      assert.deepEqual(converted.keyResiduals, packed.keyResiduals);
      assert.deepEqual(converted.starts, packed.starts);
      // Every key once, in hash order, with its entries' count.
      const keys: [number, number][] = [];
      packed.forEachKey((hash, entries) => keys.push([hash, entries]));
      const distinct = [...new Set(sorted.hashes)];
      assert.deepEqual(
        keys,
        distinct.map((hash) => [hash, plain.range(hash)[1] - plain.range(hash)[0]]),
      );
      // Many at once: the same ranges.
      const batch = Uint32Array.from(probes);
      const starts = new Uint32Array(batch.length);
      const ends = new Uint32Array(batch.length);
      packed.ranges(batch, batch.length, starts, ends);
      for (const [k, hash] of probes.entries()) {
        assert.deepEqual([starts[k], ends[k]], packed.range(hash), `ranges of ${hash}`);
      }
    });
  }

  it('costs about 4 bytes per entry up to 2^24 voters where keys hold a few entries each', () => {
    // 2.6 entries per key, as a voter file's blocking keys hold.
    const count = 1_000_000;
    const hashes = new Uint32Array(count);
    const owners = new Uint32Array(count);
    let x = 7;
    for (let i = 0; i < count; i++) {
      if (i % 5 < 2 || i === 0) x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      hashes[i] = x;
      owners[i] = i;
    }
    const sorted = sortPostings(hashes, owners, count);
    const packed = PackedPostings.fromSorted(sorted.hashes, sorted.voters, count);
    // The keys and their entries; the directories (a slot per bucket each, 2^16 at least) are
    // the old layout's one and a second like it.
    const bytes = packed.keyResiduals.byteLength + packed.starts.byteLength + packed.voterData.byteLength;
    assert.ok(bytes / packed.size < 4, `${(bytes / packed.size).toFixed(2)} bytes per entry`);
    assert.equal(packed.keyDirectory.length, packed.directory.length);
  });

  it('refuses parts that do not fit one another', () => {
    const { hashes, owners } = pairs(5_000, 1000, 3);
    const sorted = sortPostings(hashes, owners, hashes.length);
    const good = PackedPostings.fromSorted(sorted.hashes, sorted.voters, 1000);
    const parts = {
      directory: good.directory,
      keyDirectory: good.keyDirectory,
      keyResiduals: good.keyResiduals,
      starts: good.starts,
      voterData: good.voterData,
    };
    assert.doesNotThrow(() => new PackedPostings(parts, 3));
    assert.throws(() => new PackedPostings({ ...parts, directory: new Uint32Array(100) }, 3), /2\^bits \+ 1/);
    assert.throws(() => new PackedPostings({ ...parts, voterData: good.voterData.subarray(3) }, 3), /voters/);
    assert.throws(
      () => new PackedPostings({ ...parts, keyResiduals: good.keyResiduals.subarray(1) }, 3),
      /key directory/,
    );
    assert.throws(() => new PackedPostings({ ...parts, starts: good.starts.subarray(1) }, 3), /start bits/);
    // Damaged within: a start bit lost, a key directory that gives a bucket more keys than entries.
    const lost = good.starts.slice();
    lost[0] = lost[0]! & (lost[0]! - 1);
    assert.throws(() => new PackedPostings({ ...parts, starts: lost }, 3), /start bits do not fit the keys/);
    const skewed = good.keyDirectory.slice();
    const full = skewed.findIndex((_, b) => b > 0 && good.directory[b]! > good.directory[b - 1]!);
    skewed[full] = skewed[full]! + 1000;
    assert.throws(() => new PackedPostings({ ...parts, keyDirectory: skewed }, 3), /more keys than entries/);
  });
});
