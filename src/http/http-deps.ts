import type { Config } from '../config.ts';
import type { JobService } from '../domain/client-jobs/job-service.ts';
import type { FileBrowser } from '../domain/delivery/file-browser.ts';
import type { KeyService } from '../domain/keys/key-service.ts';
import type { RateLimits } from '../domain/keys/rate-limits.ts';
import type { LookupService } from '../domain/lookups/lookup-service.ts';
import type { VerifyingUrlSigner } from '../domain/ports/url-signer.ts';
import type { Metrics } from './metrics.ts';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, boolean | string | null>;
}

/** The settings the HTTP layer reads: logging, timeouts, the public URL (not the whole Config). */
export type HttpSettings = Pick<
  Config,
  | 'LOG_LEVEL'
  | 'HTTP_REQUEST_TIMEOUT_SECONDS'
  | 'HTTP_KEEP_ALIVE_SECONDS'
  | 'HTTP_BODY_TIMEOUT_SECONDS'
  | 'HTTP_BODY_MIN_BYTES_PER_SECOND'
  | 'publicUrl'
>;

/** What the HTTP layer needs, built by the composition root. */
export interface HttpDeps {
  config: HttpSettings;
  keys: KeyService;
  jobs: JobService;
  rateLimits: RateLimits;
  /** The embedded signer whose `/files` URLs the api serves; null when object storage serves them (S3). */
  fileUrls: VerifyingUrlSigner | null;
  metrics: Metrics;
  /** The web file browser over each key's smartmatch folder. */
  files: FileBrowser;
  readiness: () => Promise<ReadinessReport>;
  /** The person and voter lookups (clients.md 25-29); absent: their routes are not served. */
  lookups?: LookupService | null;
}
