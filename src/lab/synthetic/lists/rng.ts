/**
 * Seeded randomness and a Bloom filter for the contact-list generator. Its seeding is kept local so list
 * output does not change when the voter generator's seeding evolves; sfc32 and mix32 are shared.
 */
import { mix32, Sfc32 } from '../random.ts';

const TWO_32 = 4294967296;

/**
 * The list generator's own seeding (not the voter generator's deriveKey), so that list output does
 * not change when the voter generator's seeding evolves; the sfc32 stream itself is shared.
 */
function seedKey(seed: number, stream: number, part: number): number {
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ Math.floor(seed / TWO_32));
  h = mix32((h + Math.imul(stream, 0x85ebca6b)) ^ 0xc2b2ae35);
  return mix32((h + Math.imul(part, 0x27d4eb2f)) ^ 0x165667b1);
}

/** sfc32 generator seeded from any safe integer and a stream number. */
export class ListRng extends Sfc32 {
  constructor(seed: number, stream: number) {
    super(seedKey(seed, stream, 1), seedKey(seed, stream, 2), seedKey(seed, stream, 3));
  }

  /** Uniform integer in [0, n) for any safe n (two draws). */
  bigInt(n: number): number {
    return Math.floor(((this.next() * TWO_32 + this.next()) / (TWO_32 * TWO_32)) * n);
  }
}

/**
 * Fixed-size blocked Bloom filter over strings (2^27 bits = 16 MiB; 4 probes inside one 512-bit block, so
 * one cache miss per operation). Used to make sure invented values (ids, phones, e-mails, name+dob) of
 * non-members do not occur in the voter file: a false positive only costs a retry and there are no false
 * negatives, so its size does not limit the size of the voter file.
 */
/** Bits set per value, inside its block. */
const PROBES = 4;

export class StringBloom {
  readonly #words: Int32Array;
  readonly #blocks: number;

  constructor(log2Bits = 27) {
    this.#words = new Int32Array(2 ** (log2Bits - 5));
    this.#blocks = 2 ** (log2Bits - 9);
  }

  add(value: string): void {
    const { base, probe } = this.#place(value);
    const words = this.#words;
    for (let k = 0; k < PROBES; k++) {
      const bit = (probe >>> (7 * k)) & 511;
      words[base + (bit >>> 5)]! |= 1 << (bit & 31);
    }
  }

  has(value: string): boolean {
    const { base, probe } = this.#place(value);
    const words = this.#words;
    for (let k = 0; k < PROBES; k++) {
      const bit = (probe >>> (7 * k)) & 511;
      if ((words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** A value's 512-bit block (its first word) and the word whose 7-bit pieces pick its bits there. */
  #place(value: string): { base: number; probe: number } {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13);
    }
    return { base: Math.floor((mix32(h1) / TWO_32) * this.#blocks) * 16, probe: mix32(h2 ^ h1) };
  }
}
