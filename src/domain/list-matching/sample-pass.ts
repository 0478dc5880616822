import type { MatchInput } from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { inThread } from './block-executor.ts';
import { splitBlock } from './block-stages.ts';
import { inputOfLine } from './chunk-lines.ts';
import { type ListRun, withOutputs } from './list-run.ts';
import { runPass } from './pipeline.ts';
import { sampleRowsOf } from './stages/cut.ts';
import { FitShard } from './stages/fit.ts';
import type { ListRouter } from './stages/route.ts';

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
