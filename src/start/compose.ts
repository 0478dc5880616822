import { createHmac } from 'node:crypto';
import { resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { ThreadedMatcherFactory } from '../adapters/matching/threaded-matcher-factory.ts';
import { graphVersionWarning } from '../adapters/platforms/meta-social-audiences.ts';
import type { SqliteDatabase } from '../adapters/sqlite/sqlite-database.ts';
import { BucketVoterStore } from '../adapters/voters/bucket-voter-store.ts';
import type { Config } from '../config.ts';
import { JobService } from '../domain/client-jobs/job-service.ts';
import { Retention } from '../domain/client-jobs/retention.ts';
import { FileBrowser } from '../domain/delivery/file-browser.ts';
import { KeyService } from '../domain/keys/key-service.ts';
import type { ApiKeyRecord } from '../domain/keys/key-types.ts';
import { RateLimits } from '../domain/keys/rate-limits.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import { matchChunkType } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { OnboardingStore } from '../domain/ports/onboarding-store.ts';
import type { Queue } from '../domain/ports/queue.ts';
import type { UrlSigner } from '../domain/ports/url-signer.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { HttpDeps, ReadinessReport } from '../http/http-deps.ts';
import { Metrics } from '../http/metrics.ts';
import type { MatchListDeps } from '../jobs/list-job-steps.ts';
import type { JobRegistry } from '../jobs/registry.ts';
import { UploadArrivals } from '../jobs/upload-arrivals.ts';
import { Worker } from '../jobs/worker.ts';
import { type MetadataBackends, openMetadata, openStorage, type StorageBackends } from './backends.ts';
import { runSweeps } from './housekeeping.ts';
import { createFileDrop, createMailer } from './mail-and-file-drop.ts';
import { makeDataDirsPrivate } from './private-data-dir.ts';
import { registerJobs } from './register-jobs.ts';
import { signingSecret } from './signing-secret.ts';
import { localVoterStore } from './voter-stores.ts';

/** Every long-lived object of one process, built from the validated config. */
export interface Services extends HttpDeps {
  /** The whole configuration (the HTTP layer reads only its HttpSettings). */
  config: Config;
  /** Folders of DATA_DIR that were open to other users and were closed at start (logged as warnings). */
  privacyNotes: string[];
  /**
   * Revokes a key: it stops authenticating at once, and the files of its finished jobs are
   * deleted (their result URLs die with it, in object storage too). Its running jobs are stopped
   * by the worker, its pending uploads refused.
   */
  revokeKey(idOrName: string): Promise<{ record: ApiKeyRecord; withdrawnJobs: number }>;
  /** Which backends this process uses (embedded SQLite and files, or PostgreSQL and S3). */
  metadataKind: MetadataBackends['kind'];
  storageKind: StorageBackends['kind'];
  /** The embedded database, for tests that look inside it; null with PostgreSQL. */
  database: SqliteDatabase | null;
  queue: Queue;
  jobStore: JobStore;
  /** The voter file: in DATA_DIR, or published to the bucket and cached in DATA_DIR (S3 mode). */
  voters: VoterStore;
  blobs: BlobStore;
  /** Each key's smartmatch folder: local under DATA_DIR/files, or on the SFTP server. */
  drop: FileDrop;
  registry: JobRegistry;
  /** Signs upload and result URLs (the embedded HMAC signer, or SigV4 for S3). */
  signer: UrlSigner;
  /** Progress of onboarding jobs (the operator marks DSP audiences ready). */
  onboarding: OnboardingStore;
  createWorker(logger: FastifyBaseLogger): Worker;
  /** S3 mode: the loop that notices uploads clients PUT into the bucket (worker role); null otherwise. */
  createUploadArrivals(logger: FastifyBaseLogger): UploadArrivals | null;
  close(): Promise<void>;
}

/**
 * The composition root: opens the backends the config selects (embedded by default; PostgreSQL
 * with DATABASE_URL, S3 with S3_BUCKET) and builds the services on top of them.
 */
export async function compose(config: Config): Promise<Services> {
  const dataDir = resolve(config.DATA_DIR);
  const privacyNotes = makeDataDirsPrivate([
    dataDir,
    ...(config.MAIL === 'outbox' && config.MAIL_OUTBOX_DIR !== undefined
      ? [resolve(config.MAIL_OUTBOX_DIR)]
      : []),
  ]);
  const secret = signingSecret(config, dataDir);
  const metadata = await openMetadata(config, dataDir);
  let storage: StorageBackends;
  try {
    storage = await openStorage(config, dataDir, secret);
  } catch (error) {
    await metadata.close().catch(() => {});
    throw error;
  }
  const { queue, jobStore } = metadata;
  const { blobs, signer } = storage;
  // The SFTP drop logs through the worker's logger once there is one (before that: nothing to say).
  const drop = createFileDrop(config, dataDir, (level, fields, message) =>
    workerLogger?.[level](fields, message),
  );
  const matchers = new ThreadedMatcherFactory(config.MATCH_THREADS, {
    sourcesKept: config.VOTER_SHARD_MAX_ROWS === undefined ? 2 : Number.POSITIVE_INFINITY,
  });
  const localVoters = localVoterStore(config, dataDir, {
    // A shard let go is let go by the matching threads too, or they would keep its memory.
    onEvict: (snapshot) => matchers.release(snapshot),
    onLoad: () => metrics.voterLoads.inc(),
  });
  // With object storage, imports are published to the bucket and workers fetch what they match on.
  const voters: VoterStore =
    storage.kind === 's3' ? new BucketVoterStore({ local: localVoters, blobs }) : localVoters;
  const metrics = new Metrics({ queue: async () => await queue.stats() });
  const keys = new KeyService(metadata.keyStore);
  const retention = new Retention({
    jobs: jobStore,
    blobs,
    days: config.RETENTION_DAYS,
    folders: { drop, keyIds: async () => (await keys.list()).map((key) => key.id) },
  });
  const rateLimits = new RateLimits(metadata.rateLimiter, {
    registerPerMinute: config.RATE_LIMIT_REGISTER_PER_MINUTE,
    onboardingPerMinute: config.RATE_LIMIT_ONBOARDING_PER_MINUTE,
    pollSeconds: config.RATE_LIMIT_POLL_SECONDS,
    pollToleranceSeconds: config.RATE_LIMIT_POLL_TOLERANCE_SECONDS,
  });
  const jobs = new JobService({
    jobs: jobStore,
    blobs,
    signer,
    keys,
    settings: {
      webhookAllowHosts: config.WEBHOOK_ALLOW_HOSTS,
      uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS,
      downloadUrlTtlSeconds: config.DOWNLOAD_URL_TTL_SECONDS,
      maxUploadBytes: config.MAX_UPLOAD_BYTES,
      maxConcurrentUploadsPerKey: config.MAX_CONCURRENT_UPLOADS_PER_KEY,
      platforms: {
        social: config.META_AD_ACCOUNT_ID !== undefined,
        politicaldsp: config.POLITICALDSP_URL !== undefined,
        mbp: config.MBP_URL !== undefined,
      },
    },
    events: { onTransition: (kind, state) => metrics.jobTransitions.inc({ kind, state }) },
  });
  const files = new FileBrowser({
    keys,
    drop,
    // Its own key, derived from the service secret: a session MAC can never pass as a URL signature.
    secret: createHmac('sha256', secret).update('listmatch file browser sessions v1').digest(),
    sessionTtlMs: config.FILE_BROWSER_SESSION_MINUTES * 60_000,
  });
  const matchListDeps: MatchListDeps = {
    jobs: jobStore,
    blobs,
    voters,
    keys,
    createMatcher: (voters, options) =>
      matchers.create(voters, {
        ...options,
        thresholdScore: options.thresholdScore ?? config.MATCH_THRESHOLD,
      }),
    defaultMatchThreshold: config.MATCH_THRESHOLD,
    maxRowBytes: config.MAX_ROW_BYTES,
    chunkRows: config.SHARD_CHUNK_ROWS,
    onTransition: (state) => metrics.jobTransitions.inc({ kind: 'smartmatch', state }),
    onRows: (rows) => metrics.rowsMatched.inc(rows),
  };
  let workerLogger: FastifyBaseLogger | null = null;
  const mailer = createMailer(config, dataDir);
  const { onboarding } = metadata;
  const registry = registerJobs({
    config,
    matchListDeps,
    enqueue: (message) => queue.enqueue(message),
    pinShard: (version) => localVoters.pin(version),
    voters,
    jobStore,
    jobs,
    keys,
    blobs,
    drop,
    mailer,
    onboarding,
    logger: () => workerLogger!,
  });
  /**
   * With a sharded voter file, each shard's chunks have their own queue: a worker claims the other
   * work and the chunks of the shards it holds first, then any chunk (fetching its shard).
   */
  const claimTiers = async (): Promise<string[][]> => {
    const base = registry.types();
    const current = await voters.current().catch(() => null);
    const shards = current?.shardMap?.shards ?? [];
    if (shards.length === 0) return [base];
    const loaded = new Set(localVoters.loadedVersions());
    const held = shards.filter((shard) => loaded.has(shard.version)).map((shard) => matchChunkType(shard.id));
    return [[...base, ...held], shards.map((shard) => matchChunkType(shard.id))];
  };
  const readiness = async (): Promise<ReadinessReport> => {
    const stats = await voters.stats().catch(() => null);
    const checks = {
      database: await metadata.healthy(),
      storage: await blobs.healthy(),
      voter_file: stats?.version ?? null,
      // The delivery target (SFTP login, cached 30 s; or the local folder writable). Reported, but
      // not part of `ready`: without it the api and matching still work and deliveries wait in
      // the queue, while taking every process out of service would stop polls as well.
      delivery: (await drop.healthy?.()) ?? null,
    };
    return { ready: checks.database && checks.storage, checks };
  };

  return {
    config,
    privacyNotes,
    async revokeKey(idOrName) {
      const record = await keys.revoke(idOrName);
      return { record, withdrawnJobs: await retention.withdrawKey(record.id) };
    },
    metadataKind: metadata.kind,
    storageKind: storage.kind,
    database: metadata.sqlite,
    queue,
    jobStore,
    voters,
    blobs,
    drop,
    registry,
    onboarding,
    keys,
    jobs,
    rateLimits,
    signer,
    fileUrls: storage.fileUrls,
    metrics,
    files,
    readiness,
    createWorker: (logger) => {
      workerLogger = logger;
      const stale =
        config.META_API_VERSION === undefined ? null : graphVersionWarning(config.META_API_VERSION);
      if (stale !== null) logger.warn(stale);
      return new Worker({
        queue,
        registry,
        logger,
        leaseMs: config.QUEUE_LEASE_SECONDS * 1000,
        pollMs: config.QUEUE_POLL_MS,
        concurrency: config.WORKER_CONCURRENCY,
        claimTiers,
        onClaimed: (type, waitMs) => metrics.queueWait.observe({ queue: type }, waitMs / 1000),
        onFinished: (type, outcome, ms) => metrics.stageDuration.observe({ queue: type, outcome }, ms / 1000),
        housekeeping: async () => {
          const expired = await jobs.expireUnuploaded();
          if (expired > 0) logger.info({ expired }, 'expired registrations that were never uploaded');
          runSweeps(logger, [
            {
              run: () => retention.run(),
              done: 'deleted the files of jobs past retention',
              field: 'expired',
              failed: 'retention pass failed',
            },
            {
              run: () => retention.sweepFolders(),
              done: 'deleted folder files past retention',
              failed: 'folder retention sweep failed',
            },
            // Partial files of writes cut short by a crash; a day is far longer than any upload.
            {
              run: () => storage.sweepTemporary(DAY_MS),
              done: 'removed stale temporary files',
              failed: 'temporary file sweep failed',
            },
            {
              run: () => mailer.sweepTemporary?.(DAY_MS) ?? Promise.resolve(0),
              done: 'removed partial outbox messages',
              failed: 'outbox sweep failed',
            },
            {
              run: () => drop.sweepTemporary?.(DAY_MS) ?? Promise.resolve(0),
              done: 'removed stale partial deliveries',
              failed: 'partial delivery sweep failed',
            },
          ]);
        },
      });
    },
    createUploadArrivals: (logger) =>
      storage.uploadsArriveInStore
        ? new UploadArrivals({
            blobs,
            jobs,
            logger,
            intervalMs: config.UPLOAD_POLL_MS,
            onAccepted: (_jobId, waitedMs) => metrics.uploadArrivalWait.observe(waitedMs / 1000),
          })
        : null,
    close: async () => {
      await Promise.allSettled([matchers.close(), mailer.close()]);
      await metadata.close();
    },
  };
}

const DAY_MS = 24 * 3600_000;
