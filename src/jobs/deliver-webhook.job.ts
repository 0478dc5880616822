import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { JobService } from '../domain/jobs/job-service.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { WebhookSender } from '../domain/ports/webhook-sender.ts';
import { exponentialBackoff, type JobModule } from './job-module.ts';

export const DELIVER_WEBHOOK_JOB = 'deliver-webhook';
/** With the default 30 s base: retries over about 45 minutes (30 s, 1, 2, 4, 8, 15, 15 min). */
export const WEBHOOK_MAX_ATTEMPTS = 8;
const payloadSchema = z.object({ v: z.literal(1), jobId: z.string().startsWith('job_') });
type Payload = z.infer<typeof payloadSchema>;

/**
 * POSTs `{"callback": "<presigned GET url>"}` to the job's webhook once it is complete. Each
 * attempt signs a fresh URL; failures retry with exponential backoff (8 attempts, about an hour
 * with the default base), then the message is dead-lettered. The result itself is never affected.
 */
export function deliverWebhookJob(deps: {
  jobs: JobStore;
  jobService: JobService;
  sender: WebhookSender;
  retryBaseMs: number;
  logger: () => FastifyBaseLogger;
}): JobModule<Payload> {
  return {
    type: DELIVER_WEBHOOK_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(deps.retryBaseMs, 15 * 60_000),
    async handle({ jobId }) {
      const job = deps.jobs.getJob(jobId);
      if (
        job === null ||
        job.kind !== 'smartmatch' ||
        job.state !== 'complete' ||
        job.params.webhook === null
      )
        return;
      await deps.sender.postJson(job.params.webhook, { callback: deps.jobService.downloadUrl(job) });
    },
    onGiveUp({ jobId }, error) {
      deps
        .logger()
        .warn(
          { jobId, reason: error instanceof Error ? error.message : String(error) },
          'webhook dead-lettered',
        );
    },
  };
}
