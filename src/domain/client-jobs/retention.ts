import { publicMessage } from '../errors.ts';
import { type BlobStore, listPages } from '../ports/blob-store.ts';
import type { FileDrop } from '../ports/file-drop.ts';
import type { JobStore } from '../ports/job-store.ts';
import { retentionExpired, revokedFilesDeleted } from './job-failures.ts';
import type { Job } from './job-types.ts';
import { mediaBuyingFileKey, mediaBuyingIdsKey } from './result-files.ts';
import { resultLayout } from './result-layout.ts';

const DAY_MS = 24 * 3600_000;
/** Jobs handled per query, so one pass never holds a long list or blocks for long. */
const BATCH = 100;
const FOLDER_SWEEP_INTERVAL_MS = 3600_000;

/**
 * Deletes a finished job's files (the uploaded list, the result, the delivery archive) once it
 * is older than the retention period, and marks the job `expired` with a reason poll reports.
 * The job record stays (without personal data: the summary holds counts only). Files are
 * deleted before the job is marked, so a crash in between only repeats the deletion next time.
 */
export class Retention {
  private readonly jobs: JobStore;
  private readonly blobs: BlobStore;
  private readonly folders: { drop: FileDrop; keyIds: () => Promise<string[]> } | null;
  readonly days: number;
  private lastFolderSweep = Number.NEGATIVE_INFINITY;

  constructor(deps: {
    jobs: JobStore;
    blobs: BlobStore;
    days: number;
    /** The clients' smartmatch folders, swept by file age (files there outlive their jobs' records). */
    folders?: { drop: FileDrop; keyIds: () => Promise<string[]> };
  }) {
    this.jobs = deps.jobs;
    this.blobs = deps.blobs;
    this.days = deps.days;
    this.folders = deps.folders ?? null;
  }

  /**
   * Deletes every file of a job: the known ones, then whatever is left under its work prefix
   * (staged audiences, sorted id runs, shard chunks of any kind of job, a crashed attempt's leftovers).
   */
  private async deleteFilesOf(job: Job): Promise<void> {
    for (const key of filesOf(job)) await this.blobs.delete(key);
    for await (const page of listPages(this.blobs, `work/${job.id}/`)) {
      for (const blob of page) await this.blobs.delete(blob.key);
    }
  }

  /**
   * Deletes files older than the retention period from every key's folder. At most once an
   * hour: on SFTP a sweep lists every key's folder, and a day's precision is all retention needs.
   * Returns how many files were deleted.
   */
  async sweepFolders(now = Date.now()): Promise<number> {
    if (this.folders === null || now - this.lastFolderSweep < FOLDER_SWEEP_INTERVAL_MS) return 0;
    this.lastFolderSweep = now;
    const { drop, keyIds } = this.folders;
    const before = now - this.days * DAY_MS;
    let removed = 0;
    await drop.forEachFolder(await keyIds(), async (keyId, files) => {
      for (const file of files) {
        if (file.modifiedAt >= before) continue;
        await drop.remove(keyId, file.name);
        removed++;
      }
    });
    return removed;
  }

  /**
   * Deletes the files of every finished job of a revoked key at once, as retention would, and
   * marks the jobs expired with the reason. Object storage serves its presigned URLs without
   * asking the service, so deleting the objects is what makes a handed-out URL die with the key.
   * Returns how many jobs were withdrawn.
   */
  async withdrawKey(keyId: string, now = Date.now()): Promise<number> {
    const error = publicMessage(revokedFilesDeleted());
    let withdrawn = 0;
    for (const state of ['complete', 'failed'] as const) {
      for (;;) {
        const jobs = await this.jobs.listJobs({ keyId, state, limit: BATCH });
        let batch = 0;
        for (const job of jobs) {
          await this.deleteFilesOf(job);
          const done = await this.jobs.transition(
            job.id,
            [state],
            'expired',
            { error, resultBlob: null, resultName: null },
            now,
          );
          if (done) batch++;
        }
        withdrawn += batch;
        // A job that moved on meanwhile is listed again next time: stop rather than loop on it.
        if (jobs.length < BATCH || batch === 0) break;
      }
    }
    return withdrawn;
  }

  /** One pass: every job due at `now`. Returns how many were expired. */
  async run(now = Date.now()): Promise<number> {
    const before = now - this.days * DAY_MS;
    let expired = 0;
    for (;;) {
      const due = await this.jobs.listFinishedBefore(before, BATCH);
      if (due.length === 0) return expired;
      for (const job of due) {
        await this.deleteFilesOf(job);
        const done = await this.jobs.transition(
          job.id,
          ['complete', 'failed'],
          'expired',
          {
            // A failed job keeps its reason after the retention notice.
            error: publicMessage(retentionExpired(this.days, job.state === 'failed' ? job.error : null)),
            resultBlob: null,
            resultName: null,
          },
          now,
        );
        if (done) expired++;
      }
      if (due.length < BATCH) return expired;
    }
  }
}

/**
 * Every blob a job may have written: its upload, and for list matching each file of its result
 * layout, work files included (a job given up after a crash can leave them behind).
 */
function filesOf(job: Job): string[] {
  const keys = new Set<string>();
  if (job.uploadBlob !== null) keys.add(job.uploadBlob);
  if (job.resultBlob !== null) keys.add(job.resultBlob);
  if (job.kind === 'smartmatch') {
    const layout = resultLayout({
      id: job.id,
      filename: job.filename,
      format: job.params.format,
      maxMatches: job.params.maxMatches,
    });
    for (const key of [
      mediaBuyingIdsKey(job.id),
      mediaBuyingFileKey(job.id),
      layout.archive.key,
      layout.poll.key,
      layout.everyRankCsv,
      layout.gzip?.key,
      ...layout.temporary,
      ...layout.archiveCsvs.map((csv) => csv.blob),
    ])
      if (key !== null && key !== undefined) keys.add(key);
  }
  return [...keys];
}
