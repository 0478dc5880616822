import type { CsvBlock } from '../../csv/csv-blocks.ts';
import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import type { BlockExecutor } from '../block-executor.ts';
import { assembleBlock, type BlockOutcomeLines, type BlockOutput } from '../block-stages.ts';
import { rowOfLine } from '../chunk-lines.ts';
import { inTurns } from '../in-turn.ts';
import type { BlockSpec, ListRun } from '../list-run.ts';
import { runPass } from '../pipeline.ts';
import type { ResultSinks } from '../stages/write.ts';
import type { ListSummary } from '../summary-tally.ts';

/** Runs the assemble stage of a block, given its rows' chunk lines, on the matching threads. */
export interface AssembleBlockRunner {
  readonly parallelism: number;
  run(block: CsvBlock, spec: BlockSpec, lines: BlockOutcomeLines): Promise<BlockOutput>;
}

export interface AssembleInput {
  source: AsyncIterable<Uint8Array>;
  run: ListRun;
  voters: VoterSnapshot;
  sinks: ResultSinks;
  /** Per shard with chunks (map order): its chunks' output lines one after the other, in row order. */
  streams: AsyncIterator<string>[];
  /** Runs the assemble stage on the threads (absent: here). */
  threads?: AssembleBlockRunner;
  onProgress?: (rows: number) => void;
}

/**
 * The assemble step: the upload read again, each block given its rows' lines of every chunk
 * stream (read here, in block order) and put through the assemble stage (parse → merge →
 * format), here or on the threads; the result written as matchList writes it.
 */
export async function assembleList(input: AssembleInput): Promise<ListSummary> {
  const { streams } = input;
  const heads: (string | null | undefined)[] = streams.map(() => undefined);
  const peek = async (i: number): Promise<string | null> => {
    if (heads[i] === undefined) {
      const next = await streams[i]!.next();
      heads[i] = next.done ? null : next.value;
    }
    return heads[i]!;
  };
  /** Each stream's lines of the rows before `end`. */
  const linesBefore = async (end: number): Promise<BlockOutcomeLines> => {
    const lines: BlockOutcomeLines = [];
    for (let i = 0; i < streams.length; i++) {
      const own: string[] = [];
      for (let head = await peek(i); head !== null && rowOfLine(head) < end; head = await peek(i)) {
        own.push(head);
        heads[i] = undefined;
      }
      lines.push(own);
    }
    return lines;
  };
  // Blocks take the streams' lines in turn, in the order the pass hands them out.
  const inTurn = inTurns();
  const threads = input.threads;
  const executor: BlockExecutor = {
    parallelism: threads?.parallelism ?? 1,
    run: async (block, spec) => {
      const lines = await inTurn(() => linesBefore(block.firstRow + block.records));
      return threads === undefined
        ? assembleBlock(block, spec, lines)
        : await threads.run(block, spec, lines);
    },
  };
  const { summary } = await runPass({
    source: input.source,
    run: input.run,
    voters: input.voters,
    executor,
    sinks: input.sinks,
    ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
  });
  return summary;
}
