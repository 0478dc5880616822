/** Bytes per page of memory (the smallest the kernel maps). */
const PAGE_BYTES = 4096;

/**
 * Reads a byte of every page of `parts`, `step` bytes at a time with `pause` between steps: what
 * a matching thread does to a newly opened voter file's arrays before its first task. On the
 * lookup thread, the first second of a newly swapped-in 10M-voter file's lookups spent half the
 * thread touching its voters' fields for the first time (prefetchCandidates ten times slower than
 * on the file it replaced) and requests queued for 0.7 s. Returns the sum of the bytes read (so
 * that the reads are not optimized away).
 */
export async function touchPages(
  parts: readonly Uint8Array[],
  pause: () => Promise<void>,
  step = 16 << 20,
): Promise<number> {
  let sum = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length; from += step) {
      const to = Math.min(part.length, from + step);
      for (let at = from; at < to; at += PAGE_BYTES) sum += part[at]!;
      await pause();
    }
  }
  return sum;
}
