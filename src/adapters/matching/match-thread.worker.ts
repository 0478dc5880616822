import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import {
  assembleBlock,
  type BlockOutcomeLines,
  type BlockOutput,
  matchBlock,
  splitBlock,
} from '../../domain/list-matching/block-stages.ts';
import { matchChunkBatch } from '../../domain/list-matching/chunks/match-chunk.ts';
import type { BlockSpec, ListRun } from '../../domain/list-matching/list-run.ts';
import { type ListRouter, ONE_SHARD, shardRouter } from '../../domain/list-matching/stages/route.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { TextField } from '../../domain/matching/index/match-index-fields.ts';
import {
  dictionariesFromParts,
  type MatchIndexMeta,
  matchIndexFromParts,
  requiredParts,
  type SharedDictionaryHandover,
} from '../../domain/matching/index/match-index-parts.ts';
import type { Matcher, MatchInput } from '../../domain/matching/matcher.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  matchPersons,
  type PersonMatchJob,
  shardSampleEvidence,
} from '../../domain/matching/probabilistic-matcher.ts';
import { ShardDirectory, type ShardDirectoryParts } from '../../domain/voters/shard-directory.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { idlePause } from '../threads/idle-pause.ts';
import { serveTasks } from '../threads/task-server.ts';
import { touchPages } from '../threads/touch-pages.ts';
import { openSharedSnapshot } from '../voters/shared-snapshot.ts';

/**
 * One matching thread of a process's MatchThreadPool. It holds every voter file opened on it
 * (`open`): the match index rebuilt from parts in shared memory (no copy of the postings or
 * columns; only the dictionaries' strings are decoded here) and, when it was given the voter
 * snapshot, the snapshot too (records through its own file handle, ids and offsets in shared
 * memory); and the shard maps `open-router` gave it, to route rows across a sharded file's shards.
 * It answers:
 * - `match` / `sample-evidence`: rows of a batch, with their outcomes in order or what each sample
 *   person tells the fit (samplePersonEvidence);
 * - `block`: a whole block of a list through a pass's block stage (block-stages.ts): `match`
 *   (parse → route → match in the open shards → merge → format), `split` (parse → route) or
 *   `assemble` (parse → merge the chunks' lines → format; no voter file needed);
 * - `chunk`: a batch of a chunk's lines, matched (chunks/match-chunk.ts);
 * and `close` / `close-router` let a voter file or a map go.
 *
 * A task pool's thread (threads/task-server.ts): tasks are answered in order, but for an open,
 * which lets the tasks after it run between its steps (a task for the file it opens waits).
 */
interface OpenSource {
  index: MatchIndex;
  voters: VoterSnapshot | null;
}
const sources = new Map<number, OpenSource>();
/** Routers of the sharded voter files whose lists this thread routes. */
const routers = new Map<number, ListRouter>();

/** A shard of a match stage: its open voter file and the run's matching there. */
export interface ShardJob {
  source: number;
  job: PersonMatchJob;
}

/** Which block stage a `block` task runs, with what it needs besides the block. */
export type BlockStageTask =
  /** `router`: an open router (null: an unsharded file, `shards` its one). */
  | { stage: 'match'; router: number | null; shards: readonly ShardJob[] }
  | { stage: 'split'; router: number }
  | { stage: 'assemble'; lines: BlockOutcomeLines };

export type MatchTask =
  | {
      kind: 'open';
      source: number;
      meta: MatchIndexMeta;
      parts: Record<string, Uint8Array>;
      /** The dictionaries of shared values, as the opening thread holds them. */
      handover: Partial<Record<TextField, SharedDictionaryHandover>>;
      snapshot: object | null;
    }
  | { kind: 'close'; source: number }
  | { kind: 'open-router'; router: number; map: ShardMap; directory: ShardDirectoryParts | null }
  | { kind: 'close-router'; router: number }
  | { kind: 'match'; source: number; rows: MatchInput[]; job: PersonMatchJob }
  | { kind: 'sample-evidence'; source: number; rows: readonly MatchInput[]; job: PersonMatchJob }
  | { kind: 'block'; task: BlockStageTask; block: CsvBlock; spec: BlockSpec }
  | {
      kind: 'chunk';
      source: number;
      lines: readonly string[];
      columns: readonly number[];
      run: ListRun;
      job: PersonMatchJob;
    };

/** Tasks sent to this thread so far (an open's steps wait while they keep coming: idlePause). */
let tasksSent = 0;

serveTasks<MatchTask, unknown>((task) => {
  tasksSent++;
  return answer(task);
});

/**
 * Opens a voter file: its dictionaries decoded, its voters counted by ZIP and birth date when
 * its index stores no counts (MatchIndex.countInSteps) and its pages touched (touchPages), in
 * steps taken as the thread is quiet (idlePause), between which the tasks of the files already
 * open are answered (the lookups' thread goes on answering while it opens the next version).
 * Opens run one after the other, in the order sent (each appends the shared values the pool
 * counted as sent before it: StringDictionary.appendSharedValues); a task for a file, its close
 * too, waits for its opening (opened).
 */
