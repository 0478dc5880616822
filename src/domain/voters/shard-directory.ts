import { hashString } from '../matching/index/hashing.ts';

/**
 * Which shards hold a phone number, an e-mail address or an id that names no state: built at a
 * sharded import from every record's normalized values, held by every process that splits lists.
 * A list row whose only strong identifiers are a phone, an e-mail or such an id goes to the shard
 * of the voter who has them instead of to every shard, and a row whose phone or e-mail belongs to
 * a voter in another state (someone who moved) also goes to that voter's shard (routeRow). Ids
 * that name their state need no entry (a `voterbase_id` like `NC-…`; `voter_id` and
 * `smartvan_id` are looked up with the row's state).
 *
 * Entries are 32-bit hashes with the shard's index, sorted: 2.4 entries per voter of the
 * generated files. The file holds 6 bytes an entry; in memory an entry is the low half of its
 * hash and its shard, 3 bytes (4 past 256 shards), the entries of each high half found through a
 * table of 65,537 positions: some 360 MB for 50M voters where the file's form took 720 MB in every
 * process that splits lists. A hash collision only sends a row to one more shard; it never loses
 * one.
 */
export class ShardDirectory {
  readonly parts: ShardDirectoryParts;

  constructor(parts: ShardDirectoryParts) {
    const { tops, lows, shards } = parts;
    if (tops.length !== HALVES + 1 || lows.length !== shards.length || tops[HALVES] !== lows.length)
      throw new Error('a shard directory needs a position per high half and a shard per entry');
    this.parts = parts;
  }

  get size(): number {
    return this.parts.lows.length;
  }

  /** Adds to `out` the shards holding a voter with this phone (normalized: 10 digits). */
  phoneShards(phone: string, out: Set<number>): void {
    this.hashShards(phoneHash(phone), out);
  }

  /** Adds to `out` the shards holding a voter with this e-mail (normalized). */
  emailShards(email: string, out: Set<number>): void {
    this.hashShards(emailHash(email), out);
  }

  /** Adds to `out` the shards holding this id (`exact_track`, or a `voterbase_id` naming no state). */
  idShards(index: string, key: string, out: Set<number>): void {
    this.hashShards(idHash(index, key), out);
  }

  /** Adds to `out` the shards of the entries of this hash (directoryHashes). */
  hashShards(hash: number, out: Set<number>): void {
    const { tops, lows, shards } = this.parts;
    const top = hash >>> 16;
    const low = hash & 0xffff;
    let from = tops[top]!;
    let to = tops[top + 1]!;
    while (from < to) {
      const mid = (from + to) >>> 1;
      if (lows[mid]! < low) from = mid + 1;
      else to = mid;
    }
    for (let i = from; i < tops[top + 1]! && lows[i] === low; i++) out.add(shards[i]!);
  }

  /** Each entry's hash and shard, in order (hash, then shard). */
  *entries(): Generator<[hash: number, shard: number]> {
    const { tops, lows, shards } = this.parts;
    for (let top = 0; top < HALVES; top++)
      for (let i = tops[top]!; i < tops[top + 1]!; i++) yield [top * HALVES + lows[i]!, shards[i]!];
  }

  /** The file form: "LMSD", format 1, count, the hashes, then the shards (little-endian). */
  toBytes(): Uint8Array {
    const count = this.size;
    const bytes = new Uint8Array(HEADER_BYTES + count * 4 + count * 2);
    const view = new DataView(bytes.buffer);
    bytes.set(fileHeader(count), 0);
    let i = 0;
    for (const [hash, shard] of this.entries()) {
      view.setUint32(HEADER_BYTES + i * 4, hash, true);
      view.setUint16(HEADER_BYTES + count * 4 + i * 2, shard, true);
      i++;
    }
    return bytes;
  }

  /**
   * The directory of `count` entries sorted by hash, then shard (`hashAt(i)`, `shardAt(i)`).
   */
  static fromSorted(
    count: number,
    hashAt: (i: number) => number,
    shardAt: (i: number) => number,
  ): ShardDirectory {
    let widest = 0;
    for (let i = 0; i < count; i++) widest = Math.max(widest, shardAt(i));
    const { tops, lows, shards } = emptyParts(count, widest, false);
    let before = -1;
    for (let i = 0; i < count; i++) {
      const hash = hashAt(i);
      const shard = shardAt(i);
      const entry = hash * SHARD_SPAN + shard;
      if (entry < before) throw new Error('the shard directory is not sorted');
      before = entry;
      tops[(hash >>> 16) + 1]!++;
      lows[i] = hash & 0xffff;
      shards[i] = shard;
    }
    return finished({ tops, lows, shards });
  }

