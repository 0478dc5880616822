import { hashString } from '../matching/index/hashing.ts';
import { lowerBound } from '../matching/index/lower-bound.ts';

/**
 * Which shards hold a phone number, an e-mail address or an id that names no state: built at a
 * sharded import from every record's normalized values, held by every process that splits lists.
 * A list row whose only strong identifiers are a phone, an e-mail or such an id goes to the shard
 * of the voter who has them instead of to every shard, and a row whose phone or e-mail belongs to
 * a voter in another state (someone who moved) also goes to that voter's shard (routeRow). Ids
 * that name their state need no entry (a `voterbase_id` like `NC-…`; `voter_id` and
 * `smartvan_id` are looked up with the row's state).
 *
 * Entries are 32-bit hashes with the shard's index, sorted, 6 bytes each: 2.4 entries and about
 * 14 bytes per voter of the generated files (about 3.6 GB for 250M voters). A hash collision
 * only sends a row to one more shard; it never loses one.
 */
export class ShardDirectory {
  readonly hashes: Uint32Array;
  readonly shards: Uint16Array;

  constructor(hashes: Uint32Array, shards: Uint16Array) {
    if (hashes.length !== shards.length) throw new Error('a shard directory needs one shard per hash');
    this.hashes = hashes;
    this.shards = shards;
  }

  get size(): number {
    return this.hashes.length;
  }

  /** Adds to `out` the shards holding a voter with this phone (normalized: 10 digits). */
  phoneShards(phone: string, out: Set<number>): void {
    this.#find(phoneHash(phone), out);
  }

  /** Adds to `out` the shards holding a voter with this e-mail (normalized). */
  emailShards(email: string, out: Set<number>): void {
    this.#find(emailHash(email), out);
  }

  /** Adds to `out` the shards holding this id (`exact_track`, or a `voterbase_id` naming no state). */
  idShards(index: string, key: string, out: Set<number>): void {
    this.#find(idHash(index, key), out);
  }

  #find(hash: number, out: Set<number>): void {
    const hashes = this.hashes;
    for (let i = lowerBound(hashes, hash); i < hashes.length && hashes[i] === hash; i++) {
      out.add(this.shards[i]!);
    }
  }

  /** The file form: "LMSD", format 1, count, the hashes, then the shards (little-endian). */
  toBytes(): Uint8Array {
    const count = this.hashes.length;
    const bytes = new Uint8Array(12 + count * 4 + count * 2);
    const view = new DataView(bytes.buffer);
    bytes.set(MAGIC, 0);
    view.setUint32(4, FORMAT, true);
    view.setUint32(8, count, true);
    for (let i = 0; i < count; i++) view.setUint32(12 + i * 4, this.hashes[i]!, true);
    const at = 12 + count * 4;
    for (let i = 0; i < count; i++) view.setUint16(at + i * 2, this.shards[i]!, true);
    return bytes;
  }

  static fromBytes(bytes: Uint8Array): ShardDirectory {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (bytes.length < 12 || MAGIC.some((b, i) => bytes[i] !== b) || view.getUint32(4, true) !== FORMAT) {
      throw new Error('not a shard directory file (or of another format)');
    }
    const count = view.getUint32(8, true);
    if (bytes.length !== 12 + count * 6) throw new Error('the shard directory file is truncated');
    // In shared memory, so that the matching threads that split lists read these very arrays.
    const hashes = new Uint32Array(new SharedArrayBuffer(count * 4));
    const shards = new Uint16Array(new SharedArrayBuffer(count * 2));
    for (let i = 0; i < count; i++) hashes[i] = view.getUint32(12 + i * 4, true);
    const at = 12 + count * 4;
    for (let i = 0; i < count; i++) shards[i] = view.getUint16(at + i * 2, true);
    return new ShardDirectory(hashes, shards);
  }
}

const MAGIC = [0x4c, 0x4d, 0x53, 0x44];
const FORMAT = 1;

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

/** Collects a sharded import's entries, record by record; `build` sorts them and drops repeats. */
export class ShardDirectoryBuilder {
  #hashes = new Uint32Array(1 << 16);
  #shards = new Uint16Array(1 << 16);
  #count = 0;

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

  /**
   * The entries added so far given new shard numbers, `shardOf[old]`; those of an old number
   * mapped to -1 are dropped (a sharded import adds a state's entries before it knows the state's
   * shard, and a state cut into several shards again as its records are split among them).
   */
  renumber(shardOf: ArrayLike<number>): void {
    let kept = 0;
    for (let i = 0; i < this.#count; i++) {
      const shard = shardOf[this.#shards[i]!] ?? -1;
      if (shard < 0) continue;
      this.#hashes[kept] = this.#hashes[i]!;
      this.#shards[kept] = shard;
      kept++;
    }
    this.#count = kept;
  }

  #push(hash: number, shard: number): void {
    if (this.#count === this.#hashes.length) {
      const hashes = new Uint32Array(this.#hashes.length * 2);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
      const shards = new Uint16Array(this.#shards.length * 2);
      shards.set(this.#shards);
      this.#shards = shards;
    }
    this.#hashes[this.#count] = hash;
    this.#shards[this.#count] = shard;
    this.#count++;
  }

  /**
   * The directory of the entries added (sorted, repeats dropped). Uses the builder's entries up:
   * it is empty afterwards, its arrays let go.
   */
  build(): ShardDirectory {
    // Sorted by (hash, shard) in three stable passes of 16 bits (the shard, then the hash's low
    // and high halves): a fraction of a comparison sort's time on the 100M+ entries of a national
    // file, in 8 bytes an entry besides them.
    const n = this.#count;
    let hashes = this.#hashes.subarray(0, n);
    let shards = this.#shards.subarray(0, n);
    let toHashes = new Uint32Array(n);
    let toShards = new Uint16Array(n);
    const digits = new Uint16Array(n);
    const starts = new Uint32Array(65_536);
    for (let pass = 0; pass < 3; pass++) {
      if (pass === 0) digits.set(shards);
      else for (let i = 0; i < n; i++) digits[i] = pass === 1 ? hashes[i]! & 0xffff : hashes[i]! >>> 16;
      starts.fill(0);
      for (let i = 0; i < n; i++) starts[digits[i]!]!++;
      let at = 0;
      for (let d = 0; d < starts.length; d++) {
        const count = starts[d]!;
        starts[d] = at;
        at += count;
      }
      for (let i = 0; i < n; i++) {
        const to = starts[digits[i]!]!++;
        toHashes[to] = hashes[i]!;
        toShards[to] = shards[i]!;
      }
      [hashes, toHashes] = [toHashes, hashes];
      [shards, toShards] = [toShards, shards];
    }
    // Its arrays go with this call (a national file's are hundreds of MB).
    this.#count = 0;
    this.#hashes = new Uint32Array(1 << 16);
    this.#shards = new Uint16Array(1 << 16);
    let unique = 0;
    for (let i = 0; i < n; i++) {
      if (unique > 0 && hashes[i] === hashes[unique - 1] && shards[i] === shards[unique - 1]) continue;
      hashes[unique] = hashes[i]!;
      shards[unique] = shards[i]!;
      unique++;
    }
    return new ShardDirectory(hashes.slice(0, unique), shards.slice(0, unique));
  }
}
