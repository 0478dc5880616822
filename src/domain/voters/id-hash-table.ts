import { finish } from '../matching/index/hashing.ts';

/**
 * An open-addressing hash table from a 52-bit key hash to record indexes, stored as one
 * Float64Array of [hash, row] pairs: a probe touches one cache line instead of two arrays, and
 * the table persists as one flat file that loads without rebuilding. Keys themselves are not
 * stored: callers verify each hit against the record, so a hash collision costs a check, never a
 * wrong answer. Several records may share a key (multi-valued).
 */
const EMPTY = 0;
const MAX_LOAD = 0.7;

export class IdHashTable {
  /** slots[2i] = hash (0: empty), slots[2i + 1] = record index. */
  slots: Float64Array;
  count: number;
  private mask: number;

  constructor(slots: Float64Array, count: number) {
    const capacity = slots.length / 2;
    if (!Number.isInteger(capacity) || (capacity & (capacity - 1)) !== 0) {
      throw new Error('hash table needs a power-of-two number of [hash, row] slots');
    }
    this.slots = slots;
    this.count = count;
    this.mask = capacity - 1;
  }

  static create(expected = 1024): IdHashTable {
    let capacity = 1024;
    while (capacity * MAX_LOAD < expected) capacity *= 2;
    return new IdHashTable(new Float64Array(capacity * 2), 0);
  }

  /**
   * Builds a table from `count` [hash, row] pairs in one pass ordered by home slot (a stable
   * counting sort), so inserts sweep memory sequentially instead of missing the cache on every
   * row. Equal hashes keep their order in `pairs`.
   */
  static build(pairs: Float64Array, count: number): IdHashTable {
    const table = IdHashTable.create(count);
    const mask = table.mask;
    const starts = new Uint32Array(table.capacity + 1);
    for (let i = 0; i < count; i++) starts[slotOf(pairs[i * 2]!, mask) + 1]!++;
    for (let s = 1; s < starts.length; s++) starts[s]! += starts[s - 1]!;
    // Scatter the pairs into home-slot order, then insert reading them sequentially.
    const sorted = new Float64Array(count * 2);
    for (let i = 0; i < count; i++) {
      const at = starts[slotOf(pairs[i * 2]!, mask)]!++ * 2;
      sorted[at] = pairs[i * 2]!;
      sorted[at + 1] = pairs[i * 2 + 1]!;
    }
    for (let j = 0; j < count * 2; j += 2) table.place(sorted[j]!, sorted[j + 1]!);
    table.count = count;
    return table;
  }

  get capacity(): number {
    return this.mask + 1;
  }

  /** Grows once to hold `expected` entries without further rehashing. */
  reserve(expected: number): void {
    let capacity = this.capacity;
    while (capacity * MAX_LOAD < expected) capacity *= 2;
    if (capacity > this.capacity) this.rehash(capacity);
  }

  insert(hash: number, row: number): void {
    if (this.count + 1 > this.capacity * MAX_LOAD) this.rehash(this.capacity * 2);
    this.place(hash, row);
    this.count++;
  }

  /**
   * Inserts unless a row already stored under `hash` is the same key (`sameKey` decides, since
   * hashes can collide); one probe sequence, no allocation. Returns false for a duplicate.
   */
  insertUnique(hash: number, row: number, sameKey: (existingRow: number) => boolean): boolean {
    if (this.count + 1 > this.capacity * MAX_LOAD) this.rehash(this.capacity * 2);
    const { slots, mask } = this;
    let slot = slotOf(hash, mask);
    for (; slots[slot * 2] !== EMPTY; slot = (slot + 1) & mask) {
      if (slots[slot * 2] === hash && sameKey(slots[slot * 2 + 1]!)) return false;
    }
    slots[slot * 2] = hash;
    slots[slot * 2 + 1] = row;
    this.count++;
    return true;
  }

  /** Record indexes stored under `hash`, in insertion order. */
  find(hash: number): number[] {
    const out: number[] = [];
    const { slots, mask } = this;
    for (let slot = slotOf(hash, mask); slots[slot * 2] !== EMPTY; slot = (slot + 1) & mask) {
      if (slots[slot * 2] === hash) out.push(slots[slot * 2 + 1]!);
    }
    return out;
  }

  private place(hash: number, row: number): void {
    const { slots, mask } = this;
    let slot = slotOf(hash, mask);
    while (slots[slot * 2] !== EMPTY) slot = (slot + 1) & mask;
    slots[slot * 2] = hash;
    slots[slot * 2 + 1] = row;
  }

  private rehash(capacity: number): void {
    const old = this.slots;
    this.slots = new Float64Array(capacity * 2);
    this.mask = capacity - 1;
    // Re-inserting in slot order keeps equal hashes in their insertion order.
    for (let i = 0; i < old.length; i += 2) {
      const hash = old[i]!;
      if (hash !== EMPTY) this.place(hash, old[i + 1]!);
    }
  }
}

function slotOf(hash: number, mask: number): number {
  // The high 32 bits are a well-mixed hash of their own.
  return Math.floor(hash / 1048576) & mask;
}

/** 52-bit string hash (two 32-bit mixes), never 0, exact as a float64. */
export function hash52(text: string): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 13;
  }
  h1 = finish(h1);
  h2 = finish(h2 ^ text.length);
  const value = (h1 >>> 0) * 1048576 + (h2 >>> 12);
  return value === EMPTY ? 1 : value;
}

/** An independent 32-bit hash, used at import to tell duplicates from 52-bit collisions. */
export function hash32(text: string): number {
  let h = 0x27d4eb2f;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x165667b1);
  return finish(h);
}