  /**
   * The directory of a file's bytes (toBytes), its arrays in shared memory, so that the matching
   * threads that split lists read these very arrays. Read with loops of their own: a process
   * opening a new version (the api's lookups) waits for it.
   */
  static fromBytes(bytes: Uint8Array): ShardDirectory {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (
      bytes.length < HEADER_BYTES ||
      MAGIC.some((b, i) => bytes[i] !== b) ||
      view.getUint32(4, true) !== FORMAT
    ) {
      throw new Error('not a shard directory file (or of another format)');
    }
    const count = view.getUint32(8, true);
    if (bytes.length !== HEADER_BYTES + count * 6) throw new Error('the shard directory file is truncated');
    const at = HEADER_BYTES + count * 4;
    let widest = 0;
    for (let i = 0; i < count; i++) widest = Math.max(widest, view.getUint16(at + i * 2, true));
    const parts = emptyParts(count, widest, true);
    const { tops, lows, shards } = parts;
    // Only the high halves' order is checked: checking each entry's took the load 2-3 times as
    // long (the file is the import's own; a bad order within a half would misroute, not crash).
    let top = 0;
    for (let i = 0; i < count; i++) {
      const hash = view.getUint32(HEADER_BYTES + i * 4, true);
      if (hash >>> 16 < top) throw new Error('the shard directory is not sorted');
      top = hash >>> 16;
      tops[top + 1]!++;
      lows[i] = hash & 0xffff;
      shards[i] = view.getUint16(at + i * 2, true);
    }
    return finished(parts);
  }
}

/** Arrays for `count` entries of shards up to `widest`, in shared memory or not, all zero. */
function emptyParts(count: number, widest: number, shared: boolean): ShardDirectoryParts {
  const memory = (bytes: number) => (shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes));
  return {
    tops: new Uint32Array(memory((HALVES + 1) * 4)),
    lows: new Uint16Array(memory(count * 2)),
    shards: widest < 256 ? new Uint8Array(memory(count)) : new Uint16Array(memory(count * 2)),
  };
}

/** The directory of the entries placed: each high half's count turned into its end. */
function finished(parts: ShardDirectoryParts): ShardDirectory {
  const { tops, lows, shards } = parts;
  for (let top = 0; top < HALVES; top++) tops[top + 1]! += tops[top]!;
  return new ShardDirectory({ tops, lows, shards });
}

/** A directory's arrays (plain data: handed to the matching threads as they are). */
export interface ShardDirectoryParts {
  /** The entries whose hash's high half is h are those from tops[h] to tops[h + 1]. */
  tops: Uint32Array;
  /** Each entry's hash's low half. */
  lows: Uint16Array;
  /** Each entry's shard: a byte when every shard number is below 256. */
  shards: Uint8Array | Uint16Array;
}

/** The high (or low) halves of a 32-bit hash. */
const HALVES = 65_536;

const MAGIC = [0x4c, 0x4d, 0x53, 0x44];
const FORMAT = 1;
const HEADER_BYTES = 12;

/** The file form's header (toBytes, fileChunks): "LMSD", the format, the count of entries. */
function fileHeader(count: number): Uint8Array {
  const header = new Uint8Array(HEADER_BYTES);
  const view = new DataView(header.buffer);
  header.set(MAGIC, 0);
  view.setUint32(4, FORMAT, true);
  view.setUint32(8, count, true);
  return header;
}

const phoneHash = (phone: string) => hashString(`p${phone}`) >>> 0;
const emailHash = (email: string) => hashString(`e${email}`) >>> 0;
const idHash = (index: string, key: string) => hashString(`i${index}|${key}`) >>> 0;

/** The directory's hashes of a record's phones, e-mail and ids (what ShardDirectoryBuilder.add files). */
export function directoryHashes(
  phones: readonly string[],
  email: string,
  ids: readonly { index: string; key: string }[] = [],
): number[] {
  const hashes = phones.map(phoneHash);
  if (email !== '') hashes.push(emailHash(email));
  for (const id of ids) hashes.push(idHash(id.index, id.key));
  return hashes;
}

/**
 * Collects a sharded import's entries, record by record; `build` sorts them and drops repeats, and
 * `fileChunks` gives the directory's file form without making the directory.
 *
 * An entry is held as one float64, the hash times 2^16 plus the shard (exact: below 2^48), so
 * that sorting by (hash, shard) is sorting numbers, in place (sortInPlace): 8 bytes an entry in
 * all. Separate hash and shard arrays, grown by doubling and radix-sorted into copies, held 14
 * bytes an entry besides them, the largest block of a national import's memory (some 120M
 * entries; the same time).
 */
export class ShardDirectoryBuilder {
  #entries: Float64Array;
  #count = 0;

  /** `capacity`: entries expected (the arrays grow past it as needed). */
  constructor(capacity = 1 << 16) {
    this.#entries = new Float64Array(Math.max(16, capacity));
  }

  /**
   * A record of shard `shard` with these normalized phones and e-mail ('' when none) and ids that
   * name no state (index name and id key, see id-keys.ts).
   */
  add(
    shard: number,
    phones: readonly string[],
    email: string,
    ids: readonly { index: string; key: string }[] = [],
  ): void {
    for (const hash of directoryHashes(phones, email, ids)) this.#push(hash, shard);
  }

  /** Records of shard `shard` whose hashes (directoryHashes) were computed elsewhere. */
  addHashes(shard: number, hashes: ArrayLike<number>): void {
    for (let i = 0; i < hashes.length; i++) this.#push(hashes[i]!, shard);
  }

