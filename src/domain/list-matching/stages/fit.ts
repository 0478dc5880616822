import type { ListFit, Matcher, MatchInput } from '../../matching/matcher.ts';
import { type ListRun, matchOptionsOf } from '../list-run.ts';

/**
 * The fit stage: the list's model (EM's m, its match rate) learned once, on its sample, and read
 * by every shard's matcher. The sample is the first `sampleRows` rows the fit shard holds: the
 * first shard whose part of the list reaches that many rows (counting in input order, so it is
 * known as soon as they are read), else the shard with the most rows. For an unsharded file,
 * the list's first rows. The same whatever runs the list and however it is cut into chunks.
 */
export class FitShard {
  readonly #rows: number[];
  readonly #sampleRows: number;
  #first: number | null = null;

  constructor(shards: number, sampleRows: number) {
    this.#rows = new Array<number>(shards).fill(0);
    this.#sampleRows = sampleRows;
  }

  /** Counts a row sent to `shards` (in map order); true once some shard's part holds the sample. */
  add(shards: readonly number[]): boolean {
    for (const shard of shards) {
      const rows = ++this.#rows[shard]!;
      if (rows === this.#sampleRows && this.#first === null) this.#first = shard;
    }
    return this.#first !== null;
  }

  /** The fit shard of the rows counted so far; null before any. */
  get shard(): number | null {
    if (this.#first !== null) return this.#first;
    let best: number | null = null;
    this.#rows.forEach((rows, shard) => {
      if (rows > 0 && (best === null || rows > this.#rows[best]!)) best = shard;
    });
    return best;
  }
}

/** Fits `matcher` on the sample; what it learned (null: a matcher that learns nothing). */
export async function fitOn(
  matcher: Matcher,
  sample: readonly MatchInput[],
  run: ListRun,
): Promise<ListFit | null> {
  await matcher.prepare?.(sample, matchOptionsOf(run));
  return matcher.listFit?.() ?? null;
}
