import type { Readable } from 'node:stream';
import { AppError, isAppError, publicMessage } from '../errors.ts';
import { newId } from '../ids.ts';
import type { KeyService } from '../keys/key-service.ts';
import type { ApiKeyRecord } from '../keys/key-types.ts';
import { jobNoticeMessage } from '../notices/job-notices.ts';
import { onboardingNoticeMessage } from '../notices/onboarding-notices.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import { jobMessage, MATCH_LIST_JOB, ONBOARD_AUDIENCE_JOB } from '../ports/job-catalog.ts';
import type { JobStore } from '../ports/job-store.ts';
import type { QueueMessage } from '../ports/queue.ts';
import type { UrlSigner } from '../ports/url-signer.ts';
import { refuseWebhookTarget } from '../webhooks/public-address.ts';
import {
  failedWithoutReason,
  filenameBeingMatched,
  replacedByLaterRegistration,
  replacedUploadUrl,
  revokedUploadUnread,
  uploadExpired,
  uploadTooLarge,
} from './job-failures.ts';
import type { Job, JobSummary, OnboardingParams, SmartmatchJob, SmartmatchParams } from './job-types.ts';

/** With a 30 s base doubling to 15 min: platform outages of about an hour and a half are ridden out. */
export const ONBOARD_MAX_ATTEMPTS = 12;
export const UPLOAD_NAME = 'upload.csv';
/** Where clients PUT uploads in S3 mode: `incoming/<jobId>/upload.csv` (see UploadArrivals). */
export const INCOMING_PREFIX = 'incoming/';
export const incomingUploadKey = (jobId: string): string => `${INCOMING_PREFIX}${jobId}/${UPLOAD_NAME}`;

export interface JobServiceSettings {
  /** Hosts a webhook may target even when private (WEBHOOK_ALLOW_HOSTS). */
  webhookAllowHosts?: readonly string[];
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
  maxUploadBytes: number;
  /** Uploads one key may stream at once to this process (MAX_CONCURRENT_UPLOADS_PER_KEY). */
  maxConcurrentUploadsPerKey: number;
  /** The ad platforms the operator has connected; a job for another is refused at registration. */
  platforms: Readonly<Record<AdPlatform, boolean>>;
}

/** The platforms an audience can be built on: the two of onboarding and the media buying platform. */
export type AdPlatform = OnboardingParams['platform'] | 'mbp';

const PLATFORM_NAMES: Record<AdPlatform, string> = {
  social: 'the social platform',
  politicaldsp: 'the political DSP',
  mbp: 'the media buying platform',
};

export interface JobEvents {
  /** Called on every state change, for metrics. */
  onTransition?(kind: Job['kind'], state: Job['state']): void;
}

export interface PollAnswer {
  url: string;
  error: string | null;
  status: Job['state'];
  /** How far the job has got (clients that do not know the field ignore it). */
  progress: PollProgress;
  /**
   * A complete job's reader warnings (the csv and gzip results carry no summary.json): rows the
   * reader could not return (`rows_skipped`, each named by its line in `first`), and the rest by
   * kind. Counts and line numbers only, never cell values.
   */
  warnings?: PollWarnings;
}

export interface PollWarnings {
  total: number;
  rows_skipped: number;
  by_kind: Record<string, number>;
  first: string[];
}

/**
 * Poll's progress: rows through matching and upload bytes read by the matching pass so far, the
 * upload's size once uploaded, the list's row count once complete (null until known).
 */
export interface PollProgress {
  rows_matched: number;
  rows_total: number | null;
  bytes_read: number;
  bytes_total: number | null;
}

/** Poll's progress of a job, from its state and the worker's last record. */
function pollProgress(job: Job): PollProgress {
  const bytesTotal = job.uploadBytes;
  if (job.state === 'complete') {
    const rows = job.summary?.rows ?? null;
    return {
      rows_matched: rows ?? 0,
      rows_total: rows,
      bytes_read: bytesTotal ?? 0,
      bytes_total: bytesTotal,
    };
  }
  const recorded = job.progress ?? null;
  const chunks = recorded?.chunks;
  if (chunks !== undefined) {
    // Split over a sharded file: the chunks' shard-rows matched, as a share of the list's rows.
    const share = chunks.shardRows === 0 ? 0 : Math.min(1, chunks.shardRowsMatched / chunks.shardRows);
    return {
      rows_matched: Math.floor(share * chunks.listRows),
      rows_total: chunks.listRows,
      bytes_read: recorded!.bytesRead,
      bytes_total: bytesTotal,
    };
  }
  return {
    rows_matched: recorded?.rowsMatched ?? 0,
    rows_total: null,
    bytes_read: recorded?.bytesRead ?? 0,
    bytes_total: bytesTotal,
  };
}

