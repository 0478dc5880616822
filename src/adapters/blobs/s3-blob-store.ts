import { PassThrough, Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { AppError, isAppError } from '../../domain/errors.ts';
import type { BlobListing, BlobStore, BlobWriter } from '../../domain/ports/blob-store.ts';
import { createS3Client, isNotFound, objectKeyOf, type S3StoreConfig, storageError } from './s3-client.ts';

type S3Sdk = typeof import('@aws-sdk/client-s3');
type StorageSdk = typeof import('@aws-sdk/lib-storage');

/** S3's smallest part of a multipart upload (all but the last part). */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** One listing request returns at most this many keys (S3's own page size). */
const LIST_PAGE = 1000;

export interface S3BlobStoreConfig extends S3StoreConfig {
  /**
   * Part size of multipart uploads, at least 5 MiB (S3's minimum). A blob that fits in one part
   * goes up in one PUT when it is committed. Default 8 MiB.
   */
  partSizeBytes?: number;
  /** Parts of one writer uploaded at the same time; each is held in memory meanwhile. Default 4. */
  queueSize?: number;
  /** How long `healthy` waits for the store. Default 3000 ms. */
  healthTimeoutMs?: number;
}

/**
 * Opens the S3-compatible blob store. The AWS SDK is imported here, so that the embedded mode,
 * which never calls this, never loads it.
 */
export async function openS3BlobStore(config: S3BlobStoreConfig): Promise<S3BlobStore> {
  const partSize = config.partSizeBytes ?? 8 * 1024 * 1024;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_BYTES) {
    throw new AppError('INTERNAL', `the S3 part size must be at least ${MIN_PART_BYTES} bytes`);
  }
  const [sdk, storage, client] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
    createS3Client(config),
  ]);
  return new S3BlobStore({ ...config, partSizeBytes: partSize }, client, sdk, storage);
}

/**
 * Blobs as objects of one bucket of an S3-compatible store (AWS S3, Swift's s3api, …). A writer
 * streams into a multipart upload whose parts stay invisible until `commit` completes it (a blob
 * smaller than one part is held in memory and PUT at `commit`); `abort` aborts the multipart
 * upload, which deletes the parts sent so far. Build it with `openS3BlobStore`.
 */
export class S3BlobStore implements BlobStore {
  private readonly config: S3BlobStoreConfig & { partSizeBytes: number };
  private readonly client: S3Client;
  private readonly sdk: S3Sdk;
  private readonly storage: StorageSdk;
  private readonly secrets: readonly string[];

  constructor(
    config: S3BlobStoreConfig & { partSizeBytes: number },
    client: S3Client,
    sdk: S3Sdk,
    storage: StorageSdk,
  ) {
    this.config = config;
    this.client = client;
    this.sdk = sdk;
    this.storage = storage;
    this.secrets = [config.secretAccessKey, config.accessKeyId];
  }

