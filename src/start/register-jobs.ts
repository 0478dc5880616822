import type { FastifyBaseLogger } from 'fastify';
import { HttpWebhookSender } from '../adapters/webhooks/http-webhook-sender.ts';
import type { Config } from '../config.ts';
import type { JobService } from '../domain/client-jobs/job-service.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import { SINGLE_JOB_TYPES } from '../domain/ports/job-catalog.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import type { Mailer } from '../domain/ports/mailer.ts';
import type { OnboardingStore } from '../domain/ports/onboarding-store.ts';
import type { QueueMessage } from '../domain/ports/queue.ts';
import type { VoterStore } from '../domain/voters/voter-snapshot.ts';
import { assembleListJob } from '../jobs/assemble-list.job.ts';
import { deliverFolderJob } from '../jobs/deliver-folder.job.ts';
import { deliverWebhookJob } from '../jobs/deliver-webhook.job.ts';
import type { MatchListDeps } from '../jobs/list-job-steps.ts';
import { matchChunkJob } from '../jobs/match-chunk.job.ts';
import { matchListJob } from '../jobs/match-list.job.ts';
import { mbpAudienceJob } from '../jobs/mbp-audience.job.ts';
import { checkAudienceJob, onboardAudienceJob } from '../jobs/onboard-audience.job.ts';
import { JobRegistry } from '../jobs/registry.ts';
import { sendNoticeJob } from '../jobs/send-notice.job.ts';
import { fileDropPlatformsFromConfig, metaSocialAudiencesFromConfig } from './platforms.ts';

/** What the job handlers are built from (compose() opens the backends behind them). */
export interface JobDeps {
  config: Config;
  matchListDeps: MatchListDeps;
  enqueue(message: QueueMessage): Promise<void>;
  /** Keeps a shard's version loaded while its chunks run. */
  pinShard: Parameters<typeof matchChunkJob>[0]['pinShard'];
  voters: VoterStore;
  jobStore: JobStore;
  jobs: JobService;
  keys: KeyService;
  blobs: BlobStore;
  drop: FileDrop;
  mailer: Mailer;
  onboarding: OnboardingStore;
  /** The worker's logger, once a worker runs. */
  logger: () => FastifyBaseLogger;
}

/**
 * The handler of every job type of the catalog (domain/ports/job-catalog.ts), each built from the
 * config and the backends it needs.
 */
export function registerJobs(d: JobDeps): JobRegistry {
  const { config, jobStore, keys, blobs, logger } = d;
  const filePlatforms = fileDropPlatformsFromConfig(config);
  const onboardingDeps = {
    jobs: jobStore,
    keys,
    runs: d.onboarding,
    blobs,
    voters: d.voters,
    social: metaSocialAudiencesFromConfig(config),
    politicaldsp: filePlatforms.politicaldsp,
    maxRowBytes: config.MAX_ROW_BYTES,
    retryBaseMs: config.ONBOARDING_RETRY_BASE_SECONDS * 1000,
    checkIntervalMs: config.ONBOARDING_CHECK_SECONDS * 1000,
    logger,
  };
  const registry = new JobRegistry()
    .register(matchListJob(d.matchListDeps))
    .register(assembleListJob(d.matchListDeps))
    .registerFamily(matchChunkJob({ ...d.matchListDeps, enqueue: d.enqueue, pinShard: d.pinShard }))
    .register(
      deliverWebhookJob({
        jobs: jobStore,
        jobService: d.jobs,
        keys,
        sender: new HttpWebhookSender({
          allowHosts: config.WEBHOOK_ALLOW_HOSTS,
          timeoutMs: config.WEBHOOK_TIMEOUT_SECONDS * 1000,
        }),
        retryBaseMs: config.WEBHOOK_RETRY_BASE_SECONDS * 1000,
        logger,
      }),
    )
    .register(
      sendNoticeJob({
        jobs: jobStore,
        mailer: d.mailer,
        publicUrl: config.publicUrl,
        retryBaseMs: config.MAIL_RETRY_BASE_SECONDS * 1000,
        logger,
      }),
    )
    .register(
      deliverFolderJob({
        jobs: jobStore,
        blobs,
        keys,
        drop: d.drop,
        retryBaseMs: config.DELIVERY_RETRY_BASE_SECONDS * 1000,
        logger,
      }),
    )
    .register(onboardAudienceJob(onboardingDeps))
    .register(
      mbpAudienceJob({
        jobs: jobStore,
        keys,
        runs: d.onboarding,
        blobs,
        mbp: filePlatforms.mbp,
        intervalMs: config.ONBOARDING_CHECK_SECONDS * 1000,
        logger,
      }),
    )
    .register(checkAudienceJob(onboardingDeps));
  // Every catalogued job type must have a handler, or the process must not start.
  registry.assertHandles(SINGLE_JOB_TYPES);
  return registry;
}
