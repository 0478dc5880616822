/**
 * Blocking-key postings: 32-bit key hashes → the voter records that carry the key.
 *
 * Entries are (hash, voter) pairs sorted by hash; a directory indexed by the hash's top bits
 * gives each bucket's range, so a lookup is one directory read plus a short scan. Memory is
 * 8 bytes per entry plus 4 bytes per directory slot (about one slot per 16 entries), with no
 * per-key objects, so 10 keys × 10M voters fit in well under a gigabyte and load from disk as
 * three typed arrays without parsing.
 *
 * Keys are hashed, not stored: two different keys with one hash share a range, which only adds
 * candidates the scorer then rejects (at 50M distinct keys, about 1% of keys share).
 */
export class KeyPostings {
  /** Sorted key hashes. */
  readonly hashes: Uint32Array;
  /** Voter record index of each entry, in `hashes` order. */
  readonly voters: Uint32Array;
  /** directory[b]..directory[b+1] is the range of entries whose hash's top `bits` bits equal b. */
  readonly directory: Uint32Array;
  readonly bits: number;

  constructor(hashes: Uint32Array, voters: Uint32Array, directory: Uint32Array) {
    this.hashes = hashes;
    this.voters = voters;
    this.directory = directory;
    this.bits = Math.log2(directory.length - 1);
  }

  get size(): number {
    return this.hashes.length;
  }

  /** Sorts collected pairs by hash and builds the directory. */
  static build(hashes: Uint32Array, voters: Uint32Array, count: number): KeyPostings {
    const sorted = sortPostings(hashes, voters, count);
    return KeyPostings.fromSorted(sorted.hashes, sorted.voters);
  }

  /** Postings from pairs already sorted by hash: builds the directory. */
  static fromSorted(hashes: Uint32Array, voters: Uint32Array): KeyPostings {
    const count = hashes.length;
    let bits = 4;
    // About 16 entries per directory slot: 4 bytes per 16 entries, and a short binary search.
    while (bits < 24 && 1 << (bits + 4) < count) bits++;
    const directory = new Uint32Array((1 << bits) + 1);
    const shift = 32 - bits;
    for (let i = 0; i < count; i++) directory[(hashes[i]! >>> shift) + 1]!++;
    for (let b = 1; b < directory.length; b++) directory[b]! += directory[b - 1]!;
    return new KeyPostings(hashes, voters, directory);
  }

  /**
   * Calls `visit` for each voter whose key hash is `hash`; stops early when it returns false.
   * Returns the number of entries with that hash.
   */
  forEach(hash: number, visit: (voter: number) => boolean | undefined): number {
    const [start, end] = this.range(hash);
    for (let i = start; i < end; i++) if (visit(this.voters[i]!) === false) return end - start;
    return end - start;
  }

  /** Entry range [start, end) of one hash. */
  range(hash: number): [number, number] {
    const h = hash >>> 0;
    const bucket = h >>> (32 - this.bits);
    let low = this.directory[bucket]!;
    let high = this.directory[bucket + 1]!;
    // Binary search for the first entry ≥ h within the bucket.
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.hashes[mid]! < h) low = mid + 1;
      else high = mid;
    }
    let end = low;
    const limit = this.directory[bucket + 1]!;
    while (end < limit && this.hashes[end] === h) end++;
    return [low, end];
  }

  /** Number of entries with this hash (the key's frequency). */
  count(hash: number): number {
    const [start, end] = this.range(hash);
    return end - start;
  }
}

/**
 * Sorts the first `count` (hash, voter) pairs by hash with a stable radix sort (two 16-bit
 * passes), so pairs collected in voter order stay in voter order within a hash.
 */
export function sortPostings(
  hashes: Uint32Array,
  voters: Uint32Array,
  count: number,
): { hashes: Uint32Array; voters: Uint32Array } {
  const sortedHashes = new Uint32Array(count);
  const sortedVoters = new Uint32Array(count);
  const tmpHashes = new Uint32Array(count);
  const tmpVoters = new Uint32Array(count);
  radixPass(hashes, voters, tmpHashes, tmpVoters, count, 0);
  radixPass(tmpHashes, tmpVoters, sortedHashes, sortedVoters, count, 16);
  return { hashes: sortedHashes, voters: sortedVoters };
}

const counts = new Uint32Array(65537);

function radixPass(
  inHashes: Uint32Array,
  inVoters: Uint32Array,
  outHashes: Uint32Array,
  outVoters: Uint32Array,
  count: number,
  shift: number,
): void {
  counts.fill(0);
  for (let i = 0; i < count; i++) counts[((inHashes[i]! >>> shift) & 0xffff) + 1]!++;
  for (let b = 1; b < 65537; b++) counts[b]! += counts[b - 1]!;
  for (let i = 0; i < count; i++) {
    const h = inHashes[i]!;
    const slot = counts[(h >>> shift) & 0xffff]!++;
    outHashes[slot] = h;
    outVoters[slot] = inVoters[i]!;
  }
}

/** Collects (hash, voter) pairs in growable typed arrays. */
export class PostingsCollector {
  hashes = new Uint32Array(1 << 16);
  voters = new Uint32Array(1 << 16);
  count = 0;

  add(hash: number, voter: number): void {
    if (this.count === this.hashes.length) {
      const hashes = new Uint32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const voters = new Uint32Array(this.voters.length * 2);
      voters.set(this.voters);
      this.voters = voters;
    }
    this.hashes[this.count] = hash;
    this.voters[this.count] = voter;
    this.count++;
  }

  build(): KeyPostings {
    return KeyPostings.build(this.hashes, this.voters, this.count);
  }
}
