import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { givenUp, revokedBeforeAudience } from '../domain/client-jobs/job-failures.ts';
import { ONBOARD_MAX_ATTEMPTS } from '../domain/client-jobs/job-service.ts';
import type { OnboardingJob } from '../domain/client-jobs/job-types.ts';
import { AppError, isAppError, publicMessage } from '../domain/errors.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import { LineBuffer } from '../domain/list-matching/line-buffer.ts';
import { type OnboardingNoticeFacts, onboardingNoticeMessage } from '../domain/notices/onboarding-notices.ts';
import { type AudienceRow, audienceCsv } from '../domain/onboarding/audience-csv.ts';
import { PLATFORM_RENDERINGS } from '../domain/onboarding/identifiers/platform-rendering.ts';
import { patternOf, prepareAudience } from '../domain/onboarding/prepare-audience.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { AudienceKey, FileDropAudiences, UploadTarget } from '../domain/ports/file-drop-audiences.ts';
import {
  CHECK_AUDIENCE_JOB,
  type JobRef,
  jobMessage,
  ONBOARD_AUDIENCE_JOB,
} from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { OnboardingRun, OnboardingStore } from '../domain/ports/onboarding-store.ts';
import { isPlatformError, PlatformError } from '../domain/ports/platform-error.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import {
  customerFileSourceOf,
  SOCIAL_MAX_BATCH_ROWS,
  type SocialAudiences,
  type SocialSchemaKey,
  uploadSessionId,
} from '../domain/ports/social-audiences.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import { blobLines } from './blob-lines.ts';
import { exponentialBackoff, type JobModule, jobRefSchema } from './job-module.ts';

/** Readiness is polled (every 10 minutes by default) up to 288 times: two days, as platforms take hours to match. */
export const CHECK_MAX_ATTEMPTS = 288;

const payloadSchema = jobRefSchema;
type Payload = JobRef;

export interface OnboardAudienceDeps {
  jobs: JobStore;
  /** A revoked key's audience is not built (its URLs died with it). */
  keys: Pick<KeyService, 'activeKey'>;
  runs: OnboardingStore;
  blobs: BlobStore;
  voters: VoterStore;
  /** null when the service has no social platform configured. */
  social: SocialAudiences | null;
  politicaldsp: FileDropAudiences | null;
  maxRowBytes: number;
  /** Rows per social batch: the platform's most (SOCIAL_MAX_BATCH_ROWS) unless set lower. */
  socialBatchRows?: number;
  retryBaseMs: number;
  /** How often a social audience's readiness is polled. */
  checkIntervalMs: number;
  logger: () => FastifyBaseLogger;
}

/**
 * Builds an audience from an onboarding upload, step by step, each step recorded before the next
 * so that a crash or a retry goes on where it stopped:
 * 1. stage: read the upload, check it for its pattern, normalize and hash each usable row into a
 *    staged blob (prepareAudience); counts recorded;
 * 2. social: create the audience (or find the one a crashed attempt created), add the staged rows
 *    in batches of 10,000 within one upload session, share it with `social_adid`, then poll its
 *    readiness (check-audience);
 *    politicaldsp: write the platform's CSV, create the segment, upload, then wait for the
 *    platform's own e-mail (the operator marks it ready: `listmatch audiences mark-ready`).
 * `status_email` hears each step. A file the platform cannot take, or a platform refusal, fails
 * the job with the reason; a platform that is down is retried with backoff (a throttle waits what
 * the platform asks), then the job fails saying so. The attempt budget counts failures since the
 * last progress (see retryWithFreshBudget), so a long upload rides out any number of outages as
 * long as batches keep going in between them. A service-side condition (no voter file loaded) is
 * retried the same way and, if it lasts, fails as an `Internal Error`, not as the platform's.
 */
