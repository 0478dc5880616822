import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { inThread } from './block-executor.ts';
import { splitBlock } from './block-stages.ts';
import { inputOfLine } from './chunk-lines.ts';
import { type ListRun, withOutputs } from './list-run.ts';
import { runPass } from './pipeline.ts';
import { sampleRowsOf } from './stages/cut.ts';
import type { SampleRow } from './stages/fit.ts';
import type { ListRouter } from './stages/route.ts';

/**
 * The sample pass: the list read (and checked, as every pass checks it) up to its first
 * `sampleRows` rows (sampleRowsOf), each routed as the match will route it: the rows the fit
 * stage learns the list's model from. A shorter list is read whole.
 */
export async function readSample(
  source: AsyncIterable<Uint8Array>,
  run: ListRun,
  voters: VoterSnapshot | null,
  router: ListRouter,
): Promise<SampleRow[]> {
  const sample: SampleRow[] = [];
  await runPass({
    source,
    run: withOutputs(run, {}),
    voters,
    executor: inThread((block, spec) => splitBlock(block, spec, router)),
    // Each block taken before the next is cut: the pass stops at the block that completes the sample.
    inFlight: 1,
    onBlock: (output, spec) => {
      const wanted = sampleRowsOf(spec);
      for (const { line, shards } of output.routed!) {
        if (sample.length >= wanted) break;
        sample.push({ row: inputOfLine(line), shards });
      }
      return sample.length >= wanted;
    },
  });
  return sample;
}
