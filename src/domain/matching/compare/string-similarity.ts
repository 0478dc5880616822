/**
 * String similarity for name comparison, called for every candidate pair: no allocation for
 * strings up to SCRATCH_CHARS (module-level scratch buffers are reused; JS is single-threaded and
 * neither function re-enters). Characters are compared as UTF-16 code units; names are cleaned to
 * A-Z before they get here.
 */

const SCRATCH_CHARS = 64;
const flagsA = new Uint8Array(SCRATCH_CHARS);
const flagsB = new Uint8Array(SCRATCH_CHARS);

/**
 * Jaro-Winkler similarity 0..1: Jaro with matches within floor(max(|a|,|b|) / 2) - 1, plus
 * Winkler's boost of a common prefix (up to 4 chars, scale 0.1) applied when Jaro > 0.7, as in
 * Winkler's definition (and jellyfish, Apache Commons Text). Equal strings → 1 (also two empty
 * ones); one empty → 0.
 *
 * With a `floor`, a pair that cannot reach it gives 0 instead of its similarity: a bound from the
 * characters each string shares with the other decides most unlike pairs (SMITH, JOHNSON) without
 * matching them character by character. A caller that only compares the result with thresholds
 * at or above the floor decides as with the exact value.
 */
export function jaroWinkler(a: string, b: string, floor = 0): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (floor > 0 && similarityBound(a, b, la, lb) < floor) return 0;
  if (la <= 31 && lb <= 31) return jaroWinklerShort(a, b, la, lb);
  const long = la > SCRATCH_CHARS || lb > SCRATCH_CHARS;
  const fa = long ? new Uint8Array(la) : flagsA;
  const fb = long ? new Uint8Array(lb) : flagsB;
  if (!long) {
    fa.fill(0, 0, la);
    fb.fill(0, 0, lb);
  }
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const c = a.charCodeAt(i);
    const from = i > window ? i - window : 0;
    const to = i + window + 1 < lb ? i + window + 1 : lb;
    for (let j = from; j < to; j++) {
      if (fb[j] === 0 && b.charCodeAt(j) === c) {
        fa[i] = 1;
        fb[j] = 1;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  // Half-transpositions: matched characters of a and b, in order, that differ.
  let half = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (fa[i] === 0) continue;
    while (fb[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) half++;
    k++;
  }
  return winkler(a, b, la, lb, matches, half);
}

/**
 * An upper bound of jaroWinkler(a, b): Jaro with as many matches as characters of each string
 * whose code (mod 32) occurs in the other, no transpositions, and the largest prefix boost when
 * that Jaro exceeds 0.7.
 */
function similarityBound(a: string, b: string, la: number, lb: number): number {
  // The scorer asks about one row's name against many: a's character set is kept between calls.
  if (a !== boundOf) {
    let mask = 0;
    for (let i = 0; i < la; i++) mask |= 1 << (a.charCodeAt(i) & 31);
    boundOf = a;
    boundMask = mask;
  }
  const maskA = boundMask;
  let maskB = 0;
  let inA = 0;
  for (let j = 0; j < lb; j++) {
    const bit = 1 << (b.charCodeAt(j) & 31);
    maskB |= bit;
    if (maskA & bit) inA++;
  }
  let inB = 0;
  for (let i = 0; i < la; i++) if (maskB & (1 << (a.charCodeAt(i) & 31))) inB++;
  const m = inA < inB ? inA : inB;
  const jaro = (m / la + m / lb + 1) / 3;
  return jaro > 0.7 ? jaro + 0.4 * (1 - jaro) : jaro;
}

/** similarityBound's last first string and its character set. */
let boundOf = '';
let boundMask = 0;

/** jaroWinkler for strings of at most 31 chars: the match flags are bits of two integers. */
function jaroWinklerShort(a: string, b: string, la: number, lb: number): number {
  const window = Math.max(0, (Math.max(la, lb) >> 1) - 1);
  let fa = 0;
  let fb = 0;
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const c = a.charCodeAt(i);
    const from = i > window ? i - window : 0;
    const to = i + window + 1 < lb ? i + window + 1 : lb;
    for (let j = from; j < to; j++) {
      if ((fb & (1 << j)) === 0 && b.charCodeAt(j) === c) {
        fa |= 1 << i;
        fb |= 1 << j;
        matches++;
        break;
      }
    }
  }
  if (matches === 0) return 0;
  let half = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if ((fa & (1 << i)) === 0) continue;
    while ((fb & (1 << k)) === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) half++;
    k++;
  }
  return winkler(a, b, la, lb, matches, half);
}

