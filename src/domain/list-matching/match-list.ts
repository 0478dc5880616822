import type { JobSummary } from '../client-jobs/job-types.ts';
import type { ListFit, Matcher } from '../matching/matcher.ts';
import type { ShardMap } from '../voters/shard-map.ts';
import type { VoterSnapshot, VoterStore } from '../voters/voter-snapshot.ts';
import { type BlockExecutor, inThread } from './block-executor.ts';
import { type HeldShards, matchBlock } from './block-stages.ts';
import type { AssembleBlockRunner } from './chunks/assemble-list.ts';
import type { ChunkBatchRunner } from './chunks/match-chunk.ts';
import type { ListRun } from './list-run.ts';
import { runPass } from './pipeline.ts';
import { readSample } from './sample-pass.ts';
import { fitList } from './stages/fit.ts';
import { addRouting, type ListRouter, noRouting, ONE_SHARD, shardRouter } from './stages/route.ts';
import type { ResultSinks } from './stages/write.ts';
import type { ListSummary } from './summary-tally.ts';

export { MATCH_COLUMNS, MAX_LIST_COLUMNS } from './list-layout.ts';
export type { ListSummary } from './summary-tally.ts';

/**
 * How a list's matchers are made and where its stages run: on the job's thread (inThreadExecutor)
 * or on the process's matching threads (adapters/matching/threaded-matcher-factory.ts). A list
 * whose voter file this process holds whole runs every stage through it (matchList); one whose
 * shards live on several workers runs as the queue's steps (chunks/), each step's stages through
 * the executor of the worker that takes it.
 */
export interface ListExecutor {
  /** A shard's matcher (an unsharded file: its one), to be fitted on the sample (fit null) or with the list's fit. */
  matcher(voters: VoterSnapshot, fit: ListFit | null, run: ListRun): Matcher;
  /**
   * The match stage's executor (parse → route → match → merge → format) over `held`, whose
   * matchers this executor made; `whole`: the voter file (a sharded one's map routes the rows).
   */
  blocks(held: HeldShards & { matchers: readonly Matcher[] }, whole: VoterSnapshot): BlockExecutor;
  /** The split stage's executor (parse → route) for a sharded file; absent or undefined: on the calling thread. */
  splitBlocks?(whole: VoterSnapshot): BlockExecutor | undefined;
  /** The assemble stage's runner (parse → merge → format); absent or undefined: on the calling thread. */
  assembleBlocks?(): AssembleBlockRunner | undefined;
  /** A chunk's batches matched elsewhere with `matcher`'s model; absent or undefined: through `matcher` here. */
  chunkBatches?(matcher: Matcher): ChunkBatchRunner | undefined;
}

/** Matchers made by `create`, every stage run on the calling thread. */
export function inThreadExecutor(
  create: (voters: VoterSnapshot, fit: ListFit | null, run: ListRun) => Matcher,
): ListExecutor {
  return {
    matcher: create,
    blocks: (held) => inThread((block, spec) => matchBlock(block, spec, held)),
  };
}

export interface MatchListInput {
  /** The upload from its first byte; opened twice (the sample, then the match). */
  open: () => AsyncIterable<Uint8Array> | Promise<AsyncIterable<Uint8Array>>;
  sinks: ResultSinks;
  run: ListRun;
  /** The voter file: unsharded, or sharded with every shard held here (`shards`). */
  voters: VoterSnapshot;
  /** A sharded file's shards, loaded, in map order (loadEveryShard). */
  shards?: readonly VoterSnapshot[];
  executor: ListExecutor;
  onProgress?: (rows: number) => void;
}

export type MatchedList = ListSummary & Pick<JobSummary, 'shardRouting'>;

/**
 * A list matched against a voter file this process holds whole (every shard of a sharded one):
 * the sample pass (fit stage: stages/fit.ts), the list's model fitted once on the fit shard, then
 * one pass of the match stage (parse → route → match → merge → format) over every block, the
 * result written in order. A sharded file gives the bytes the queue's split, chunks and assembly
 * give (chunks/), an unsharded file is a file of one shard.
 */
export async function matchList(input: MatchListInput): Promise<MatchedList> {
  const { run, voters, executor: here } = input;
  const map = voters.shardMap;
  const snapshots = map === undefined ? [voters] : input.shards;
  if (snapshots === undefined || snapshots.length !== (map?.shards.length ?? 1)) {
    throw new Error('a sharded voter file is matched here with every shard loaded');
  }
  const router: ListRouter = map === undefined ? ONE_SHARD : shardRouter(map, voters.shardDirectory ?? null);
  const sample = await readSample(await input.open(), run, voters, router);
  // The list's model, fitted once on its sample over every shard the sample's rows go to; every
  // shard's matcher matches with it. A sharded file's sample rows are placed over their shards
  // (stages/place.ts), as its rows are.
  const placing =
    map === undefined
      ? null
      : {
          indexOf: (shard: number) => snapshots[shard]?.matchIndex ?? null,
          near: router.near,
          homes: router.homes,
        };
  const fit = await fitList(sample, (shard) => here.matcher(snapshots[shard]!, null, run), run, placing);
  const matchers = sample.length === 0 ? [] : snapshots.map((shard) => here.matcher(shard, fit, run));
  const held = {
    router,
    snapshots,
    matchers,
    matcherOf: (shard: number) => {
      const matcher = matchers[shard];
      if (matcher === undefined) throw new Error(`shard ${shard} of the voter file has no matcher`);
      return matcher;
    },
  };
  const routing = noRouting();
  const executor: BlockExecutor =
    matchers.length === 0
      ? inThread((block, spec) => matchBlock(block, spec, held))
      : here.blocks(held, voters);
  const { summary } = await runPass({
    source: await input.open(),
    run,
    voters,
    executor,
    sinks: input.sinks,
    onBlock: (output) => {
      if (output.routing !== undefined) addRouting(routing, output.routing);
      return false;
    },
    ...(input.onProgress === undefined ? {} : { onProgress: input.onProgress }),
  }).finally(() => executor.close?.());
  return map === undefined
    ? summary
    : { ...summary, shardRouting: { ...routing, shards: map.shards.length } };
}

/**
 * Loads every shard of a sharded voter file, to match lists against them in one process;
 * `onLoaded` is told of each (to open it on the matching threads meanwhile).
 */
export async function loadEveryShard(
  voters: VoterStore,
  map: ShardMap,
  onLoaded?: (shard: VoterSnapshot) => void,
): Promise<VoterSnapshot[]> {
  const snapshots: VoterSnapshot[] = [];
  for (const shard of map.shards) {
    const snapshot = await voters.open(shard.version);
    if (snapshot === null) throw new Error(`shard ${shard.id} of the voter file is missing`);
    onLoaded?.(snapshot);
    snapshots.push(snapshot);
  }
  return snapshots;
}
