import type { FastifyBaseLogger } from 'fastify';
import { graphVersionWarning } from '../adapters/platforms/meta-social-audiences.ts';
import type { FsVoterStore } from '../adapters/voters/fs-voter-store.ts';
import type { Config } from '../config.ts';
import type { JobService } from '../domain/client-jobs/job-service.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import {
  CHECK_AUDIENCE_JOB,
  DELIVER_FOLDER_JOB,
  DELIVER_WEBHOOK_JOB,
  MBP_AUDIENCE_JOB,
  matchChunkType,
  ONBOARD_AUDIENCE_JOB,
  SEND_NOTICE_JOB,
} from '../domain/ports/job-catalog.ts';
import type { Queue } from '../domain/ports/queue.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { Metrics } from '../http/metrics.ts';
import type { JobRegistry } from '../jobs/registry.ts';
import { UploadArrivals } from '../jobs/upload-arrivals.ts';
import { Worker, type WorkerLane } from '../jobs/worker.ts';
import type { StorageBackends } from './backends.ts';
import { runSweeps, type Sweep } from './housekeeping.ts';
import type { WorkerLogger } from './worker-logger.ts';

/**
 * With a sharded voter file, each shard's chunks have their own queue: a worker claims the other
 * work and the chunks of the shards it holds first, then any chunk (fetching its shard).
 */
export function claimTiers(parts: {
  registry: JobRegistry;
  voters: VoterStore;
  localVoters: Pick<FsVoterStore, 'loadedVersions'>;
}): () => Promise<string[][]> {
  const { registry, voters, localVoters } = parts;
  return async () => {
    const base = registry.types();
    const current = await voters.current().catch(() => null);
    const shards = current?.shardMap?.shards ?? [];
    if (shards.length === 0) return [base];
    const loaded = new Set(localVoters.loadedVersions());
    const held = shards.filter((shard) => loaded.has(shard.version)).map((shard) => matchChunkType(shard.id));
    return [[...base, ...held], shards.map((shard) => matchChunkType(shard.id))];
  };
}

/**
 * Builds the worker of a process with the worker role: it claims by `claimTiers`, reports to the
 * metrics, and on each housekeeping pass expires never-uploaded registrations and starts `sweeps`.
 * The worker's logger becomes `workerLogger`'s, for the handlers built before it.
 */
export function workerFactory(parts: {
  config: Pick<Config, 'META_API_VERSION' | 'QUEUE_LEASE_SECONDS' | 'QUEUE_POLL_MS' | 'WORKER_CONCURRENCY'> &
    FollowUpLaneSettings;
  queue: Queue;
  registry: JobRegistry;
  jobs: Pick<JobService, 'expireUnuploaded'>;
  metrics: Metrics;
  claimTiers: () => Promise<string[][]>;
  sweeps: readonly Sweep[];
  workerLogger: WorkerLogger;
}): (logger: FastifyBaseLogger) => Worker {
  const { config, jobs, metrics, sweeps } = parts;
  return (logger) => {
    parts.workerLogger.set(logger);
    const stale = config.META_API_VERSION === undefined ? null : graphVersionWarning(config.META_API_VERSION);
    if (stale !== null) logger.warn(stale);
    return new Worker({
      queue: parts.queue,
      registry: parts.registry,
      logger,
      leaseMs: config.QUEUE_LEASE_SECONDS * 1000,
      pollMs: config.QUEUE_POLL_MS,
      concurrency: config.WORKER_CONCURRENCY,
      lanes: followUpLanes(config),
      claimTiers: parts.claimTiers,
      onClaimed: (type, waitMs) => metrics.queueWait.observe({ queue: type }, waitMs / 1000),
      // A message of no step keeps the labels it had (queue, outcome): queries and dashboards
      // written for them still read it.
      onFinished: (type, outcome, ms, step) =>
        metrics.stageDuration.observe(
          step === '' ? { queue: type, outcome } : { queue: type, outcome, step },
          ms / 1000,
        ),
      housekeeping: async () => {
        const expired = await jobs.expireUnuploaded();
        if (expired > 0) logger.info({ expired }, 'expired registrations that were never uploaded');
        runSweeps(logger, sweeps);
      },
    });
  };
}

/** The settings of the follow-up lanes' slots (followUpLanes). */
type FollowUpLaneSettings = Pick<
  Config,
  | 'WEBHOOK_CONCURRENCY'
  | 'WEBHOOK_CONCURRENCY_PER_KEY'
  | 'MAIL_CONCURRENCY'
  | 'DELIVERY_CONCURRENCY'
  | 'DELIVERY_CONCURRENCY_PER_KEY'
  | 'AUDIENCE_CONCURRENCY'
  | 'AUDIENCE_CONCURRENCY_PER_KEY'
>;

/**
 * The follow-ups that call servers outside the service, each kind in slots of its own: a call
 * waits on the other side up to its timeout (webhook, SMTP, SFTP, ad platform), and in the main
 * slots it would hold back every key's matching. One lane per kind of server, not one for all:
 * they fail apart (the operator's SMTP relay being down must not keep folders from being
 * delivered), and the queue counts a key's running messages per type, so a per-key cap is only
 * exact within one type. Messages grouped by key get a cap per key, so that one key whose server
 * never answers cannot take a lane's every slot; notices have none (one relay serves every key).
 */
export function followUpLanes(config: FollowUpLaneSettings): WorkerLane[] {
  return [
    {
      name: 'webhooks',
      types: [DELIVER_WEBHOOK_JOB],
      concurrency: config.WEBHOOK_CONCURRENCY,
      maxPerGroup: config.WEBHOOK_CONCURRENCY_PER_KEY,
    },
    { name: 'e-mail notices', types: [SEND_NOTICE_JOB], concurrency: config.MAIL_CONCURRENCY },
    {
      name: 'folder deliveries',
      types: [DELIVER_FOLDER_JOB],
      concurrency: config.DELIVERY_CONCURRENCY,
      maxPerGroup: config.DELIVERY_CONCURRENCY_PER_KEY,
    },
    {
      // One lane for the platforms: their calls are slow by nature (uploads, readiness polled for
      // days), and a platform's own trouble is bounded by its jobs' cap per key and these slots.
      name: 'audiences',
      types: [ONBOARD_AUDIENCE_JOB, CHECK_AUDIENCE_JOB, MBP_AUDIENCE_JOB],
      concurrency: config.AUDIENCE_CONCURRENCY,
      maxPerGroup: config.AUDIENCE_CONCURRENCY_PER_KEY,
    },
  ];
}

/** S3 mode: builds the loop that notices uploads clients PUT into the bucket; null otherwise. */
export function uploadArrivalsFactory(parts: {
  config: Pick<Config, 'UPLOAD_POLL_MS'>;
  storage: Pick<StorageBackends, 'uploadsArriveInStore'>;
  blobs: BlobStore;
  jobs: JobService;
  metrics: Metrics;
}): (logger: FastifyBaseLogger) => UploadArrivals | null {
  const { config, storage, blobs, jobs, metrics } = parts;
  return (logger) =>
    storage.uploadsArriveInStore
      ? new UploadArrivals({
          blobs,
          jobs,
          logger,
          intervalMs: config.UPLOAD_POLL_MS,
          onAccepted: (_jobId, waitedMs) => metrics.uploadArrivalWait.observe(waitedMs / 1000),
        })
      : null;
}
