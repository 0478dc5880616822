/** First position in a sorted array whose value is at least `value` (its length when none is). */
export function lowerBound(sorted: Uint32Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Position of `value` in a sorted array, -1 when it is not there. */
export function positionOf(sorted: Uint32Array, value: number): number {
  const at = lowerBound(sorted, value);
  return at < sorted.length && sorted[at] === value ? at : -1;
}
