import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import { type BlockSpec, matchBlock } from '../../domain/list-matching/match-block.ts';
import { assembleBlock, type BlockOutcomeLines } from '../../domain/list-matching/merge-chunks.ts';
import { routeBlock, routeNormalized } from '../../domain/list-matching/route-rows.ts';
import { matchShardedBlock, type ShardAtHand } from '../../domain/list-matching/sharded-in-one-pass.ts';
import { matchChunkBatch } from '../../domain/list-matching/sharded-list.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import { type MatchIndexMeta, matchIndexFromParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput } from '../../domain/matching/matcher.ts';
import type { NormalizedInput } from '../../domain/matching/normalize/person.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  matchPersons,
  type PersonMatchJob,
  samplePersonEvidence,
} from '../../domain/matching/probabilistic-matcher.ts';
import { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { serveTasks } from '../threads/task-server.ts';
import { openSharedSnapshot } from '../voters/shared-snapshot.ts';

/**
 * One matching thread of a process's MatchThreadPool. It holds every voter file opened on it
 * (`open`): the match index rebuilt from parts in shared memory (no copy of the postings or
 * columns; only the dictionaries' strings are decoded here) and, when it was given the voter
 * snapshot, the snapshot too (records through its own file handle, ids and offsets in shared
 * memory). It answers, for an open voter file:
 * - `match` / `sample-evidence`: chunks of rows, with their outcomes in order or what each sample
 *   person tells the fit (samplePersonEvidence);
 * - `block`: a whole block of a list, parsed, matched (ids, then the probabilistic strategies
 *   with the job's fitted model) and formatted here (match-block.ts);
 * - `chunk`: a batch of a sharded list's chunk lines, matched the same way, answered with the
 *   chunk's output lines (sharded-list.ts);
 * - `route`: a whole block of a list split across the shards of a sharded voter file, whose map
 *   and directory (in shared memory) `open-router` gave it (route-rows.ts);
 * - `assemble`: a whole block of a list matched against a sharded voter file, its rows' outcomes
 *   merged from the chunks' lines and formatted (merge-chunks.ts; no voter file needed);
 * - `sharded-block`: a whole block of a list matched against every shard of a sharded voter file
 *   in one pass (each row routed by an `open-router` map, matched in the open shards it is routed
 *   to, merged and formatted: sharded-in-one-pass.ts);
 * and `close` lets a voter file go.
 *
 * A task pool's thread (threads/task-server.ts): one task at a time, answered in order.
 */
interface OpenSource {
  index: MatchIndex;
  voters: VoterSnapshot | null;
}
const sources = new Map<number, OpenSource>();
/** A shard directory's arrays, in shared memory. */
type SharedDirectory = { hashes: Uint32Array; shards: Uint16Array };
/** Shard maps and directories of the sharded voter files whose lists this thread splits. */
const routers = new Map<number, { map: ShardMap; directory: ShardDirectory | null }>();

export type MatchTask =
  | {
      kind: 'open';
      source: number;
      meta: MatchIndexMeta;
      parts: Record<string, Uint8Array>;
      snapshot: object | null;
    }
  | { kind: 'close'; source: number }
  | { kind: 'match'; source: number; rows: MatchInput[]; job: PersonMatchJob }
  | { kind: 'sample-evidence'; source: number; rows: readonly MatchInput[]; job: PersonMatchJob }
  | { kind: 'block'; source: number; block: CsvBlock; spec: BlockSpec; job: PersonMatchJob }
  | {
      kind: 'chunk';
      source: number;
      lines: readonly string[];
      columns: readonly number[];
      job: PersonMatchJob;
    }
  | {
      kind: 'open-router';
      router: number;
      map: ShardMap;
      directory: SharedDirectory | null;
    }
  | { kind: 'close-router'; router: number }
  | { kind: 'route'; router: number; block: CsvBlock; spec: BlockSpec }
  | { kind: 'assemble'; block: CsvBlock; spec: BlockSpec; lines: BlockOutcomeLines; thresholdScore: number }
  | {
      kind: 'sharded-block';
      router: number;
      /** Per shard of the map, in map order: its open voter file, the job, the columns candidates carry. */
      shards: readonly ShardJob[];
      block: CsvBlock;
      spec: BlockSpec;
    };

/** A shard of a sharded-block task: its open voter file and the job's matching there. */
export interface ShardJob {
  source: number;
  job: PersonMatchJob;
  columns: readonly number[];
}

serveTasks<MatchTask, unknown>(answer);

function open(task: Extract<MatchTask, { kind: 'open' }>): void {
  const index = matchIndexFromParts(task.meta, (name) => {
    const part = task.parts[name];
    if (part === undefined) throw new Error(`match index part ${name} is missing`);
    return part;
  });
  const voters = task.snapshot === null ? null : openSharedSnapshot(task.snapshot, index);
  sources.set(task.source, { index, voters });
}

function routerOf(id: number) {
  const router = routers.get(id);
  if (router === undefined) throw new Error(`shard map ${id} is not open on this matching thread`);
  return router;
}

/** A block matched against every shard in one pass; each shard's matcher made when a row needs it. */
async function shardedBlock(task: Extract<MatchTask, { kind: 'sharded-block' }>) {
  const { map, directory } = routerOf(task.router);
  const hands = new Map<number, ShardAtHand>();
  const shardAt = (shard: number): ShardAtHand => {
    let hand = hands.get(shard);
    if (hand === undefined) {
      const { source, job, columns } = task.shards[shard]!;
      const { index, voters } = sourceOf(source);
      if (voters === null) throw new Error('this matching thread was started without the voter file');
      hand = { voters, matcher: jobMatcher(index, voters, job), columns };
      hands.set(shard, hand);
    }
    return hand;
  };
  const route = (row: MatchInput, normalized: NormalizedInput) =>
    routeNormalized(row, normalized, map, directory);
  // Every shard's job has the job's threshold.
  const thresholdScore = task.shards[0]?.job.thresholdScore ?? 0;
  return await matchShardedBlock(task.block, task.spec, route, shardAt, thresholdScore);
}

function sourceOf(id: number): OpenSource {
  const source = sources.get(id);
  if (source === undefined) throw new Error(`voter file ${id} is not open on this matching thread`);
  return source;
}

async function answer(task: MatchTask): Promise<unknown> {
  if (task.kind === 'open') return open(task);
  if (task.kind === 'open-router') {
    const shared = task.directory;
    const directory = shared === null ? null : new ShardDirectory(shared.hashes, shared.shards);
    return void routers.set(task.router, { map: task.map, directory });
  }
  if (task.kind === 'close-router') return routers.delete(task.router);
  if (task.kind === 'assemble') {
    return await assembleBlock(task.block, task.spec, task.lines, task.thresholdScore);
  }
  if (task.kind === 'route') {
    const router = routerOf(task.router);
    return await routeBlock(task.block, task.spec, router.map, router.directory);
  }
  if (task.kind === 'sharded-block') return await shardedBlock(task);
  // Its records file is closed when the snapshot is collected (snapshot-files.ts).
  if (task.kind === 'close') return sources.delete(task.source);
  const { index, voters } = sourceOf(task.source);
  // A cloned Date arrives as a Date, but rebuilding it keeps this robust to plain timestamps.
  const options = { ...task.job.options, asOf: new Date(task.job.options.asOf) };
  switch (task.kind) {
    case 'match':
      return task.rows.map((row) => matchPersons(index, row, { ...task.job, options }));
    case 'sample-evidence':
      return samplePersonEvidence(index, task.rows, { ...task.job, options });
    case 'block': {
      if (voters === null) throw new Error('this matching thread was started without the voter file');
      return await matchBlock(task.block, task.spec, jobMatcher(index, voters, task.job), voters);
    }
    case 'chunk': {
      if (voters === null) throw new Error('this matching thread was started without the voter file');
      const matcher = jobMatcher(index, voters, task.job);
      return await matchChunkBatch(task.lines, task.columns, matcher, voters, options);
    }
  }
}

/** The job's matcher on this thread: ids, then the probabilistic strategies with its fitted model. */
function jobMatcher(index: MatchIndex, voters: VoterSnapshot, job: PersonMatchJob) {
  return createProbabilisticMatcher(
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
}
