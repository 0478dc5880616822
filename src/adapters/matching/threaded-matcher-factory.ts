import { matchIndexOf } from '../../domain/matching/index/build-match-index.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  type PersonMatchRunner,
  type ProbabilisticMatcher,
  type ProbabilisticMatcherOptions,
} from '../../domain/matching/probabilistic-matcher.ts';
import type { BlockRunner, ListMatcher } from '../../domain/pipeline/block-runner.ts';
import { matchOptionsOf } from '../../domain/pipeline/match-block.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { MatchThreadPool } from './match-thread-pool.ts';

/** Rows a batch needs before threads are started for its voter file (their start costs ~0.5 s). */
const MIN_ROWS_FOR_THREADS = 1000;

/** Thread pools kept: the current voter file's and the one before (a resumed job may use it). */
const POOLS_KEPT = 2;

/**
 * Creates each job's matcher, running the probabilistic strategies on `threads` worker threads
 * (0: on the calling thread). Pools are made per voter-file version on first use and reused by
 * later jobs, since starting one decodes the index's dictionaries.
 */
export class ThreadedMatcherFactory {
  private readonly threads: number;
  private readonly poolsKept: number;
  private readonly pools = new Map<MatchIndex, MatchThreadPool>();

  /** `poolsKept`: pools kept at most (a sharded voter file needs one per loaded shard; see release). */
  constructor(threads: number, options: { poolsKept?: number } = {}) {
    this.threads = threads;
    this.poolsKept = options.poolsKept ?? POOLS_KEPT;
  }

  /** Closes the pool of a snapshot that is no longer loaded (a voter shard let go). */
  release(voters: VoterSnapshot): void {
    if (voters.shardMap !== undefined) return;
    const index = matchIndexOf(voters);
    const pool = this.pools.get(index);
    if (pool === undefined) return;
    this.pools.delete(index);
    void pool.close();
  }

  create(voters: VoterSnapshot, options: Partial<ProbabilisticMatcherOptions> = {}): ListMatcher {
    const index = matchIndexOf(voters);
    if (this.threads === 0) return createProbabilisticMatcher(voters, index, options);
    const shared = voters.shared?.() ?? null;
    const inThread = inThreadRunner(index);
    // Threads start on the first batch worth them: a small chunk of a voter shard is matched
    // sooner here than after starting threads that each decode the shard's dictionaries.
    // A job keeps the pool it started on: if one of its threads dies, its later batches fail too
    // (the queue retries the job) rather than mixing threads.
    let pool: MatchThreadPool | null = null;
    const onThreads = (rows: readonly unknown[]) =>
      pool !== null || rows.length >= MIN_ROWS_FOR_THREADS || this.pools.has(index);
    const threads = () => {
      pool ??= this.poolFor(index, shared);
      return pool;
    };
    const runner: PersonMatchRunner = {
      run: (rows, job) => (onThreads(rows) ? threads().run(rows, job) : inThread.run(rows, job)),
      sample: (rows, job) => (onThreads(rows) ? threads().sample(rows, job) : inThread.sample(rows, job)),
    };
    const matcher = createProbabilisticMatcher(voters, index, options, runner);
    if (shared === null) return matcher;
    // A list's blocks go to the threads: start them now, so that they start while this thread
    // reads the sample and fits the model.
    threads();
    // The pool's first sample warms every thread up for the blocks to come.
    const fitting = createProbabilisticMatcher(voters, index, options, {
      ...runner,
      sample: (rows, job) => threads().sampleWarming(rows, job),
    });
    return { ...matcher, blocks: threadBlocks(fitting, this.threads, threads) };
  }

  private poolFor(index: MatchIndex, shared: object | null): MatchThreadPool {
    let pool = this.pools.get(index);
    // Threads started without the voter file cannot run blocks: start ones that can.
    if (pool !== undefined && !pool.runsBlocks && shared !== null) {
      this.pools.delete(index);
      void pool.close();
      pool = undefined;
    }
    if (pool?.broken) {
      // A dead thread fails the jobs it was serving (the queue retries them); later jobs get new threads.
      this.pools.delete(index);
      void pool.close();
      pool = undefined;
    }
    if (pool === undefined) {
      pool = new MatchThreadPool(index, this.threads, shared);
      this.pools.set(index, pool);
      for (const [old, oldPool] of this.pools) {
        if (this.pools.size <= this.poolsKept) break;
        this.pools.delete(old);
        void oldPool.close();
      }
    }
    return pool;
  }

  /** The pool serving a voter snapshot, if one was started (for tests and metrics). */
  poolOf(voters: VoterSnapshot): MatchThreadPool | undefined {
    return this.pools.get(matchIndexOf(voters));
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
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
  threads: () => MatchThreadPool,
): BlockRunner {
  return {
    parallelism,
    prepare: (sample, options) => matcher.prepare(sample(), options),
    run: (block, spec) => threads().runBlock(block, spec, matcher.jobFor(matchOptionsOf(spec))),
  };
}
