/**
 * 32-bit hashing of blocking keys. Keys are built from small integers (dictionary ids, ZIPs,
 * years), so they are mixed as integers (murmur3's block and finalization steps) instead of
 * being formatted as strings: no allocation per key.
 */

/** Mixes one 32-bit integer into a running hash. */
export function mix(hash: number, value: number): number {
  let k = Math.imul(value | 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  let h = hash ^ k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** Final avalanche: makes every input bit affect the top bits the directory uses. */
export function finish(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export const hash3 = (kind: number, a: number, b: number): number => finish(mix(mix(mix(kind, a), b), 3));
export const hash4 = (kind: number, a: number, b: number, c: number): number =>
  finish(mix(mix(mix(mix(kind, a), b), c), 4));

/** FNV-1a over UTF-16 code units, finished with the avalanche step. */
export function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return finish(h);
}

/**
 * A string's hash in 30 bits, for the parts keys are made of (sounds, name groups, cities):
 * V8 passes integers below 2^30 between functions as they are, where a larger one is allocated
 * on the heap at every call that is not inlined (about 20 per voter at index build).
 */
export const hashPart = (value: string): number => hashString(value) >>> 2;