function open(task: Extract<MatchTask, { kind: 'open' }>): Promise<void> {
  const opens = lastOpen.then(async () => {
    const part = requiredParts((name) => task.parts[name]);
    const dictionaries = await dictionariesFromParts(task.meta, part, betweenTasks, task.handover);
    const index = matchIndexFromParts(task.meta, part, dictionaries);
    await index.countInSteps(betweenTasks);
    await touchPages(Object.values(task.parts), betweenTasks);
    const voters = task.snapshot === null ? null : openSharedSnapshot(task.snapshot, index);
    sources.set(task.source, { index, voters });
  });
  const settled = opens.catch(() => {});
  lastOpen = settled;
  opening.set(task.source, settled);
  void settled.then(() => {
    if (opening.get(task.source) === settled) opening.delete(task.source);
  });
  return opens;
}

/** Lets the tasks that arrive run before the next step of an open: it waits for a quiet moment. */
const betweenTasks = idlePause(() => tasksSent);

/** The files being opened, each until its `open` ends (failed or not). */
const opening = new Map<number, Promise<void>>();
/** The last open sent: the next starts when it ends. */
let lastOpen: Promise<void> = Promise.resolve();

/** Waits until the files a task reads are open (an open task sent before it may still be running). */
async function opened(ids: readonly number[]): Promise<void> {
  for (const id of ids) await opening.get(id);
}

function sourcesOf(task: MatchTask): number[] {
  switch (task.kind) {
    case 'match':
    case 'sample-evidence':
    case 'chunk':
    case 'close':
      return [task.source];
    case 'block':
      return task.task.stage === 'match' ? task.task.shards.map((shard) => shard.source) : [];
    default:
      return [];
  }
}

function routerOf(id: number): ListRouter {
  const router = routers.get(id);
  if (router === undefined) throw new Error(`shard map ${id} is not open on this matching thread`);
  return router;
}

function sourceOf(id: number): OpenSource {
  const source = sources.get(id);
  if (source === undefined) throw new Error(`voter file ${id} is not open on this matching thread`);
  return source;
}

function votersOf(id: number): { index: MatchIndex; voters: VoterSnapshot } {
  const { index, voters } = sourceOf(id);
  if (voters === null) throw new Error('this matching thread was started without the voter file');
  return { index, voters };
}

/** A block through its stage; a match stage's shard matchers made when a row needs them. */
async function runBlockStage(task: BlockStageTask, block: CsvBlock, spec: BlockSpec): Promise<BlockOutput> {
  if (task.stage === 'split') return splitBlock(block, spec, routerOf(task.router));
  if (task.stage === 'assemble') return assembleBlock(block, spec, task.lines);
  const matchers = new Map<number, Matcher>();
  const snapshots = task.shards.map(({ source }) => votersOf(source).voters);
  return await matchBlock(block, spec, {
    router: task.router === null ? ONE_SHARD : routerOf(task.router),
    snapshots,
    matcherOf: (shard) => {
      let matcher = matchers.get(shard);
      if (matcher === undefined) {
        const { source, job } = task.shards[shard]!;
        const { index, voters } = votersOf(source);
        matcher = jobMatcher(index, voters, job);
        matchers.set(shard, matcher);
      }
      return matcher;
    },
  });
}

async function answer(task: MatchTask): Promise<unknown> {
  // Registered as opening before anything else runs: a task sent after it waits for it.
  if (task.kind === 'open') return await open(task);
  if (opening.size > 0) await opened(sourcesOf(task));
  switch (task.kind) {
    // Its records file is closed when the snapshot is collected (snapshot-files.ts).
    case 'close':
      return sources.delete(task.source);
    case 'open-router': {
      const directory = task.directory === null ? null : new ShardDirectory(task.directory);
      return void routers.set(task.router, shardRouter(task.map, directory));
    }
    case 'close-router':
      return routers.delete(task.router);
    case 'block':
      return await runBlockStage(task.task, task.block, task.spec);
    case 'chunk': {
      const { index, voters } = votersOf(task.source);
      return await matchChunkBatch(
        task.lines,
        task.columns,
        jobMatcher(index, voters, task.job),
        voters,
        task.run,
      );
    }
  }
  const { index } = sourceOf(task.source);
  // A cloned Date arrives as a Date, but rebuilding it keeps this robust to plain timestamps.
  const job = { ...task.job, options: { ...task.job.options, asOf: new Date(task.job.options.asOf) } };
  return task.kind === 'match'
    ? task.rows.map((row) => matchPersons(index, row, job))
    : shardSampleEvidence(index, task.rows, job);
}

/** The run's matcher on this thread: ids, then the probabilistic strategies with its fitted model. */
function jobMatcher(index: MatchIndex, voters: VoterSnapshot, job: PersonMatchJob): Matcher {
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
