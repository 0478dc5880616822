import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { mediaBuyingFileKey, mediaBuyingIdsKey } from '../domain/client-jobs/result-files.ts';
import { isAppError } from '../domain/errors.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import { jobNoticeMessage } from '../domain/notices/job-notices.ts';
import { type AudienceRow, audienceCsv } from '../domain/onboarding/audience-csv.ts';
import { DistinctIds, type SortedRuns } from '../domain/onboarding/distinct-ids.ts';
import { type BlobStore, listPages } from '../domain/ports/blob-store.ts';
import type { FileDropAudiences } from '../domain/ports/file-drop-audiences.ts';
import { type JobRef, jobMessage, MBP_AUDIENCE_JOB } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { OnboardingStore } from '../domain/ports/onboarding-store.ts';
import { isPlatformError } from '../domain/ports/platform-error.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import { blobLines } from './blob-lines.ts';
import type { JobModule } from './job-module.ts';
import { jobRefSchema } from './job-module.ts';
import { keyRevoked } from './revoked-keys.ts';

/** Platform calls are retried, and readiness polled, every interval for about two days. */
export const MBP_MAX_ATTEMPTS = 288;
/**
 * Most voter ids held in memory while the audience's ids are deduplicated (about 40 bytes an id:
 * some 20 MB); a longer list is sorted in runs of this many under the job's work area and merged.
 */
export const MBP_DISTINCT_IDS_HELD = 500_000;

const payloadSchema = jobRefSchema;
type Payload = JobRef;

export interface MbpAudienceDeps {
  jobs: JobStore;
  /** A revoked key's matches become no audience. */
  keys: Pick<KeyService, 'activeKey'>;
  runs: OnboardingStore;
  blobs: BlobStore;
  /** null when the service has no media buying platform configured. */
  mbp: FileDropAudiences | null;
  /** Between retries of a platform call and between readiness polls. */
  intervalMs: number;
  /** Most ids held in memory while deduplicating (MBP_DISTINCT_IDS_HELD unless set). */
  distinctIdsHeld?: number;
  logger: () => FastifyBaseLogger;
}

/**
 * The follow-up that builds it, for a job registered with `mbp_onboarding` and an audience name.
 * Grouped by key: the worker runs at most AUDIENCE_CONCURRENCY_PER_KEY of one key's at once.
 */
export function mbpAudienceMessage(job: SmartmatchJob): QueueMessage | null {
  if (!job.params.mbpOnboarding || job.params.digitalAudienceName === null) return null;
  return jobMessage(
    MBP_AUDIENCE_JOB,
    { v: 1, jobId: job.id },
    { maxAttempts: MBP_MAX_ATTEMPTS, group: job.keyId },
  );
}

/**
 * Turns a completed list-matching job's best matches (their `voterbase_id`s, written while it
 * matched) into the audience `digital_audience_name` on the media buying platform: write the
 * platform's file, create the audience (its id recorded at once), upload, then poll until the
 * platform says ready or failed. `notification_email` hears the outcome. Whatever happens here,
 * the list-matching job and its result stay as they are.
 */
