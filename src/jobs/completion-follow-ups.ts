import type { SmartmatchJob } from '../domain/client-jobs/job-types.ts';
import { jobNoticeMessage } from '../domain/notices/job-notices.ts';
import { DELIVER_FOLDER_JOB, DELIVER_WEBHOOK_JOB, jobMessage } from '../domain/ports/job-catalog.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import { FOLDER_DELIVERY_MAX_ATTEMPTS } from './deliver-folder.job.ts';
import { WEBHOOK_MAX_ATTEMPTS } from './deliver-webhook.job.ts';
import { mbpAudienceMessage } from './mbp-audience.job.ts';

/**
 * The fan-out work of a completed list-matching job, enqueued in the same transaction as the
 * completion: each delivery channel is its own retried queue job, so one that fails never
 * holds back the others or the result.
 */
export function completionFollowUps(
  job: SmartmatchJob,
  options: { deliverToFolder: boolean },
): QueueMessage[] {
  const followUps: QueueMessage[] = [];
  // Grouped by key: the worker runs at most WEBHOOK_CONCURRENCY_PER_KEY of one key's calls at once
  // (DELIVERY_CONCURRENCY_PER_KEY for folder deliveries; the audience's message is grouped too).
  if (job.params.webhook !== null)
    followUps.push(
      jobMessage(
        DELIVER_WEBHOOK_JOB,
        { v: 1, jobId: job.id },
        { maxAttempts: WEBHOOK_MAX_ATTEMPTS, group: job.keyId },
      ),
    );
  const notice = jobNoticeMessage(job, 'complete');
  if (notice !== null) followUps.push(notice);
  const audience = mbpAudienceMessage(job);
  if (audience !== null) followUps.push(audience);
  // Dropped in its key's smartmatch folder (local folder or SFTP) unless the profile says none.
  if (options.deliverToFolder) {
    followUps.push(
      jobMessage(
        DELIVER_FOLDER_JOB,
        { v: 1, jobId: job.id },
        { maxAttempts: FOLDER_DELIVERY_MAX_ATTEMPTS, group: job.keyId },
      ),
    );
  }
  return followUps;
}
