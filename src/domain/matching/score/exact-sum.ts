/**
 * Sums of doubles that do not depend on the order of their terms, nor on how they were split into
 * parts: the exact sum is kept as a few non-overlapping doubles (Shewchuk's partials, the method
 * of Python's math.fsum) and rounded once, correctly, at the end. A person's candidates are summed
 * in whatever order a voter file lists them, and a sharded file sums them shard by shard: the
 * list's fit and the merge weigh these sums, and they must be the same however the file is
 * stored. (Scoring sums a person's candidates as a double-double, whose two parts it adds here:
 * equal to the exact sum's double unless that lies within about 2^-100 of half a unit in its last
 * place.)
 *
 * A sum past a double's range is held as two MAX_VALUEs (which JSON carries, unlike Infinity):
 * it stays there, and rounds to Infinity.
 */

const MAX = Number.MAX_VALUE;

const overflowed = (parts: readonly number[]) => parts.length === 2 && parts[0] === MAX && parts[1] === MAX;

/** Adds `x` to the exact sum held by `parts` (in place). */
export function addExact(parts: number[], x: number): void {
  if (x === 0 || overflowed(parts)) return;
  if (!Number.isFinite(x)) {
    setOverflow(parts);
    return;
  }
  if (parts.length === 1) {
    // The common case (a person's first candidates): one part, a branch-free two-sum (Knuth).
    const p = parts[0]!;
    const hi = x + p;
    if (!Number.isFinite(hi)) {
      setOverflow(parts);
      return;
    }
    const b = hi - x;
    const lo = x - (hi - b) + (p - b);
    if (lo === 0) parts[0] = hi;
    else {
      parts[0] = lo;
      parts.push(hi);
    }
    return;
  }
  let kept = 0;
  for (let j = 0; j < parts.length; j++) {
    let y = parts[j]!;
    if (Math.abs(x) < Math.abs(y)) {
      const t = x;
      x = y;
      y = t;
    }
    const hi = x + y;
    if (!Number.isFinite(hi)) {
      setOverflow(parts);
      return;
    }
    const lo = y - (hi - x);
    if (lo !== 0) parts[kept++] = lo;
    x = hi;
  }
  parts.length = kept;
  parts.push(x);
}

/** Adds every part of another exact sum to `parts`. */
export function addExactParts(parts: number[], other: readonly number[]): void {
  if (overflowed(other)) setOverflow(parts);
  else for (const part of other) addExact(parts, part);
}

/** The exact sum, correctly rounded to a double. */
export function roundExact(parts: readonly number[]): number {
  if (overflowed(parts)) return Number.POSITIVE_INFINITY;
  let n = parts.length;
  if (n === 0) return 0;
  let hi = parts[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = parts[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  // Half-way between two doubles: the parts below decide which way it rounds.
  if (n > 0 && ((lo < 0 && parts[n - 1]! < 0) || (lo > 0 && parts[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}

function setOverflow(parts: number[]): void {
  parts.length = 0;
  parts.push(MAX, MAX);
}
