import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import yazl from 'yazl';
import { z } from 'zod';
import { AppError, isAppError } from '../domain/errors.ts';
import { MATCH_LIST_JOB } from '../domain/jobs/job-service.ts';
import type { JobSummary, SmartmatchJob } from '../domain/jobs/job-types.ts';
import { downloadBase } from '../domain/jobs/result-files.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { AppendedField } from '../domain/keys/key-types.ts';
import type { Matcher } from '../domain/matching/matcher.ts';
import { jobNoticeMessage } from '../domain/notices/job-notices.ts';
import { matchList } from '../domain/pipeline/match-list.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import { CONTACT_FIELD_COLUMNS } from '../domain/voters/voter-columns.ts';
import type { VoterSnapshot, VoterStore } from '../domain/voters/voter-snapshot.ts';
import { completionFollowUps } from './completion-follow-ups.ts';
import { exponentialBackoff, type JobModule } from './job-module.ts';

const payloadSchema = z.object({ v: z.literal(1), jobId: z.string().startsWith('job_') });
type Payload = z.infer<typeof payloadSchema>;

export interface MatchListDeps {
  jobs: JobStore;
  blobs: BlobStore;
  voters: VoterStore;
  keys: KeyService;
  /** The job's matcher; `thresholdScore` is the profile's, when it sets one. */
  createMatcher: (voters: VoterSnapshot, options: { thresholdScore?: number }) => Matcher;
  maxRowBytes: number;
  onTransition?: (state: 'processing' | 'complete' | 'failed') => void;
  /** Rows processed since the last call (for a counter metric). */
  onRows?: (rows: number) => void;
}

/**
 * Processes one uploaded contact list: parse → match → write → package → complete. Re-running it
 * (after a crash) starts over from the upload and produces the same result: its output depends
 * only on the upload, the pinned voter-file version and the profile.
 */
export function matchListJob(deps: MatchListDeps): JobModule<Payload> {
  return {
    type: MATCH_LIST_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(2_000, 60_000),
    async handle({ jobId }, context) {
      const job = deps.jobs.getJob(jobId);
      if (
        job === null ||
        job.kind !== 'smartmatch' ||
        (job.state !== 'uploaded' && job.state !== 'processing')
      )
        return;
      try {
        await processJob(deps, job, context.signal);
      } catch (error) {
        if (!isAppError(error) || error.code !== 'VALIDATION_FAILED') throw error;
        // The file itself is unusable: retrying cannot help.
        failJob(deps, job.id, `Validation Error: ${error.message}`);
      }
    },
    onGiveUp({ jobId }, error) {
      const reference = isAppError(error) ? error.message : 'processing failed repeatedly';
      failJob(deps, jobId, `Internal Error: ${reference}; the operator can look it up as ${jobId}`);
    },
  };
}

function failJob(deps: MatchListDeps, jobId: string, error: string): void {
  // The "failed" notice commits with the failure, like the completion's follow-ups.
  const job = deps.jobs.getJob(jobId);
  const notice = job?.kind === 'smartmatch' ? jobNoticeMessage(job, 'failed') : null;
  const followUps = notice === null ? [] : [notice];
  if (deps.jobs.transition(jobId, ['uploaded', 'processing'], 'failed', { error }, Date.now(), followUps)) {
    deps.onTransition?.('failed');
  }
}

