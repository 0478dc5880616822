import { type BlockExecutor, inThread } from '../../domain/list-matching/block-executor.ts';
import { type HeldShards, matchBlock } from '../../domain/list-matching/block-stages.ts';
import type { AssembleBlockRunner } from '../../domain/list-matching/chunks/assemble-list.ts';
import type { ChunkBatchRunner } from '../../domain/list-matching/chunks/match-chunk.ts';
import { type ListRun, matchOptionsOf } from '../../domain/list-matching/list-run.ts';
import type { ListExecutor } from '../../domain/list-matching/match-list.ts';
import { buildMatchIndex } from '../../domain/matching/index/build-match-index.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { ListFit, Matcher } from '../../domain/matching/matcher.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  type PersonMatchRunner,
  type ProbabilisticMatcher,
  type ProbabilisticMatcherOptions,
} from '../../domain/matching/probabilistic-matcher.ts';
import { everyShardFits, type ShardMap } from '../../domain/voters/shard-map.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import type { ShardJob } from './match-thread.worker.ts';
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
 * for later jobs, since opening one decodes its index's dictionaries on every thread. As a list's
 * ListExecutor, it runs the match stage of whole blocks on the threads when every matcher of the
 * list runs there.
 */
export class ThreadedMatcherFactory implements ListExecutor {
  private readonly threads: number;
  /**
   * Voter files kept open on the threads (their heaps are sized by it). Unless the caller fixed
   * it, a sharded file met before the threads start raises it to the file's shards
   * (holdsEveryShard): a worker then holds every shard and matches each list in one pass.
   */
  private sourcesKept: number;
  private readonly sourcesFixed: boolean;
  private pool: MatchThreadPool | null = null;
  private closed = false;
  private readonly sources = new Map<MatchIndex, MatchSource>();
  /**
   * Indexes built here for snapshots stored without one (in-memory snapshots, versions imported
   * before the index existed), kept while the snapshot lives.
   */
  private readonly builtIndexes = new WeakMap<VoterSnapshot, MatchIndex>();
  /** The threads each matcher made by create() matches on (for blocks and chunkBatches). */
  private readonly onThreads = new WeakMap<Matcher, () => MatchSource>();

  /** `sourcesKept`: voter files kept open at most (a sharded voter file: every loaded shard; see release). */
  constructor(threads: number, options: { sourcesKept?: number } = {}) {
    this.threads = threads;
    this.sourcesKept = options.sourcesKept ?? SOURCES_KEPT;
    this.sourcesFixed = options.sourcesKept !== undefined;
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

  create(voters: VoterSnapshot, options: Partial<ProbabilisticMatcherOptions> = {}): ProbabilisticMatcher {
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
      // The pool's first sample warms every thread up for the blocks to come.
      sampleEvidence: (rows, job) =>
        !onThreads(rows)
          ? inThread.sampleEvidence(rows, job)
          : shared === null
            ? threads().sampleEvidence(rows, job)
            : threads().sampleEvidenceWarming(rows, job),
    };
    const matcher = createProbabilisticMatcher(voters, index, options, runner);
    if (shared === null) return matcher;
    // A list's blocks go to the threads: open the voter file now, so that the threads decode it
    // while this thread reads the sample and fits the model.
    threads();
    this.onThreads.set(matcher, threads);
    return matcher;
  }

  /** ListExecutor: a run's matcher for a voter file (a shard), fitted on the sample or given the list's fit. */
  matcher(voters: VoterSnapshot, fit: ListFit | null, run: ListRun): Matcher {
    return this.create(voters, {
      thresholdScore: run.thresholdScore,
      ...(fit === null ? {} : { listFit: fit }),
    });
  }

