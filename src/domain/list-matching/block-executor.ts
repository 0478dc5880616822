import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { BlockOutput } from './block-stages.ts';
import type { BlockSpec } from './list-run.ts';

/**
 * Where a pass's block stage runs (block-stages.ts): on the job's thread (inThread), or on the
 * process's matching threads (adapters/matching/match-thread-pool.ts), each thread taking whole
 * blocks. The pass (pipeline.ts) hands blocks out in order, keeps `parallelism` × a few in
 * flight, and writes their outputs in order, so the bytes are the same wherever they ran.
 */
export interface BlockExecutor {
  /** Blocks it works on at once. */
  readonly parallelism: number;
  run(block: CsvBlock, spec: BlockSpec): Promise<BlockOutput>;
  /** Lets go of what it opened for the pass (a shard map on the threads), once the pass is done. */
  close?(): void;
}

/** A block stage run on the calling thread, one block at a time. */
export function inThread(
  stage: (block: CsvBlock, spec: BlockSpec) => BlockOutput | Promise<BlockOutput>,
): BlockExecutor {
  return { parallelism: 1, run: async (block, spec) => await stage(block, spec) };
}
