/**
 * Blocking-key postings of the match index in about 4 bytes per entry (KeyPostings, their
 * unpacked form, takes 8): 32-bit key hashes → the voters that carry the key.
 *
 * Entries are sorted by hash (then voter). A directory indexed by the hash's top `bits` bits
 * gives each bucket's entries, and a second one its distinct keys: within a bucket only a key's
 * low `32 - bits` bits need storing (`keyResiduals`, 16 bits each: `bits` is at least 16), once
 * per key, and a bit per entry (`starts`) marks where each key's entries begin. A voter file's
 * keys hold 2.6 entries each (10M voters: 17.5 entries and 6.7 keys per voter), so a residual per
 * key and a bit per entry take 15.5 bytes per voter where a residual per entry took 35. Voters
 * take 3 bytes each while the file has at most 2^24 voters, 4 beyond. Buckets hold 32 to 64
 * entries: a lookup reads two directory slots, steps through a few residuals from where its own
 * would lie, counts the start bits before its key's, and reads the voters it returns.
 * Lookups answer exactly what the unpacked postings answer (the same 32-bit hashes).
 */
/** The arrays of packed postings, as stored and as handed to another thread. */
export interface PackedPostingsParts {
  directory: Uint32Array;
  keyDirectory: Uint32Array;
  keyResiduals: Uint16Array;
  starts: Uint32Array;
  voterData: Uint8Array;
}

export class PackedPostings implements PackedPostingsParts {
  /** directory[b]..directory[b+1]: the entries whose hash's top `bits` bits equal b. */
  readonly directory: Uint32Array;
  /** keyDirectory[b]..keyDirectory[b+1]: the distinct keys of bucket b, in keyResiduals. */
  readonly keyDirectory: Uint32Array;
  /** Each distinct key's hash without its top `bits` bits, ascending within its bucket. */
  readonly keyResiduals: Uint16Array;
  /** A bit per entry (bit i of word i >> 5), set where a key's entries begin. */
  readonly starts: Uint32Array;
  /** Each entry's voter, `voterBytes` little-endian bytes. */
  readonly voterData: Uint8Array;
  readonly voterBytes: 3 | 4;
  readonly bits: number;
  readonly size: number;
  readonly #shift: number;
  readonly #mask: number;
  /** voterData as 32-bit words, when voters take 4 bytes. */
  readonly #wide: Uint32Array | null;

  constructor(parts: PackedPostingsParts, voterBytes: 3 | 4) {
    const { directory, keyDirectory, keyResiduals, starts, voterData } = parts;
    this.directory = directory;
    this.keyDirectory = keyDirectory;
    this.keyResiduals = keyResiduals;
    this.starts = starts;
    this.voterData = voterData;
    this.voterBytes = voterBytes;
    this.bits = Math.log2(directory.length - 1);
    if (!Number.isInteger(this.bits) || this.bits < 16 || this.bits > 31)
      throw new Error('packed postings: the directory must have 2^bits + 1 slots, 16 <= bits < 32');
    this.size = directory[directory.length - 1]!;
    if (voterData.length !== this.size * voterBytes)
      throw new Error('packed postings: voters and the directory differ in length');
    if (
      keyDirectory.length !== directory.length ||
      keyDirectory[keyDirectory.length - 1] !== keyResiduals.length
    )
      throw new Error('packed postings: the key directory does not fit the keys');
    if (starts.length !== startWords(this.size))
      throw new Error('packed postings: the start bits do not fit the entries');
    // Damaged parts must not send a lookup past its bucket: one start bit per key, and no bucket
    // with more keys than entries (a pass over the bits, a few milliseconds a million voters).
    let bits = 0;
    for (let w = 0; w < starts.length; w++) bits += popcount(starts[w]!);
    if (bits !== keyResiduals.length) throw new Error('packed postings: the start bits do not fit the keys');
    for (let b = 0; b + 1 < directory.length; b++) {
      const keys = keyDirectory[b + 1]! - keyDirectory[b]!;
      const entries = directory[b + 1]! - directory[b]!;
      if (keys < 0 || entries < 0 || keys > entries || (entries > 0 && keys === 0))
        throw new Error('packed postings: a bucket has more keys than entries');
    }
    this.#shift = 32 - this.bits;
    this.#mask = 2 ** this.#shift - 1;
    this.#wide =
      voterBytes === 4
        ? new Uint32Array(voterData.buffer as ArrayBuffer, voterData.byteOffset, this.size)
        : null;
  }

