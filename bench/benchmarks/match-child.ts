/**
 * Child process of the `match` benchmarks (a fresh process, so its memory figures are the
 * snapshot's alone): loads an imported DATA_DIR's voter snapshot, runs the list through the
 * pipeline with the service's matcher and with a matcher that matches nothing (the floor:
 * parse and write only), scores the result against the truth, and prints one JSON line.
 *
 * node bench/benchmarks/match-child.ts <dataDir> <list.csv> <truth.csv> <out.csv> [--build]
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ThreadedMatcherFactory } from '../../src/adapters/matching/threaded-matcher-factory.ts';
import { FsVoterStore } from '../../src/adapters/voters/fs-voter-store.ts';
import {
  buildMatchIndexFromRecords,
  defaultIndexThreads,
} from '../../src/adapters/voters/match-index-threads.ts';
import { listRun } from '../../src/domain/list-matching/list-run.ts';
import { inThreadExecutor, type ListExecutor, matchList } from '../../src/domain/list-matching/match-list.ts';
import type { Matcher } from '../../src/domain/matching/matcher.ts';
import { readTruthFile, scoreResultFile } from '../../src/lab/evaluation/run-evaluation.ts';

const [dataDir, listPath, truthPath, outPath] = process.argv.slice(2);
if (outPath === undefined) throw new Error('usage: match-child.ts <dataDir> <list> <truth> <out> [--build]');
const build = process.argv.includes('--build');
const asOf = new Date('2026-01-01T00:00:00Z');

const gc = () => (globalThis as { gc?: () => void }).gc?.();
gc();
const rssBefore = process.memoryUsage().rss;
let started = performance.now();
const store = new FsVoterStore({ dir: join(dataDir!, 'voters'), maxRowBytes: 1 << 20 });
const voters = await store.current();
if (voters === null || voters.matchIndex === null)
  throw new Error(`no voter snapshot with a match index in ${dataDir}`);
const loadMs = performance.now() - started;
gc();
const rssLoaded = process.memoryUsage().rss;

async function run(executor: ListExecutor): Promise<{ seconds: number; rows: number }> {
  const t = performance.now();
  const summary = await matchList({
    open: () => createReadStream(listPath!, { highWaterMark: 1 << 20 }),
    sinks: { output: createWriteStream(outPath!) },
    run: listRun({
      maxMatches: 1,
      searchRadiusMiles: null,
      asOf,
      thresholdScore: 50,
      appendedFields: [],
      maxRowBytes: 1 << 20,
      outputs: { every: true },
    }),
    voters: voters!,
    executor,
  });
  return { seconds: (performance.now() - t) / 1000, rows: summary.rows };
}

const nothing: Matcher = {
  name: 'floor',
  matchBatch: (rows) => rows.map(() => ({ candidates: [], unmatchedReason: 'floor' })),
};
const floor = await run(inThreadExecutor(() => nothing));
const threads = availableParallelism();
const factory = new ThreadedMatcherFactory(threads);
// The first job of a process also starts the threads and estimates u from the voter file.
const first = await run(factory);
const second = await run(factory);
const rssMatching = process.memoryUsage().rss;
await factory.close();
const scored = await scoreResultFile(outPath!, await readTruthFile(truthPath!), 1);

// The index build as a rebuild does it: from the stored records file, on every core (best of 3:
// this shared VM's speed wanders by ±10% from run to run).
let buildSeconds: number | null = null;
if (build) {
  const versionDir = join(dataDir!, 'voters', voters.version);
  for (let run = 0; run < 3; run++) {
    started = performance.now();
    await buildMatchIndexFromRecords(join(versionDir, 'records.dat'), voters.columns, { asOf });
    const seconds = (performance.now() - started) / 1000;
    buildSeconds = Math.min(buildSeconds ?? seconds, seconds);
  }
}

console.log(
  JSON.stringify({
    voters: voters.size,
    threads,
    loadMs,
    rssBefore,
    rssLoaded,
    rssMatching,
    floor,
    first,
    second,
    precision: scored.metrics.overall.precision,
    recall: scored.metrics.overall.recall,
    buildSeconds,
    buildThreads: defaultIndexThreads(),
  }),
);
