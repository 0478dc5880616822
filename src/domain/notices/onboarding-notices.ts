import type { OnboardingJob } from '../client-jobs/job-types.ts';
import { jobMessage, SEND_NOTICE_JOB } from '../ports/job-catalog.ts';
import type { QueueMessage } from '../ports/queue.ts';
import { formatCount, NOTICE_MAX_ATTEMPTS } from './job-notices.ts';
import type { NoticeModel } from './notice.ts';

/**
 * The status updates an onboarding job sends to its `status_email`, in the order they happen:
 * received (the upload was accepted), uploaded (the rows went to the platform, with counts),
 * shared (the audience was shared with the client's ad account), then ready or awaiting the
 * platform (a political DSP that e-mails the client itself), or failed with the reason.
 */
export const onboardingNoticeKinds = [
  'received',
  'uploaded',
  'shared',
  'ready',
  'awaiting',
  'failed',
] as const;
export type OnboardingNoticeKind = (typeof onboardingNoticeKinds)[number];

/** What an onboarding run counted; every figure is a count, never a value from the file. */
export interface OnboardingCounts {
  /** Data rows of the uploaded file. */
  rows: number;
  /** Rows whose identifiers were usable (Pattern #1: ids found in the voter file). */
  usable: number;
  /** Pattern #1: well-formed ids the voter file does not hold. */
  unknownIds: number;
  /** Ids or values that could not be read at all. */
  malformed: number;
  /** Rows the platform received. */
  sent: number;
}

export interface OnboardingNoticeFacts {
  counts?: OnboardingCounts;
  /** The platform's estimate of the audience size, when it gives one. */
  approximateSize?: { lower: number; upper: number };
}

const PLATFORM_NAMES: Record<OnboardingJob['params']['platform'], string> = {
  social: 'the social platform',
  politicaldsp: 'the political DSP',
};

/**
 * What a status e-mail about an onboarding job says: the audience name the client chose, counts,
 * the ad account it asked us to share with, and the client-safe error. Never file contents or a
 * platform's own audience id (the client finds the audience by its name).
 */
export function onboardingNotice(
  job: OnboardingJob,
  notice: OnboardingNoticeKind,
  facts: OnboardingNoticeFacts = {},
): NoticeModel {
  const audience = `"${job.params.audience}"`;
  const platform = PLATFORM_NAMES[job.params.platform];
  const jobFacts: [string, string][] = [
    ['Audience', job.params.audience],
    ['Platform', platform],
    ['Job', job.id],
  ];
  const counts = facts.counts;
  const countFacts: [string, string][] =
    counts === undefined
      ? []
      : [
          ['Rows in the file', formatCount(counts.rows)],
          ['Rows used', formatCount(counts.usable)],
          ...(counts.unknownIds > 0
            ? ([['Ids not in the voter file', formatCount(counts.unknownIds)]] as [string, string][])
            : []),
          ...(counts.malformed > 0
            ? ([['Unreadable values', formatCount(counts.malformed)]] as [string, string][])
            : []),
          ['Rows sent to the platform', formatCount(counts.sent)],
        ];
  const shareWith = job.params.socialAdid;
  switch (notice) {
    case 'received':
      return {
        subject: `Audience ${audience} received`,
        intro: [`We received the file for your audience ${audience}, to be built on ${platform}.`],
        facts: jobFacts,
        outro: ['You will get more e-mails as the audience is uploaded, shared and ready, or if it fails.'],
      };
    case 'uploaded':
      return {
        subject: `Audience ${audience} uploaded`,
        intro: [`Your audience ${audience} was uploaded to ${platform}.`],
        facts: [...jobFacts, ...countFacts],
        outro: ['The platform now matches it to its users; this can take a few hours.'],
      };
    case 'shared':
      return {
        subject: `Audience ${audience} shared`,
        intro: [
          shareWith === null
            ? `Your audience ${audience} is available in your ad account.`
            : `Your audience ${audience} was shared with ad account ${shareWith}.`,
        ],
        facts: [...jobFacts, ...countFacts],
        outro: ['You will get another e-mail when the platform reports it ready to use.'],
      };
    case 'ready':
      return {
        subject: `Audience ${audience} is ready`,
        intro: [`Your audience ${audience} is ready to use on ${platform}.`],
        facts: [
          ...jobFacts,
          ...countFacts,
          ...(facts.approximateSize === undefined
            ? []
            : ([
                [
                  'Approximate size',
                  `${formatCount(facts.approximateSize.lower)} to ${formatCount(facts.approximateSize.upper)}`,
                ],
              ] as [string, string][])),
        ],
        outro: [],
      };
    case 'awaiting':
      return {
        subject: `Audience ${audience} is with the platform`,
        intro: [
          `Your audience ${audience} was delivered to ${platform}. The platform e-mails you itself when it is ready.`,
        ],
        facts: [...jobFacts, ...countFacts],
        outro: [],
      };
    case 'failed':
      return {
        subject: `Audience ${audience} could not be built`,
        intro: [`Building your audience ${audience} on ${platform} failed.`],
        facts: [...jobFacts, ...countFacts, ['Reason', job.error ?? 'not recorded']],
        outro: [
          'Register the audience again once the reason above is dealt with. If it names a job id, the operator can look it up.',
        ],
      };
  }
}

/**
 * The queue message that e-mails one status update of an onboarding job to its `status_email`.
 * The facts (counts only) travel in the message, as they were when the update happened.
 */
export function onboardingNoticeMessage(
  job: OnboardingJob,
  notice: OnboardingNoticeKind,
  facts: OnboardingNoticeFacts = {},
): QueueMessage {
  return jobMessage(
    SEND_NOTICE_JOB,
    { v: 1, jobId: job.id, notice, facts },
    { maxAttempts: NOTICE_MAX_ATTEMPTS },
  );
}