async function processJob(deps: MatchListDeps, job: SmartmatchJob, signal: AbortSignal): Promise<void> {
  const started = new Date();
  const pinned = job.voterVersion === null ? null : await deps.voters.open(job.voterVersion);
  const voters = pinned ?? (await deps.voters.current());
  let reportedRows = 0;
  if (voters === null) {
    throw new AppError(
      'UNAVAILABLE',
      'no voter file is loaded on this service yet; the operator must import one',
    );
  }
  // Pin the version so that a resumed run matches against the same voter file.
  deps.jobs.transition(
    job.id,
    ['uploaded', 'processing'],
    'processing',
    { voterVersion: voters.version },
    Date.now(),
  );
  deps.onTransition?.('processing');
  const profile = deps.keys.resolveProfile(job.keyId, job.params.profileId);
  const appendedFields: AppendedField[] = [
    ...profile.appendedFields,
    ...job.params.include.map((field) => ({
      source: CONTACT_FIELD_COLUMNS[field],
      as: CONTACT_FIELD_COLUMNS[field],
    })),
  ];
  // The client's filename names the download only; storage keys are built from the job id.
  const base = downloadBase(job.filename);
  const extension = { csv: 'csv', gzip: 'csv.gz', zip: 'zip' }[job.params.format];
  const resultName = `${base}.${extension}`;
  const resultKey = `results/${job.id}/result.${extension}`;
  const csvKey = job.params.format === 'zip' ? `work/${job.id}/result.csv` : resultKey;

  const csvWriter = await deps.blobs.openWriter(csvKey);
  let summary: JobSummary;
  try {
    const gzip = job.params.format === 'gzip' ? createGzip({ level: 6 }) : null;
    const compressing = gzip ? pipeline(gzip, csvWriter.stream) : null;
    // Awaited below; the no-op catch only keeps an early failure from being 'unhandled'.
    compressing?.catch(() => undefined);
    const listSummary = await matchList({
      source: await deps.blobs.read(job.uploadBlob!),
      output: gzip ?? csvWriter.stream,
      matcher: deps.createMatcher(
        voters,
        profile.matchThreshold === null ? {} : { thresholdScore: profile.matchThreshold },
      ),
      voters,
      appendedFields,
      maxMatches: job.params.maxMatches,
      searchRadiusMiles: job.params.searchRadiusMiles,
      maxRowBytes: deps.maxRowBytes,
      asOf: new Date(job.createdAt),
      onProgress: (rows) => {
        if (signal.aborted) throw signal.reason;
        // matchList reports a running total for this job; the metric counts increments.
        deps.onRows?.(rows - reportedRows);
        reportedRows = rows;
      },
    });
    await compressing;
    await csvWriter.commit();
    const completed = new Date();
    if (job.voterVersion !== null && pinned === null) {
      // The version this job started on was replaced twice before the job could resume.
      listSummary.warnings.total++;
      listSummary.warnings.byKind['voter_file_replaced'] = 1;
      listSummary.warnings.first.push(
        `the voter file this job started on was replaced meanwhile; it was matched against version ${voters.version}`,
      );
    }
    summary = {
      ...listSummary,
      voterFileVersion: voters.version,
      startedAt: started.toISOString(),
      completedAt: completed.toISOString(),
      durationMs: completed.getTime() - started.getTime(),
    };
  } catch (error) {
    await csvWriter.abort();
    throw error;
  }
  if (job.params.format === 'zip') {
    await writeZip(deps.blobs, resultKey, csvKey, `${base}.csv`, summary, new Date(job.createdAt));
    await deps.blobs.delete(csvKey);
  }
  // Fan-out work (webhook, deliveries, notices) commits together with the completion.
  const followUps = completionFollowUps(job);
  const completed = deps.jobs.transition(
    job.id,
    ['processing'],
    'complete',
    { summary, resultBlob: resultKey, resultName },
    Date.now(),
    followUps,
  );
  if (completed) {
    deps.onTransition?.('complete');
  }
}

/** The zip holds the CSV and summary.json; entry times are the job's, so reruns give the same CSV entry. */
async function writeZip(
  blobs: BlobStore,
  resultKey: string,
  csvKey: string,
  csvName: string,
  summary: JobSummary,
  mtime: Date,
): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addReadStream(await blobs.read(csvKey), csvName, { mtime });
  zip.addBuffer(Buffer.from(`${JSON.stringify(summary, null, 2)}\n`), 'summary.json', { mtime });
  zip.end();
  const writer = await blobs.openWriter(resultKey);
  try {
    await pipeline(zip.outputStream as Readable, writer.stream);
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
