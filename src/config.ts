import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * The only module that reads `process.env`. `loadConfig` parses the environment once with one
 * schema, reports every bad variable at once, and returns a frozen object that the composition
 * root hands to whatever needs it. Nothing reads configuration at import time.
 */

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int(`must be a whole number`).min(min).max(max);

const rolesSchema = z
  .string()
  .transform((value) => value.split(',').map((role) => role.trim().toLowerCase()))
  .pipe(z.array(z.enum(['api', 'worker'])).min(1, 'must name api, worker or both'));

export const configSchema = z.object({
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** Base of the presigned URLs handed to clients; set it when the api sits behind a proxy. */
  PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  ROLES: rolesSchema.default(['api', 'worker']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** HMAC secret for embedded presigned URLs; generated into DATA_DIR on first start when unset. */
  URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  UPLOAD_URL_TTL_SECONDS: integer(10, 7 * 24 * 3600).default(3600),
  DOWNLOAD_URL_TTL_SECONDS: integer(60, 7 * 24 * 3600).default(3600),
  MAX_UPLOAD_BYTES: integer(1).default(2 * 1024 ** 3),
  /** Longest CSV record accepted; longer ones are skipped with a warning. */
  MAX_ROW_BYTES: integer(1024).default(1024 ** 2),
  /**
   * A request body (upload, JSON-body registration) gets this long before it must keep up with
   * HTTP_BODY_MIN_BYTES_PER_SECOND, and may never be silent for longer (Apache's mod_reqtimeout
   * `body=20,MinRate=500` is the model): a client trickling a byte every few seconds is cut off.
   */
  HTTP_BODY_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(20),
  /** Each byte of a body buys this much more time beyond HTTP_BODY_TIMEOUT_SECONDS. */
  HTTP_BODY_MIN_BYTES_PER_SECOND: integer(1).default(500),
  /** Longest whole request, body included (Node's `requestTimeout`); covers the largest upload. */
  HTTP_REQUEST_TIMEOUT_SECONDS: integer(1, 24 * 3600).default(3600),
  /** How long an idle keep-alive connection stays open between requests. */
  HTTP_KEEP_ALIVE_SECONDS: integer(1, 600).default(65),
  /** Uploads one API key may stream at the same time to one api process. */
  MAX_CONCURRENT_UPLOADS_PER_KEY: integer(1, 1000).default(4),
  RATE_LIMIT_REGISTER_PER_MINUTE: integer(1).default(60),
  RATE_LIMIT_ONBOARDING_PER_MINUTE: integer(1).default(1),
  RATE_LIMIT_POLL_SECONDS: z.coerce.number().min(0).default(30),
  /** Clock slack granted to clients that poll on an exact 30 s timer. */
  RATE_LIMIT_POLL_TOLERANCE_SECONDS: z.coerce.number().min(0).default(2),
  WORKER_CONCURRENCY: integer(1, 64).default(1),
  /** Threads that run the probabilistic matcher (0: on the job's own thread); default: one per CPU. */
  MATCH_THREADS: integer(0, 256).default(availableParallelism()),
  /**
   * Import the voter file as shards by state, no shard above this many records (bigger states are
   * split by ZIP3); lists are then matched shard by shard (docs/voter-shards.md). Unset: one snapshot.
   */
  VOTER_SHARD_MAX_ROWS: integer(1000, 1_000_000_000).optional(),
  SHARD_CHUNK_ROWS: integer(5000, 100_000_000).default(50_000),
  /**
   * Memory a worker gives to loaded voter shards, in MB (estimated from their files); the least
   * recently used are let go beyond it. Unset: no limit.
   */
  VOTER_CACHE_MB: integer(1, 16_000_000).optional(),
  /** Lowest match score (0-100) accepted when a key's profile sets none. */
  MATCH_THRESHOLD: z.coerce.number().min(0).max(100).default(50),
  /** Person and voter lookups (docs/api.md): requests per second one key may make (a burst of as many). */
  LOOKUP_RATE_PER_SECOND: integer(1, 100_000).default(50),
  /** Persons one key may look up per UTC day unless its grant sets its own quota; 0: no limit. */
  LOOKUP_DAILY_QUOTA: integer(0).default(100_000),
  /** The registration check confirms one match only at or above this score. */
  LOOKUP_CONFIDENT_SCORE: z.coerce.number().min(1).max(100).default(90),
  /** The registration check answers too_many when two or more candidates reach this score. */
  LOOKUP_AMBIGUOUS_SCORE: z.coerce.number().min(1).max(100).default(20),
  /** Lowest score of a voter a phone or e-mail search returns. */
  LOOKUP_CONTACT_SCORE: z.coerce.number().min(0).max(100).default(50),
  /** The match rate of the lookups' fixed model (no list to fit it on): conservative by default. */
  LOOKUP_MATCH_RATE: z.coerce.number().gt(0).lt(1).default(0.3),
  /**
   * Threads an api process matches lookups on, beside its HTTP thread (each version of the voter
   * file opened on threads of its own); 0: on the HTTP thread.
   */
  LOOKUP_THREADS: integer(0, 64).default(1),
  /** How often an api process checks for a newly published voter file to swap to, in seconds. */
  LOOKUP_REFRESH_SECONDS: z.coerce.number().min(0.1).max(3600).default(10),
  /**
   * Whether an api process loads the voter file for lookups as it starts (in the background),
   * so that the first lookup does not wait for the load (7-10 s at 10M voters); false: on the
   * first lookup (an api that serves no lookups then holds no copy of it).
   */
  LOOKUP_WARM: z.stringbool().default(true),
  /** Days after a job finishes before its uploaded list and results are deleted (the job record stays). */
  RETENTION_DAYS: integer(1, 3650).default(30),
  /**
   * `/readyz` reports storage not ready when less than this many bytes are free on the file system
   * of DATA_DIR (uploads, results, the embedded database, voter files). 0: no floor.
   */
  STORAGE_MIN_FREE_BYTES: integer(0).default(1024 ** 3),
  QUEUE_LEASE_SECONDS: integer(1).default(30),
  QUEUE_POLL_MS: integer(10).default(250),
  QUEUE_MAX_ATTEMPTS: integer(1, 100).default(5),
  SHUTDOWN_GRACE_SECONDS: integer(0).default(20),
  /** Webhook hosts allowed even though they resolve to private or loopback addresses (`host` or `host:port`). */
  WEBHOOK_ALLOW_HOSTS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h !== ''),
    )
    .default([]),
  WEBHOOK_TIMEOUT_SECONDS: integer(1, 120).default(10),
  /**
   * Webhook calls one worker process makes at once, in slots of their own: a call waits on the
   * client's server (up to WEBHOOK_TIMEOUT_SECONDS), never in a slot of WORKER_CONCURRENCY.
   */
  WEBHOOK_CONCURRENCY: integer(1, 256).default(8),
  /**
   * Of those, at most this many of one key's at once (counted across all workers); its other calls
   * wait in the queue without a slot, so one key's unanswered webhooks cannot hold up another's.
   */
  WEBHOOK_CONCURRENCY_PER_KEY: integer(1, 256).default(2),
  /**
   * E-mail notices one worker process sends at once, in slots of their own: a send waits on the
   * SMTP server (up to SMTP_TIMEOUT_SECONDS), never in a slot of WORKER_CONCURRENCY. No cap per
   * key: every key's notices go to the one relay.
   */
  MAIL_CONCURRENCY: integer(1, 256).default(4),
  /**
   * Folder deliveries one worker process makes at once, in slots of their own: an upload waits on
   * the SFTP server (up to SFTP_TIMEOUT_SECONDS to connect), never in a slot of WORKER_CONCURRENCY.
   */
  DELIVERY_CONCURRENCY: integer(1, 256).default(4),
  /**
   * Of those, at most this many of one key's at once (counted across all workers); its other
   * deliveries wait in the queue without a slot, so one key's folder that never answers cannot
   * hold up another key's.
   */
  DELIVERY_CONCURRENCY_PER_KEY: integer(1, 256).default(1),
  /**
   * Audience jobs (onboarding, readiness checks, media-buying audiences) one worker process runs at
   * once, in slots of their own: a platform call waits up to META_TIMEOUT_SECONDS or
   * FILE_DROP_TIMEOUT_SECONDS, never in a slot of WORKER_CONCURRENCY. Their staging and
   * deduplication run in these slots too.
   */
  AUDIENCE_CONCURRENCY: integer(1, 256).default(4),
  /**
   * Of those, at most this many of one key's of each kind at once (counted across all workers);
   * the rest wait in the queue without a slot. With three kinds, one key holds at most three
   * times this many: keep AUDIENCE_CONCURRENCY above that.
   */
  AUDIENCE_CONCURRENCY_PER_KEY: integer(1, 256).default(1),
  /** First retry delay of a failed webhook call; doubles per attempt up to 15 minutes. */
  WEBHOOK_RETRY_BASE_SECONDS: z.coerce.number().min(0.01).default(30),
  /** First retry delay of an onboarding step a platform could not take; doubles up to 15 min, 12 attempts. */
  ONBOARDING_RETRY_BASE_SECONDS: z.coerce.number().min(0.01).default(30),
  /** How often a social audience's readiness is polled once it is shared (up to 288 times). */
  ONBOARDING_CHECK_SECONDS: z.coerce.number().min(0.01).default(600),
  /** Where e-mail notices go: `.eml` files in DATA_DIR/outbox (embedded), or an SMTP server. */
  MAIL: z.enum(['outbox', 'smtp']).default('outbox'),
  /** Sender of notices, `Name <address>`; its domain also names the Message-IDs. */
  MAIL_FROM: z
    .string()
    .regex(/^[^@\s<>]+@[^@\s<>]+$|^[^<>]*<[^@\s<>]+@[^@\s<>]+>$/, 'must be an address or Name <address>')
    .default('listmatch <listmatch@localhost>'),
  /** Folder for MAIL=outbox; default DATA_DIR/outbox. */
  MAIL_OUTBOX_DIR: z.string().min(1).optional(),
  /** First retry delay of a failed notice; doubles per attempt up to 30 minutes (10 attempts). */
  MAIL_RETRY_BASE_SECONDS: z.coerce.number().min(0.01).default(60),
  /** `smtp://user:password@host:port` or `smtps://…` (percent-encode special characters); or the SMTP_HOST group. */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SMTP_HOST: z.string().min(1).optional(),
  SMTP_PORT: integer(1, 65535).optional(),
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASSWORD: z.string().min(1).optional(),
  /** implicit (smtps, 465), starttls (required upgrade, 587), opportunistic, or none (local relay). */
  SMTP_TLS: z.enum(['implicit', 'starttls', 'opportunistic', 'none']).default('starttls'),
  /** false only for a server whose self-signed certificate you trust; prefer NODE_EXTRA_CA_CERTS. */
  SMTP_TLS_REJECT_UNAUTHORIZED: z.stringbool().default(true),
  SMTP_TIMEOUT_SECONDS: integer(1, 300).default(30),
  /** Where completed results are dropped: a local folder per key (embedded) or one SFTP server. */
  DELIVERY: z.enum(['folder', 'sftp']).default('folder'),
  /** First retry delay of a failed folder delivery; doubles per attempt up to 15 minutes. */
  DELIVERY_RETRY_BASE_SECONDS: z.coerce.number().min(0.01).default(30),
  SFTP_HOST: z.string().min(1).optional(),
  SFTP_PORT: integer(1, 65535).default(22),
  SFTP_USERNAME: z.string().min(1).optional(),
  /** Path of the service account's private key (OpenSSH or PEM format); read at each connection. */
  SFTP_PRIVATE_KEY_FILE: z.string().min(1).optional(),
  /** Folder on the server (as the service account sees it) that holds one folder per key. */
  SFTP_ROOT: z.string().min(1).default('.'),
  /** The server's host key fingerprint as `ssh-keygen -lf` prints it (`SHA256:…`): the only key accepted. */
  SFTP_HOST_KEY_SHA256: z
    .string()
    .regex(
      /^(SHA256:)?[A-Za-z0-9+/]{43}=?$/,
      'must be a SHA256 fingerprint like SHA256:abc… (43 base64 characters)',
    )
    .optional(),
  SFTP_TIMEOUT_SECONDS: integer(1, 600).default(20),
  /** Lifetime of a web file browser sign-in. */
  FILE_BROWSER_SESSION_MINUTES: integer(1, 24 * 60).default(30),
  /** The social platform's Graph API (Meta Marketing API); a local server in tests. */
  META_GRAPH_URL: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
  /**
   * The pinned Marketing API version (`vNN.0`), a path segment. No default: a version stops
   * working about a year after its release, so a default baked into a release would go stale.
   */
  META_API_VERSION: z
    .string()
    .regex(/^v\d{1,3}\.0$/, 'must look like v24.0')
    .optional(),
  /** The operator's ad account, where Pattern #1 audiences are created (digits, `act_` optional). */
  META_AD_ACCOUNT_ID: z
    .string()
    .regex(/^(act_)?\d{1,20}$/, 'must be an ad account id: digits, optionally prefixed act_')
    .optional(),
  /** The system user's access token; or META_ACCESS_TOKEN_FILE. Never logged. */
  META_ACCESS_TOKEN: z.string().min(1).optional(),
  /** File holding the token (a mounted secret); read at each call, so it can be rotated in place. */
  META_ACCESS_TOKEN_FILE: z.string().min(1).optional(),
  /** Limit of one Graph API call, body included (a full 10,000-row batch is several megabytes). */
  META_TIMEOUT_SECONDS: integer(1, 600).default(60),
  /** The political DSP's API base; unset: `politicaldsp` audiences cannot be onboarded. */
  POLITICALDSP_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Its API token, or a file holding it (read at each call, so it can be rotated in place). */
  POLITICALDSP_TOKEN: z.string().min(1).optional(),
  POLITICALDSP_TOKEN_FILE: z.string().min(1).optional(),
  /** The media buying platform's API base; unset: `mbp_onboarding` has nowhere to go. */
  MBP_URL: z.url({ protocol: /^https?$/ }).optional(),
  MBP_TOKEN: z.string().min(1).optional(),
  MBP_TOKEN_FILE: z.string().min(1).optional(),
  /** Longest wait for one call to a file-drop platform; for a file upload, the longest silence. */
  FILE_DROP_TIMEOUT_SECONDS: integer(1, 600).default(60),
  /**
   * Scale-out: a PostgreSQL URL (`postgres://user:password@host:5432/db`). When set, keys, jobs,
   * the job queue and the rate limits live there, shared by every api and worker process.
   */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  /** Connections per process. */
  DATABASE_POOL_SIZE: integer(1, 200).default(10),
  /** Apply pending database migrations at start (else run `listmatch migrate` before starting). */
  MIGRATE_ON_START: z.stringbool().default(true),
  /** Scale-out: S3-compatible object storage for uploads and results, with native SigV4 presigned URLs. */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'must be a bucket name: 3-63 lower-case letters, digits, . or -',
    )
    .optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Path-style addressing (`endpoint/bucket/key`), which most self-hosted stores need. */
  S3_FORCE_PATH_STYLE: z.stringbool().default(true),
  /** Prefix of every key the service writes, to share a bucket. */
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/, 'must be a key prefix like listmatch/')
    .optional(),
  /** How often workers look for uploads that arrived in object storage (S3 mode). */
  UPLOAD_POLL_MS: integer(100, 60_000).default(1000),
});

