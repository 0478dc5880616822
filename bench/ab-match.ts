/**
 * Old against new code on one list, in one process: `node bench/ab-match.ts OLD_ROOT NEW_ROOT
 * LIST PAIRS` (each root a checkout of this repository, e.g. a `git worktree` of the old commit
 * with this one's node_modules linked in). Each tree's `matchList` is loaded beside the other's
 * with its own voter store (DATA_DIR, sharded or not) and matching threads (MATCH_THREADS), as
 * `listmatch match` runs; after a warm-up pass of each, PAIRS pairs of passes, old first in one
 * pair and new first in the next. Prints each pass's seconds, the ratio of the medians and the median of the pairs'
 * ratios, and writes each tree's result to /tmp/ab-match-old.csv and -new.csv (compare them).
 * OLD_DATA_DIR and NEW_DATA_DIR, when set, give each side its own DATA_DIR: the same tree twice
 * then compares two ways of storing one voter file (whole against sharded, issue 37).
 *
 * Why: this VM's speed drifts by tens of percent within minutes (user CPU in proportion), so runs
 * of two processes one after the other tell 5% apart only by luck; passes alternated in one
 * process share the drift. Even so, differences within a few percent need many pairs.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { resolve } from 'node:path';

type MatchListModule = typeof import('../src/domain/list-matching/match-list.ts');
type ListRunModule = typeof import('../src/domain/list-matching/list-run.ts');
type FactoryModule = typeof import('../src/adapters/matching/threaded-matcher-factory.ts');
type StoresModule = typeof import('../src/start/voter-stores.ts');
type ConfigModule = typeof import('../src/config.ts');
type Threads = InstanceType<FactoryModule['ThreadedMatcherFactory']>;

interface Tree {
  pass(): Promise<number>;
  close(): Promise<void>;
}

async function openTree(root: string, list: string, out: string, dataDir?: string): Promise<Tree> {
  const at = (path: string) => `${resolve(root)}/src/${path}`;
  const { ThreadedMatcherFactory } = (await import(
    at('adapters/matching/threaded-matcher-factory.ts')
  )) as FactoryModule;
  const { listRun } = (await import(at('domain/list-matching/list-run.ts'))) as ListRunModule;
  const { loadEveryShard, matchList } = (await import(
    at('domain/list-matching/match-list.ts')
  )) as MatchListModule;
  const { localVoterStore } = (await import(at('start/voter-stores.ts'))) as StoresModule;
  const { loadConfig } = (await import(at('config.ts'))) as ConfigModule;
  const config = loadConfig(dataDir === undefined ? process.env : { ...process.env, DATA_DIR: dataDir });
  let threads: Threads | null = null;
  const store = localVoterStore(config, resolve(config.DATA_DIR), {
    onEvict: (snapshot) => threads?.release(snapshot),
  });
  const shardCount = (await store.stats())?.shards;
  threads = new ThreadedMatcherFactory(config.MATCH_THREADS, {
    ...(shardCount === undefined ? {} : { sourcesKept: shardCount }),
  });
  const held = threads;
  held.start();
  const voters = await store.current();
  if (voters === null) throw new Error(`no voter file in ${config.DATA_DIR}`);
  const map = voters.shardMap;
  const shards = map === undefined ? undefined : await loadEveryShard(store, map, (s) => held.open(s));
  return {
    async pass() {
      const started = performance.now();
      await matchList({
        open: () => createReadStream(list, { highWaterMark: 1 << 20 }),
        sinks: { output: createWriteStream(out) },
        run: listRun({
          maxMatches: 1,
          searchRadiusMiles: null,
          // One date for both trees and every pass (ages are counted from it).
          asOf: new Date('2026-11-30T00:00:00Z'),
          thresholdScore: config.MATCH_THRESHOLD,
          appendedFields: [],
          maxRowBytes: config.MAX_ROW_BYTES,
          outputs: { every: true },
        }),
        voters,
        ...(shards === undefined ? {} : { shards }),
        executor: held,
      });
      return (performance.now() - started) / 1000;
    },
    close: () => held.close(),
  };
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const [oldRoot, newRoot, list, pairsArg] = process.argv.slice(2);
const pairs = Number(pairsArg ?? 8);
if (oldRoot === undefined || newRoot === undefined || list === undefined || !(pairs >= 1)) {
  console.error('usage: node bench/ab-match.ts OLD_ROOT NEW_ROOT LIST [PAIRS]');
  process.exit(2);
}
const older = await openTree(oldRoot, list, '/tmp/ab-match-old.csv', process.env['OLD_DATA_DIR']);
const newer = await openTree(newRoot, list, '/tmp/ab-match-new.csv', process.env['NEW_DATA_DIR']);
try {
  await older.pass();
  await newer.pass();
  const times = { old: [] as number[], new: [] as number[] };
  // Old first in one pair, new first in the next: the second of two passes ran some percent
  // slower here whichever tree it was (the same tree twice: 1.04×).
  for (let i = 0; i < pairs; i++) {
    if (i % 2 === 0) {
      times.old.push(await older.pass());
      times.new.push(await newer.pass());
    } else {
      times.new.push(await newer.pass());
      times.old.push(await older.pass());
    }
  }
  const ratios = times.new.map((t, i) => t / times.old[i]!);
  console.log(`old ${times.old.map((t) => t.toFixed(2)).join(' ')}`);
  console.log(`new ${times.new.map((t) => t.toFixed(2)).join(' ')}`);
  console.log(
    `new ÷ old: medians ${(median(times.new) / median(times.old)).toFixed(3)}, pairs' median ${median(ratios).toFixed(3)}`,
  );
} finally {
  await older.close();
  await newer.close();
}
