import { matchIndexOf } from '../../domain/matching/index/build-match-index.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { Matcher } from '../../domain/matching/matcher.ts';
import {
  createProbabilisticMatcher,
  type ProbabilisticMatcherOptions,
} from '../../domain/matching/probabilistic-matcher.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { MatchThreadPool } from './match-thread-pool.ts';

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
    const index = voters.matchIndex;
    const pool = index === null ? undefined : this.pools.get(index);
    if (index === null || pool === undefined) return;
    this.pools.delete(index);
    void pool.close();
  }

  create(voters: VoterSnapshot, options: Partial<ProbabilisticMatcherOptions> = {}): Matcher {
    const index = matchIndexOf(voters);
    if (this.threads === 0) return createProbabilisticMatcher(voters, index, options);
    let pool = this.pools.get(index);
    if (pool?.broken) {
      // A dead thread fails the jobs it was serving (the queue retries them); later jobs get new threads.
      this.pools.delete(index);
      void pool.close();
      pool = undefined;
    }
    if (pool === undefined) {
      pool = new MatchThreadPool(index, this.threads);
      this.pools.set(index, pool);
      for (const [old, oldPool] of this.pools) {
        if (this.pools.size <= this.poolsKept) break;
        this.pools.delete(old);
        void oldPool.close();
      }
    }
    return createProbabilisticMatcher(voters, index, options, pool);
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
