import { SharedLookupThreads } from '../adapters/matching/lookup-threads.ts';
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
 * LOOKUP_THREADS threads that each version is opened on in turn.
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
      {
        refreshMs: config.LOOKUP_REFRESH_SECONDS * 1000,
        ...(config.LOOKUP_THREADS === 0 ? {} : { threads: new SharedLookupThreads(config.LOOKUP_THREADS) }),
        ...(parts.onSwap === undefined ? {} : { onSwap: parts.onSwap }),
      },
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
