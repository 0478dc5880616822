import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FsBlobStore, TEMP_STALE_MS } from '../adapters/blobs/fs-blob-store.ts';
import { SqliteQueue } from '../adapters/queue/sqlite-queue.ts';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory-rate-limiter.ts';
import { SqlJobStore } from '../adapters/sql/sql-job-store.ts';
import { SqlKeyStore } from '../adapters/sql/sql-key-store.ts';
import { SqlLookupStore } from '../adapters/sql/sql-lookup-store.ts';
import { SqlOnboardingStore } from '../adapters/sql/sql-onboarding-store.ts';
import { SqliteRunner } from '../adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../adapters/sqlite/sqlite-database.ts';
import { HmacUrlSigner } from '../adapters/urls/hmac-url-signer.ts';
import type { Config } from '../config.ts';
import { incomingUploadKey } from '../domain/client-jobs/job-service.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { KeyStore } from '../domain/ports/key-store.ts';
import type { LookupStore } from '../domain/ports/lookup-store.ts';
import type { OnboardingStore } from '../domain/ports/onboarding-store.ts';
import type { Queue } from '../domain/ports/queue.ts';
import type { RateLimiter } from '../domain/ports/rate-limiter.ts';
import type { UrlGrant, UrlSigner, VerifyingUrlSigner } from '../domain/ports/url-signer.ts';
import { reportingStorageFull } from './storage-full.ts';

export const SQLITE_MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/sqlite', import.meta.url));