  /**
   * Packs pairs sorted by hash (then voter) for a file of `voterCount` voters; `shared`: in
   * shared memory (for threads that read it without a copy).
   */
  static fromSorted(
    hashes: Uint32Array,
    voters: Uint32Array,
    voterCount: number,
    shared = false,
  ): PackedPostings {
    const memory = memoryOf(shared);
    const count = hashes.length;
    let bits = 16;
    // 32 to 64 entries per bucket: 4 bytes of directory per 32 or more entries, and a scan of a
    // cache line or two of residuals per lookup.
    while (bits < 30 && 2 ** (bits + 6) < count) bits++;
    const shift = 32 - bits;
    const mask = 2 ** shift - 1;
    const directory = new Uint32Array(memory((2 ** bits + 1) * 4));
    for (let i = 0; i < count; i++) directory[(hashes[i]! >>> shift) + 1]!++;
    for (let b = 1; b < directory.length; b++) directory[b]! += directory[b - 1]!;
    const voterBytes = voterCount > 2 ** 24 ? 4 : 3;
    const voterData = new Uint8Array(memory(count * voterBytes));
    if (voterBytes === 4) new Uint32Array(voterData.buffer).set(voters.subarray(0, count));
    else {
      for (let i = 0, at = 0; i < count; i++, at += 3) {
        const v = voters[i]!;
        voterData[at] = v & 0xff;
        voterData[at + 1] = (v >>> 8) & 0xff;
        voterData[at + 2] = v >>> 16;
      }
    }
    const keys = keysOf(directory, hashes.subarray(0, count), mask, shared);
    return new PackedPostings({ directory, ...keys, voterData }, voterBytes);
  }

  /**
   * The postings of an index stored with a residual per entry (formats 11 and 12, before the
   * keys were stored once): the same lookups, in this layout.
   */
  static fromEntryResiduals(
    directory: Uint32Array,
    residuals: Uint16Array,
    voterData: Uint8Array,
    voterBytes: 3 | 4,
  ): PackedPostings {
    const count = residuals.length;
    if (directory[directory.length - 1] !== count)
      throw new Error('packed postings: the directory does not fit the residuals');
    // Loaded in shared memory (the matching threads read it without a copy): laid out there too.
    const keys = keysOf(directory, residuals, 0xffff, residuals.buffer instanceof SharedArrayBuffer);
    return new PackedPostings({ directory, ...keys, voterData }, voterBytes);
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
    const first = this.keyDirectory[bucket]!;
    const key = this.#keyIn(first, this.keyDirectory[bucket + 1]!, h & this.#mask);
    const from = this.directory[bucket]!;
    if (key < 0) return [from, from];
    return this.#entriesOf(
      key - first,
      key + 1 === this.keyDirectory[bucket + 1]!,
      from,
      this.directory[bucket + 1]!,
    );
  }

  /**
   * The entry ranges of `count` hashes at once, into `starts` and `ends` (what `range` gives for
   * each). Each step is taken for every hash before the next one, so the cache misses of
   * different hashes (the directories' slots, then a bucket's residuals, then its start bits)
   * overlap instead of following one another: a radius search looks up dozens of map cells
   * that are mostly empty.
   */
  ranges(hashes: Uint32Array, count: number, starts: Uint32Array, ends: Uint32Array): void {
    const directory = this.directory;
    const keyDirectory = this.keyDirectory;
    const shift = this.#shift;
    const mask = this.#mask;
    // starts: the bucket's first key, then the key's number in the bucket (or -1 as 2^32 - 1);
    // ends: the bucket's last key + 1, then the key's entries.
    for (let k = 0; k < count; k++) {
      const bucket = hashes[k]! >>> shift;
      starts[k] = keyDirectory[bucket]!;
      ends[k] = keyDirectory[bucket + 1]!;
    }
    for (let k = 0; k < count; k++) {
      const key = this.#keyIn(starts[k]!, ends[k]!, hashes[k]! & mask);
      const last = key + 1 === ends[k]!;
      starts[k] = key < 0 ? NOT_FOUND : key - starts[k]!;
      ends[k] = last ? 1 : 0;
    }
    for (let k = 0; k < count; k++) {
      const bucket = hashes[k]! >>> shift;
      const from = directory[bucket]!;
      if (starts[k] === NOT_FOUND) {
        starts[k] = from;
        ends[k] = from;
        continue;
      }
      const [start, end] = this.#entriesOf(starts[k]!, ends[k] === 1, from, directory[bucket + 1]!);
      starts[k] = start;
      ends[k] = end;
    }
  }

  /** Number of entries with this hash (the key's frequency). */
  count(hash: number): number {
    const [start, end] = this.range(hash);
    return end - start;
  }

  /** Calls `visit` with each distinct key's hash and its entries' count, in hash order. */
  forEachKey(visit: (hash: number, entries: number) => void): void {
    const span = this.#mask + 1;
    for (let b = 0; b + 1 < this.directory.length; b++) {
      const first = this.keyDirectory[b]!;
      const last = this.keyDirectory[b + 1]!;
      let entry = this.directory[b]!;
      const end = this.directory[b + 1]!;
      for (let key = first; key < last; key++) {
        const next = key + 1 === last ? end : this.#nextStart(entry + 1, end);
        visit(b * span + this.keyResiduals[key]!, next - entry);
        entry = next;
      }
    }
  }

  /** The index in keyResiduals of the key `residual` among keys [low, high), or -1. */
  #keyIn(low: number, high: number, residual: number): number {
    const residuals = this.keyResiduals;
    // Residuals are uniform hash bits, so in a typical bucket the key lies near its share of
    // the bucket: start there and step (a few keys, where a scan from the bucket's start read
    // half of it).
    if (low === high) return -1;
    let i = low + Math.floor(((high - low) * residual) / (this.#mask + 1));
    if (residuals[i]! < residual) {
      i++;
      while (i < high && residuals[i]! < residual) i++;
    } else {
      while (i > low && residuals[i - 1]! >= residual) i--;
    }
    return i < high && residuals[i] === residual ? i : -1;
  }

  /**
   * The entries [start, end) of the bucket's `nth` key (from 0), the bucket's entries being
   * [from, to): its start is the nth start bit from `from`, its end the next start bit, or `to`
   * for the bucket's `last` key.
   */
  #entriesOf(nth: number, last: boolean, from: number, to: number): [number, number] {
    const starts = this.starts;
    let start = from;
    if (nth > 0) {
      // Whole words' set bits counted, then the nth bit found in its word.
      let left = nth;
      let w = (from + 1) >>> 5;
      let word = starts[w]! & (~0 << ((from + 1) & 31));
      const lastWord = (to - 1) >>> 5;
      for (;;) {
        const bits = popcount(word);
        if (bits >= left) break;
        left -= bits;
        if (w >= lastWord) throw new Error('packed postings: a key has no start bit in its bucket');
        word = starts[++w]!;
      }
      while (--left > 0) word &= word - 1;
      start = (w << 5) + lowestBit(word);
    }
    return [start, last ? to : this.#nextStart(start + 1, to)];
  }

  /** The first entry at or after `from` where a key begins, or `to` when none does before it. */
  #nextStart(from: number, to: number): number {
    if (from >= to) return to;
    const starts = this.starts;
    let w = from >>> 5;
    let word = starts[w]! & (~0 << (from & 31));
    const lastWord = (to - 1) >>> 5;
    while (word === 0) {
      if (w >= lastWord) return to;
      word = starts[++w]!;
    }
    const at = (w << 5) + lowestBit(word);
    return at < to ? at : to;
  }
}

