import { ThreadedMatcherFactory } from '../adapters/matching/threaded-matcher-factory.ts';
import { BucketVoterStore } from '../adapters/voters/bucket-voter-store.ts';
import type { FsVoterStore } from '../adapters/voters/fs-voter-store.ts';
import type { Config } from '../config.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { Metrics } from '../http/metrics.ts';
import type { MatchListDeps } from '../jobs/list-job-steps.ts';
import type { StorageBackends } from './backends.ts';
import { localVoterStore, voterCacheBytes } from './voter-stores.ts';

/** The voter file and the threads that match lists against it. */
export interface VoterMatching {
  matchers: ThreadedMatcherFactory;
  /** The versions in DATA_DIR (in S3 mode, the cache of what the bucket holds). */
  localVoters: FsVoterStore;
  /** What jobs read the voter file through. */
  voters: VoterStore;
}

/** The matching threads and the voter stores, tied so that a shard let go leaves the threads too. */
export function voterMatching(
  config: Config,
  dataDir: string,
  storage: Pick<StorageBackends, 'kind' | 'blobs'>,
  metrics: Metrics,
): VoterMatching {
  const matchers = createMatchers(config);
  const localVoters = localVoterStore(config, dataDir, {
    // A shard let go is let go by the matching threads too, or they would keep its memory.
    onEvict: (snapshot) => matchers.release(snapshot),
    onLoad: () => metrics.voterLoads.inc(),
  });
  // With object storage, imports are published to the bucket and workers fetch what they match on.
  const voters: VoterStore =
    storage.kind === 's3' ? new BucketVoterStore({ local: localVoters, blobs: storage.blobs }) : localVoters;
  return { matchers, localVoters, voters };
}

/**
 * The matching threads (MATCH_THREADS). They keep every loaded shard of a sharded voter file open
 * (the voter store decides which shards stay loaded), otherwise at most two voter versions. A
 * worker given VOTER_SHARD_MAX_ROWS is ready for any number of shards; one without it sizes its
 * threads for the first sharded file it matches (ThreadedMatcherFactory.holdsEveryShard), so it
 * holds that file's shards too if they fit in VOTER_CACHE_MB.
 */
function createMatchers(
  config: Pick<Config, 'MATCH_THREADS' | 'VOTER_SHARD_MAX_ROWS'>,
): ThreadedMatcherFactory {
  return new ThreadedMatcherFactory(
    config.MATCH_THREADS,
    config.VOTER_SHARD_MAX_ROWS === undefined ? {} : { sourcesKept: Number.POSITIVE_INFINITY },
  );
}

/** What the list-matching job handlers (match-list, match-chunk, assemble-list) are built from. */
export function listMatchingDeps(
  config: Pick<Config, 'MATCH_THRESHOLD' | 'MAX_ROW_BYTES' | 'SHARD_CHUNK_ROWS' | 'VOTER_CACHE_MB'>,
  parts: {
    jobStore: JobStore;
    blobs: BlobStore;
    voters: VoterStore;
    keys: KeyService;
    matchers: ThreadedMatcherFactory;
    metrics: Metrics;
    /** Retention.withdrawKey: a job found revoked while it ran deletes its files at once. */
    withdrawKey: (keyId: string) => Promise<number>;
  },
): MatchListDeps {
  const { matchers, metrics } = parts;
  return {
    jobs: parts.jobStore,
    blobs: parts.blobs,
    voters: parts.voters,
    keys: parts.keys,
    withdrawKey: parts.withdrawKey,
    executor: matchers,
    defaultMatchThreshold: config.MATCH_THRESHOLD,
    maxRowBytes: config.MAX_ROW_BYTES,
    chunkRows: config.SHARD_CHUNK_ROWS,
    holdsEveryShard: (map) => matchers.holdsEveryShard(map, voterCacheBytes(config)),
    openOnThreads: (shard) => matchers.open(shard),
    onTransition: (state) => metrics.jobTransitions.inc({ kind: 'smartmatch', state }),
    onRows: (rows) => metrics.rowsMatched.inc(rows),
  };
}
