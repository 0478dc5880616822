import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import { JobService } from '../domain/client-jobs/job-service.ts';
import { Retention } from '../domain/client-jobs/retention.ts';
import { FileBrowser } from '../domain/delivery/file-browser.ts';
import { KeyService } from '../domain/keys/key-service.ts';
import { RateLimits } from '../domain/keys/rate-limits.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { Metrics } from '../http/metrics.ts';
import type { MetadataBackends, StorageBackends } from './backends.ts';
import { jobServiceSettings, rateLimitSettings } from './service-settings.ts';

/** The services behind the client API: keys, jobs, rate limits, the file browser, retention. */
export interface ClientServices {
  keys: KeyService;
  jobs: JobService;
  rateLimits: RateLimits;
  files: FileBrowser;
  retention: Retention;
}

/** Builds the client API's services over the opened backends. */
export function clientServices(
  config: Config,
  parts: {
    metadata: MetadataBackends;
    storage: StorageBackends;
    drop: FileDrop;
    metrics: Metrics;
    /** The service secret (signingSecret). */
    secret: string | Buffer;
  },
): ClientServices {
  const { metadata, drop, metrics, secret } = parts;
  const { blobs, signer } = parts.storage;
  const jobStore = metadata.jobStore;
  const keys = new KeyService(metadata.keyStore);
  const retention = new Retention({
    jobs: jobStore,
    blobs,
    days: config.RETENTION_DAYS,
    folders: { drop, keyIds: async () => (await keys.list()).map((key) => key.id) },
  });
  const rateLimits = new RateLimits(metadata.rateLimiter, rateLimitSettings(config));
  const jobs = new JobService({
    jobs: jobStore,
    blobs,
    signer,
    keys,
    settings: jobServiceSettings(config),
    events: { onTransition: (kind, state) => metrics.jobTransitions.inc({ kind, state }) },
  });
  const files = new FileBrowser({
    keys,
    drop,
    // Its own key, derived from the service secret: a session MAC can never pass as a URL signature.
    secret: createHmac('sha256', secret).update('listmatch file browser sessions v1').digest(),
    sessionTtlMs: config.FILE_BROWSER_SESSION_MINUTES * 60_000,
  });
  return { keys, jobs, rateLimits, files, retention };
}
