import type { Job, JobProgress, JobState, SmartmatchJob } from '../client-jobs/job-types.ts';
import type { QueueMessage } from './queue.ts';

/** The fields a state change may write beside the state. */
export type JobTransitionFields = Partial<
  Pick<Job, 'error' | 'summary' | 'resultBlob' | 'resultName' | 'voterVersion'>
>;

/** Jobs. State changes that cause work enqueue it in the same transaction. */
export interface JobStore {
  insertJob(job: Job): Promise<void>;
  getJob(id: string): Promise<Job | null>;
  /**
   * Inserts a list-matching job under its filename with the filename rule, atomically (even
   * against registrations of the same key in other processes): jobs of the key with that filename
   * that await their upload (registered, upload window open) are replaced, moved to `expired`
   * with `replacedError`, so their upload URLs stop working; when one is being matched
   * (uploaded or processing) nothing changes and the answer is false. Finished jobs stay as they
   * are. True when the job was inserted.
   */
  insertUnderFilename(job: SmartmatchJob, replacedError: string): Promise<boolean>;
  /**
   * Records a processing job's progress (nothing else of the row changes, not `updatedAt`);
   * false when the job is no longer processing. With `chunks`, the chunks' count is set to its
   * `shardRowsMatched` (a split starts it over).
   */
  recordProgress(id: string, progress: JobProgress): Promise<boolean>;
  /**
   * Adds rows a chunk of a processing job has matched to the job's count (JobProgress.chunks), in
   * one statement, so that chunks matched at once on several workers all count; false when the
   * job is no longer processing.
   */
  addChunkRows(id: string, rows: number): Promise<boolean>;
  /** The newest job of this key with this filename: the one poll follows. */
  findLatestByFilename(keyId: string, filename: string): Promise<Job | null>;
  /**
   * registered → uploaded (only from registered and before upload expiry), and enqueue
   * `followUps` (processing, the "received" notice), atomically. Returns false when the job was
   * no longer waiting for an upload.
   */
  markUploaded(
    id: string,
    upload: { blob: string; bytes: number; at: number },
    followUps: readonly QueueMessage[],
  ): Promise<boolean>;
  /**
   * Moves a job to `state` with the given fields, only when its current state is one of `from`,
   * and enqueues `followUps` in the same transaction.
   */
  transition(
    id: string,
    from: readonly JobState[],
    to: JobState,
    fields: JobTransitionFields,
    at: number,
    followUps?: readonly QueueMessage[],
  ): Promise<boolean>;
  /** Expires registered jobs whose upload window closed before `now`; returns how many. */
  expireUnuploaded(now: number): Promise<number>;
  /** Complete and failed jobs that finished before `before`, oldest first: retention is due. */
  listFinishedBefore(before: number, limit: number): Promise<Job[]>;
  listJobs(filter: { keyId?: string; state?: JobState; limit: number }): Promise<Job[]>;
  countByState(): Promise<Record<string, number>>;
}
