import type { Readable, Writable } from 'node:stream';

/** A blob being written; invisible under its key until `commit`. */
export interface BlobWriter {
  stream: Writable;
  /** Makes the blob visible under its key atomically; resolves with its size. */
  commit(): Promise<{ bytes: number }>;
  /** Discards what was written. */
  abort(): Promise<void>;
}

/** One stored blob, as `list` reports it. */
export interface BlobListing {
  key: string;
  bytes: number;
  /** Last write, epoch milliseconds (S3-compatible stores keep whole seconds). */
  modifiedAt: number;
}

/**
 * Object storage for uploads and results. Backends: files under DATA_DIR (embedded), S3-compatible
 * storage. Keys are `/`-separated names of `[A-Za-z0-9_.-]`, starting with a letter, digit or `_`,
 * without `..`; the embedded store refuses anything else.
 */
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
  /**
   * Blobs whose key starts with `prefix` (a plain string prefix, not a folder), in ascending key
   * order: only keys after `after` when given, at most `limit` (default 1000) of them. Blobs still
   * being written are not listed. Page on by passing the last key as `after`.
   */
  list(prefix: string, options?: { after?: string; limit?: number }): Promise<BlobListing[]>;
  /** True when the store can be written to (for /readyz). */
  healthy(): Promise<boolean>;
}

/**
 * Every blob under `prefix`, page by page (`list` with `after`), in key order. A page shorter than
 * `pageSize` is the last one.
 */
export async function* listPages(
  blobs: BlobStore,
  prefix: string,
  pageSize = 1000,
): AsyncGenerator<BlobListing[]> {
  let after: string | undefined;
  for (;;) {
    const page = await blobs.list(prefix, { limit: pageSize, ...(after === undefined ? {} : { after }) });
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.key;
  }
}
