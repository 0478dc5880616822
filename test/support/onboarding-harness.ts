import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { FsBlobStore } from '../../src/adapters/blobs/fs-blob-store.ts';
import { SqliteQueue } from '../../src/adapters/queue/sqlite-queue.ts';
import { SqlJobStore } from '../../src/adapters/sql/sql-job-store.ts';
import { SqlKeyStore } from '../../src/adapters/sql/sql-key-store.ts';
import { SqlOnboardingStore } from '../../src/adapters/sql/sql-onboarding-store.ts';
import { SqliteRunner } from '../../src/adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../src/adapters/sqlite/sqlite-database.ts';
import { FsVoterStore } from '../../src/adapters/voters/fs-voter-store.ts';
import type {
  Job,
  OnboardingJob,
  OnboardingParams,
  SmartmatchJob,
} from '../../src/domain/client-jobs/job-types.ts';
import { newId } from '../../src/domain/ids.ts';
import { KeyService } from '../../src/domain/keys/key-service.ts';
import type { QueueMessage } from '../../src/domain/ports/queue.ts';
import type { JobModule } from '../../src/jobs/job-module.ts';
import { JobRegistry } from '../../src/jobs/registry.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { FIXTURES, until } from './test-service.ts';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/sqlite', import.meta.url));
export const quietLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
  fatal() {},
  child: () => quietLogger,
} as unknown as FastifyBaseLogger;

/**
 * The stores an onboarding job module runs on (embedded backends in a fresh directory), without
 * the HTTP service, so a test builds the module with the dependencies it wants (a batch size, a
 * platform adapter, a store that fails once) and runs it through a real worker and queue.
 */
export interface OnboardingHarness {
  root: string;
  database: SqliteDatabase;
  queue: SqliteQueue;
  jobs: SqlJobStore;
  runs: SqlOnboardingStore;
  blobs: FsBlobStore;
  voters: FsVoterStore;
  /** The key store's service: the jobs' key is `keyId` (revoke it to test a revoked key). */
  keys: KeyService;
  keyId: string;
  /** An onboarding job in `uploaded`, its file stored (lines or chunks of text). */
  onboardingJob(params: Partial<OnboardingParams>, file: string | Iterable<string>): Promise<OnboardingJob>;
  /** A completed list-matching job registered with `mbp_onboarding` and an audience name. */
  smartmatchJob(audience: string): Promise<SmartmatchJob>;
  /**
   * Enqueues `message` and runs `modules` with a worker until `done` holds for the job, then stops
   * the worker.
   */
  run(
    modules: JobModule<{ v: 1; jobId: string }>[],
    message: QueueMessage,
    done: () => Promise<boolean>,
    timeoutMs?: number,
  ): Promise<void>;
  /** Waits until the job is complete or failed and returns it. */
  finished(jobId: string): Promise<Job>;
  close(): Promise<void>;
}

export async function openOnboardingHarness(options: { voters?: boolean } = {}): Promise<OnboardingHarness> {
  const root = await mkdtemp(join(tmpdir(), 'listmatch-onboarding-'));
  const database = new SqliteDatabase(join(root, 'listmatch.db'), MIGRATIONS);
  const queue = new SqliteQueue(database, { maxAttempts: 5 });
  const sql = new SqliteRunner(database, queue);
  const jobs = new SqlJobStore(sql);
  const runs = new SqlOnboardingStore(sql);
  const blobs = new FsBlobStore(join(root, 'blobs'));
  const voters = new FsVoterStore({ dir: join(root, 'voters'), maxRowBytes: 64 * 1024 });
  if (options.voters === true) {
    await voters.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
  }
  const keys = new KeyService(new SqlKeyStore(sql));
  const keyId = (await keys.createKey({ name: 'client' })).record.id;
  const base = (id: string) => ({
    id,
    keyId,
    uploadExpiresAt: Date.now() + 3600_000,
    uploadBytes: null,
    resultBlob: null,
    resultName: null,
    error: null,
    summary: null,
    voterVersion: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  });
  const finished = async (jobId: string): Promise<Job> => {
    await until(
      async () => ['complete', 'failed'].includes((await jobs.getJob(jobId))?.state ?? ''),
      `job ${jobId} to finish`,
      30_000,
    );
    return (await jobs.getJob(jobId))!;
  };
  return {
    root,
    database,
    queue,
    jobs,
    runs,
    blobs,
    voters,
    keys,
    keyId,
    async onboardingJob(params, file) {
      const id = newId('job');
      const uploadBlob = `uploads/${id}/${newId('upl')}.csv`;
      const chunks = typeof file === 'string' ? [file] : file;
      const { bytes } = await blobs.put(
        uploadBlob,
        Readable.from(
          (function* () {
            for (const chunk of chunks) yield Buffer.from(chunk);
          })(),
        ),
      );
      const job: OnboardingJob = {
        ...base(id),
        kind: 'onboarding',
        filename: null,
        params: {
          platform: 'social',
          audience: `aud_${id.slice(-8)}`,
          statusEmail: 'ops@client.example',
          socialAdid: null,
          ownerAdid: null,
          ...params,
        },
        state: 'uploaded',
        uploadBlob,
        uploadBytes: bytes,
      };
      await jobs.insertJob(job);
      return job;
    },
    async smartmatchJob(audience) {
      const id = newId('job');
      const job: SmartmatchJob = {
        ...base(id),
        kind: 'smartmatch',
        filename: `list_${id}`,
        params: {
          webhook: null,
          include: [],
          maxMatches: 1,
          format: 'csv',
          searchRadiusMiles: null,
          notificationEmail: 'ops@client.example',
          mbpOnboarding: true,
          digitalAudienceName: audience,
          profileId: 'default',
        },
        state: 'complete',
        uploadBlob: null,
      };
      await jobs.insertJob(job);
      return job;
    },
    async run(modules, message, done, timeoutMs = 30_000) {
      const registry = new JobRegistry();
      for (const module of modules) registry.register(module);
      await queue.enqueue(message);
      const worker = new Worker({
        queue,
        registry,
        logger: quietLogger,
        leaseMs: 10_000,
        pollMs: 5,
        concurrency: 1,
      });
      worker.start();
      try {
        await until(done, `${message.type} to finish`, timeoutMs);
      } finally {
        await worker.stop(5_000);
      }
    },
    finished,
    async close() {
      database.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