/** ranges(): a hash with no entries, between its steps. */
const NOT_FOUND = 0xffffffff;

/** Words of start bits for `count` entries. */
const startWords = (count: number) => (count >>> 5) + 1;

/**
 * The key directory, the keys' residuals and the start bits of the sorted entries whose buckets
 * `directory` gives, from each entry's `values[i] & mask`: its hash (then `mask` keeps the bits
 * below the bucket's) or its residual. Within a bucket a key begins where that value changes.
 * Two passes of plain loops: a 10M-voter file's 175M entries are laid out in about a second.
 */
function keysOf(
  directory: Uint32Array,
  values: Uint32Array | Uint16Array,
  mask: number,
  shared: boolean,
): { keyDirectory: Uint32Array; keyResiduals: Uint16Array; starts: Uint32Array } {
  const memory = memoryOf(shared);
  const buckets = directory.length - 1;
  const count = directory[buckets]!;
  const starts = new Uint32Array(memory(startWords(count) * 4));
  const keyDirectory = new Uint32Array(memory(directory.length * 4));
  let keys = 0;
  for (let b = 0; b < buckets; b++) {
    keyDirectory[b] = keys;
    let i = directory[b]!;
    const end = directory[b + 1]!;
    if (i === end) continue;
    let previous = values[i]! & mask;
    starts[i >>> 5]! |= 1 << (i & 31);
    keys++;
    for (i++; i < end; i++) {
      const value = values[i]! & mask;
      if (value === previous) continue;
      starts[i >>> 5]! |= 1 << (i & 31);
      keys++;
      previous = value;
    }
  }
  keyDirectory[buckets] = keys;
  const keyResiduals = new Uint16Array(memory(keys * 2));
  let key = 0;
  for (let b = 0; b < buckets; b++) {
    let i = directory[b]!;
    const end = directory[b + 1]!;
    if (i === end) continue;
    let previous = values[i]! & mask;
    keyResiduals[key++] = previous;
    for (i++; i < end; i++) {
      const value = values[i]! & mask;
      if (value === previous) continue;
      keyResiduals[key++] = value;
      previous = value;
    }
  }
  return { keyDirectory, keyResiduals, starts };
}

/** Allocates shared memory or not. */
const memoryOf =
  (shared: boolean) =>
  (bytes: number): ArrayBuffer =>
    (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes)) as ArrayBuffer;

/** The set bits of a 32-bit word. */
export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The position of the lowest set bit of a non-zero word. */
const lowestBit = (word: number) => 31 - Math.clz32(word & -word);