  /**
   * ListExecutor: the match stage of whole blocks on the threads (parse, route with the sharded
   * file's map, match in the rows' shards, merge and format there), when every matcher of `held`
   * runs on them; else on the calling thread.
   */
  blocks(held: HeldShards & { matchers: readonly Matcher[] }, whole: VoterSnapshot): BlockExecutor {
    const parts = held.matchers.map((matcher) => ({
      matcher: matcher as ProbabilisticMatcher,
      threads: this.onThreads.get(matcher),
    }));
    if (
      this.threads === 0 ||
      !this.keepsOpen(parts.length) ||
      parts.some((part) => part.threads === undefined)
    ) {
      return inThread((block, spec) => matchBlock(block, spec, held));
    }
    const pool = this.livePool();
    const map = whole.shardMap;
    const router = map === undefined ? null : pool.openRouter(map, whole.shardDirectory ?? null);
    /** Each shard's job for the run (the same for every block of it). */
    let jobs: { run: ListRun; shards: ShardJob[] } | null = null;
    const jobsOf = (run: ListRun) => {
      if (jobs?.run !== run) {
        const options = matchOptionsOf(run);
        jobs = {
          run,
          shards: parts.map(({ matcher, threads }) => ({
            source: threads!().id,
            job: matcher.jobFor(options),
          })),
        };
      }
      return jobs.shards;
    };
    return {
      parallelism: this.threads,
      run: (block, spec) =>
        pool.runBlock({ stage: 'match', router: router?.id ?? null, shards: jobsOf(spec.run) }, block, spec),
      close: () => router?.close(),
    };
  }

  /**
   * Batches of a chunk on the threads (parse → match → the chunk's output lines there), with the
   * model `matcher` was given or fitted. With one thread, the calling thread's share of a chunk
   * (reading values, writing lines) runs beside it; with more, the calling thread would be the
   * bottleneck. Undefined: batches run on the calling thread.
   */
  chunkBatches(matcher: Matcher): ChunkBatchRunner | undefined {
    const threads = this.onThreads.get(matcher);
    if (this.threads < 2 || threads === undefined) return undefined;
    const probabilistic = matcher as ProbabilisticMatcher;
    return {
      parallelism: this.threads,
      run: (lines, columns, run) =>
        threads().runChunkBatch(lines, columns, run, probabilistic.jobFor(matchOptionsOf(run))),
    };
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

  /**
   * Opens a voter file on the threads (to match rows: the lookups') and resolves when every
   * thread holds it; matchers made by create() for it then match even single rows there.
   */
  async opened(voters: VoterSnapshot): Promise<void> {
    if (this.threads === 0) throw new Error('no threads to open the voter file on');
    // With the snapshot when it can be shared, as create() opens it (else it would open it again).
    await this.sourceFor(this.indexOf(voters), voters.shared?.() ?? null).ready;
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
    const fits = everyShardFits(map, cacheBytes);
    // Threads not started yet are started for the file they meet (the shards stay open on them
    // until the voter store lets them go: release). Started ones keep the heaps they have.
    if (fits && !this.sourcesFixed && this.pool === null) {
      this.sourcesKept = Math.max(this.sourcesKept, map.shards.length);
    }
    return fits && this.keepsOpen(map.shards.length);
  }

  /**
   * The split stage of a list against a sharded voter file on the threads (parse, route and write
   * the chunk lines there), when there are MIN_THREADS_FOR_LIST_PASSES or more; `close` when the
   * split is done. Undefined: on the calling thread.
   */
  splitBlocks(whole: VoterSnapshot): BlockExecutor | undefined {
    const map = whole.shardMap;
    if (this.threads < MIN_THREADS_FOR_LIST_PASSES || map === undefined) return undefined;
    const pool = this.livePool();
    const router = pool.openRouter(map, whole.shardDirectory ?? null);
    return {
      parallelism: this.threads,
      run: (block, spec) => pool.runBlock({ stage: 'split', router: router.id }, block, spec),
      close: () => router.close(),
    };
  }

  /**
   * The assemble stage of a sharded list's blocks on the threads (no voter file needed there),
   * when there are MIN_THREADS_FOR_LIST_PASSES or more: the job's thread then only reads the
   * chunks' lines. Undefined: on the calling thread.
   */
  assembleBlocks(): AssembleBlockRunner | undefined {
    if (this.threads < MIN_THREADS_FOR_LIST_PASSES) return undefined;
    const pool = this.livePool();
    return {
      parallelism: this.threads,
      run: (block, spec, lines) => pool.runBlock({ stage: 'assemble', lines }, block, spec),
    };
  }

  /** The pool of threads, started if there is none or the last one broke. */
  private livePool(): MatchThreadPool {
    // Closed for good: no new threads (a request that still held a replaced version fails here).
    if (this.closed) throw new Error('the matching threads are closed');
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
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    this.sources.clear();
    await pool?.close();
  }
}