  #push(hash: number, shard: number): void {
    if (!Number.isInteger(shard) || shard < 0 || shard >= SHARD_SPAN)
      throw new RangeError('a shard of 16 bits');
    if (this.#count === this.#entries.length) {
      const grown = new Float64Array(this.#entries.length * 2);
      grown.set(this.#entries);
      this.#entries = grown;
    }
    this.#entries[this.#count++] = (hash >>> 0) * SHARD_SPAN + shard;
  }

  /**
   * The directory of the entries added (sorted, repeats dropped). Uses the builder's entries up:
   * it is empty afterwards.
   */
  build(): ShardDirectory {
    const entries = this.#sorted();
    return ShardDirectory.fromSorted(
      entries.length,
      (i) => Math.floor(entries[i]! / SHARD_SPAN),
      (i) => entries[i]! % SHARD_SPAN,
    );
  }

  /**
   * The file form of the directory `build` would make (ShardDirectory.toBytes), in pieces of at
   * most about `chunkBytes`, written from the sorted entries (no directory and no whole file
   * held besides them). Uses the builder's entries up, as `build` does.
   */
  *fileChunks(chunkBytes = 1 << 22): Generator<Uint8Array> {
    const entries = this.#sorted();
    const count = entries.length;
    yield fileHeader(count);
    // The hashes, then the shards, each in runs of entries.
    const hashRun = Math.max(1, Math.floor(chunkBytes / 4));
    for (let from = 0; from < count; from += hashRun) {
      const to = Math.min(count, from + hashRun);
      const out = new DataView(new ArrayBuffer((to - from) * 4));
      for (let i = from; i < to; i++)
        out.setUint32((i - from) * 4, Math.floor(entries[i]! / SHARD_SPAN), true);
      yield new Uint8Array(out.buffer);
    }
    const shardRun = Math.max(1, Math.floor(chunkBytes / 2));
    for (let from = 0; from < count; from += shardRun) {
      const to = Math.min(count, from + shardRun);
      const out = new DataView(new ArrayBuffer((to - from) * 2));
      for (let i = from; i < to; i++) out.setUint16((i - from) * 2, entries[i]! % SHARD_SPAN, true);
      yield new Uint8Array(out.buffer);
    }
  }

  /** The entries added, sorted with repeats dropped; the builder is empty afterwards. */
  #sorted(): Float64Array {
    const entries = this.#entries.subarray(0, this.#count);
    this.#entries = new Float64Array(16);
    this.#count = 0;
    sortInPlace(entries);
    let unique = 0;
    for (let i = 0; i < entries.length; i++) {
      if (unique > 0 && entries[i] === entries[unique - 1]) continue;
      entries[unique++] = entries[i]!;
    }
    return entries.subarray(0, unique);
  }
}

/** Shard numbers are below this (16 bits): an entry is its hash times it plus its shard. */
const SHARD_SPAN = 65_536;

/**
 * Sorts entries (integers below 2^48) in place, a byte at a time from the top (an American flag
 * sort: a range's entries counted by the byte, then each swapped into its bucket's next free
 * place, then each bucket by the next byte), a bucket of a few entries by insertion. Over 120M
 * entries (a national file's) 7 s, where the engine's sort of the array took 23 s and a radix sort
 * of separate hash and shard arrays needed 14 bytes an entry besides them.
 */
function sortInPlace(entries: Float64Array, from = 0, to = entries.length, shift = 40): void {
  if (to - from <= INSERTION_ENTRIES || shift < 0) {
    for (let i = from + 1; i < to; i++) {
      const entry = entries[i]!;
      let j = i - 1;
      for (; j >= from && entries[j]! > entry; j--) entries[j + 1] = entries[j]!;
      entries[j + 1] = entry;
    }
    return;
  }
  const scale = 2 ** shift;
  const byteOf = (entry: number) => Math.floor(entry / scale) % 256;
  const ends = new Uint32Array(256);
  for (let i = from; i < to; i++) ends[byteOf(entries[i]!)]!++;
  const next = new Uint32Array(256);
  let at = from;
  for (let b = 0; b < 256; b++) {
    next[b] = at;
    at += ends[b]!;
    ends[b] = at;
  }
  const starts = next.slice();
  for (let b = 0; b < 256; b++) {
    while (next[b]! < ends[b]!) {
      // Carry the entry at the bucket's next place to its own bucket, swapping, until one of
      // this bucket lands here.
      let entry = entries[next[b]!]!;
      let home = byteOf(entry);
      while (home !== b) {
        const place = next[home]!++;
        const displaced = entries[place]!;
        entries[place] = entry;
        entry = displaced;
        home = byteOf(entry);
      }
      entries[next[b]!++] = entry;
    }
  }
  for (let b = 0; b < 256; b++) sortInPlace(entries, starts[b]!, ends[b]!, shift - 8);
}

/** A range of at most this many entries is sorted by insertion. */
const INSERTION_ENTRIES = 32;
