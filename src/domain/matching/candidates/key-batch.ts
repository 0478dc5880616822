import type { PackedPostings } from '../index/packed-postings.ts';

/**
 * Blocking keys looked up together: each step of the lookups (directory slots, then residuals)
 * is taken for all keys before the next (PackedPostings.ranges), so their cache misses overlap
 * instead of following one another; the postings are then read in the order the keys were
 * added, so candidates come out as key-by-key lookups found them. Reused from search to search
 * (one per thread's module instance, and a search ends before the next begins).
 */
export class KeyBatch {
  hashes = new Uint32Array(64);
  /** The key kind (KEY) of each hash. */
  kinds = new Uint8Array(64);
  starts = new Uint32Array(64);
  ends = new Uint32Array(64);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(hash: number, kind: number): void {
    if (this.size === this.hashes.length) this.#grow();
    this.hashes[this.size] = hash;
    this.kinds[this.size] = kind;
    this.size++;
  }

  /** Fills `starts` and `ends` with each key's posting range. */
  lookUp(postings: PackedPostings): void {
    postings.ranges(this.hashes, this.size, this.starts, this.ends);
  }

  #grow(): void {
    const length = this.hashes.length * 2;
    const hashes = new Uint32Array(length);
    hashes.set(this.hashes);
    const kinds = new Uint8Array(length);
    kinds.set(this.kinds);
    this.hashes = hashes;
    this.kinds = kinds;
    this.starts = new Uint32Array(length);
    this.ends = new Uint32Array(length);
  }
}

/** A growing list of 32-bit values, reused like a KeyBatch. */
export class Uint32List {
  values = new Uint32Array(256);
  size = 0;

  clear(): void {
    this.size = 0;
  }

  push(value: number): void {
    if (this.size === this.values.length) {
      const bigger = new Uint32Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.size++] = value;
  }
}
