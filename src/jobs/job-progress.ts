import type { JobStore } from '../domain/ports/job-store.ts';

/** Least time between two progress records of one job: poll shows progress within about this long. */
export const PROGRESS_INTERVAL_MS = 1_000;

/**
 * Records a list job's progress in the job store (so that any api process answers it at poll)
 * at most once per interval, not per block: the rows through matching (the pipeline's running
 * total) and the upload bytes its reader has taken. A change that arrives within the interval is
 * written when the interval ends (a timer that never holds the process open). Writes are never
 * awaited by the pipeline and one is in flight at a time; a failed write is dropped (the next
 * one tells the same).
 */
export class ProgressRecorder {
  private readonly jobs: Pick<JobStore, 'recordProgress'>;
  private readonly jobId: string;
  private readonly bytesTotal: number;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private rowsMatched = 0;
  private bytesRead = 0;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private writing = false;
  private dirty = false;
  private trailing: NodeJS.Timeout | null = null;

  constructor(
    jobs: Pick<JobStore, 'recordProgress'>,
    job: { id: string; uploadBytes: number | null },
    options: { intervalMs?: number; now?: () => number } = {},
  ) {
    this.jobs = jobs;
    this.jobId = job.id;
    this.bytesTotal = job.uploadBytes ?? 0;
    this.intervalMs = options.intervalMs ?? PROGRESS_INTERVAL_MS;
    this.now = options.now ?? Date.now;
  }

  /**
   * The upload as the pipeline reads it, counted. The list is read twice (the sample, then the
   * match): bytes read are the furthest any reading has got, so they never go back.
   */
  async *countBytes(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    let read = 0;
    for await (const chunk of source) {
      read += chunk.length;
      if (read > this.bytesRead) this.bytesRead = read;
      yield chunk;
    }
  }

  /** The pipeline's running total of rows through matching. */
  rows(rows: number): void {
    this.rowsMatched = rows;
    this.record();
  }

  private record(): void {
    // Something to write: now, when the interval ends, or when the write in flight has finished.
    this.dirty = true;
    if (this.writing || this.trailing !== null) return;
    const wait = this.lastWrite + this.intervalMs - this.now();
    if (wait > 0) {
      this.trailing = setTimeout(() => {
        this.trailing = null;
        this.record();
      }, wait);
      this.trailing.unref();
      return;
    }
    this.dirty = false;
    this.lastWrite = this.now();
    this.writing = true;
    const progress = {
      rowsMatched: this.rowsMatched,
      bytesRead: this.bytesRead,
      bytesTotal: this.bytesTotal,
      at: this.lastWrite,
    };
    void this.jobs
      .recordProgress(this.jobId, progress)
      .catch(() => false)
      .finally(() => {
        this.writing = false;
        if (this.dirty) this.record();
      });
  }
}

/**
 * Adds the rows a chunk of a sharded list matches to its job's count (JobStore.addChunkRows) at
 * most once per interval, and what is left when the chunk is done (`finish`): each add is the
 * rows since the last, so chunks on several workers add up. One add is in flight at a time; a
 * failed one is added again with the next. A chunk run again after a crash adds its rows again
 * (poll caps the share at the whole list).
 */
export class ChunkRowsRecorder {
  private readonly jobs: Pick<JobStore, 'addChunkRows'>;
  private readonly jobId: string;
  private readonly intervalMs: number;
  private readonly now: () => number;
  private total = 0;
  private counted = 0;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | null = null;

  constructor(
    jobs: Pick<JobStore, 'addChunkRows'>,
    jobId: string,
    options: { intervalMs?: number; now?: () => number } = {},
  ) {
    this.jobs = jobs;
    this.jobId = jobId;
    this.intervalMs = options.intervalMs ?? PROGRESS_INTERVAL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The chunk's running total of rows matched. */
  rows(total: number): void {
    this.total = total;
    if (this.inFlight === null && this.now() - this.lastWrite >= this.intervalMs) this.add();
  }

  /** The rest, once the chunk is done. */
  async finish(): Promise<void> {
    await this.inFlight;
    this.add();
    await this.inFlight;
  }

  private add(): void {
    const rows = this.total - this.counted;
    if (rows <= 0) return;
    this.counted = this.total;
    this.lastWrite = this.now();
    this.inFlight = this.jobs
      .addChunkRows(this.jobId, rows)
      .then(
        () => {},
        () => {
          this.counted -= rows;
        },
      )
      .finally(() => {
        this.inFlight = null;
      });
  }
}
