import { workerData } from 'node:worker_threads';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { serveTasks } from '../threads/task-server.ts';
import { type PreparedVoterBlock, prepareVoterBlock, type VoterBlockPlan } from './voter-blocks.ts';

/**
 * One thread of a voter import: prepares blocks of the voter CSV (voter-blocks.ts) for the
 * import thread, which takes them in order. In: a block (its bytes moved here). Out: the block
 * prepared, its arrays moved back.
 */
const plan = workerData as VoterBlockPlan;
serveTasks<CsvBlock, PreparedVoterBlock>(
  (block) => prepareVoterBlock(block, plan),
  (prepared) =>
    [
      prepared.recordBytes,
      prepared.lines,
      prepared.voterbase,
      prepared.checks,
      prepared.idRows,
      prepared.idHashes,
      prepared.idKinds,
    ].map((array) => array.buffer as ArrayBuffer),
);
