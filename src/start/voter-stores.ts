import { join } from 'node:path';
import { FsVoterStore, type FsVoterStoreOptions } from '../adapters/voters/fs-voter-store.ts';
import type { Config } from '../config.ts';

/**
 * The voter files under DATA_DIR as the config sets them up (shards, the memory kept for them).
 * The service wraps it in the bucket's store in S3 mode; `listmatch match` uses it alone.
 */
export function localVoterStore(
  config: Config,
  dataDir: string,
  hooks: Pick<FsVoterStoreOptions, 'onEvict' | 'onLoad'> = {},
): FsVoterStore {
  return new FsVoterStore({
    dir: join(dataDir, 'voters'),
    maxRowBytes: config.MAX_ROW_BYTES,
    shardMaxRows: config.VOTER_SHARD_MAX_ROWS ?? null,
    ...(config.VOTER_CACHE_MB === undefined ? {} : { cacheBytes: voterCacheBytes(config)! }),
    ...hooks,
  });
}

/** The memory a process gives to loaded voter shards (VOTER_CACHE_MB), in bytes; undefined: no limit. */
export function voterCacheBytes(config: Pick<Config, 'VOTER_CACHE_MB'>): number | undefined {
  return config.VOTER_CACHE_MB === undefined ? undefined : config.VOTER_CACHE_MB * 1024 * 1024;
}