export function mbpAudienceJob(deps: MbpAudienceDeps): JobModule<Payload> {
  /** Records the failure and enqueues its notice in one transaction (a retry never sends it twice). */
  const fail = async (job: SmartmatchJob, reason: string) => {
    const notice = jobNoticeMessage(job, 'audience_failed', reason);
    deps.logger().warn({ jobId: job.id }, 'media buying audience failed');
    await deps.runs.update(
      job.id,
      { stage: 'failed', updatedAt: Date.now() },
      notice === null ? [] : [notice],
    );
  };
  return {
    type: MBP_AUDIENCE_JOB,
    payload: payloadSchema,
    backoffMs: () => deps.intervalMs,
    async handle({ jobId }, { signal }) {
      const job = await deps.jobs.getJob(jobId);
      if (job === null || job.kind !== 'smartmatch' || job.state !== 'complete') return;
      if (job.params.digitalAudienceName === null) return;
      if (await keyRevoked(deps.keys, job, 'media buying audience not built', deps.logger())) return;
      let run = await deps.runs.get(jobId);
      if (run === null) {
        run = {
          jobId,
          stage: 'staged',
          pattern: 1,
          schema: ['VOTERBASE_ID'],
          stagedBlob: mediaBuyingIdsKey(jobId),
          counts: { rows: 0, usable: 0, unknownIds: 0, malformed: 0, sent: 0 },
          audienceId: null,
          nextBatchSeq: 1,
          rowsDone: 0,
          updatedAt: Date.now(),
        };
        await deps.runs.insert(run);
      }
      if (run.stage === 'ready' || run.stage === 'failed') return;
      const mbp = deps.mbp;
      if (mbp === null) {
        await fail(job, 'this service is not connected to a media buying platform; ask client services');
        return;
      }
      try {
        if (run.audienceId === null || run.stage === 'staged') {
          const file = mediaBuyingFileKey(jobId);
          const counts = { rows: 0, blank: 0 };
          const dedup = await distinctIds(deps, jobId);
          const writer = await deps.blobs.openWriter(file);
          try {
            await pipeline(
              Readable.from(audienceCsv(mbp.profile, ['VOTERBASE_ID'], dedup.rows, counts)),
              writer.stream,
            );
            await writer.commit();
          } catch (error) {
            await writer.abort();
            throw error;
          }
          const log = deps.logger();
          log.info(
            { jobId, distinct: counts.rows, ...dedup.stats },
            'media buying audience ids deduplicated',
          );
          if (counts.rows === 0) {
            await fail(job, 'the list had no matches to build an audience from');
            return;
          }
          let audienceId = run.audienceId;
          if (audienceId === null) {
            const name = job.params.digitalAudienceName.slice(0, mbp.profile.maxNameLength);
            audienceId = (await mbp.createAudience({ name, description: `listmatch ${jobId}` }, { signal }))
              .audienceId;
            await deps.runs.update(jobId, { audienceId, updatedAt: Date.now() });
          }
          const stat = await deps.blobs.stat(file);
          const receipt = await mbp.upload(
            audienceId,
            {
              keys: ['VOTERBASE_ID'],
              rows: counts.rows,
              bytes: stat?.bytes ?? 0,
              open: async () => await deps.blobs.read(file),
            },
            undefined,
            { signal },
          );
          const sent = receipt.rowsReceived ?? counts.rows;
          run = {
            ...run,
            audienceId,
            stage: 'uploaded',
            counts: { ...run.counts, rows: counts.rows, usable: counts.rows, sent },
          };
          await deps.runs.update(jobId, { stage: 'uploaded', counts: run.counts, updatedAt: Date.now() });
        }
        const status = await mbp.status(run.audienceId!, { signal });
        if (status.state === 'processing') throw new Error('the audience is still being processed');
        if (status.state === 'failed') {
          await fail(job, status.reason);
          return;
        }
        const notice = jobNoticeMessage(job, 'audience_ready');
        await deps.runs.update(
          jobId,
          { stage: 'ready', updatedAt: Date.now() },
          notice === null ? [] : [notice],
        );
      } catch (error) {
        if (signal.aborted) throw error;
        if (
          (isPlatformError(error) && error.kind === 'fatal') ||
          (isAppError(error) && error.code === 'VALIDATION_FAILED')
        ) {
          await fail(job, (error as Error).message);
          return;
        }
        throw error;
      }
    },
    async onGiveUp({ jobId }, error) {
      const job = await deps.jobs.getJob(jobId);
      const stage = (await deps.runs.get(jobId))?.stage;
      // Called again when a dead letter is reaped: only the first call records it.
      if (job === null || job.kind !== 'smartmatch' || stage === 'ready' || stage === 'failed') return;
      await fail(
        job,
        isPlatformError(error)
          ? `the media buying platform could not be reached: ${error.message}`
          : 'building the audience failed repeatedly; the operator can look it up',
      );
    },
  };
}

/**
 * The best matches' ids, each once (a person matched by two rows is one audience member), in
 * ascending order, in memory bounded by `distinctIdsHeld` whatever the list's length: longer lists
 * are sorted in runs under `work/<job>/mbp-dedup/` (what a crashed attempt left there is cleared
 * first) and merged.
 */
async function distinctIds(
  deps: MbpAudienceDeps,
  jobId: string,
): Promise<{ rows: AsyncGenerator<AudienceRow>; stats: DistinctIds['stats'] }> {
  const prefix = `work/${jobId}/mbp-dedup/`;
  for await (const page of listPages(deps.blobs, prefix)) {
    for (const blob of page) await deps.blobs.delete(blob.key);
  }
  const dedup = new DistinctIds({
    maxIdsHeld: deps.distinctIdsHeld ?? MBP_DISTINCT_IDS_HELD,
    runs: blobRuns(deps.blobs, prefix),
  });
  const ids = dedup.distinct(blobLines(deps.blobs, mediaBuyingIdsKey(jobId)));
  return {
    rows: (async function* () {
      for await (const id of ids) yield { VOTERBASE_ID: id };
    })(),
    stats: dedup.stats,
  };
}

/** Sorted runs as blobs under `prefix`, one id per line. */
function blobRuns(blobs: BlobStore, prefix: string): SortedRuns {
  let next = 0;
  return {
    async write(ids) {
      const key = `${prefix}run-${String(next++).padStart(6, '0')}.txt`;
      const writer = await blobs.openWriter(key);
      const lines = new LineBuffer(writer.stream);
      try {
        let written = 0;
        for await (const id of ids) {
          lines.write(`${id}\n`);
          // Let a slow disk slow the run down rather than fill memory.
          if (++written % 10_000 === 0) await lines.ready();
        }
        await lines.end();
        await writer.commit();
      } catch (error) {
        await writer.abort();
        throw error;
      }
      return key;
    },
    read: (key) => blobLines(blobs, key),
    delete: async (key) => await blobs.delete(key),
  };
}
