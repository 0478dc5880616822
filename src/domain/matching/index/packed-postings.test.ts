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

  it('costs about 5 bytes per entry up to 2^24 voters', () => {
    const { hashes, owners } = pairs(1_000_000, 1_000_000, 9);
    const sorted = sortPostings(hashes, owners, hashes.length);
    const packed = PackedPostings.fromSorted(sorted.hashes, sorted.voters, 1_000_000);
    const bytes = packed.directory.byteLength + packed.residuals.byteLength + packed.voterData.byteLength;
    assert.ok(bytes / packed.size < 5.3, `${(bytes / packed.size).toFixed(2)} bytes per entry`);
  });

  it('refuses a directory that is not 2^bits + 1 slots, or voters that do not fit the residuals', () => {
    assert.throws(() => new PackedPostings(new Uint32Array(100), new Uint16Array(0), new Uint8Array(0), 3));
    assert.throws(
      () => new PackedPostings(new Uint32Array(2 ** 16 + 1), new Uint16Array(2), new Uint8Array(5), 3),
    );
  });
});
