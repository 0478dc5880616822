import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import yazl from 'yazl';
import { givenUp, revokedBeforeDelivery, revokedBeforeMatching } from '../domain/client-jobs/job-failures.ts';
import type { JobSummary, SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { mediaBuyingIdsKey } from '../domain/client-jobs/result-files.ts';
import { type ResultLayout, resultLayout } from '../domain/client-jobs/result-layout.ts';
import { renderSummaryHtml, type SummaryReportJob } from '../domain/client-jobs/summary-report.ts';
import { AppError, isAppError } from '../domain/errors.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import { withOutputs } from '../domain/list-matching/list-run.ts';
import { loadEveryShard, type MatchedList, matchList } from '../domain/list-matching/match-list.ts';
import { outputsOf, type ResultSinks } from '../domain/list-matching/stages/write.ts';
import type { BlobStore, BlobWriter } from '../domain/ports/blob-store.ts';
import { type JobRef, MATCH_LIST_JOB } from '../domain/ports/job-catalog.ts';
import type { VoterSnapshot } from '../domain/voters/voter-snapshot.ts';
import { completionFollowUps } from './completion-follow-ups.ts';
import { exponentialBackoff, type JobModule, jobRefSchema } from './job-module.ts';
import { ProgressRecorder } from './job-progress.ts';
import { splitList } from './list-chunks.ts';
import {
  failJob,
  type JobPlan,
  type MatchListDeps,
  planJob,
  runOfJob,
  stopIfKeyRevoked,
  withdrawIfRevoked,
} from './list-job-steps.ts';
import { JobKeyRevoked } from './revoked-keys.ts';

const payloadSchema = jobRefSchema;
type Payload = JobRef;

/**
 * Processes one uploaded contact list: parse → match → write → package → complete. Writes the
 * delivery archive for every job and the poll download its `format` asks for (result-layout.ts). Re-running it
 * (after a crash) starts over from the upload and produces the same result: its output depends
 * only on the upload, the pinned voter-file version and the profile.
 */
export function matchListJob(deps: MatchListDeps): JobModule<Payload> {
  return {
    type: MATCH_LIST_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(2_000, 60_000),
    async handle({ jobId }, context) {
      const job = await deps.jobs.getJob(jobId);
      if (
        job === null ||
        job.kind !== 'smartmatch' ||
        (job.state !== 'uploaded' && job.state !== 'processing')
      )
        return;
      if ((await deps.keys.activeKey(job.keyId)) === null) {
        await failJob(deps, job.id, revokedBeforeMatching());
        return;
      }
      try {
        await processJob(deps, job, context.signal);
      } catch (error) {
        if (error instanceof JobKeyRevoked) {
          // Revoked while the job ran: it stops, and its upload and result files are deleted.
          await failJob(deps, job.id, error.reason);
          return;
        }
        if (!isAppError(error) || error.code !== 'VALIDATION_FAILED') throw error;
        // The file itself is unusable: retrying cannot help.
        await failJob(deps, job.id, error);
      }
    },
    async onGiveUp({ jobId }, error) {
      await failJob(deps, jobId, givenUp(jobId, error, 'processing failed repeatedly'));
    },
  };
}

async function processJob(deps: MatchListDeps, job: SmartmatchJob, signal: AbortSignal): Promise<void> {
  const started = new Date();
  const pinned = job.voterVersion === null ? null : await deps.voters.open(job.voterVersion);
  const voters = pinned ?? (await deps.voters.current());
  if (voters === null) {
    throw new AppError(
      'UNAVAILABLE',
      'no voter file is loaded on this service yet; the operator must import one',
    );
  }
  // Pin the version so that a resumed run matches against the same voter file.
  await deps.jobs.transition(
    job.id,
    ['uploaded', 'processing'],
    'processing',
    { voterVersion: voters.version },
    Date.now(),
  );
  deps.onTransition?.('processing');
  const plan = await planJob(deps, job);
  // The key was active when the job was taken; loading the voter file may have taken a while.
  await stopIfKeyRevoked(deps, job, revokedBeforeMatching);
  const replaced = job.voterVersion !== null && pinned === null;
  let reportedRows = 0;
  // Poll's progress: rows through matching and upload bytes read, recorded about once a second.
  const progress = new ProgressRecorder(deps.jobs, job);
  const onProgress = (rows: number) => {
    if (signal.aborted) throw signal.reason;
    // matchList reports a running total for this job; the metric counts increments.
    deps.onRows?.(rows - reportedRows);
    reportedRows = rows;
    progress.rows(rows);
  };
  const map = voters.shardMap;
  if (map !== undefined && deps.holdsEveryShard?.(map) !== true) {
    // Workers that hold part of the file share the list: split, chunks per shard, assembly.
    await splitList(deps, job, voters, plan, started.getTime());
    return;
  }
  // A sharded file whose every shard this worker holds is matched here, as an unsharded one is.
  const shards = map === undefined ? undefined : await loadEveryShard(deps.voters, map, deps.openOnThreads);
  const run = runOfJob(deps, job, plan);
  await writeResults(deps, job, voters, plan, {
    started,
    replaced,
    run: async (sinks) =>
      await matchList({
        open: async () => progress.countBytes(await deps.blobs.read(job.uploadBlob!)),
        sinks,
        run: withOutputs(run, outputsOf(sinks)),
        voters,
        ...(shards === undefined ? {} : { shards }),
        executor: deps.executor,
        onProgress,
      }),
  });
}

/**
 * Runs the list through `run` into the job's result blobs, then writes the delivery archive and
 * completes the job with its follow-ups. Used by the unsharded job and by the sharded one's assembly.
 * A key revoked meanwhile stops it (JobKeyRevoked) before the result is published and before the
 * completion: no result, no "complete" notice, no delivery. One revoked just as the job completed
 * has the job's files deleted at once.
 */
export async function writeResults(
  deps: MatchListDeps,
  job: SmartmatchJob,
  voters: VoterSnapshot,
  plan: JobPlan,
  options: {
    started: Date;
    replaced: boolean;
    /** Matches (or assembles) the list into the sinks; a sharded list's summary says how rows were routed. */
    run: (sinks: ResultSinks) => Promise<MatchedList>;
  },
): Promise<void> {
  // The client's filename names the downloads only; storage keys are built from the job id.
  const layout = resultLayout({
    id: job.id,
    filename: job.filename,
    format: job.params.format,
    maxMatches: job.params.maxMatches,
  });
  const writers = await openWriters(deps.blobs, layout);
  const wantsAudience = job.params.mbpOnboarding && job.params.digitalAudienceName !== null;
  const mbpIds = wantsAudience ? await deps.blobs.openWriter(mediaBuyingIdsKey(job.id)) : null;
  if (mbpIds !== null) writers.all.push(mbpIds);
  const idLines = mbpIds === null ? null : new LineBuffer(mbpIds.stream);
  let summary: JobSummary;
  try {
    const listSummary = await options.run({
      ...(writers.everyRank ? { output: writers.everyRank.stream } : {}),
      ...(writers.split
        ? { split: { best: writers.split.best.stream, additional: writers.split.additional.stream } }
        : {}),
      ...(idLines === null ? {} : { onBestMatch: (id: string) => idLines.write(`${id}\n`) }),
    });
    await idLines?.end();
    await stopIfKeyRevoked(deps, job, revokedBeforeDelivery);
    for (const writer of writers.all) await writer.commit();
    const completed = new Date();
    if (options.replaced) {
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
      matchThreshold: plan.matchThreshold,
      startedAt: options.started.toISOString(),
      completedAt: completed.toISOString(),
      durationMs: completed.getTime() - options.started.getTime(),
    };
  } catch (error) {
    for (const writer of writers.all) await writer.abort();
    throw error;
  }
  await writeDeliveryArchive(deps.blobs, layout, summary, {
    filename: job.filename,
    maxMatches: job.params.maxMatches,
    mtime: new Date(job.createdAt),
  });
  if (layout.gzip !== null) await writeGzip(deps.blobs, layout.gzip.from, layout.gzip.key);
  for (const key of layout.temporary) await deps.blobs.delete(key);
  // Fan-out work (webhook, deliveries, notices) commits together with the completion.
  await stopIfKeyRevoked(deps, job, revokedBeforeDelivery);
  const followUps = completionFollowUps(job, { deliverToFolder: plan.deliverToFolder });
  const completed = await deps.jobs.transition(
    job.id,
    ['processing'],
    'complete',
    { summary, resultBlob: layout.poll.key, resultName: layout.poll.name },
    Date.now(),
    followUps,
  );
  if (completed) {
    deps.onTransition?.('complete');
  }
  // Revoked between the check above and the completion: revoking found the job still running.
  await withdrawIfRevoked(deps, job.keyId);
}

/** The pipeline's blob writers, as the layout asks for them. */
async function openWriters(blobs: BlobStore, layout: ResultLayout) {
  const everyRank = layout.everyRankCsv === null ? null : await blobs.openWriter(layout.everyRankCsv);
  const split =
    layout.split === null
      ? null
      : {
          best: await blobs.openWriter(layout.split.best),
          additional: await blobs.openWriter(layout.split.additional),
        };
  const all = [everyRank, split?.best, split?.additional].filter(
    (w): w is BlobWriter => w !== null && w !== undefined,
  );
  return { everyRank, split, all };
}

/**
 * The delivery archive: the result CSVs, summary.json and summary.html. Entry times are the
 * job's creation time, so a rerun (after a crash) gives the same CSV entries.
 */
async function writeDeliveryArchive(
  blobs: BlobStore,
  layout: ResultLayout,
  summary: JobSummary,
  job: SummaryReportJob & { mtime: Date },
): Promise<void> {
  const { mtime } = job;
  const zip = new yazl.ZipFile();
  for (const csv of layout.archiveCsvs) zip.addReadStream(await blobs.read(csv.blob), csv.name, { mtime });
  zip.addBuffer(Buffer.from(`${JSON.stringify(summary, null, 2)}\n`), 'summary.json', { mtime });
  zip.addBuffer(Buffer.from(renderSummaryHtml(summary, job)), 'summary.html', { mtime });
  zip.end();
  const writer = await blobs.openWriter(layout.archive.key);
  try {
    await pipeline(zip.outputStream as Readable, writer.stream);
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** The `format=gzip` download, compressed from the plain CSV with every rank. */
async function writeGzip(blobs: BlobStore, from: string, key: string): Promise<void> {
  const writer = await blobs.openWriter(key);
  try {
    await pipeline(await blobs.read(from), createGzip({ level: 6 }), writer.stream);
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
}
