import type { FastifyBaseLogger } from 'fastify';
import type { JobService } from '../domain/client-jobs/job-service.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import { DELIVER_WEBHOOK_JOB, type JobRef } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { WebhookSender } from '../domain/ports/webhook-sender.ts';
import { completionWebhookId, webhookSignatureHeaders } from '../domain/webhooks/webhook-signature.ts';
import { exponentialBackoff, type JobModule, jobRefSchema } from './job-module.ts';
import { keyRevoked } from './revoked-keys.ts';

/** With the default 30 s base: retries over about an hour (30 s, 1, 2, 4, 8, 15, 15, 15 min). */
export const WEBHOOK_MAX_ATTEMPTS = 9;
const payloadSchema = jobRefSchema;
type Payload = JobRef;

/**
 * POSTs `{"callback": "<presigned GET url>"}` to the job's webhook once it is complete, signed with
 * the key's secret (Standard Webhooks). Each attempt signs a fresh URL and timestamp under the same
 * `webhook-id`; failures retry with exponential backoff (9 attempts, about an hour with the default
 * base), then the message is dead-lettered. The result itself is never affected.
 */
export function deliverWebhookJob(deps: {
  jobs: JobStore;
  jobService: JobService;
  keys: KeyService;
  sender: WebhookSender;
  now?: () => number;
  retryBaseMs: number;
  logger: () => FastifyBaseLogger;
}): JobModule<Payload> {
  return {
    type: DELIVER_WEBHOOK_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(deps.retryBaseMs, 15 * 60_000),
    async handle({ jobId }) {
      const job = await deps.jobs.getJob(jobId);
      if (
        job === null ||
        job.kind !== 'smartmatch' ||
        job.state !== 'complete' ||
        job.params.webhook === null
      )
        return;
      if (await keyRevoked(deps.keys, job, 'webhook not sent', deps.logger())) return;
      const body = JSON.stringify({ callback: await deps.jobService.downloadUrl(job) });
      const now = (deps.now ?? Date.now)();
      const secrets = await deps.keys.webhookSecrets(job.keyId, now);
      if (secrets.length === 0) {
        // A key made before signing existed: still deliver (the body is what clients rely on),
        // and tell the operator how to give the key a secret.
        deps
          .logger()
          .warn(
            { jobId, keyId: job.keyId },
            'key has no webhook secret, so this call is unsigned; run listmatch keys webhook-secret <key>',
          );
        await deps.sender.postJson(job.params.webhook, body);
        return;
      }
      const headers = webhookSignatureHeaders({
        id: completionWebhookId(job.id),
        timestamp: now / 1000,
        body,
        secrets,
      });
      await deps.sender.postJson(job.params.webhook, body, headers);
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
