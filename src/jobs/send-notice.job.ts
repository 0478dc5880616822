import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import { type JobNoticeKind, jobNotice, jobNoticeKinds } from '../domain/notices/job-notices.ts';
import { renderNotice } from '../domain/notices/notice.ts';
import {
  type OnboardingNoticeFacts,
  type OnboardingNoticeKind,
  onboardingNotice,
  onboardingNoticeKinds,
} from '../domain/notices/onboarding-notices.ts';
import { redactEmails } from '../domain/notices/redact.ts';
import type { NoticePayload } from '../domain/ports/job-catalog.ts';
import { SEND_NOTICE_JOB } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { Mailer } from '../domain/ports/mailer.ts';
import { exponentialBackoff, type JobModule } from './job-module.ts';

const count = z.number().int().min(0);
const payloadSchema: z.ZodType<NoticePayload> = z.object({
  v: z.literal(1),
  jobId: z.string().startsWith('job_'),
  notice: z.enum([...new Set([...jobNoticeKinds, ...onboardingNoticeKinds])] as [string, ...string[]]),
  /** Why a media-buying audience failed (jobNoticeMessage). */
  reason: z.string().max(500).optional(),
  /** Onboarding updates carry their counts (see onboardingNoticeMessage). */
  facts: z
    .object({
      counts: z
        .object({ rows: count, usable: count, unknownIds: count, malformed: count, sent: count })
        .optional(),
      approximateSize: z.object({ lower: count, upper: count }).optional(),
    })
    .optional(),
});
type Payload = z.infer<typeof payloadSchema>;

/**
 * E-mails one notice about a list-matching job to its `notification_email`. Its own queue job: a
 * mail server that is down delays the notice (retries with backoff, then a dead letter with the
 * reason logged) and never touches the job or its result. The notice is rendered from the job as
 * it is when sent.
 */
export function sendNoticeJob(deps: {
  jobs: JobStore;
  mailer: Mailer;
  publicUrl: string;
  retryBaseMs: number;
  logger: () => FastifyBaseLogger;
}): JobModule<Payload> {
  return {
    type: SEND_NOTICE_JOB,
    payload: payloadSchema,
    backoffMs: exponentialBackoff(deps.retryBaseMs, 30 * 60_000),
    async handle({ jobId, notice, facts, reason }) {
      const job = await deps.jobs.getJob(jobId);
      if (job === null) return;
      if (job.kind === 'onboarding') {
        if (!isOnboardingNotice(notice)) return;
        const rendered = renderNotice(onboardingNotice(job, notice, stripUndefined(facts)));
        await deps.mailer.send({ to: job.params.statusEmail, ...rendered, id: `${job.id}.${notice}` });
        return;
      }
      if (job.params.notificationEmail === null || !isJobNotice(notice)) return;
      // A job that is no longer complete when its notice goes out (its key was revoked in the
      // moment it completed, and its files deleted) has nothing ready to announce.
      if (notice === 'complete' && job.state !== 'complete') return;
      const rendered = renderNotice(
        jobNotice(job, notice, { publicUrl: deps.publicUrl, ...(reason === undefined ? {} : { reason }) }),
      );
      await deps.mailer.send({ to: job.params.notificationEmail, ...rendered, id: `${job.id}.${notice}` });
    },
    onGiveUp({ jobId, notice }, error) {
      deps.logger().warn(
        {
          jobId,
          notice,
          reason: redactEmails(error instanceof Error ? error.message : String(error)),
        },
        'e-mail notice dead-lettered',
      );
    },
  };
}

const isJobNotice = (notice: string): notice is JobNoticeKind =>
  (jobNoticeKinds as readonly string[]).includes(notice);
const isOnboardingNotice = (notice: string): notice is OnboardingNoticeKind =>
  (onboardingNoticeKinds as readonly string[]).includes(notice);

/** zod's optional fields come back as `T | undefined`; the notice model wants them absent. */
function stripUndefined(facts: Payload['facts']): OnboardingNoticeFacts {
  if (facts === undefined) return {};
  return {
    ...(facts.counts === undefined ? {} : { counts: facts.counts }),
    ...(facts.approximateSize === undefined ? {} : { approximateSize: facts.approximateSize }),
  };
}
