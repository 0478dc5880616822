import type { Readable, Writable } from 'node:stream';

/** A blob being written; invisible under its key until `commit`. */
export interface BlobWriter {
  stream: Writable;
  /** Makes the blob visible under its key atomically; resolves with its size. */
  commit(): Promise<{ bytes: number }>;
  /** Discards what was written. */
  abort(): Promise<void>;
}

/** Object storage for uploads and results. Backends: files under DATA_DIR (embedded), S3-compatible storage. */
export interface BlobStore {
  /**
   * Streams `source` into `key` atomically: on any error, including `maxBytes` exceeded
   * (AppError PAYLOAD_TOO_LARGE), nothing is left under the key.
   */
  put(
    key: string,
    source: AsyncIterable<Uint8Array>,
    options?: { maxBytes?: number },
  ): Promise<{ bytes: number }>;
  openWriter(key: string): Promise<BlobWriter>;
  /** Reads a blob; rejects with NOT_FOUND when it does not exist. */
  read(key: string): Promise<Readable>;
  stat(key: string): Promise<{ bytes: number } | null>;
  delete(key: string): Promise<void>;
  /** True when the store can be written to (for /readyz). */
  healthy(): Promise<boolean>;
}
