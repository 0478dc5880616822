import type { FastifyBaseLogger } from 'fastify';
import { deliveryArchiveKey, deliveryArchiveName } from '../domain/client-jobs/result-files.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import { DELIVER_FOLDER_JOB, type JobRef } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import { exponentialBackoff, type JobModule, jobRefSchema } from './job-module.ts';
import { keyRevoked } from './revoked-keys.ts';

/** With the default 30 s base: retries over about an hour (30 s, 1, 2, 4, 8, 15, 15, 15 min). */
export const FOLDER_DELIVERY_MAX_ATTEMPTS = 9;
const payloadSchema = jobRefSchema;
type Payload = JobRef;

/**
 * Copies a completed job's delivery archive into its key's `smartmatch` folder (local folder or
 * SFTP) as `<filename>.zip`. Idempotent: a repeated delivery replaces the same name atomically.
 * Failures retry with exponential backoff, then the message is dead-lettered with its reason in
 * the queue and a log line; the job stays complete and its result reachable by poll either way.
 */
export function deliverFolderJob(deps: {
  jobs: JobStore;
  blobs: BlobStore;
  keys: Pick<KeyService, 'activeKey'>;
  drop: FileDrop;
  retryBaseMs: number;
  logger: () => FastifyBaseLogger;
}): JobModule<Payload> {
  return {
    type: DELIVER_FOLDER_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(deps.retryBaseMs, 15 * 60_000),
    async handle({ jobId }) {
      const job = await deps.jobs.getJob(jobId);
      // An expired job's files are gone on purpose; a job that is not complete has nothing to drop.
      if (job === null || job.kind !== 'smartmatch' || job.state !== 'complete') return;
      if (await keyRevoked(deps.keys, job, 'folder delivery skipped', deps.logger())) return;
      const key = deliveryArchiveKey(job.id);
      if ((await deps.blobs.stat(key)) === null) {
        throw new Error(`the delivery archive of ${job.id} is missing from storage`);
      }
      const name = deliveryArchiveName(job.filename);
      const { bytes } = await deps.drop.put(job.keyId, name, async () => await deps.blobs.read(key));
      deps.logger().info({ jobId, keyId: job.keyId, file: name, bytes }, 'result delivered to the folder');
    },
    onGiveUp({ jobId }, error) {
      deps
        .logger()
        .warn(
          { jobId, reason: error instanceof Error ? error.message : String(error) },
          'folder delivery dead-lettered',
        );
    },
  };
}