  /** Streams `source` into a writer; over `maxBytes` (PAYLOAD_TOO_LARGE) or on any error, the upload is aborted. */
  async put(
    key: string,
    source: AsyncIterable<Uint8Array>,
    options: { maxBytes?: number } = {},
  ): Promise<{ bytes: number }> {
    const writer = await this.openWriter(key);
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    let bytes = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          callback(new AppError('PAYLOAD_TOO_LARGE', `the upload exceeds the maximum of ${maxBytes} bytes`));
          return;
        }
        callback(null, chunk);
      },
    });
    try {
      await pipeline(source, cap, writer.stream);
      return await writer.commit();
    } catch (error) {
      await writer.abort();
      throw error;
    }
  }

  /**
   * A writer over a lib-storage `Upload`. Ending `stream` does not end the upload's body: only
   * `commit` does, so that neither the single PUT nor CompleteMultipartUpload happens before it.
   * `abort` fails the body instead, which makes the upload abort the multipart upload, and waits
   * for that. A failed part upload makes lib-storage stop reading (it destroys `body`) and abort
   * the multipart upload; the writer's next write, or `commit`, then fails with that error.
   */
  async openWriter(key: string): Promise<BlobWriter> {
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    // Errors on `body` are the ones `abort` injects; the upload reports them through `finished`.
    body.on('error', () => {});
    const upload = new this.storage.Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: this.objectKey(key), Body: body },
      partSize: this.config.partSizeBytes,
      queueSize: this.config.queueSize ?? 4,
      leavePartsOnError: false,
    });
    const finished: Promise<void> = upload.done().then(
      () => undefined,
      (error: unknown) => {
        throw this.wrap('upload', error, key);
      },
    );
    let bytes = 0;
    let settled = false;
    const stream = new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        // The upload destroys `body` when it fails (or is aborted): report why it failed.
        const failed = (): void => {
          void finished.then(
            () => callback(new AppError('INTERNAL', 'the upload to object storage stopped')),
            (error: unknown) => callback(error as Error),
          );
        };
        if (body.destroyed) {
          failed();
          return;
        }
        if (body.write(chunk)) {
          callback();
          return;
        }
        const drained = () => {
          body.off('close', closed);
          callback();
        };
        const closed = () => {
          body.off('drain', drained);
          failed();
        };
        body.once('drain', drained);
        body.once('close', closed);
      },
      final(callback) {
        callback();
      },
    });
    // The writer's user sees a failed upload through its pipeline (which listens) or at `commit`;
    // without this listener, a failure while nobody listens would crash the process.
    stream.on('error', () => {});
    finished.catch((error: unknown) => {
      if (!stream.destroyed && !stream.writableFinished) stream.destroy(error as Error);
    });
    return {
      stream,
      commit: async () => {
        if (settled) throw new AppError('INTERNAL', 'this blob writer was already committed or aborted');
        // A finished Writable destroys itself (autoDestroy): only one destroyed before finishing failed.
        if (stream.errored !== null || (stream.destroyed && !stream.writableFinished)) {
          // Failed upload (then `errored` is its error) or a writer destroyed by its user: never
          // complete what may be a partial blob.
          const reason =
            stream.errored ?? new AppError('INTERNAL', 'the blob writer was destroyed before commit');
          if (!body.writableEnded) body.destroy(new Error('blob write aborted'));
          await finished.catch(() => {});
          throw reason;
        }
        if (!stream.writableFinished) {
          await new Promise<void>((done, fail) => {
            stream.once('error', fail);
            if (stream.writableEnded) stream.once('finish', () => done());
            else stream.end(() => done());
          });
        }
        body.end();
        await finished;
        settled = true;
        return { bytes };
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        stream.destroy();
        if (!body.writableEnded) body.destroy(new Error('blob write aborted'));
        await finished.catch(() => {});
      },
    };
  }

  /** Streams an object; NOT_FOUND when it does not exist. */
  async read(key: string): Promise<Readable> {
    let body: unknown;
    try {
      const answer = await this.client.send(
        new this.sdk.GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }),
      );
      body = answer.Body;
    } catch (error) {
      if (isNotFound(error)) throw new AppError('NOT_FOUND', 'the file no longer exists');
      throw this.wrap('read', error, key);
    }
    // In Node the SDK answers with the response stream itself (an IncomingMessage).
    if (body instanceof Readable) return body;
    throw new AppError('INTERNAL', 'object storage returned no body stream');
  }

  /** HEAD of the object; null when it does not exist. */
  async stat(key: string): Promise<{ bytes: number } | null> {
    try {
      const answer = await this.client.send(
        new this.sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }),
      );
      return { bytes: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.wrap('stat', error, key);
    }
  }

  /** Deletes the object (and, for a multipart one, its parts); a missing object is no error. */
  async delete(key: string): Promise<void> {
    try {
      await this.client.send(
        new this.sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }),
      );
    } catch (error) {
      if (isNotFound(error)) return;
      throw this.wrap('delete', error, key);
    }
  }

  /**
   * ListObjectsV2 pages until `limit` keys are found. `after` is S3's StartAfter; the key prefix
   * of the config is added to the request and removed from the answer. Uploads in progress are
   * not objects yet, so they are not listed.
   */
  async list(prefix: string, options: { after?: string; limit?: number } = {}): Promise<BlobListing[]> {
    const limit = options.limit ?? 1000;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new AppError('INTERNAL', 'invalid list limit');
    const strip = (this.config.keyPrefix ?? '').length;
    const found: BlobListing[] = [];
    let token: string | undefined;
    do {
      let page: import('@aws-sdk/client-s3').ListObjectsV2CommandOutput;
      try {
        page = await this.client.send(
          new this.sdk.ListObjectsV2Command({
            Bucket: this.config.bucket,
            Prefix: this.objectKey(prefix),
            ...(options.after === undefined ? {} : { StartAfter: this.objectKey(options.after) }),
            ...(token === undefined ? {} : { ContinuationToken: token }),
            MaxKeys: Math.min(LIST_PAGE, limit - found.length),
          }),
        );
      } catch (error) {
        throw this.wrap('list', error, prefix);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || found.length >= limit) continue;
        found.push({
          key: object.Key.slice(strip),
          bytes: object.Size ?? 0,
          modifiedAt: object.LastModified?.getTime() ?? 0,
        });
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined && found.length < limit);
    return found;
  }

  /** HeadBucket within `healthTimeoutMs`: the bucket exists and these credentials may use it. */
  async healthy(): Promise<boolean> {
    try {
      await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: this.config.bucket }), {
        abortSignal: AbortSignal.timeout(this.config.healthTimeoutMs ?? 3000),
      });
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  /** The object key of a blob key (or of a key prefix, which may be empty). */
  private objectKey(key: string): string {
    return objectKeyOf(this.config, key);
  }

  private wrap(operation: string, error: unknown, key: string): AppError {
    if (isAppError(error)) return error;
    return storageError(operation, error, this.secrets, key);
  }
}
