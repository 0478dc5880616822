import type { BlockRunner, ChunkBatchRunner, ListMatcher } from '../../domain/list-matching/block-runner.ts';
import { matchOptionsOf } from '../../domain/list-matching/match-block.ts';
import type { AssembleBlockRunner } from '../../domain/list-matching/merge-chunks.ts';
import type { ClosableRouteBlockRunner } from '../../domain/list-matching/route-rows.ts';
import type { ShardedBlockRunner } from '../../domain/list-matching/sharded-in-one-pass.ts';
import { buildMatchIndex } from '../../domain/matching/index/build-match-index.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  type PersonMatchRunner,
  type ProbabilisticMatcher,
  type ProbabilisticMatcherOptions,
} from '../../domain/matching/probabilistic-matcher.ts';
import type { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import { everyShardFits, type ShardMap } from '../../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { type MatchSource, MatchThreadPool } from './match-thread-pool.ts';

/** Rows a batch needs before threads are started for its voter file (their start costs ~0.5 s). */
const MIN_ROWS_FOR_THREADS = 1000;

/**
 * Threads from which a sharded list's two passes over the upload (the split and the assembly)
 * run on them. A block of either costs about twice the CPU there (each thread compiles the code
 * the job's thread already runs hot, and the lines are copied both ways), so with 2 threads a
 * pass takes the job's thread's time (measured, 2-core VM: 100k rows, 10 shards) for twice the
 * CPU; from 4 it takes half of it or less.
 */
const MIN_THREADS_FOR_LIST_PASSES = 4;

/** Voter files kept open on the threads: the current one and the one before (a resumed job may use it). */
const SOURCES_KEPT = 2;

/**
 * Creates each job's matcher, running the probabilistic strategies on `threads` worker threads
 * (0: on the calling thread). The threads are the process's one MatchThreadPool, started on first
 * use; each voter file (a version, or a shard of a sharded one) is opened on them once and kept
 * for later jobs, since opening one decodes its index's dictionaries on every thread.
 */
export class ThreadedMatcherFactory {
  private readonly threads: number;
  private readonly sourcesKept: number;
  private pool: MatchThreadPool | null = null;
  private readonly sources = new Map<MatchIndex, MatchSource>();
  /**
   * Indexes built here for snapshots stored without one (in-memory snapshots, versions imported
   * before the index existed), kept while the snapshot lives.
   */
  private readonly builtIndexes = new WeakMap<VoterSnapshot, MatchIndex>();
  /** What each matcher made by create() matches with on the threads (for shardedBlocks). */
  private readonly onThreads = new WeakMap<
    ListMatcher,
    { matcher: ProbabilisticMatcher; threads: () => MatchSource }
  >();

  /** `sourcesKept`: voter files kept open at most (a sharded voter file: every loaded shard; see release). */
  constructor(threads: number, options: { sourcesKept?: number } = {}) {
    this.threads = threads;
    this.sourcesKept = options.sourcesKept ?? SOURCES_KEPT;
  }

  /**
   * Starts the threads now rather than with the first list worth them: each spends about 0.2-0.3 s
   * loading its code, which then overlaps whatever this thread does next (loading the voter
   * file). For a caller that knows a list is coming (`listmatch match`).
   */
  start(): void {
    if (this.threads > 0) this.livePool();
  }

  /** Lets the threads drop a snapshot that is no longer loaded (a voter shard let go). */
  release(voters: VoterSnapshot): void {
    if (voters.shardMap !== undefined) return;
    const index = voters.matchIndex ?? this.builtIndexes.get(voters);
    const source = index === undefined ? undefined : this.sources.get(index);
    if (index === undefined || source === undefined) return;
    this.sources.delete(index);
    source.close();
  }

  create(voters: VoterSnapshot, options: Partial<ProbabilisticMatcherOptions> = {}): ListMatcher {
    const index = this.indexOf(voters);
    if (this.threads === 0) return createProbabilisticMatcher(voters, index, options);
    const shared = voters.shared?.() ?? null;
    const inThread = inThreadRunner(index);
    // Threads are used from the first batch worth them: a small chunk of a voter shard is matched
    // sooner here than after opening the shard on threads that each decode its dictionaries.
    // A job keeps the source it started on: if one of its threads dies, its later batches fail
    // too (the queue retries the job) rather than mixing threads.
    let source: MatchSource | null = null;
    const onThreads = (rows: readonly unknown[]) =>
      source !== null || rows.length >= MIN_ROWS_FOR_THREADS || this.sources.has(index);
    const threads = () => {
      source ??= this.sourceFor(index, shared);
      return source;
    };
    const runner: PersonMatchRunner = {
      run: (rows, job) => (onThreads(rows) ? threads().run(rows, job) : inThread.run(rows, job)),
      sampleEvidence: (rows, job) =>
        onThreads(rows) ? threads().sampleEvidence(rows, job) : inThread.sampleEvidence(rows, job),
    };
    const matcher = createProbabilisticMatcher(voters, index, options, runner);
    if (shared === null) return matcher;
    // A list's blocks go to the threads: open the voter file now, so that the threads decode it
    // while this thread reads the sample and fits the model.
    threads();
    // The pool's first sample warms every thread up for the blocks to come.
    const fitting = createProbabilisticMatcher(voters, index, options, {
      ...runner,
      sampleEvidence: (rows, job) => threads().sampleEvidenceWarming(rows, job),
    });
    const listMatcher: ListMatcher = {
      ...matcher,
      // The blocks' matcher is the one that fits the list.
      listFit: () => fitting.listFit?.() ?? matcher.listFit?.() ?? null,
      blocks: threadBlocks(fitting, this.threads, threads),
      // With one thread, the calling thread's share of a chunk (reading values, writing lines)
      // runs beside it; with more, the calling thread would be the bottleneck.
      ...(this.threads >= 2 ? { chunkBatches: threadChunkBatches(matcher, this.threads, threads) } : {}),
    };
    this.onThreads.set(listMatcher, { matcher, threads });
    return listMatcher;
  }

  /**
   * Opens a voter file on the threads now, ahead of its first matcher (each thread decodes its
   * dictionaries meanwhile). Without threads, or for a snapshot they cannot hold, nothing.
   */
  open(voters: VoterSnapshot): void {
    const shared = voters.shared?.() ?? null;
    if (this.threads === 0 || shared === null) return;
    this.sourceFor(this.indexOf(voters), shared);
  }

  /** Whether `count` voter files (the shards of a sharded one) stay open on the threads together. */
  keepsOpen(count: number): boolean {
    return count <= this.sourcesKept;
  }

  /**
   * Whether this process can hold every shard of `map` at once, loaded within a voter cache of
   * `cacheBytes` (VOTER_CACHE_MB; undefined: no limit) and open on these threads together: then
   * a list is matched against them in one pass (sharded-in-one-pass.ts).
   */
  holdsEveryShard(map: ShardMap, cacheBytes: number | undefined): boolean {
    return this.keepsOpen(map.shards.length) && everyShardFits(map, cacheBytes);
  }

  /**
   * Runs a sharded list's one pass (sharded-in-one-pass.ts) on the threads: every block parsed,
   * routed with the map and directory, matched in its rows' shards, merged and formatted there.
   * `shards[i]`: shard i's matcher as create() made it (fitted, or given the job's fit) and the
   * columns its candidates carry. Undefined without threads, or when a shard's matcher does not
   * run on them. `close` when the list is done.
   */
  shardedBlocks(
    map: ShardMap,
    directory: ShardDirectory | null,
    shards: readonly { matcher: ListMatcher; columns: readonly number[] }[],
  ): (ShardedBlockRunner & { close(): void }) | undefined {
    if (this.threads === 0 || !this.keepsOpen(shards.length)) return undefined;
    const parts = shards.map(({ matcher }) => this.onThreads.get(matcher));
    if (parts.some((part) => part === undefined)) return undefined;
    const pool = this.livePool();
    const router = pool.openRouter(map, directory);
    return {
      parallelism: this.threads,
      run: (block, spec) => {
        const options = matchOptionsOf(spec);
        const jobs = parts.map((part, i) => ({
          source: part!.threads(),
          job: part!.matcher.jobFor(options),
          columns: shards[i]!.columns,
        }));
        return pool.runShardedBlock(router, jobs, block, spec);
      },
      close: () => router.close(),
    };
  }

  /**
   * Splits lists across the shards of a sharded voter file on the threads (parse, route and write
   * the chunk lines there), when there are MIN_THREADS_FOR_LIST_PASSES or more. `close` when the
   * split is done.
   */
  routeBlocks(map: ShardMap, directory: ShardDirectory | null): ClosableRouteBlockRunner | undefined {
    if (this.threads < MIN_THREADS_FOR_LIST_PASSES) return undefined;
    const router = this.livePool().openRouter(map, directory);
    return {
      parallelism: this.threads,
      run: (block, spec) => router.routeBlock(block, spec),
      close: () => router.close(),
    };
  }

  /**
   * Merges and formats the blocks of a sharded list's assembly on the threads (no voter file
   * needed there), when there are MIN_THREADS_FOR_LIST_PASSES or more: the job's thread then only
   * reads the chunks' lines.
   */
  assembleBlocks(): AssembleBlockRunner | undefined {
    if (this.threads < MIN_THREADS_FOR_LIST_PASSES) return undefined;
    const pool = this.livePool();
    return {
      parallelism: this.threads,
      run: (block, spec, lines, thresholdScore) => pool.assembleBlock(block, spec, lines, thresholdScore),
    };
  }

  /** The pool of threads, started if there is none or the last one broke. */
  private livePool(): MatchThreadPool {
    if (this.pool?.broken) {
      // A dead thread fails the jobs it was serving (the queue retries them); later jobs get new
      // threads, with every voter file opened again as it is needed.
      void this.pool.close();
      this.pool = null;
      this.sources.clear();
    }
    this.pool ??= new MatchThreadPool(this.threads, this.sourcesKept);
    return this.pool;
  }

  private sourceFor(index: MatchIndex, shared: object | null): MatchSource {
    const pool = this.livePool();
    let source = this.sources.get(index);
    // Opened without the voter file, it cannot run blocks: open it again with it.
    if (source !== undefined && !source.runsBlocks && shared !== null) {
      this.sources.delete(index);
      source.close();
      source = undefined;
    }
    if (source === undefined) {
      source = pool.open(index, shared);
      this.sources.set(index, source);
      for (const [old, oldSource] of this.sources) {
        if (this.sources.size <= this.sourcesKept) break;
        this.sources.delete(old);
        oldSource.close();
      }
    }
    return source;
  }

  /** The threads serving a voter snapshot, if it was opened on them (for tests and metrics). */
  sourceOf(voters: VoterSnapshot): MatchSource | undefined {
    return this.sources.get(this.indexOf(voters));
  }

  /** The snapshot's stored match index, else one built from its records on first use. */
  private indexOf(voters: VoterSnapshot): MatchIndex {
    if (voters.matchIndex !== null) return voters.matchIndex;
    let index = this.builtIndexes.get(voters);
    if (index === undefined) {
      index = buildMatchIndex(voters);
      this.builtIndexes.set(voters, index);
    }
    return index;
  }

  /** The process's matching threads, once started (for tests and metrics). */
  get threadPool(): MatchThreadPool | null {
    return this.pool;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    this.sources.clear();
    await pool?.close();
  }
}

/**
 * Whole blocks of a list on the threads (parse → match → format there): `matcher` fits the model
 * once on the list's sample (the same model wherever the sample is counted), then each block goes
 * to the least busy thread with it.
 */
function threadBlocks(
  matcher: ProbabilisticMatcher,
  parallelism: number,
  threads: () => MatchSource,
): BlockRunner {
  return {
    parallelism,
    prepare: (sample, options) => matcher.prepare(sample(), options),
    run: (block, spec) => threads().runBlock(block, spec, matcher.jobFor(matchOptionsOf(spec))),
  };
}

/**
 * Batches of a sharded list's chunk on the threads (parse → match → the chunk's output lines
 * there), with the model `matcher` was given or fitted on the job's sample (fitList).
 */
function threadChunkBatches(
  matcher: ProbabilisticMatcher,
  parallelism: number,
  threads: () => MatchSource,
): ChunkBatchRunner {
  return {
    parallelism,
    run: (lines, columns, options) => threads().runChunkBatch(lines, columns, matcher.jobFor(options)),
  };
}
