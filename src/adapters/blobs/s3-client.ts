import type { S3Client } from '@aws-sdk/client-s3';
import { AppError } from '../../domain/errors.ts';

/** Where the blobs of an S3-compatible store live and how to reach it. */
export interface S3StoreConfig {
  /** `http(s)://host[:port]` of the store; omit for AWS itself (derived from `region`). */
  endpoint?: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`; most self-hosted stores need it. */
  forcePathStyle: boolean;
  /** Prepended to every blob key (`listmatch/` keeps the service's objects apart in a shared bucket). */
  keyPrefix?: string;
}

/**
 * A client for the store. The AWS SDK is loaded here, on first use, so that the embedded mode never
 * loads it.
 *
 * Checksums only when an operation requires them: the SDK's default (`WHEN_SUPPORTED`) adds a CRC32
 * to every upload, which bakes `x-amz-checksum-crc32` of an empty body into presigned PUT URLs
 * (AWS then refuses every real upload to them) and sends streaming bodies `aws-chunked`, which
 * Swift's s3api and other S3-compatible stores refuse.
 */
export async function createS3Client(config: S3StoreConfig): Promise<S3Client> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that does not answer the connection attempt is down; slow transfers are not bounded
    // here (a reader may pause a download for as long as its consumer needs).
    requestHandler: { connectionTimeout: 5000 },
  });
}

/** The object key of a blob key. */
export function objectKeyOf(config: Pick<S3StoreConfig, 'keyPrefix'>, key: string): string {
  return `${config.keyPrefix ?? ''}${key}`;
}

/** The HTTP status of an SDK error, when the store answered at all. */
export function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}

/**
 * True for "no such key" answers. A missing bucket is a configuration error, not a missing blob;
 * but a HEAD answer has no body to say which, so `stat` cannot tell them apart (`healthy` can).
 */
export function isNotFound(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'NoSuchBucket') return false;
  return statusOf(error) === 404 || name === 'NoSuchKey' || name === 'NotFound';
}

/**
 * Wraps an SDK error into an AppError whose message is safe for clients and whose cause keeps what
 * an operator needs (operation, status, S3 error code, request id) without the original object:
 * SDK errors carry the raw response, and messages of some failures quote the request URL, which
 * for a presigned request holds its signature. Credentials and signatures are scrubbed from the
 * message that is kept.
 */
export function storageError(
  operation: string,
  error: unknown,
  secrets: readonly string[],
  key?: string,
): AppError {
  const status = statusOf(error);
  const failure = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    $metadata?: { requestId?: unknown };
  };
  const cause = new Error(
    `${operation}${key === undefined ? '' : ` ${key}`}: ${scrub(String(failure?.message ?? error), secrets)}`,
  );
  cause.name = typeof failure?.name === 'string' ? `S3 ${failure.name}` : 'S3 error';
  Object.assign(cause, {
    status,
    code: typeof failure?.code === 'string' ? failure.code : undefined,
    requestId: typeof failure?.$metadata?.requestId === 'string' ? failure.$metadata.requestId : undefined,
  });
  // No answer, or the store's own trouble (5xx, throttling): try again later. Anything else
  // (refused signature, missing bucket) is a configuration problem of this service.
  const unavailable = status === undefined || status >= 500 || status === 429;
  return unavailable
    ? new AppError('UNAVAILABLE', 'object storage is unavailable; try again later', { cause })
    : new AppError('INTERNAL', 'object storage refused the request', { cause });
}

/** Removes SigV4 query signatures and credentials from a message. */
export function scrub(message: string, secrets: readonly string[]): string {
  let safe = message.replace(
    /(X-Amz-(?:Signature|Credential|Security-Token)|Signature|AWSAccessKeyId)=[^&\s"'<>]*/gi,
    '$1=[redacted]',
  );
  for (const secret of secrets) {
    if (secret.length >= 4) safe = safe.split(secret).join('[redacted]');
  }
  return safe;
}