export function onboardAudienceJob(deps: OnboardAudienceDeps): JobModule<Payload> {
  return {
    type: ONBOARD_AUDIENCE_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(deps.retryBaseMs, 15 * 60_000),
    async handle({ jobId }, { signal }) {
      const job = await deps.jobs.getJob(jobId);
      if (
        job === null ||
        job.kind !== 'onboarding' ||
        (job.state !== 'uploaded' && job.state !== 'processing')
      )
        return;
      if ((await deps.keys.activeKey(job.keyId)) === null) {
        await failJob(deps, job.id, revokedBeforeAudience());
        return;
      }
      await deps.jobs.transition(job.id, ['uploaded', 'processing'], 'processing', {}, Date.now());
      // Where the job stood when this attempt began: a failure after progress gets a fresh budget.
      const started = await deps.runs.get(job.id);
      try {
        const run = started ?? (await stage(deps, job, signal));
        if (job.params.platform === 'social') await buildSocial(deps, job, run, signal);
        else await buildFileDrop(deps, job, run, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        if (
          (isAppError(error) && error.code === 'VALIDATION_FAILED') ||
          (isPlatformError(error) && error.kind === 'fatal')
        ) {
          await failJob(deps, job.id, error);
          return;
        }
        if (progressed(started, await deps.runs.get(job.id))) {
          await retryWithFreshBudget(deps, job, error);
          return;
        }
        throw error;
      }
    },
    async onGiveUp({ jobId }, error) {
      // Only the platform's own failures are worded as the platform's; anything else is ours.
      const failure = isPlatformError(error)
        ? new PlatformError(error.kind, `the platform could not be reached: ${error.message}`, {
            cause: error,
          })
        : givenUp(jobId, error, 'building the audience failed repeatedly');
      await failJob(deps, jobId, failure);
    },
  };
}

/**
 * Polls a social audience until the platform reports it usable (ready), or not (too small,
 * unusable, flagged). "Not yet" is a retry of this message every 10 minutes.
 */
export function checkAudienceJob(deps: OnboardAudienceDeps): JobModule<Payload> {
  return {
    type: CHECK_AUDIENCE_JOB,
    payload: payloadSchema,
    backoffMs: () => deps.checkIntervalMs,
    async handle({ jobId }, { signal }) {
      const job = await deps.jobs.getJob(jobId);
      const run = await deps.runs.get(jobId);
      if (job === null || job.kind !== 'onboarding' || job.state !== 'processing' || run === null) return;
      if (run.audienceId === null || deps.social === null) {
        await failJob(
          deps,
          jobId,
          new AppError('INTERNAL', 'the audience cannot be checked (no platform or no audience id)'),
        );
        return;
      }
      let status: Awaited<ReturnType<SocialAudiences['getStatus']>>;
      try {
        status = await deps.social.getStatus(run.audienceId, signal);
      } catch (error) {
        if (isPlatformError(error) && error.kind === 'fatal') {
          await failJob(deps, jobId, error);
          return;
        }
        throw error;
      }
      if (status.readiness === 'processing') throw new Error('the audience is still being processed');
      if (status.readiness === 'ready') {
        const facts: OnboardingNoticeFacts = {
          counts: run.counts,
          ...(status.approximateCount === null ? {} : { approximateSize: status.approximateCount }),
        };
        await deps.runs.update(jobId, { stage: 'ready', updatedAt: Date.now() });
        await deps.jobs.transition(jobId, ['processing'], 'complete', {}, Date.now(), [
          onboardingNoticeMessage(job, 'ready', facts),
        ]);
        return;
      }
      await failJob(
        deps,
        jobId,
        new PlatformError(
          'fatal',
          status.reason ?? `the platform will not deliver to this audience (${status.readiness})`,
        ),
      );
    },
    async onGiveUp({ jobId }) {
      await failJob(
        deps,
        jobId,
        new PlatformError(
          'fatal',
          'the platform did not report the audience ready within two days; it was uploaded and shared, so check it on the platform',
        ),
      );
    },
  };
}

/**
 * Step 1: the staged rows and their counts. Stops at the next batch of rows when `signal` aborts
 * (shutdown, lost lease): the partial staged blob is discarded and nothing is recorded, so the next
 * attempt stages from the start.
 */
async function stage(
  deps: OnboardAudienceDeps,
  job: OnboardingJob,
  signal: AbortSignal,
): Promise<OnboardingRun> {
  if (job.uploadBlob === null) throw new AppError('VALIDATION_FAILED', 'no file was uploaded');
  const pattern = patternOf(job);
  const voters = pattern === 1 ? await deps.voters.current() : null;
  if (pattern === 1 && voters === null) {
    // The operator's to fix, not the client's or the platform's: retried, then an Internal Error.
    throw new AppError(
      'UNAVAILABLE',
      'no voter file is loaded on this service yet; the operator must import one before voter ids can be onboarded',
    );
  }
  // A sharded voter file answers id lookups across the file once its shards are open.
  await voters?.loadShards?.();
  signal.throwIfAborted();
  const stagedBlob = `work/${job.id}/audience.tsv`;
  const writer = await deps.blobs.openWriter(stagedBlob);
  const lines = new LineBuffer(writer.stream);
  try {
    const prepared = await prepareAudience({
      job,
      source: await deps.blobs.read(job.uploadBlob),
      voters,
      rendering: PLATFORM_RENDERINGS.meta,
      maxRowBytes: deps.maxRowBytes,
      stage: (cells) => lines.write(`${cells.join('\t')}\n`),
      staged: () => lines.ready(),
      signal,
    });
    await lines.end();
    await writer.commit();
    const run: OnboardingRun = {
      jobId: job.id,
      stage: 'staged',
      pattern,
      schema: [...prepared.schema],
      stagedBlob,
      counts: prepared.counts,
      audienceId: null,
      nextBatchSeq: 1,
      rowsDone: 0,
      updatedAt: Date.now(),
    };
    await deps.runs.insert(run);
    return run;
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

async function buildSocial(
  deps: OnboardAudienceDeps,
  job: OnboardingJob,
  initial: OnboardingRun,
  signal: AbortSignal,
): Promise<void> {
  const social = deps.social;
  if (social === null) {
    throw new AppError(
      'VALIDATION_FAILED',
      'this service is not connected to the social platform; ask the operator',
    );
  }
  let run = initial;
  const account = run.pattern === 2 ? job.params.ownerAdid! : social.operatorAdAccountId;
  // The description names the job, so a resumed job finds the audience it created before a crash.
  const description = `listmatch ${job.id}`;
  if (run.audienceId === null) {
    const found = await social.findAudience(account, job.params.audience, description, signal);
    const audienceId =
      found?.audienceId ??
      (
        await social.createAudience(
          {
            adAccountId: account,
            name: job.params.audience,
            description,
            customerFileSource: customerFileSourceOf(run.pattern),
          },
          signal,
        )
      ).audienceId;
    run = await update(deps, run, { stage: 'created', audienceId });
  }
  const audienceId = run.audienceId!;
  if (run.stage === 'created') {
    const schema = run.schema as SocialSchemaKey[];
    const sessionId = uploadSessionId(job.id, audienceId);
    const total = run.counts.usable;
    const batchRows = Math.min(deps.socialBatchRows ?? SOCIAL_MAX_BATCH_ROWS, SOCIAL_MAX_BATCH_ROWS);
    let batch: string[][] = [];
    let index = 0;
    for await (const line of blobLines(deps.blobs, run.stagedBlob)) {
      // Rows the platform already confirmed (before a crash or retry) are skipped.
      if (index++ < run.rowsDone) continue;
      batch.push(line.split('\t'));
      if (batch.length === batchRows) {
        run = await sendBatch(
          deps,
          social,
          run,
          audienceId,
          schema,
          batch,
          sessionId,
          total,
          index === total,
          signal,
        );
        batch = [];
      }
    }
    if (batch.length > 0)
      run = await sendBatch(deps, social, run, audienceId, schema, batch, sessionId, total, true, signal);
    run = await update(deps, run, { stage: 'uploaded' }, [
      onboardingNoticeMessage(job, 'uploaded', { counts: run.counts }),
    ]);
  }
  if (run.stage === 'uploaded') {
    const shareWith = job.params.socialAdid;
    if (shareWith !== null && shareWith.replace(/^act_/, '') !== account.replace(/^act_/, '')) {
      await social.shareWith(audienceId, shareWith, signal);
    }
    run = await update(deps, run, { stage: 'shared' }, [
      onboardingNoticeMessage(job, 'shared', { counts: run.counts }),
      // Grouped by key, like the onboarding itself: at most AUDIENCE_CONCURRENCY_PER_KEY at once.
      jobMessage(
        CHECK_AUDIENCE_JOB,
        { v: 1, jobId: job.id },
        { maxAttempts: CHECK_MAX_ATTEMPTS, group: job.keyId },
      ),
    ]);
  }
}

async function sendBatch(
  deps: OnboardAudienceDeps,
  social: SocialAudiences,
  run: OnboardingRun,
  audienceId: string,
  schema: SocialSchemaKey[],
  rows: string[][],
  sessionId: number,
  total: number,
  lastBatch: boolean,
  signal: AbortSignal,
): Promise<OnboardingRun> {
  const result = await social.addUsers(
    audienceId,
    { schema, rows },
    { sessionId, batchSeq: run.nextBatchSeq, lastBatch, estimatedTotal: total },
    signal,
  );
  return update(deps, run, {
    nextBatchSeq: result.nextBatchSeq,
    rowsDone: run.rowsDone + rows.length,
    counts: { ...run.counts, sent: run.counts.sent + result.received },
  });
}

async function buildFileDrop(
  deps: OnboardAudienceDeps,
  job: OnboardingJob,
  initial: OnboardingRun,
  signal: AbortSignal,
): Promise<void> {
  const platform = deps.politicaldsp;
  if (platform === null) {
    throw new AppError(
      'VALIDATION_FAILED',
      'this service is not connected to the political DSP; ask the operator',
    );
  }
  let run = initial;
  if (run.stage === 'awaiting_external' || run.stage === 'ready') {
    // Uploaded before a crash that came between recording it and completing the job.
    await completeAwaiting(deps, job, run.counts);
    return;
  }
  if (run.stage !== 'uploaded') run = await uploadFileDrop(deps, platform, job, run, signal);
  const status = await platform.status(run.audienceId!, { signal });
  if (status.state === 'failed') throw new PlatformError('fatal', status.reason);
  await update(deps, run, { stage: 'awaiting_external' });
  await completeAwaiting(deps, job, run.counts);
}

/**
 * Writes the platform's CSV, finds or creates the audience, uploads the file unless the platform
 * already holds it, and records the upload (stage `uploaded`) before anything else happens. An
 * earlier attempt may have created the audience or stored the file and lost the answer: the
 * platform's list, searched by the audience's name and description (`listmatch <job id>`), says
 * so, and neither is done twice.
 */
async function uploadFileDrop(
  deps: OnboardAudienceDeps,
  platform: FileDropAudiences,
  job: OnboardingJob,
  initial: OnboardingRun,
  signal: AbortSignal,
): Promise<OnboardingRun> {
  let run = initial;
  // The platform's CSV: the staged keys it takes, in its own column names, rewritten on each attempt.
  const keys = run.schema.filter(
    (key): key is AudienceKey => platform.profile.columns[key as AudienceKey] !== undefined,
  );
  const csvBlob = `work/${job.id}/audience-${platform.profile.platform}.csv`;
  const writer = await deps.blobs.openWriter(csvBlob);
  const counts = { rows: 0, blank: 0 };
  try {
    const positions = keys.map((key) => run.schema.indexOf(key));
    const rows = async function* (): AsyncGenerator<AudienceRow> {
      for await (const line of blobLines(deps.blobs, run.stagedBlob)) {
        const cells = line.split('\t');
        yield Object.fromEntries(keys.map((key, i) => [key, cells[positions[i]!] ?? '']));
      }
    };
    await new Promise<void>((resolve, reject) => {
      Readable.from(audienceCsv(platform.profile, keys, rows(), counts))
        .on('error', reject)
        .pipe(writer.stream)
        .on('finish', () => resolve())
        .on('error', reject);
    });
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  const request = {
    name: job.params.audience.slice(0, platform.profile.maxNameLength),
    description: `listmatch ${job.id}`,
  };
  const found = await platform.findAudience(request, { signal });
  let target: UploadTarget | undefined;
  if (run.audienceId === null) {
    let audienceId = found?.audienceId;
    if (audienceId === undefined) {
      const created = await platform.createAudience(request, { signal });
      audienceId = created.audienceId;
      target = created.upload;
    }
    run = await update(deps, run, { stage: 'created', audienceId });
  }
  let sent = counts.rows;
  if (found === null || found.audienceId !== run.audienceId || !found.hasFile) {
    const stat = await deps.blobs.stat(csvBlob);
    const receipt = await platform.upload(
      run.audienceId!,
      { keys, rows: counts.rows, bytes: stat?.bytes ?? 0, open: async () => await deps.blobs.read(csvBlob) },
      target,
      { signal },
    );
    sent = receipt.rowsReceived ?? counts.rows;
  }
  return await update(deps, run, { stage: 'uploaded', counts: { ...run.counts, sent } });
}

/**
 * The platform e-mails the client itself; for us the job is done (the operator may mark it
 * ready). The notices commit with the completion, so a retry after a crash sends them once.
 */
async function completeAwaiting(
  deps: OnboardAudienceDeps,
  job: OnboardingJob,
  counts: OnboardingRun['counts'],
): Promise<void> {
  await deps.jobs.transition(job.id, ['processing'], 'complete', {}, Date.now(), [
    onboardingNoticeMessage(job, 'uploaded', { counts }),
    onboardingNoticeMessage(job, 'awaiting', { counts }),
  ]);
}

/** Whether an attempt moved the audience on: staged it, created it, had batches confirmed, uploaded or shared it. */
function progressed(before: OnboardingRun | null, after: OnboardingRun | null): boolean {
  if (after === null) return false;
  if (before === null) return true;
  return (
    after.stage !== before.stage ||
    after.rowsDone !== before.rowsDone ||
    after.audienceId !== before.audienceId
  );
}

/**
 * The queue gives a message ONBOARD_MAX_ATTEMPTS attempts; the budget is meant for consecutive
 * failures without progress. An attempt that made progress and then failed transiently ends its
 * message and enqueues a fresh one for the job (committed with a touch of the run), due after a
 * first retry's backoff or the wait the platform asked for, so only failures since the last
 * progress count. The error goes to the log here, as the queue will not record it.
 */
async function retryWithFreshBudget(
  deps: OnboardAudienceDeps,
  job: OnboardingJob,
  error: unknown,
): Promise<void> {
  const asked = isPlatformError(error) ? (error.waitMs ?? 0) : 0;
  const runAt = Date.now() + Math.max(deps.retryBaseMs, asked);
  const log = deps.logger();
  log.warn({ err: error, jobId: job.id }, 'onboarding failed after progress; retrying on a fresh budget');
  await deps.runs.update(job.id, { updatedAt: Date.now() }, [
    jobMessage(
      ONBOARD_AUDIENCE_JOB,
      { v: 1, jobId: job.id },
      { maxAttempts: ONBOARD_MAX_ATTEMPTS, group: job.keyId, runAt },
    ),
  ]);
}

async function update(
  deps: OnboardAudienceDeps,
  run: OnboardingRun,
  fields: Partial<Omit<OnboardingRun, 'jobId'>>,
  followUps: readonly QueueMessage[] = [],
): Promise<OnboardingRun> {
  const next = { ...run, ...fields, updatedAt: Date.now() };
  await deps.runs.update(run.jobId, { ...fields, updatedAt: next.updatedAt }, followUps);
  return next;
}

/** Fails the job with `failure`: its public text (publicMessage) is the job's `error`. */
async function failJob(
  deps: OnboardAudienceDeps,
  jobId: string,
  failure: AppError | PlatformError,
): Promise<void> {
  const error = publicMessage(failure);
  const job = await deps.jobs.getJob(jobId);
  if (job === null || job.kind !== 'onboarding') return;
  const counts = (await deps.runs.get(jobId))?.counts;
  const failed = { ...job, error };
  await deps.jobs.transition(jobId, ['uploaded', 'processing'], 'failed', { error }, Date.now(), [
    onboardingNoticeMessage(failed, 'failed', counts === undefined ? {} : { counts }),
  ]);
}
