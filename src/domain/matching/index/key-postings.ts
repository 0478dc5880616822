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
 * Sorts the first `count` (hash, voter) pairs by hash with a stable radix sort, so pairs
 * collected in voter order stay in voter order within a hash.
 */
export function sortPostings(
  hashes: Uint32Array,
  voters: Uint32Array,
  count: number,
): { hashes: Uint32Array; voters: Uint32Array } {
  return sortPostingBlocks([{ hashes, voters }], count);
}

/** Bits of the first (most significant) pass: 4,096 buckets, each sorted on its own after. */
const TOP_BITS = 12;
const LOW_BITS = 10;

/**
 * Sorts pairs held in blocks (every block full but the last, which holds the rest of `count`).
 * A stable scatter on the top 12 bits, then two 10-bit passes within each bucket: every pass
 * writes to few places at a time (4,096 or 1,024 run heads), which the caches keep, where one
 * 16-bit pass over the whole array misses on almost every write.
 */
export function sortPostingBlocks(
  blocks: readonly { hashes: Uint32Array; voters: Uint32Array }[],
  count: number,
): { hashes: Uint32Array; voters: Uint32Array } {
  const buckets = 1 << TOP_BITS;
  const shift = 32 - TOP_BITS;
  const starts = new Uint32Array(buckets + 1);
  let left = count;
  for (const block of blocks) {
    const n = Math.min(left, block.hashes.length);
    const hashes = block.hashes;
    for (let i = 0; i < n; i++) starts[(hashes[i]! >>> shift) + 1]!++;
    left -= n;
  }
  let largest = 0;
  for (let b = 1; b <= buckets; b++) {
    largest = Math.max(largest, starts[b]!);
    starts[b]! += starts[b - 1]!;
  }
  const sortedHashes = new Uint32Array(count);
  const sortedVoters = new Uint32Array(count);
  const heads = starts.slice(0, buckets);
  left = count;
  for (const block of blocks) {
    const n = Math.min(left, block.hashes.length);
    const hashes = block.hashes;
    const voters = block.voters;
    for (let i = 0; i < n; i++) {
      const h = hashes[i]!;
      const slot = heads[h >>> shift]!++;
      sortedHashes[slot] = h;
      sortedVoters[slot] = voters[i]!;
    }
    left -= n;
  }
  // The low 20 bits, bucket by bucket: two passes there and back through a scratch buffer.
  const tmpHashes = new Uint32Array(largest);
  const tmpVoters = new Uint32Array(largest);
  const counts = new Uint32Array((1 << LOW_BITS) + 1);
  for (let b = 0; b < buckets; b++) {
    const from = starts[b]!;
    const n = starts[b + 1]! - from;
    if (n < 2) continue;
    lowPass(sortedHashes, sortedVoters, from, tmpHashes, tmpVoters, 0, n, 0, counts);
    lowPass(tmpHashes, tmpVoters, 0, sortedHashes, sortedVoters, from, n, LOW_BITS, counts);
  }
  return { hashes: sortedHashes, voters: sortedVoters };
}

function lowPass(
  inHashes: Uint32Array,
  inVoters: Uint32Array,
  inFrom: number,
  outHashes: Uint32Array,
  outVoters: Uint32Array,
  outFrom: number,
  n: number,
  shift: number,
  counts: Uint32Array,
): void {
  const mask = (1 << LOW_BITS) - 1;
  counts.fill(0);
  const end = inFrom + n;
  for (let i = inFrom; i < end; i++) counts[((inHashes[i]! >>> shift) & mask) + 1]!++;
  counts[0] = outFrom;
  for (let d = 1; d <= mask + 1; d++) counts[d]! += counts[d - 1]!;
  for (let i = inFrom; i < end; i++) {
    const h = inHashes[i]!;
    const slot = counts[(h >>> shift) & mask]!++;
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
