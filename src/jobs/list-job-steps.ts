import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { type AppError, publicMessage } from '../domain/errors.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { AppendedField } from '../domain/keys/key-types.ts';
import { type ListRun, listRun } from '../domain/list-matching/list-run.ts';
import type { ListExecutor } from '../domain/list-matching/match-list.ts';
import { jobNoticeMessage } from '../domain/notices/job-notices.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { ShardMap } from '../domain/voters/shard-map.ts';
import { CONTACT_FIELD_COLUMNS } from '../domain/voters/voter-columns.ts';
import type { VoterSnapshot, VoterStore } from '../domain/voters/voter-snapshot.ts';
import { JobKeyRevoked } from './revoked-keys.ts';

/**
 * What every step of a list job shares (match-list, and for a sharded voter file the split,
 * match-chunk and assemble-list): the dependencies, the plan fixed from the profile before any
 * row is read, the pipeline's settings, and how a job fails.
 */

export interface MatchListDeps {
  jobs: JobStore;
  blobs: BlobStore;
  voters: VoterStore;
  keys: KeyService;
  /** Makes the job's matchers and runs its stages here (on the matching threads, or the job's thread). */
  executor: ListExecutor;
  /** The service's MATCH_THRESHOLD, for a profile that sets none (reported in the summary). */
  defaultMatchThreshold: number;
  maxRowBytes: number;
  onTransition?: (state: 'processing' | 'complete' | 'failed') => void;
  /**
   * Deletes the files of every finished job of a revoked key and marks them expired, as revoking
   * it did (Retention.withdrawKey): for the jobs that were running when it was revoked. Absent:
   * their files stay until retention.
   */
  withdrawKey?: (keyId: string) => Promise<number>;
  /** Rows processed since the last call (for a counter metric). */
  onRows?: (rows: number) => void;
  /** Rows per chunk of a list split across voter shards (default DEFAULT_CHUNK_ROWS). */
  chunkRows?: number;
  /**
   * Whether this worker holds every shard of a sharded voter file at once (the voter cache and
   * the matching threads allow it): it then matches a list against them itself (matchList)
   * rather than splitting it into chunks for whichever workers hold the shards. Absent: always split.
   */
  holdsEveryShard?: (map: ShardMap) => boolean;
  /** Opens a loaded shard on the matching threads ahead of its first matcher. */
  openOnThreads?: (shard: VoterSnapshot) => void;
}

/**
 * Fails the job with `failure` (its public text, publicMessage, is the job's `error`). A job whose
 * key is revoked keeps no file: its upload and whatever of its result was written are deleted at
 * once (withdrawKey), as they were for the key's finished jobs when it was revoked.
 */
export async function failJob(deps: MatchListDeps, jobId: string, failure: AppError): Promise<void> {
  const error = publicMessage(failure);
  // The "failed" notice commits with the failure, like the completion's follow-ups.
  const job = await deps.jobs.getJob(jobId);
  const notice = job?.kind === 'smartmatch' ? jobNoticeMessage(job, 'failed') : null;
  const followUps = notice === null ? [] : [notice];
  if (
    await deps.jobs.transition(jobId, ['uploaded', 'processing'], 'failed', { error }, Date.now(), followUps)
  ) {
    deps.onTransition?.('failed');
  }
  if (job !== null) await withdrawIfRevoked(deps, job.keyId);
}

/**
 * Throws JobKeyRevoked with `reason()` when the job's API key was revoked: a step boundary of a
 * list job, past which nothing more of a revoked key's job is done.
 */
export async function stopIfKeyRevoked(
  deps: Pick<MatchListDeps, 'keys'>,
  job: { keyId: string },
  reason: () => AppError,
): Promise<void> {
  if ((await deps.keys.activeKey(job.keyId)) === null) throw new JobKeyRevoked(reason());
}

/** When the key is revoked: deletes the files of its finished jobs (withdrawKey). */
export async function withdrawIfRevoked(deps: MatchListDeps, keyId: string): Promise<void> {
  if (deps.withdrawKey === undefined || (await deps.keys.activeKey(keyId)) !== null) return;
  await deps.withdrawKey(keyId);
}

/**
 * The job's run (list-run.ts): its parameters and the plan its profile fixed, read by every step
 * of the job (a sharded job's messages carry it).
 */
export function runOfJob(
  deps: Pick<MatchListDeps, 'maxRowBytes'>,
  job: SmartmatchJob,
  plan: Pick<JobPlan, 'appendedFields' | 'matchThreshold'>,
): ListRun {
  return listRun({
    maxMatches: job.params.maxMatches,
    searchRadiusMiles: job.params.searchRadiusMiles,
    asOf: job.createdAt,
    thresholdScore: plan.matchThreshold,
    appendedFields: plan.appendedFields,
    maxRowBytes: deps.maxRowBytes,
  });
}

/** What the job's profile and parameters fix before any row is read. */
export interface JobPlan {
  appendedFields: AppendedField[];
  matchThreshold: number;
  deliverToFolder: boolean;
}

export async function planJob(deps: MatchListDeps, job: SmartmatchJob): Promise<JobPlan> {
  const profile = await deps.keys.resolveProfile(job.keyId, job.params.profileId);
  return {
    appendedFields: [
      ...profile.appendedFields,
      ...job.params.include.map((field) => ({
        source: CONTACT_FIELD_COLUMNS[field],
        as: CONTACT_FIELD_COLUMNS[field],
      })),
    ],
    matchThreshold: profile.matchThreshold ?? deps.defaultMatchThreshold,
    deliverToFolder: profile.delivery === 'folder',
  };
}
