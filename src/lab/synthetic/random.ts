/**
 * Seeded randomness for the synthetic generator: a small fast PRNG, keyed permutations for
 * collision-free ids, and weighted tables with O(1) sampling. Nothing here reads the clock or
 * `Math.random`, so every output is a pure function of the seed.
 */

const TWO_32 = 4294967296;

/** murmur3's 32-bit finalizer: a cheap, well-mixing bijection on uint32. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Mixes any safe-integer seed and a list of small integers (purpose, state index...) into a uint32 key. */
export function deriveKey(seed: number, ...parts: number[]): number {
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ Math.floor(seed / TWO_32));
  for (const part of parts) h = mix32((h + Math.imul(part | 0, 0x85ebca6b)) ^ 0xc2b2ae35);
  return h;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), 32-bit outputs, from three seed
 * words. Subclasses decide how a seed becomes those words; the stream itself is this one.
 */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(a: number, b: number, c: number) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = 1;
    for (let i = 0; i < 15; i++) this.next();
  }

  /** Uniform uint32. */
  next(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const d = (this.d + 1) | 0;
    const t = (((a + b) | 0) + d) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    this.d = d;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next() / TWO_32;
  }

  /** Uniform integer in [0, n) for n ≤ 2^32. */
  int(n: number): number {
    return Math.floor((this.next() / TWO_32) * n);
  }

  /** Uniform integer in [min, max], both inclusive. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() / TWO_32 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
}

/** The voter generator's stream: sfc32 seeded through deriveKey(seed, stream, 1..3). */
export class Rng extends Sfc32 {
  constructor(seed: number, stream = 0) {
    super(deriveKey(seed, stream, 1), deriveKey(seed, stream, 2), deriveKey(seed, stream, 3));
  }

  /** Roughly normal, mean 0 and standard deviation 1 (sum of three uniforms, bounded at ±3). */
  normalish(): number {
    return (this.float() + this.float() + this.float() - 1.5) * 2;
  }
}

/**
 * A keyed pseudo-random permutation of [0, size): a 4-round Feistel network over
 * half × half (half = ⌈√size⌉) with cycle walking. Mapping a counter through it gives ids that look
 * random yet can never collide, without remembering the ids already issued. size ≤ 2^52.
 */
export class Permutation {
  readonly size: number;
  private readonly half: number;
  private readonly keys: Uint32Array;

  constructor(size: number, key: number) {
    if (!Number.isSafeInteger(size) || size < 1 || size > 2 ** 52) throw new RangeError(`bad size ${size}`);
    this.size = size;
    this.half = Math.max(2, Math.ceil(Math.sqrt(size)));
    this.keys = new Uint32Array(8);
    for (let i = 0; i < 8; i++) this.keys[i] = deriveKey(key, i);
  }

  apply(index: number): number {
    if (index < 0 || index >= this.size) throw new RangeError(`index ${index} outside [0, ${this.size})`);
    let v = index;
    do v = this.encrypt(v);
    while (v >= this.size);
    return v;
  }

  private encrypt(value: number): number {
    const half = this.half;
    const keys = this.keys;
    const scale = half / TWO_32;
    let left = Math.floor(value / half);
    let right = value - left * half;
    for (let round = 0; round < 4; round++) {
      // Round function scaled to [0, half) by a multiply instead of a (slow, floating) modulo.
      let next = left + Math.floor(mix32((mix32(right ^ keys[round]!) + keys[round + 4]!) | 0) * scale);
      if (next >= half) next -= half;
      left = right;
      right = next;
    }
    return left * half + right;
  }
}

/** A weighted choice over fixed items, sampled in O(1) through a 65,536-slot lookup table. */
export class WeightedTable<T> {
  readonly items: readonly T[];
  private readonly slots: Uint16Array;

  constructor(items: readonly T[], weights: readonly number[]) {
    if (items.length === 0 || items.length !== weights.length || items.length > 65536) {
      throw new RangeError('weighted table needs 1..65536 items with one weight each');
    }
    this.items = items;
    this.slots = new Uint16Array(65536);
    const total = weights.reduce((sum, w) => sum + w, 0);
    let item = 0;
    let cumulative = weights[0]! / total;
    for (let slot = 0; slot < 65536; slot++) {
      const u = (slot + 0.5) / 65536;
      while (u > cumulative && item < items.length - 1) cumulative += weights[++item]! / total;
      this.slots[slot] = item;
    }
  }

  /** Zipf-like weights 1 / (rank + offset)^exponent for items listed most common first. */
  static ranked<T>(items: readonly T[], offset: number, exponent = 1): WeightedTable<T> {
    return new WeightedTable(
      items,
      items.map((_, rank) => 1 / (rank + 1 + offset) ** exponent),
    );
  }

  index(rng: Rng): number {
    return this.slots[rng.next() >>> 16]!;
  }

  pick(rng: Rng): T {
    return this.items[this.slots[rng.next() >>> 16]!]!;
  }
}
