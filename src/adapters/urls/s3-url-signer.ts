import type { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AppError } from '../../domain/errors.ts';
import type { UrlGrant, UrlSigner } from '../../domain/ports/url-signer.ts';
import { createS3Client, objectKeyOf, type S3StoreConfig } from '../blobs/s3-client.ts';

/** SigV4 presigned URLs are valid for at most a week. */
const MAX_EXPIRES_SECONDS = 7 * 24 * 3600;
/**
 * The signing time is rounded down to this many seconds, so that the same grant signed again
 * within the window gives the same URL (repeated polls answer the same download URL, as with the
 * embedded signer). The URL still expires exactly at the grant's `expiresAt`.
 */
const SIGNING_WINDOW_SECONDS = 300;

/** Headers the store sends with a download, as overrides signed into the GET URL. */
export interface DownloadHeaders {
  contentType: string;
  contentDisposition: string;
  cacheControl: string;
}

export interface S3UrlSignerConfig extends S3StoreConfig {
  /**
   * The blob key (as given to the BlobStore, before `keyPrefix`) that a grant is for: the job's
   * upload for a `put` grant, its result for a `get` grant.
   */
  blobKeyOf(grant: UrlGrant): string | Promise<string>;
  /**
   * Where clients reach the store, when not at `endpoint` (a store inside a private network behind
   * a public name). The signature covers the host, so URLs are signed for this one.
   */
  publicEndpoint?: string;
  /** Download headers of a `get` grant; `downloadHeadersFor(grant.name)` by default. */
  downloadHeaders?(grant: UrlGrant): DownloadHeaders;
  /** Clock, epoch ms (tests). */
  now?(): number;
}

const CONTENT_TYPES: [suffix: string, type: string][] = [
  ['.csv.gz', 'application/gzip'],
  ['.zip', 'application/zip'],
  ['.csv', 'text/csv; charset=utf-8'],
];

/**
 * What the embedded download route sends: the type by suffix, an attachment with the result's
 * name, no caching. Never a Content-Encoding: a `.csv.gz` is the gzip file itself, and a client
 * whose HTTP library decodes `Content-Encoding: gzip` would break on it (docs/clients.md).
 */
export function downloadHeadersFor(name: string): DownloadHeaders {
  const type = CONTENT_TYPES.find(([suffix]) => name.endsWith(suffix))?.[1] ?? 'application/octet-stream';
  // Result names are `[A-Za-z0-9_.-]`; anything else would break out of the quoted string.
  const safeName = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return {
    contentType: type,
    contentDisposition: `attachment; filename="${safeName}"`,
    cacheControl: 'private, no-store',
  };
}

interface PresignSdk {
  GetObjectCommand: typeof GetObjectCommand;
  PutObjectCommand: typeof PutObjectCommand;
  getSignedUrl: typeof getSignedUrl;
}

/** Opens the signer; the AWS SDK is imported here, so that the embedded mode never loads it. */
export async function openS3UrlSigner(config: S3UrlSignerConfig): Promise<S3UrlSigner> {
  const [{ GetObjectCommand, PutObjectCommand }, { getSignedUrl }, client] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/s3-request-presigner'),
    createS3Client(
      config.publicEndpoint === undefined ? config : { ...config, endpoint: config.publicEndpoint },
    ),
  ]);
  return new S3UrlSigner(config, client, { GetObjectCommand, PutObjectCommand, getSignedUrl });
}

/**
 * Native SigV4 presigned URLs of the S3-compatible store: the store checks them, the service never
 * sees the transfer. A `put` URL signs only the host, so the client may send any Content-Type or
 * none, with a Content-Length or chunked. What S3 cannot do with a PUT URL: cap the size
 * (`maxBytes` is not enforced by the store) or refuse a second PUT (it replaces the object); the
 * service checks both when it notices the upload.
 */
export class S3UrlSigner implements UrlSigner {
  private readonly config: S3UrlSignerConfig;
  private readonly client: S3Client;
  private readonly sdk: PresignSdk;

  constructor(config: S3UrlSignerConfig, client: S3Client, sdk: PresignSdk) {
    this.config = config;
    this.client = client;
    this.sdk = sdk;
  }

  /** A URL that allows exactly the grant's operation on its object until `expiresAt`. */
  async sign(grant: UrlGrant): Promise<string> {
    const Key = objectKeyOf(this.config, await this.config.blobKeyOf(grant));
    const Bucket = this.config.bucket;
    const now = Math.floor((this.config.now?.() ?? Date.now()) / 1000);
    // Never after `expiresAt`, so that an already expired grant gives an expired URL, not an error.
    const signedAt = Math.min(
      Math.floor(now / SIGNING_WINDOW_SECONDS) * SIGNING_WINDOW_SECONDS,
      grant.expiresAt - 1,
    );
    const expiresIn = grant.expiresAt - signedAt;
    if (expiresIn > MAX_EXPIRES_SECONDS) {
      throw new AppError('INTERNAL', 'S3 presigned URLs last at most 7 days; lower the URL lifetime');
    }
    const headers =
      grant.op === 'get' ? (this.config.downloadHeaders?.(grant) ?? downloadHeadersFor(grant.name)) : null;
    const command =
      headers === null
        ? new this.sdk.PutObjectCommand({ Bucket, Key })
        : new this.sdk.GetObjectCommand({
            Bucket,
            Key,
            ResponseContentType: headers.contentType,
            ResponseContentDisposition: headers.contentDisposition,
            ResponseCacheControl: headers.cacheControl,
          });
    return this.sdk.getSignedUrl(this.client, command, { expiresIn, signingDate: new Date(signedAt * 1000) });
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }
}
