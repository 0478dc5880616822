import { resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { SqliteDatabase } from '../adapters/sqlite/sqlite-database.ts';
import type { Config } from '../config.ts';
import type { ApiKeyRecord } from '../domain/keys/key-types.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { LookupStore } from '../domain/ports/lookup-store.ts';
import type { OnboardingStore } from '../domain/ports/onboarding-store.ts';
import type { Queue } from '../domain/ports/queue.ts';
import type { UrlSigner } from '../domain/ports/url-signer.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import type { HttpDeps } from '../http/http-deps.ts';
import { Metrics } from '../http/metrics.ts';
import type { JobRegistry } from '../jobs/registry.ts';
import type { UploadArrivals } from '../jobs/upload-arrivals.ts';
import type { Worker } from '../jobs/worker.ts';
import { type MetadataBackends, openBackends, type StorageBackends } from './backends.ts';
import { clientServices } from './client-services.ts';
import { housekeepingSweeps } from './housekeeping.ts';
import { listMatchingDeps, voterMatching } from './list-matching.ts';
import { lookupService } from './lookups.ts';
import { createFileDrop, createMailer } from './mail-and-file-drop.ts';
import { makeDataDirsPrivate, privateDirs } from './private-data-dir.ts';
import { freeBytesUnder, readinessCheck } from './readiness.ts';
import { registerJobs } from './register-jobs.ts';
import { signingSecret } from './signing-secret.ts';
import { claimTiers, uploadArrivalsFactory, workerFactory } from './worker-factory.ts';
import { WorkerLogger } from './worker-logger.ts';

/** Every long-lived object of one process, built from the validated config. */
export interface Services extends HttpDeps {
  /** The whole configuration (the HTTP layer reads only its HttpSettings). */
  config: Config;
  /**
   * What start changed in DATA_DIR for privacy (logged as warnings): folders that were open to
   * other users and were closed, partial files with personal data that a crash left and were removed.
   */
  privacyNotes: string[];
  /**
   * Revokes a key: it stops authenticating at once, and the files of its finished jobs are
   * deleted (their result URLs die with it, in object storage too). Its running jobs stop at
   * their next step and their files are deleted then; its uploads are refused, also one that is
   * streaming in.
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
  /** Lookup rights, quotas and counts (the keys CLI grants and reports them). */
  lookupStore: LookupStore;
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
  const privacyNotes = makeDataDirsPrivate(privateDirs(config, dataDir));
  const secret = signingSecret(config, dataDir);
  const { metadata, storage } = await openBackends(config, dataDir, secret);
  const { queue, jobStore, onboarding } = metadata;
  const { blobs } = storage;
  // A process killed mid-write leaves a partial upload or a copy of a result: gone before any work
  // (housekeeping tries again when this fails).
  const swept = await storage.sweepTemporary().catch((error: unknown) => {
    privacyNotes.push(`partial files in blobs/.tmp could not be swept at start: ${(error as Error).message}`);
    return 0;
  });
  if (swept > 0) {
    privacyNotes.push(
      `removed ${swept} partial file(s) left in blobs/.tmp by a process that stopped mid-write`,
    );
  }
  const workerLogger = new WorkerLogger();
  // The SFTP drop logs through the worker's logger once there is one (before that: nothing to say).
  const drop = createFileDrop(config, dataDir, (level, fields, message) =>
    workerLogger.current()?.[level](fields, message),
  );
  const metrics = new Metrics({ queue: async () => await queue.stats() });
  const { matchers, localVoters, voters } = voterMatching(config, dataDir, storage, metrics);
  const client = clientServices(config, { metadata, storage, drop, metrics, secret });
  const { keys, jobs, retention } = client;
  const mailer = createMailer(config, dataDir);
  const lookups = config.ROLES.includes('api')
    ? lookupService(config, {
        voters,
        keys,
        store: metadata.lookupStore,
        limiter: metadata.rateLimiter,
        onSwap: () => metrics.lookupSwaps.inc(),
      })
    : null;
  const registry = registerJobs({
    config,
    matchListDeps: listMatchingDeps(config, {
      jobStore,
      blobs,
      voters,
      keys,
      matchers,
      metrics,
      withdrawKey: (keyId) => retention.withdrawKey(keyId),
    }),
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
    logger: () => workerLogger.get(),
  });

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
    rateLimits: client.rateLimits,
    lookups,
    lookupStore: metadata.lookupStore,
    signer: storage.signer,
    fileUrls: storage.fileUrls,
    metrics,
    files: client.files,
    readiness: readinessCheck({
      metadata,
      blobs,
      voters,
      drop,
      dataDir: { freeBytes: () => freeBytesUnder(dataDir), minFreeBytes: config.STORAGE_MIN_FREE_BYTES },
    }),
    createWorker: workerFactory({
      config,
      queue,
      registry,
      jobs,
      metrics,
      claimTiers: claimTiers({ registry, voters, localVoters }),
      sweeps: housekeepingSweeps({ retention, storage, mailer, drop }),
      workerLogger,
    }),
    createUploadArrivals: uploadArrivalsFactory({ config, storage, blobs, jobs, metrics }),
    close: async () => {
      await Promise.allSettled([matchers.close(), mailer.close(), lookups?.close()]);
      await metadata.close();
    },
  };
}
