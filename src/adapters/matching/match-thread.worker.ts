import { parentPort, workerData } from 'node:worker_threads';
import { type MatchIndexMeta, matchIndexFromParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput } from '../../domain/matching/matcher.ts';
import { matchPersons, type PersonMatchJob } from '../../domain/matching/probabilistic-matcher.ts';

/**
 * One matching thread: rebuilds the match index from parts in shared memory (no copy of the
 * postings or columns; only the dictionaries' strings are decoded here) and answers chunks of
 * rows with their outcomes, in order.
 *
 * In: { id, rows, job }. Out: { id, outcomes } or { id, error }.
 */
const port = parentPort!;
const { meta, parts } = workerData as { meta: MatchIndexMeta; parts: Record<string, Uint8Array> };
const index = matchIndexFromParts(meta, (name) => {
  const part = parts[name];
  if (part === undefined) throw new Error(`match index part ${name} is missing`);
  return part;
});
port.postMessage({ ready: true });

port.on('message', ({ id, rows, job }: { id: number; rows: MatchInput[]; job: PersonMatchJob }) => {
  try {
    // Dates do not survive structured cloning as Date only when wrapped; rebuild to be sure.
    const options = { ...job.options, asOf: new Date(job.options.asOf) };
    const outcomes = rows.map((row) => matchPersons(index, row, { ...job, options }));
    port.postMessage({ id, outcomes });
  } catch (error) {
    port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
