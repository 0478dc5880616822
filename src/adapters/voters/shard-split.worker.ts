import { workerData } from 'node:worker_threads';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { serveTasks } from '../threads/task-server.ts';
import { type SplitBlock, type SplitPlan, splitBlock } from './shard-split-blocks.ts';

/**
 * One thread of a sharded voter import's split passes (shard-split-blocks.ts): a block's records
 * by state (the first pass over the voter file, `plan` null), or among a state's shards. In: a
 * block (its bytes moved here). Out: its parts (their arrays moved back).
 */
const split = workerData as SplitPlan;
serveTasks<CsvBlock, SplitBlock>(
  (block) => splitBlock(block, split),
  (answer) =>
    answer.parts.flatMap((part) => [part.bytes.buffer as ArrayBuffer, part.lines.buffer as ArrayBuffer]),
);
