/**
 * Blocking-key postings of the match index in about 5 bytes per entry (KeyPostings, their
 * unpacked form, takes 8): 32-bit key hashes → the voters that carry the key.
 *
 * Entries are sorted by hash (then voter). A directory indexed by the hash's top `bits` bits
 * gives each bucket's range, so within a bucket only the hash's low `32 - bits` bits need
 * storing (`residuals`, 16 bits each: `bits` is at least 16). Voters take 3 bytes each while the
 * file has at most 2^24 voters, 4 beyond. Buckets hold 32 to 64 entries: a lookup reads one
 * directory slot, steps through a few residuals from where its own would lie, and reads the
 * voters it returns.
 * Lookups answer exactly what the unpacked postings answer (the same 32-bit hashes).
 */
export class PackedPostings {
  /** directory[b]..directory[b+1]: the entries whose hash's top `bits` bits equal b. */
  readonly directory: Uint32Array;
  /** Each entry's hash without its top `bits` bits. */
  readonly residuals: Uint16Array;
  /** Each entry's voter, `voterBytes` little-endian bytes. */
  readonly voterData: Uint8Array;
  readonly voterBytes: 3 | 4;
  readonly bits: number;
  readonly #shift: number;
  readonly #mask: number;
  /** voterData as 32-bit words, when voters take 4 bytes. */
  readonly #wide: Uint32Array | null;

  constructor(directory: Uint32Array, residuals: Uint16Array, voterData: Uint8Array, voterBytes: 3 | 4) {
    this.directory = directory;
    this.residuals = residuals;
    this.voterData = voterData;
    this.voterBytes = voterBytes;
    this.bits = Math.log2(directory.length - 1);
    if (!Number.isInteger(this.bits) || this.bits < 16 || this.bits > 31)
      throw new Error('packed postings: the directory must have 2^bits + 1 slots, 16 <= bits < 32');
    if (voterData.length !== residuals.length * voterBytes)
      throw new Error('packed postings: voters and residuals differ in length');
    this.#shift = 32 - this.bits;
    this.#mask = 2 ** this.#shift - 1;
    this.#wide =
      voterBytes === 4
        ? new Uint32Array(voterData.buffer as ArrayBuffer, voterData.byteOffset, residuals.length)
        : null;
  }

  /** Packs pairs sorted by hash (then voter) for a file of `voterCount` voters. */
  static fromSorted(hashes: Uint32Array, voters: Uint32Array, voterCount: number): PackedPostings {
    const count = hashes.length;
    let bits = 16;
    // 32 to 64 entries per bucket: 4 bytes of directory per 32 or more entries, and a scan of a
    // cache line or two of residuals per lookup.
    while (bits < 30 && 2 ** (bits + 6) < count) bits++;
    const shift = 32 - bits;
    const mask = 2 ** shift - 1;
    const directory = new Uint32Array(2 ** bits + 1);
    const residuals = new Uint16Array(count);
    for (let i = 0; i < count; i++) {
      const h = hashes[i]!;
      directory[(h >>> shift) + 1]!++;
      residuals[i] = h & mask;
    }
    for (let b = 1; b < directory.length; b++) directory[b]! += directory[b - 1]!;
    const voterBytes = voterCount > 2 ** 24 ? 4 : 3;
    const voterData = new Uint8Array(count * voterBytes);
    if (voterBytes === 4) new Uint32Array(voterData.buffer).set(voters.subarray(0, count));
    else {
      for (let i = 0, at = 0; i < count; i++, at += 3) {
        const v = voters[i]!;
        voterData[at] = v & 0xff;
        voterData[at + 1] = (v >>> 8) & 0xff;
        voterData[at + 2] = v >>> 16;
      }
    }
    return new PackedPostings(directory, residuals, voterData, voterBytes);
  }

  get size(): number {
    return this.residuals.length;
  }

  /** The voter of entry `i`. */
  voterAt(i: number): number {
    const wide = this.#wide;
    if (wide !== null) return wide[i]!;
    const d = this.voterData;
    const at = i * 3;
    return d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16);
  }

  /** Entry range [start, end) of one hash. */
  range(hash: number): [number, number] {
    const h = hash >>> 0;
    const bucket = h >>> this.#shift;
    const limit = this.directory[bucket + 1]!;
    const start = this.#firstAtLeast(this.directory[bucket]!, limit, h & this.#mask);
    return [start, this.#endOf(start, limit, h & this.#mask)];
  }

  /**
   * The entry ranges of `count` hashes at once, into `starts` and `ends` (what `range` gives for
   * each). Each step is taken for every hash before the next one, so the cache misses of
   * different hashes (a directory slot, then a bucket's residuals) overlap instead of following
   * one another: a radius search looks up dozens of map cells that are mostly empty.
   */
  ranges(hashes: Uint32Array, count: number, starts: Uint32Array, ends: Uint32Array): void {
    const directory = this.directory;
    const shift = this.#shift;
    const mask = this.#mask;
    for (let k = 0; k < count; k++) {
      const bucket = hashes[k]! >>> shift;
      starts[k] = directory[bucket]!;
      ends[k] = directory[bucket + 1]!;
    }
    for (let k = 0; k < count; k++) {
      const residual = hashes[k]! & mask;
      const start = this.#firstAtLeast(starts[k]!, ends[k]!, residual);
      starts[k] = start;
      ends[k] = this.#endOf(start, ends[k]!, residual);
    }
  }

  /** The first entry of [low, high) whose residual is at least `residual` (high when none is). */
  #firstAtLeast(low: number, high: number, residual: number): number {
    const residuals = this.residuals;
    // Residuals are uniform hash bits, so in a typical bucket the entry lies near its share of
    // the bucket: start there and step (a few entries, where a scan from the bucket's start read
    // half of it). A rare large bucket (a common key's postings share one) is searched by halves.
    if (high - low <= 64) {
      if (low === high) return low;
      let i = low + Math.floor(((high - low) * residual) / (this.#mask + 1));
      if (residuals[i]! < residual) {
        i++;
        while (i < high && residuals[i]! < residual) i++;
      } else {
        while (i > low && residuals[i - 1]! >= residual) i--;
      }
      return i;
    }
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (residuals[mid]! < residual) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The end of the run of `residual` that starts at `start` (before `limit`, the bucket's end). */
  #endOf(start: number, limit: number, residual: number): number {
    const residuals = this.residuals;
    let end = start;
    while (end < limit && residuals[end] === residual) end++;
    return end;
  }

  /** Number of entries with this hash (the key's frequency). */
  count(hash: number): number {
    const [start, end] = this.range(hash);
    return end - start;
  }
}
