import type { CsvBlock } from '../csv/csv-blocks.ts';
import type { Matcher, MatchInput, MatchOptions } from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { type BlockResult, type BlockSpec, matchBlock } from './match-block.ts';

/**
 * Runs the blocks of a list (parse → match → format, see match-block.ts): on this thread, or on
 * worker threads that each hold the voter file. The list's coordinator hands it blocks in order,
 * keeps a few in flight per thread, and writes their results in order.
 */
export interface BlockRunner {
  /** Blocks it works on at once. */
  readonly parallelism: number;
  /**
   * Learns what the matcher fits on each list (EM's m) from the list's sample (`sample` parses
   * it when called), before any block runs; every block is then matched with the same model.
   */
  prepare(sample: () => readonly MatchInput[], options: MatchOptions): Promise<void>;
  run(block: CsvBlock, spec: BlockSpec): Promise<BlockResult>;
}

/**
 * Runs batches of a sharded list's chunk (its input lines → its output lines, see
 * sharded-list.ts) on worker threads that each hold the shard: the chunk's reader then only
 * cuts the lines into batches and writes the answers in order.
 */
export interface ChunkBatchRunner {
  /** Batches it works on at once. */
  readonly parallelism: number;
  /**
   * One batch of input lines, matched with the matcher's model (fitted or given before the first
   * batch): the output lines, each ending in a newline. `columns`: the shard's columns whose
   * values each candidate carries.
   */
  run(lines: readonly string[], columns: readonly number[], options: MatchOptions): Promise<string>;
}

/** A matcher that can also run whole blocks elsewhere (on worker threads). */
export interface ListMatcher extends Matcher {
  /** Absent: blocks run on the calling thread through `matchBatch`. */
  readonly blocks?: BlockRunner;
  /** Absent: a sharded list's chunks are matched through `matchBatch` (sharded-list.ts). */
  readonly chunkBatches?: ChunkBatchRunner;
}

/**
 * Blocks run one at a time on the calling thread, through the matcher's `matchBatch`; a matcher
 * that learns from a list does so on the list's sample first.
 */
export function inThreadBlocks(matcher: Matcher, voters: VoterSnapshot | null): BlockRunner {
  return {
    parallelism: 1,
    prepare: async (sample, options) => {
      if (matcher.prepare) await matcher.prepare(sample(), options);
    },
    run: (block, spec) => matchBlock(block, spec, matcher, voters),
  };
}