/** Keys, jobs, onboarding progress, the queue and the rate limiter: one database, so changes and their work commit together. */
export interface MetadataBackends {
  kind: 'sqlite' | 'postgres';
  /** The embedded database (tests look inside it); null with PostgreSQL. */
  sqlite: SqliteDatabase | null;
  keyStore: KeyStore;
  /** Lookup rights, quotas and counts (person and voter lookups). */
  lookupStore: LookupStore;
  jobStore: JobStore;
  onboarding: OnboardingStore;
  queue: Queue;
  rateLimiter: RateLimiter;
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** Uploads and results, and the presigned URLs that reach them. */
export interface StorageBackends {
  kind: 'files' | 's3';
  blobs: BlobStore;
  signer: UrlSigner;
  /** The signer whose URLs the api serves itself (embedded); null when object storage serves them. */
  fileUrls: VerifyingUrlSigner | null;
  /** Clients PUT straight into object storage, so workers must look for arrivals. */
  uploadsArriveInStore: boolean;
  /**
   * Removes partial files of writes cut short by a crash (embedded files only): those of processes
   * that are gone, never one a live process sharing DATA_DIR is writing (FsBlobStore.sweepTemporary).
   */
  sweepTemporary(): Promise<number>;
}

/** The metadata backends, then storage; the metadata is closed again when storage fails to open. */
export async function openBackends(
  config: Config,
  dataDir: string,
  secret: string | Buffer,
): Promise<{ metadata: MetadataBackends; storage: StorageBackends }> {
  const metadata = await openMetadata(config, dataDir);
  try {
    return { metadata, storage: await openStorage(config, dataDir, secret) };
  } catch (error) {
    await metadata.close().catch(() => {});
    throw error;
  }
}

/** SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL (drivers loaded only then). */
export async function openMetadata(config: Config, dataDir: string): Promise<MetadataBackends> {
  if (config.DATABASE_URL === undefined) {
    const database = new SqliteDatabase(join(dataDir, 'listmatch.db'), SQLITE_MIGRATIONS_DIR);
    const queue = new SqliteQueue(database, { maxAttempts: config.QUEUE_MAX_ATTEMPTS });
    // One runner on the one connection: the stores' changes and their follow-ups commit together.
    const sql = new SqliteRunner(database, queue);
    return {
      kind: 'sqlite',
      sqlite: database,
      // A full disk answers as the service's storage being full (storage-full.ts).
      keyStore: reportingStorageFull(new SqlKeyStore(sql)),
      lookupStore: reportingStorageFull(new SqlLookupStore(sql)),
      jobStore: reportingStorageFull(new SqlJobStore(sql)),
      onboarding: reportingStorageFull(new SqlOnboardingStore(sql)),
      queue: reportingStorageFull(queue),
      rateLimiter: new MemoryRateLimiter(),
      healthy: async () => database.healthy(),
      close: async () => database.close(),
    };
  }
  return openPostgresMetadata(config, config.DATABASE_URL);
}

/**
 * PostgreSQL for keys, jobs, onboarding and rate limits, and pg-boss (in its own schema of the same
 * database) for the queue. The stores write a state change's follow-up messages with the queue on
 * the transaction's own connection, so both commit together as in the embedded database.
 */
async function openPostgresMetadata(config: Config, url: string): Promise<MetadataBackends> {
  const [{ openPgDatabase, describeDatabaseUrl }, { PgRunner }, { PgRateLimiter }, { createPgBossQueue }] =
    await Promise.all([
      import('../adapters/postgres/pg-database.ts'),
      import('../adapters/sql/pg-runner.ts'),
      import('../adapters/rate-limit/pg-rate-limiter.ts'),
      import('../adapters/queue/pg-boss-queue.ts'),
    ]);
  // Names the database without its password (describeDatabaseUrl), keeps the driver's error as cause.
  const failed = (what: string, error: unknown) =>
    new Error(`${what} the database at ${describeDatabaseUrl(url)} failed: ${(error as Error).message}`, {
      cause: error,
    });
  let database: Awaited<ReturnType<typeof openPgDatabase>>;
  try {
    database = await openPgDatabase(url, {
      poolSize: config.DATABASE_POOL_SIZE,
      migrate: config.MIGRATE_ON_START,
      onIdleError: (error) => warn(`PostgreSQL connection dropped: ${error.message}`),
    });
  } catch (error) {
    throw failed('opening', error);
  }
  if (!config.MIGRATE_ON_START) {
    const pending = await database.pendingMigrations().catch(async (error: unknown) => {
      await database.close().catch(() => {});
      throw failed('reaching', error);
    });
    if (pending.length > 0) {
      await database.close().catch(() => {});
      throw new Error(
        `the database at ${describeDatabaseUrl(url)} lacks ${pending.length} migration(s) (${pending.join(', ')}): run \`listmatch migrate\` first, or set MIGRATE_ON_START=true`,
      );
    }
  }
  let queue: Awaited<ReturnType<typeof createPgBossQueue>>;
  try {
    queue = await createPgBossQueue({
      connectionString: url,
      maxAttempts: config.QUEUE_MAX_ATTEMPTS,
      leaseMs: config.QUEUE_LEASE_SECONDS * 1000,
      // The queue's pool is separate from the stores'; it needs a few connections, not the same count.
      poolSize: Math.max(2, Math.ceil(config.DATABASE_POOL_SIZE / 2)),
      migrate: config.MIGRATE_ON_START,
      // Only workers claim, so only they take part in finding lapsed leases.
      supervise: config.ROLES.includes('worker'),
      onError: (error) => warn(`job queue: ${error.message}`),
    });
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
  const rateLimiter = new PgRateLimiter(database);
  const stopPurging = rateLimiter.startPurging({
    onError: (error) => warn(`rate limit purge failed: ${(error as Error).message}`),
  });
  const sql = new PgRunner(database, queue);
  return {
    kind: 'postgres',
    sqlite: null,
    keyStore: reportingStorageFull(new SqlKeyStore(sql)),
    lookupStore: reportingStorageFull(new SqlLookupStore(sql)),
    jobStore: reportingStorageFull(new SqlJobStore(sql)),
    onboarding: reportingStorageFull(new SqlOnboardingStore(sql)),
    queue: reportingStorageFull(queue),
    rateLimiter: reportingStorageFull(rateLimiter),
    healthy: () => database.healthy(),
    close: async () => {
      await stopPurging();
      // Claims still held lapse and are retried by another worker: closing must not stop on it.
      await queue
        .close()
        .catch((error: unknown) => warn(`closing the job queue: ${(error as Error).message}`));
      await database.close();
    },
  };
}

/**
 * Background failures of the database drivers, before any logger exists. Driver messages name
 * servers and tables, never row values (PostgresError strips the details that would).
 */
function warn(message: string): void {
  process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: message })}\n`);
}

/** Files in DATA_DIR with HMAC URLs the api serves, or an S3-compatible bucket with SigV4 URLs. */
export async function openStorage(
  config: Config,
  dataDir: string,
  secret: string | Buffer,
): Promise<StorageBackends> {
  if (config.S3_BUCKET === undefined) {
    const blobs = new FsBlobStore(join(dataDir, 'blobs'));
    const signer = new HmacUrlSigner({ secret, baseUrl: config.publicUrl });
    return {
      kind: 'files',
      blobs,
      signer,
      fileUrls: signer,
      uploadsArriveInStore: false,
      sweepTemporary: () => blobs.sweepTemporary(TEMP_STALE_MS),
    };
  }
  const [{ openS3BlobStore }, { openS3UrlSigner }] = await Promise.all([
    import('../adapters/blobs/s3-blob-store.ts'),
    import('../adapters/urls/s3-url-signer.ts'),
  ]);
  // loadConfig refuses S3_BUCKET without the rest of the group.
  const s3 = {
    endpoint: config.S3_ENDPOINT!,
    region: config.S3_REGION,
    bucket: config.S3_BUCKET,
    accessKeyId: config.S3_ACCESS_KEY_ID!,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY!,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    ...(config.S3_PREFIX === undefined ? {} : { keyPrefix: config.S3_PREFIX }),
  };
  return {
    kind: 's3',
    blobs: await openS3BlobStore(s3),
    signer: await openS3UrlSigner({ ...s3, blobKeyOf: s3BlobKeyOf }),
    fileUrls: null,
    uploadsArriveInStore: true,
    sweepTemporary: async () => 0,
  };
}

/** The object a grant reaches: the job's incoming upload for a PUT, its result for a GET. */
export function s3BlobKeyOf(grant: UrlGrant): string {
  if (grant.op === 'put') return incomingUploadKey(grant.jobId);
  if (grant.blob === undefined) throw new Error('a download grant must name its blob');
  return grant.blob;
}
