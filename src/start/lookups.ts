import { ThreadedMatcherFactory } from '../adapters/matching/threaded-matcher-factory.ts';
import type { Config } from '../config.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import { LookupAccess } from '../domain/lookups/lookup-access.ts';
import { LookupService } from '../domain/lookups/lookup-service.ts';
import { CurrentLookupFile } from '../domain/lookups/lookup-voter-file.ts';
import type { LookupStore } from '../domain/ports/lookup-store.ts';
import type { RateLimiter } from '../domain/ports/rate-limiter.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';

/**
 * The person and voter lookups of an api process: they answer from the voter store's current
 * version (the files the workers match lists against; in S3 mode fetched from the bucket), loaded
 * in this process and swapped when a new one is published (LOOKUP_REFRESH_SECONDS), matched on
 * LOOKUP_THREADS threads of each version's own.
 */
export function lookupService(
  config: Config,
  parts: {
    voters: VoterStore;
    keys: KeyService;
    store: LookupStore;
    limiter: RateLimiter;
    /** Told each time the lookups switch to a voter file version (metrics). */
    onSwap?: () => void;
  },
): LookupService {
  return new LookupService({
    file: new CurrentLookupFile(
      parts.voters,
      {
        matchRate: config.LOOKUP_MATCH_RATE,
        candidateScore: Math.min(config.LOOKUP_AMBIGUOUS_SCORE, config.LOOKUP_CONTACT_SCORE),
      },
      config.LOOKUP_REFRESH_SECONDS * 1000,
      config.LOOKUP_THREADS === 0
        ? null
        : // Heaps as a worker's for 2 files at least (an unsharded file's caches may be large).
          (shards) => new ThreadedMatcherFactory(config.LOOKUP_THREADS, { sourcesKept: Math.max(2, shards) }),
      undefined,
      parts.onSwap,
    ),
    access: new LookupAccess(parts.store, parts.limiter, {
      requestsPerSecond: config.LOOKUP_RATE_PER_SECOND,
      dailyQuota: config.LOOKUP_DAILY_QUOTA,
    }),
    keys: parts.keys,
    thresholds: {
      confidentScore: config.LOOKUP_CONFIDENT_SCORE,
      ambiguousScore: config.LOOKUP_AMBIGUOUS_SCORE,
      contactScore: config.LOOKUP_CONTACT_SCORE,
    },
  });
}
