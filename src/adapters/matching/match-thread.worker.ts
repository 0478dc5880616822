import { parentPort, workerData } from 'node:worker_threads';
import { type MatchIndexMeta, matchIndexFromParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput } from '../../domain/matching/matcher.ts';
import {
  matchPersons,
  type PersonMatchJob,
  type SampleJob,
  samplePatterns,
} from '../../domain/matching/probabilistic-matcher.ts';

/**
 * One matching thread: rebuilds the match index from parts in shared memory (no copy of the
 * postings or columns; only the dictionaries' strings are decoded here) and answers chunks of
 * rows with their outcomes, in order.
 *
 * In: { id, kind: 'match' | 'sample', rows, job }. Out: { id, result } (outcomes in row order,
 * or the sample's pattern counts) or { id, error }.
 */
const port = parentPort!;
const { meta, parts } = workerData as { meta: MatchIndexMeta; parts: Record<string, Uint8Array> };
const index = matchIndexFromParts(meta, (name) => {
  const part = parts[name];
  if (part === undefined) throw new Error(`match index part ${name} is missing`);
  return part;
});
port.postMessage({ ready: true });

port.on(
  'message',
  (
    message: { id: number; rows: MatchInput[] } & (
      | { kind: 'match'; job: PersonMatchJob }
      | { kind: 'sample'; job: SampleJob }
    ),
  ) => {
    try {
      // A cloned Date arrives as a Date, but rebuilding it keeps this robust to plain timestamps.
      const options = { ...message.job.options, asOf: new Date(message.job.options.asOf) };
      const result =
        message.kind === 'match'
          ? message.rows.map((row) => matchPersons(index, row, { ...message.job, options }))
          : samplePatterns(index, message.rows, { ...message.job, options }).toData();
      port.postMessage({ id: message.id, result });
    } catch (error) {
      port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  },
);
