import { workerData } from 'node:worker_threads';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { type MatchIndexMeta, matchIndexFromParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput } from '../../domain/matching/matcher.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  matchPersons,
  type PersonMatchJob,
  type SampleJob,
  samplePatterns,
} from '../../domain/matching/probabilistic-matcher.ts';
import { type BlockSpec, matchBlock } from '../../domain/pipeline/match-block.ts';
import { serveTasks } from '../threads/task-server.ts';
import { openSharedSnapshot } from '../voters/shared-snapshot.ts';

/**
 * One matching thread: rebuilds the match index from parts in shared memory (no copy of the
 * postings or columns; only the dictionaries' strings are decoded here) and, when it was given
 * the voter snapshot, reopens it too (records through its own file handle, ids and offsets in
 * shared memory). It answers:
 * - `match` / `sample`: chunks of rows, with their outcomes in order or the sample's pattern counts;
 * - `block`: a whole block of a list, parsed, matched (ids, then the probabilistic strategies
 *   with the job's fitted model) and formatted here (match-block.ts).
 *
 * A task pool's thread (threads/task-server.ts): one task at a time, answered in order.
 */
const { meta, parts, snapshot } = workerData as {
  meta: MatchIndexMeta;
  parts: Record<string, Uint8Array>;
  snapshot: object | null;
};
const index = matchIndexFromParts(meta, (name) => {
  const part = parts[name];
  if (part === undefined) throw new Error(`match index part ${name} is missing`);
  return part;
});
const voters = snapshot === null ? null : openSharedSnapshot(snapshot, index);

export type MatchTask =
  | { kind: 'match'; rows: MatchInput[]; job: PersonMatchJob }
  | { kind: 'sample'; rows: readonly MatchInput[]; job: SampleJob }
  | { kind: 'block'; block: CsvBlock; spec: BlockSpec; job: PersonMatchJob };

serveTasks<MatchTask, unknown>(answer);

async function answer(task: MatchTask): Promise<unknown> {
  // A cloned Date arrives as a Date, but rebuilding it keeps this robust to plain timestamps.
  const options = { ...task.job.options, asOf: new Date(task.job.options.asOf) };
  switch (task.kind) {
    case 'match':
      return task.rows.map((row) => matchPersons(index, row, { ...task.job, options }));
    case 'sample':
      return samplePatterns(index, task.rows, { ...task.job, options }).toData();
    case 'block': {
      if (voters === null) throw new Error('this matching thread was started without the voter file');
      const { job } = task;
      const matcher = createProbabilisticMatcher(
        voters,
        index,
        {
          thresholdScore: job.thresholdScore,
          rankOnly: job.rankOnly ?? false,
          candidates: job.candidates,
          model: job.model,
        },
        inThreadRunner(index),
      );
      return await matchBlock(task.block, task.spec, matcher, voters);
    }
  }
}