/** Jaro from the match and half-transposition counts, with Winkler's prefix boost above 0.7. */
function winkler(a: string, b: string, la: number, lb: number, m: number, half: number): number {
  const jaro = (m / la + m / lb + (m - (half >> 1)) / m) / 3;
  if (jaro <= 0.7) return jaro;
  let prefix = 0;
  const maxPrefix = la < lb ? (la < 4 ? la : 4) : lb < 4 ? lb : 4;
  while (prefix < maxPrefix && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** Three DP rows (i-2, i-1, i) of the edit-distance matrix for strings up to SCRATCH_CHARS. */
const rowsScratch = new Int32Array(3 * (SCRATCH_CHARS + 1));

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transposition as one edit, no
 * substring edited twice) capped: returns min(distance, max + 1). Only the diagonal band
 * |i - j| <= max is computed (cells outside it exceed max anyway), and it stops as soon as a
 * whole row exceeds max (row minima never decrease), so the cost is O(min(|a|,|b|) · max).
 * A negative or NaN max is treated as 0.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  const bound = max >= 0 ? Math.floor(max) : 0;
  if (a === b) return 0;
  // Common prefix and suffix cost nothing and do not change the distance.
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  const la = endA - start;
  const lb = endB - start;
  if (Math.abs(la - lb) > bound) return bound + 1;
  if (la === 0) return lb;
  if (lb === 0) return la;
  // The distance never exceeds the longer length: a smaller cap keeps Infinity out of Int32Array.
  const cap = bound < la || bound < lb ? bound : la > lb ? la : lb;
  const outside = cap + 1;
  const width = lb + 1;
  const rows = lb <= SCRATCH_CHARS ? rowsScratch : new Int32Array(3 * width);
  // Rotating row offsets: prev2 = row i-2, prev = row i-1, cur = row i.
  let prev2 = 0;
  let prev = width;
  let cur = 2 * width;
  const firstHi = cap + 1 < lb ? cap + 1 : lb;
  for (let j = 0; j <= firstHi; j++) rows[prev + j] = j;
  for (let i = 1; i <= la; i++) {
    const ca = a.charCodeAt(start + i - 1);
    const caPrev = i > 1 ? a.charCodeAt(start + i - 2) : -1;
    const lo = i > cap ? i - cap : 1;
    const hi = i + cap < lb ? i + cap : lb;
    // Just left and right of the band: "more than cap", read by this row and the next.
    const left = lo === 1 ? i : outside;
    rows[cur + lo - 1] = left;
    if (hi < lb) rows[cur + hi + 1] = outside;
    let rowMin = left;
    for (let j = lo; j <= hi; j++) {
      const cb = b.charCodeAt(start + j - 1);
      let d = rows[prev + j - 1]! + (ca === cb ? 0 : 1);
      const del = rows[prev + j]! + 1;
      if (del < d) d = del;
      const ins = rows[cur + j - 1]! + 1;
      if (ins < d) d = ins;
      if (j > 1 && ca !== cb && caPrev === cb && ca === b.charCodeAt(start + j - 2)) {
        const tr = rows[prev2 + j - 2]! + 1;
        if (tr < d) d = tr;
      }
      rows[cur + j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > cap) return bound + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  const distance = rows[prev + lb]!;
  return distance > bound ? bound + 1 : distance;
}
