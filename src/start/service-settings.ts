import type { Config } from '../config.ts';
import type { JobServiceSettings } from '../domain/client-jobs/job-service.ts';
import type { RateLimitSettings } from '../domain/keys/rate-limits.ts';

/** The client job service's settings: upload and download URLs, webhooks, the platforms set up. */
export function jobServiceSettings(
  config: Pick<
    Config,
    | 'WEBHOOK_ALLOW_HOSTS'
    | 'UPLOAD_URL_TTL_SECONDS'
    | 'DOWNLOAD_URL_TTL_SECONDS'
    | 'MAX_UPLOAD_BYTES'
    | 'MAX_CONCURRENT_UPLOADS_PER_KEY'
    | 'META_AD_ACCOUNT_ID'
    | 'POLITICALDSP_URL'
    | 'MBP_URL'
  >,
): JobServiceSettings {
  return {
    webhookAllowHosts: config.WEBHOOK_ALLOW_HOSTS,
    uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS,
    downloadUrlTtlSeconds: config.DOWNLOAD_URL_TTL_SECONDS,
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    maxConcurrentUploadsPerKey: config.MAX_CONCURRENT_UPLOADS_PER_KEY,
    platforms: {
      social: config.META_AD_ACCOUNT_ID !== undefined,
      politicaldsp: config.POLITICALDSP_URL !== undefined,
      mbp: config.MBP_URL !== undefined,
    },
  };
}

/** The per-key rate limits of the contract. */
export function rateLimitSettings(
  config: Pick<
    Config,
    | 'RATE_LIMIT_REGISTER_PER_MINUTE'
    | 'RATE_LIMIT_ONBOARDING_PER_MINUTE'
    | 'RATE_LIMIT_POLL_SECONDS'
    | 'RATE_LIMIT_POLL_TOLERANCE_SECONDS'
  >,
): RateLimitSettings {
  return {
    registerPerMinute: config.RATE_LIMIT_REGISTER_PER_MINUTE,
    onboardingPerMinute: config.RATE_LIMIT_ONBOARDING_PER_MINUTE,
    pollSeconds: config.RATE_LIMIT_POLL_SECONDS,
    pollToleranceSeconds: config.RATE_LIMIT_POLL_TOLERANCE_SECONDS,
  };
}