/** The poll's view of a summary's warnings. */
function pollWarnings(summary: JobSummary | null): PollWarnings {
  const warnings = summary?.warnings ?? { total: 0, byKind: {}, first: [] };
  return {
    total: warnings.total,
    rows_skipped: warnings.byKind.row_too_long ?? 0,
    by_kind: warnings.byKind,
    first: warnings.first,
  };
}

/**
 * Registration, upload, poll and download of jobs: the list-matching contract apart from HTTP.
 * Processing itself is the worker's (src/jobs/match-list.job.ts).
 */
export class JobService {
  private readonly jobs: JobStore;
  private readonly blobs: BlobStore;
  private readonly signer: UrlSigner;
  private readonly keys: KeyService;
  private readonly settings: JobServiceSettings;
  private readonly events: JobEvents;
  /** Uploads being received by this process, per key id. */
  private readonly uploadsInFlight = new Map<string, number>();

  constructor(deps: {
    jobs: JobStore;
    blobs: BlobStore;
    signer: UrlSigner;
    keys: KeyService;
    settings: JobServiceSettings;
    events?: JobEvents;
  }) {
    this.jobs = deps.jobs;
    this.blobs = deps.blobs;
    this.signer = deps.signer;
    this.keys = deps.keys;
    this.settings = deps.settings;
    this.events = deps.events ?? {};
  }

