/**
 * The candidates of one input person: voter → bit mask of the key kinds that found it, in the
 * order they were first found (the scorer sums odds in that order, so the order is part of the
 * result). One set is reused row after row: clearing is O(1) (a generation stamp per slot), and
 * adding is an open-addressing probe in typed arrays, where a `Map` allocated per row cost a
 * fifth of a matching thread's time.
 */
export class CandidateSet {
  #capacity = 0;
  #shift = 0;
  /** Slot → position + 1 in insertion order; valid only where `#stamps[slot] === #generation`. */
  #slots = new Int32Array(0);
  #stamps = new Uint32Array(0);
  #generation = 1;
  #voters = new Int32Array(0);
  #bits = new Int32Array(0);
  #size = 0;

  constructor(initialCapacity = 4096) {
    this.#allocate(Math.max(16, 2 ** Math.ceil(Math.log2(initialCapacity))));
  }

  /** A set holding these voters with their masks, in this order. */
  static of(entries: Iterable<readonly [number, number]>): CandidateSet {
    const set = new CandidateSet(16);
    for (const [voter, bits] of entries) set.add(voter, bits);
    return set;
  }

  get size(): number {
    return this.#size;
  }

  /** Forgets every candidate. */
  clear(): void {
    this.#size = 0;
    this.#generation = (this.#generation + 1) >>> 0;
    if (this.#generation === 0) {
      // After 2^32 clears the stamps would alias: start over.
      this.#stamps.fill(0);
      this.#generation = 1;
    }
  }

  /** ORs `bits` into the voter's mask, adding the voter when new. */
  add(voter: number, bits: number): void {
    const slot = this.#find(voter);
    if (this.#stamps[slot] === this.#generation) {
      const at = this.#slots[slot]! - 1;
      this.#bits[at]! |= bits;
      return;
    }
    if ((this.#size + 1) * 2 > this.#capacity) {
      this.#grow();
      this.add(voter, bits);
      return;
    }
    this.#stamps[slot] = this.#generation;
    this.#slots[slot] = this.#size + 1;
    this.#voters[this.#size] = voter;
    this.#bits[this.#size] = bits;
    this.#size++;
  }

  /** The voter's mask, 0 when it is not a candidate. */
  get(voter: number): number {
    const slot = this.#find(voter);
    return this.#stamps[slot] === this.#generation ? this.#bits[this.#slots[slot]! - 1]! : 0;
  }

  has(voter: number): boolean {
    return this.#stamps[this.#find(voter)] === this.#generation;
  }

  /** The `i`-th voter found (0 ≤ i < size). */
  voterAt(i: number): number {
    return this.#voters[i]!;
  }

  /** The key kinds that found the `i`-th voter. */
  bitsAt(i: number): number {
    return this.#bits[i]!;
  }

  /** The voters, in the order they were found. */
  voters(): number[] {
    return Array.from(this.#voters.subarray(0, this.#size));
  }

  /** The slot holding `voter`, or the empty slot where it would go. */
  #find(voter: number): number {
    const mask = this.#capacity - 1;
    let slot = Math.imul(voter, 0x9e3779b1) >>> this.#shift;
    const stamps = this.#stamps;
    const generation = this.#generation;
    while (stamps[slot] === generation && this.#voters[this.#slots[slot]! - 1] !== voter) {
      slot = (slot + 1) & mask;
    }
    return slot;
  }

  #allocate(capacity: number): void {
    this.#capacity = capacity;
    this.#shift = 32 - Math.log2(capacity);
    this.#slots = new Int32Array(capacity);
    this.#stamps = new Uint32Array(capacity);
    this.#generation = 1;
    const voters = new Int32Array(capacity / 2);
    const bits = new Int32Array(capacity / 2);
    voters.set(this.#voters.subarray(0, this.#size));
    bits.set(this.#bits.subarray(0, this.#size));
    this.#voters = voters;
    this.#bits = bits;
  }

  #grow(): void {
    const size = this.#size;
    this.#allocate(this.#capacity * 2);
    for (let i = 0; i < size; i++) {
      const slot = this.#find(this.#voters[i]!);
      this.#stamps[slot] = this.#generation;
      this.#slots[slot] = i + 1;
    }
  }
}
