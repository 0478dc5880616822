import type { ListFit, Matcher, MatchInput } from '../../matching/matcher.ts';
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import { inThread } from '../block-executor.ts';
import { splitBlock } from '../block-stages.ts';
import { inputOfLine } from '../chunks/chunk-lines.ts';
import { type ListRun, matchOptionsOf, withOutputs } from '../list-run.ts';
import { runPass } from '../pipeline.ts';
import { sampleRowsOf } from './cut.ts';
import type { ListRouter } from './route.ts';

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

export interface ListSample {
  /** Null for a list without data rows. */
  fitShard: number | null;
  /** The fit shard's first rows. */
  rows: MatchInput[];
}

/**
 * The sample pass: the list read (and checked, as every pass checks it) up to the row that
 * completes the fit shard's sample, each row routed as the match will route it. A list where no
 * shard's part is that long is read whole.
 */
export async function readSample(
  source: AsyncIterable<Uint8Array>,
  run: ListRun,
  voters: VoterSnapshot | null,
  router: ListRouter,
): Promise<ListSample> {
  let fit: FitShard | null = null;
  let wanted = run.sampleRows;
  const rowsOf: MatchInput[][] = Array.from({ length: router.shards }, () => []);
  await runPass({
    source,
    run: withOutputs(run, {}),
    voters,
    executor: inThread((block, spec) => splitBlock(block, spec, router)),
    // Each block taken before the next is cut: the pass stops at the block that completes the sample.
    inFlight: 1,
    onBlock: (output, spec) => {
      if (fit === null) {
        wanted = sampleRowsOf(spec);
        fit = new FitShard(router.shards, wanted);
      }
      for (const { line, shards } of output.routed!) {
        const row = inputOfLine(line);
        for (const shard of shards) {
          const own = rowsOf[shard]!;
          if (own.length < wanted) own.push(row);
        }
        if (fit.add(shards)) return true;
      }
      return false;
    },
  });
  const fitShard = (fit as FitShard | null)?.shard ?? null;
  return { fitShard, rows: fitShard === null ? [] : rowsOf[fitShard]! };
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
