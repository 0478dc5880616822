import { workerData } from 'node:worker_threads';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { serveTasks } from '../threads/task-server.ts';
import {
  type BlockCounts,
  countBlock,
  type SplitBlock,
  type SplitPlan,
  splitBlock,
} from './shard-split-blocks.ts';

/**
 * One thread of a sharded voter import's two passes over the voter CSV (shard-split-blocks.ts):
 * counts a block's records per state and ZIP3 while the shards are not planned yet (`plan` null),
 * then splits blocks among the shards. In: a block (its bytes moved here). Out: its counts, or its
 * shards' parts (their arrays moved back).
 */
const split = workerData as SplitPlan;
serveTasks<CsvBlock, SplitBlock | BlockCounts>(
  (block) => (split.plan === null ? countBlock(block, split) : splitBlock(block, split)),
  (answer) =>
    Array.isArray(answer)
      ? []
      : answer.parts.flatMap((part) => [
          part.bytes.buffer as ArrayBuffer,
          part.lines.buffer as ArrayBuffer,
          part.hashes.buffer as ArrayBuffer,
        ]),
);