/** Variables that must be set together with S3_BUCKET. */
const S3_REQUIRED = ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;

/** Each file-drop platform needs exactly one of its token and token file once its URL is set. */
const FILE_DROP_PLATFORMS = [
  ['POLITICALDSP_URL', 'POLITICALDSP_TOKEN', 'POLITICALDSP_TOKEN_FILE'],
  ['MBP_URL', 'MBP_TOKEN', 'MBP_TOKEN_FILE'],
] as const;

/** Variables that must be set together with DELIVERY=sftp. */
const SFTP_REQUIRED = [
  'SFTP_HOST',
  'SFTP_USERNAME',
  'SFTP_PRIVATE_KEY_FILE',
  'SFTP_HOST_KEY_SHA256',
] as const;

export type Config = Readonly<z.infer<typeof configSchema>> & { readonly publicUrl: string };

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.problems = problems;
  }
}

/** Parses `env` (defaults to `process.env`); throws a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant = Object.fromEntries(
    Object.keys(configSchema.shape).flatMap((name) => {
      const value = env[name];
      return value === undefined || value === '' ? [] : [[name, value]];
    }),
  );
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    // Name the variable and the rule, never echo the value: some are secrets.
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const data = parsed.data;
  const problems = [
    ...(data.MAIL === 'smtp' && data.SMTP_URL === undefined && data.SMTP_HOST === undefined
      ? ['SMTP_URL: MAIL=smtp needs SMTP_URL or SMTP_HOST']
      : []),
    ...(data.SMTP_URL !== undefined && data.SMTP_HOST !== undefined
      ? ['SMTP_HOST: give either SMTP_URL or SMTP_HOST, not both']
      : []),
    ...(data.SMTP_PASSWORD !== undefined && data.SMTP_USER === undefined
      ? ['SMTP_PASSWORD: needs SMTP_USER']
      : []),
    ...(data.DELIVERY === 'sftp'
      ? SFTP_REQUIRED.filter((name) => data[name] === undefined).map(
          (name) => `${name}: required when DELIVERY=sftp`,
        )
      : []),
    ...metaProblems(data),
    ...(data.S3_BUCKET !== undefined
      ? S3_REQUIRED.filter((name) => data[name] === undefined).map(
          (name) => `${name}: required with S3_BUCKET`,
        )
      : S3_REQUIRED.filter((name) => data[name] !== undefined).length > 0
        ? ['S3_BUCKET: required when S3_ENDPOINT or S3 credentials are set']
        : []),
    // Every process must sign and check URLs and sessions with the same secret; one generated into
    // a DATA_DIR is known to that machine only.
    ...((data.DATABASE_URL !== undefined || data.S3_BUCKET !== undefined) &&
    data.URL_SIGNING_SECRET === undefined
      ? ['URL_SIGNING_SECRET: required with DATABASE_URL or S3_BUCKET (all processes must share it)']
      : []),
  ];
  for (const [url, token, file] of FILE_DROP_PLATFORMS) {
    if (data[token] !== undefined && data[file] !== undefined) {
      problems.push(`${file}: give either ${token} or ${file}, not both`);
    } else if (data[url] !== undefined && data[token] === undefined && data[file] === undefined) {
      problems.push(`${token}: ${url} needs ${token} or ${file}`);
    } else if (data[url] === undefined && (data[token] !== undefined || data[file] !== undefined)) {
      problems.push(`${url}: required when ${data[token] !== undefined ? token : file} is set`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const publicUrl = (parsed.data.PUBLIC_URL ?? `http://localhost:${parsed.data.PORT}`).replace(/\/+$/, '');
  return Object.freeze({ ...parsed.data, publicUrl });
}

/** The social platform needs an ad account, a version and exactly one source of token, or none of them. */
function metaProblems(data: z.infer<typeof configSchema>): string[] {
  const hasToken = data.META_ACCESS_TOKEN !== undefined || data.META_ACCESS_TOKEN_FILE !== undefined;
  return [
    ...(data.META_ACCESS_TOKEN !== undefined && data.META_ACCESS_TOKEN_FILE !== undefined
      ? ['META_ACCESS_TOKEN_FILE: give either META_ACCESS_TOKEN or META_ACCESS_TOKEN_FILE, not both']
      : []),
    ...(hasToken && data.META_AD_ACCOUNT_ID === undefined
      ? ['META_AD_ACCOUNT_ID: required with a Meta access token']
      : []),
    ...(data.META_AD_ACCOUNT_ID !== undefined && data.META_API_VERSION === undefined
      ? ['META_API_VERSION: required with META_AD_ACCOUNT_ID (the current Marketing API version, e.g. v24.0)']
      : []),
    ...(!hasToken && data.META_AD_ACCOUNT_ID !== undefined
      ? ['META_ACCESS_TOKEN: META_AD_ACCOUNT_ID needs META_ACCESS_TOKEN or META_ACCESS_TOKEN_FILE']
      : []),
  ];
}
