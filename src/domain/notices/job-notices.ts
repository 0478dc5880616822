import type { JobSummary, SmartmatchJob } from '../client-jobs/job-types.ts';
import { jobMessage, SEND_NOTICE_JOB } from '../ports/job-catalog.ts';
import type { QueueMessage } from '../ports/queue.ts';
import type { NoticeModel } from './notice.ts';

/** With the default 60 s base: retries over about 2.5 hours (1, 2, 4, 8, 16, then every 30 min). */
export const NOTICE_MAX_ATTEMPTS = 10;

/** `audience_*`: the media-buying audience of a job registered with `mbp_onboarding`. */
export const jobNoticeKinds = [
  'received',
  'complete',
  'failed',
  'audience_ready',
  'audience_failed',
] as const;
export type JobNoticeKind = (typeof jobNoticeKinds)[number];

/**
 * The queue message that sends one notice about a list-matching job, or null when the job has no
 * `notification_email`. Enqueued in the same transaction as the state change it reports.
 */
export function jobNoticeMessage(
  job: SmartmatchJob,
  notice: JobNoticeKind,
  reason?: string,
): QueueMessage | null {
  if (job.params.notificationEmail === null) return null;
  return jobMessage(
    SEND_NOTICE_JOB,
    { v: 1, jobId: job.id, notice, ...(reason === undefined ? {} : { reason: reason.slice(0, 500) }) },
    { maxAttempts: NOTICE_MAX_ATTEMPTS },
  );
}

/**
 * What a notice about a list-matching job says. Counts, the client's own file name and the
 * client-safe error only: never row contents, keys, or a URL that grants access (the result is
 * fetched by poll, with the API key).
 */
export function jobNotice(
  job: SmartmatchJob,
  notice: JobNoticeKind,
  /** `reason`: why a media-buying audience failed (the job itself succeeded, so it is not the job's error). */
  options: { publicUrl: string; reason?: string },
): NoticeModel {
  const name = `"${job.filename}"`;
  const pollUrl = `${options.publicUrl}/service/smartmatch/poll?filename=${encodeURIComponent(job.filename)}`;
  const jobFacts = [
    ['List', job.filename],
    ['Job', job.id],
  ] as const;
  switch (notice) {
    case 'received':
      return {
        subject: `List ${name} received`,
        intro: [`We received your list ${name} and are matching it now.`],
        facts: [
          ...jobFacts,
          ...(job.uploadBytes === null ? [] : ([['Size', formatBytes(job.uploadBytes)]] as const)),
        ],
        outro: ['You will get another e-mail when the result is ready or if matching fails.'],
      };
    case 'complete': {
      const summary = job.summary;
      return {
        subject:
          summary === null
            ? `List ${name} is ready`
            : `List ${name} is ready: ${formatPercent(summary.matchRate)} matched`,
        intro: [`Your list ${name} has been matched.`],
        facts: [
          ...jobFacts,
          ...(summary === null
            ? []
            : ([
                ['Rows', formatCount(summary.rows)],
                ['Matched rows', formatCount(summary.matchedRows)],
                ['Match rate', formatPercent(summary.matchRate)],
                ['Rows in the result', formatCount(summary.outputRows)],
                ...readerWarningFacts(summary.warnings),
              ] as const)),
        ],
        outro: [
          `Fetch the result with the poll endpoint and your API key: GET ${pollUrl}. It answers with a download link that expires; poll again for a fresh one.`,
        ],
      };
    }
    case 'audience_ready':
    case 'audience_failed': {
      const audience = `"${job.params.digitalAudienceName ?? ''}"`;
      const ready = notice === 'audience_ready';
      return {
        subject: ready
          ? `Audience ${audience} from list ${name} is ready`
          : `Audience ${audience} from list ${name} could not be built`,
        intro: [
          ready
            ? `The matches of your list ${name} are now the audience ${audience} on the media buying platform.`
            : `The matches of your list ${name} could not become the audience ${audience} on the media buying platform. The matched list itself is ready as usual.`,
        ],
        facts: [
          ...jobFacts,
          ['Audience', job.params.digitalAudienceName ?? ''],
          ...(ready ? [] : ([['Reason', options.reason ?? 'not recorded']] as const)),
        ],
        outro: [],
      };
    }
    case 'failed':
      return {
        subject: `List ${name} could not be matched`,
        intro: [`Matching your list ${name} failed.`],
        facts: [...jobFacts, ['Reason', job.error ?? 'not recorded']],
        outro: [
          'Register the list again once the reason above is dealt with. If it names a job id, the operator can look it up.',
        ],
      };
  }
}

export const formatCount = (n: number): string => n.toLocaleString('en-US');
const formatPercent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;
function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/**
 * The rows the reader could not return (too long to read) and its other warnings, with the first
 * lines they name: a csv or gzip result has no summary.json to show them. Line numbers only.
 */
function readerWarningFacts(warnings: JobSummary['warnings'] | undefined): (readonly [string, string])[] {
  if (warnings === undefined || warnings.total === 0) return [];
  const skipped = warnings.byKind.row_too_long ?? 0;
  const facts: (readonly [string, string])[] = [];
  if (skipped > 0) facts.push(['Rows not read (too long)', formatCount(skipped)]);
  facts.push(['Warnings', formatCount(warnings.total)]);
  if (warnings.first.length > 0) facts.push(['First warnings', warnings.first.slice(0, 5).join('; ')]);
  return facts;
}