  /**
   * Registers a list-matching job and returns its upload URL. The filename rule, per key: a job of
   * that filename still awaiting its upload is replaced (its URL stops working); while one is being
   * matched the registration is refused (Validation Error naming the wait); a finished one stays
   * as it is (its result downloadable by its URL until retention) and a new job starts. Poll
   * follows the newest.
   */
  async registerSmartmatch(
    key: ApiKeyRecord,
    input: { filename: string; params: Omit<SmartmatchParams, 'profileId'> & { profileId?: string } },
    now = Date.now(),
  ): Promise<{ jobId: string; url: string }> {
    if (!key.entitlements.listMatching)
      throw new AppError('FORBIDDEN', 'this API key is not enabled for list matching');
    const profile = await this.keys.resolveProfile(key.id, input.params.profileId);
    const refused = input.params.include.filter((field) => !profile.contactFields.includes(field));
    if (refused.length > 0) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${refused.map((f) => `include_${f}`).join(', ')} ${refused.length > 1 ? 'are' : 'is'} not enabled for profile "${profile.profileId}" of this API key; ask client services to enable it`,
      );
    }
    const cap = profile.maxMatchesCap;
    if (cap !== null && input.params.maxMatches > cap) {
      throw new AppError(
        'VALIDATION_FAILED',
        `max_matches ${input.params.maxMatches} is above the limit of ${cap} of profile "${profile.profileId}" of this API key`,
      );
    }
    if (input.params.mbpOnboarding) this.assertPlatformConnected('mbp', 'mbp_onboarding');
    if (input.params.webhook !== null) {
      const refused = refuseWebhookTarget(input.params.webhook, this.settings.webhookAllowHosts ?? []);
      if (refused !== null) throw new AppError('VALIDATION_FAILED', refused);
      if (
        profile.webhookHosts.length > 0 &&
        !profile.webhookHosts.includes(webhookHost(input.params.webhook))
      ) {
        throw new AppError(
          'VALIDATION_FAILED',
          `the webhook host is not among the hosts allowed for profile "${profile.profileId}" of this API key`,
        );
      }
    }
    const job: SmartmatchJob = {
      ...this.newJobBase(key, now),
      kind: 'smartmatch',
      filename: input.filename,
      params: { ...input.params, profileId: profile.profileId },
    };
    await this.insertUnderFilename(job);
    this.events.onTransition?.(job.kind, job.state);
    return { jobId: job.id, url: await this.uploadUrl(job) };
  }

  /** Inserts the job under the filename rule (JobStore.insertUnderFilename). */
  private async insertUnderFilename(job: SmartmatchJob): Promise<void> {
    const replaced = publicMessage(replacedByLaterRegistration());
    // Refused: a job of the filename is being matched, or was a moment ago (an upload that raced
    // this registration); a second look tells which.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.jobs.insertUnderFilename(job, replaced)) return;
      const latest = await this.jobs.findLatestByFilename(job.keyId, job.filename);
      if (latest !== null && (latest.state === 'uploaded' || latest.state === 'processing')) {
        throw filenameBeingMatched(job.filename);
      }
    }
    throw new AppError('INTERNAL', 'the job could not be registered; retry');
  }

  async registerOnboarding(
    key: ApiKeyRecord,
    params: OnboardingParams,
    now = Date.now(),
  ): Promise<{ jobId: string; url: string }> {
    if (!key.entitlements.onboarding)
      throw new AppError('FORBIDDEN', 'this API key is not enabled for audience onboarding');
    if (params.ownerAdid !== null && !key.entitlements.directUpload) {
      throw new AppError(
        'FORBIDDEN',
        'owner_adid requires approval for direct upload; ask client services, or leave owner_adid out',
      );
    }
    this.assertPlatformConnected(params.platform, `platform=${params.platform}`);
    const job: Job = { ...this.newJobBase(key, now), kind: 'onboarding', filename: null, params };
    await this.jobs.insertJob(job);
    this.events.onTransition?.(job.kind, job.state);
    return { jobId: job.id, url: await this.uploadUrl(job) };
  }

  /**
   * Streams an upload into storage and starts processing. The URL was verified by the caller.
   * A broken upload leaves nothing behind and the URL stays usable; a finished one spends it.
   */
  async receiveUpload(
    jobId: string,
    body: AsyncIterable<Uint8Array>,
    declaredBytes: number | null,
    now: () => number = Date.now,
    /** The cap bound into the upload URL; the current setting applies when it is lower or absent. */
    maxBytesOfUrl?: number,
  ): Promise<{ bytes: number }> {
    const job = await this.jobs.getJob(jobId);
    if (job === null) throw new AppError('NOT_FOUND', 'this upload URL belongs to no job');
    await this.assertKeyActive(job);
    this.assertAwaitingUpload(job, now());
    const maxBytes = Math.min(maxBytesOfUrl ?? this.settings.maxUploadBytes, this.settings.maxUploadBytes);
    if (declaredBytes !== null && declaredBytes > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `the upload exceeds the maximum of ${maxBytes} bytes`);
    }
    // Each upload holds a connection and a temporary file until it ends: a key gets a few at once.
    const running = this.uploadsInFlight.get(job.keyId) ?? 0;
    if (running >= this.settings.maxConcurrentUploadsPerKey) {
      throw new AppError(
        'RATE_LIMITED',
        `${running} uploads of this API key are already in progress; retry when one has finished`,
        { retryAfterSeconds: 10 },
      );
    }
    this.uploadsInFlight.set(job.keyId, running + 1);
    try {
      return await this.storeUpload(job, body, maxBytes, now);
    } finally {
      const left = (this.uploadsInFlight.get(job.keyId) ?? 1) - 1;
      if (left === 0) this.uploadsInFlight.delete(job.keyId);
      else this.uploadsInFlight.set(job.keyId, left);
    }
  }

  /**
   * A URL dies with the key that obtained it, as an S3 URL dies with the credential that signed
   * it: nothing of a revoked key's jobs is uploaded, matched, downloaded or delivered.
   */
  async assertKeyActive(job: Pick<Job, 'keyId'>): Promise<void> {
    if ((await this.keys.activeKey(job.keyId)) === null) {
      throw new AppError('FORBIDDEN', 'the API key of this job was revoked; this URL no longer works');
    }
  }

  /**
   * Takes an upload that object storage received at `incomingKey` (S3 mode: the client PUT it
   * there with a presigned URL): copies it to a key of the job's own, so a second PUT to the same
   * URL cannot change the file being processed, starts processing and deletes the incoming object.
   * An upload the job no longer waits for (a second PUT, an expired URL, an unknown job) is deleted
   * unread; one over the size cap fails the job with a Validation Error.
   */
  async acceptStoredUpload(
    upload: { jobId: string; key: string; bytes: number; arrivedAt: number },
    now: () => number = Date.now,
  ): Promise<'accepted' | 'ignored' | 'too_large'> {
    const outcome = await this.takeStoredUpload(upload, now);
    // Only a settled outcome deletes the object: after a storage or database error it stays for the next pass.
    await this.blobs.delete(upload.key);
    return outcome;
  }

  private async takeStoredUpload(
    upload: { jobId: string; key: string; bytes: number; arrivedAt: number },
    now: () => number,
  ): Promise<'accepted' | 'ignored' | 'too_large'> {
    const job = await this.jobs.getJob(upload.jobId);
    if (job === null || job.state !== 'registered' || upload.arrivedAt > job.uploadExpiresAt)
      return 'ignored';
    if ((await this.keys.activeKey(job.keyId)) === null) {
      // The bucket took the PUT (its URL is signed by the service's credential): drop it unread.
      await this.failAwaitingUpload(job, revokedUploadUnread(), now());
      return 'ignored';
    }
    const maxBytes = this.settings.maxUploadBytes;
    if (upload.bytes > maxBytes) {
      await this.failAwaitingUpload(job, uploadTooLarge(maxBytes), now());
      return 'too_large';
    }
    try {
      // The arrival time decides whether the upload was in time, not when this pass saw it.
      await this.storeUpload(job, await this.blobs.read(upload.key), maxBytes, () => upload.arrivedAt);
    } catch (error) {
      // Another process took the same arrival first, or the job moved on meanwhile.
      if (isAppError(error) && (error.code === 'CONFLICT' || error.code === 'URL_INVALID')) return 'ignored';
      throw error;
    }
    return 'accepted';
  }

  /** Stores an upload under a key of the job's own and moves the job to `uploaded` with its follow-ups. */
  private async storeUpload(
    job: Job,
    body: AsyncIterable<Uint8Array>,
    maxBytes: number,
    now: () => number,
  ): Promise<{ bytes: number }> {
    const blob = `uploads/${job.id}/${newId('upl')}.csv`;
    const { bytes } = await this.blobs.put(blob, body, { maxBytes });
    // Revoked while the upload streamed in: refused as an upload of a revoked key is, nothing kept.
    await this.assertKeyActive(job).catch(async (error: unknown) => {
      await this.blobs.delete(blob);
      throw error;
    });
    const followUps: QueueMessage[] = [];
    if (job.kind === 'smartmatch') {
      followUps.push(jobMessage(MATCH_LIST_JOB, { v: 1, jobId: job.id }, { group: job.keyId }));
      const received = jobNoticeMessage(job, 'received');
      if (received !== null) followUps.push(received);
    } else {
      followUps.push(
        jobMessage(
          ONBOARD_AUDIENCE_JOB,
          { v: 1, jobId: job.id },
          { maxAttempts: ONBOARD_MAX_ATTEMPTS, group: job.keyId },
        ),
      );
      followUps.push(onboardingNoticeMessage(job, 'received'));
    }
    if (!(await this.jobs.markUploaded(job.id, { blob, bytes, at: now() }, followUps))) {
      // Another upload to the same URL won the race, or the URL expired meanwhile.
      await this.blobs.delete(blob);
      this.assertAwaitingUpload((await this.jobs.getJob(job.id)) ?? job, now());
      throw new AppError('CONFLICT', 'the file for this job was already uploaded');
    }
    this.events.onTransition?.(job.kind, 'uploaded');
    return { bytes };
  }

  /** What poll answers for the newest job of this key and filename. */
  async poll(key: ApiKeyRecord, filename: string, now = Date.now()): Promise<PollAnswer> {
    const job = await this.jobs.findLatestByFilename(key.id, filename);
    if (job === null || job.kind !== 'smartmatch') {
      throw new AppError(
        'NOT_FOUND',
        `no list-matching job named "${filename}" was registered with this API key`,
      );
    }
    switch (job.state) {
      case 'complete':
        return {
          url: await this.downloadUrl(job, now),
          error: null,
          status: job.state,
          progress: pollProgress(job),
          warnings: pollWarnings(job.summary),
        };
      case 'failed':
      case 'expired':
        return {
          url: '',
          error: job.error ?? publicMessage(failedWithoutReason()),
          status: job.state,
          progress: pollProgress(job),
        };
      case 'registered':
        if (job.uploadExpiresAt < now) {
          return {
            url: '',
            error: publicMessage(uploadExpired()),
            status: 'expired',
            progress: pollProgress(job),
          };
        }
        return { url: '', error: null, status: job.state, progress: pollProgress(job) };
      default:
        return { url: '', error: null, status: job.state, progress: pollProgress(job) };
    }
  }

  /** Opens a finished result for download through its presigned URL. */
  async openResult(jobId: string, name: string): Promise<{ stream: Readable; bytes: number; name: string }> {
    const job = await this.jobs.getJob(jobId);
    if (job !== null) await this.assertKeyActive(job);
    if (job === null || job.state !== 'complete' || job.resultBlob === null || job.resultName !== name) {
      throw new AppError('NOT_FOUND', 'no result is available at this URL');
    }
    const stat = await this.blobs.stat(job.resultBlob);
    if (stat === null) throw new AppError('NOT_FOUND', 'the result file is no longer available');
    return { stream: await this.blobs.read(job.resultBlob), bytes: stat.bytes, name };
  }

  /** A download URL. Its expiry is rounded to half the TTL so repeated polls get the same URL. */
  async downloadUrl(job: Job, now = Date.now()): Promise<string> {
    if (job.resultName === null || job.resultBlob === null)
      throw new AppError('INTERNAL', 'job has no result');
    const half = Math.max(1, Math.floor(this.settings.downloadUrlTtlSeconds / 2));
    const expiresAt = Math.floor(now / 1000 / half) * half + this.settings.downloadUrlTtlSeconds;
    return await this.signer.sign({
      op: 'get',
      jobId: job.id,
      name: job.resultName,
      expiresAt,
      blob: job.resultBlob,
    });
  }

  /** Marks registered jobs whose upload window closed as expired. */
  async expireUnuploaded(now = Date.now()): Promise<number> {
    return await this.jobs.expireUnuploaded(now);
  }

  private async uploadUrl(job: Job): Promise<string> {
    return await this.signer.sign({
      op: 'put',
      jobId: job.id,
      name: UPLOAD_NAME,
      expiresAt: Math.floor(job.uploadExpiresAt / 1000),
      maxBytes: this.settings.maxUploadBytes,
    });
  }

  /** Fails a job still waiting for its upload, with the reason (no-op when it moved on meanwhile). */
  private async failAwaitingUpload(job: Job, failure: AppError, now: number): Promise<void> {
    if (
      await this.jobs.transition(job.id, ['registered'], 'failed', { error: publicMessage(failure) }, now)
    ) {
      this.events.onTransition?.(job.kind, 'failed');
    }
  }

  private assertPlatformConnected(platform: AdPlatform, asked: string): void {
    if (this.settings.platforms[platform]) return;
    throw new AppError(
      'FORBIDDEN',
      `${PLATFORM_NAMES[platform]} is not available on this service (${asked}): the operator has not connected it; ask client services`,
    );
  }

  private assertAwaitingUpload(job: Job, now: number): void {
    if (job.state === 'registered' && job.uploadExpiresAt >= now) return;
    if (job.state === 'expired' && job.error === publicMessage(replacedByLaterRegistration())) {
      throw replacedUploadUrl();
    }
    if (job.state === 'registered' || job.state === 'expired') {
      throw new AppError('URL_INVALID', 'this URL has expired; register the job again for a new one');
    }
    throw new AppError(
      'CONFLICT',
      'the file for this job was already uploaded; register again to send another file',
    );
  }

  private newJobBase(key: ApiKeyRecord, now: number) {
    return {
      id: newId('job', now),
      keyId: key.id,
      state: 'registered' as const,
      uploadExpiresAt: now + this.settings.uploadUrlTtlSeconds * 1000,
      uploadBlob: null,
      uploadBytes: null,
      resultBlob: null,
      resultName: null,
      error: null,
      summary: null,
      voterVersion: null,
      createdAt: now,
      updatedAt: now,
    };
  }
}

/** A webhook URL's `host` or `host:port` as profiles list them (lower case, default port omitted). */
export function webhookHost(url: string): string {
  return new URL(url).host.toLowerCase();
}
