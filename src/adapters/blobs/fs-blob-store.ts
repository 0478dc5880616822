import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, constants, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../domain/errors.ts';
import type { BlobListing, BlobStore, BlobWriter } from '../../domain/ports/blob-store.ts';

/**
 * Blobs as files under one root. Writes go to a temporary file in `.tmp/` on the same file
 * system and are renamed into place, so a blob is either whole or absent.
 */
export class FsBlobStore implements BlobStore {
  private readonly root: string;
  private readonly tmp: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.tmp = join(this.root, '.tmp');
  }

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

  async openWriter(key: string): Promise<BlobWriter> {
    const target = this.pathOf(key);
    await mkdir(this.tmp, { recursive: true });
    const temp = join(this.tmp, `${randomBytes(12).toString('hex')}.part`);
    // A large buffer lets the stream batch network chunks into one writev instead of a write each;
    // flush: the data reaches the disk (fsync) before the blob is renamed into place and announced.
    const stream = createWriteStream(temp, { flags: 'wx', highWaterMark: 4 * 1024 * 1024, flush: true });
    let settled = false;
    return {
      stream,
      commit: async () => {
        if (!stream.writableFinished) {
          await new Promise<void>((done, fail) => {
            stream.once('error', fail);
            if (stream.writableEnded) stream.once('finish', () => done());
            else stream.end(() => done());
          });
        }
        await mkdir(dirname(target), { recursive: true });
        await rename(temp, target);
        await syncDirectory(dirname(target));
        settled = true;
        return { bytes: (await stat(target)).size };
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        // The file is opened asynchronously: a stream destroyed while it opens creates the file
        // after all. Remove it only once the stream has closed, or it would outlive the abort.
        if (!stream.closed) {
          const closed = once(stream, 'close').catch(() => {});
          stream.destroy();
          await closed;
        }
        await rm(temp, { force: true });
      },
    };
  }

  async read(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    try {
      await access(path, constants.R_OK);
    } catch {
      throw new AppError('NOT_FOUND', 'the file no longer exists');
    }
    return createReadStream(path);
  }

  async stat(key: string): Promise<{ bytes: number } | null> {
    try {
      return { bytes: (await stat(this.pathOf(key))).size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }

  /**
   * Walks the folder that holds `prefix` (the part up to its last `/`) and keeps the files whose
   * key starts with `prefix`, sorted by key; `.tmp/` (blobs being written) is never listed.
   */
  async list(prefix: string, options: { after?: string; limit?: number } = {}): Promise<BlobListing[]> {
    const limit = options.limit ?? 1000;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new AppError('INTERNAL', 'invalid list limit');
    if (prefix !== '' && !/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(prefix)) {
      throw new AppError('INTERNAL', 'invalid blob key prefix');
    }
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    if (folder !== '') this.pathOf(folder.slice(0, -1));
    const after = options.after;
    const found: BlobListing[] = [];
    for await (const { key, path } of this.files(folder)) {
      if (!key.startsWith(prefix) || (after !== undefined && key <= after)) continue;
      const info = await stat(path).catch(() => null);
      if (info?.isFile()) found.push({ key, bytes: info.size, modifiedAt: Math.floor(info.mtimeMs) });
    }
    // Keys are ASCII, so UTF-16 order is byte order, the order S3 lists in.
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return found.slice(0, limit);
  }

  /** Files under `folder` (a key prefix ending in `/`, or '' for the root), recursively. */
  private async *files(folder: string): AsyncGenerator<{ key: string; path: string }> {
    const directory = folder === '' ? this.root : join(this.root, folder);
    const entries = await readdir(directory, { withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
        throw error;
      },
    );
    for (const entry of entries) {
      const key = `${folder}${entry.name}`;
      if (key === '.tmp') continue;
      if (entry.isDirectory()) yield* this.files(`${key}/`);
      else if (entry.isFile()) yield { key, path: join(directory, entry.name) };
    }
  }

  /** Removes temporary files older than `maxAgeMs` (left by a process killed mid-write). */
  async sweepTemporary(maxAgeMs: number, now = Date.now()): Promise<number> {
    const entries = await readdir(this.tmp, { withFileTypes: true }).catch(() => []);
    let removed = 0;
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(this.tmp, entry.name);
      const info = await stat(path).catch(() => null);
      if (info !== null && now - info.mtimeMs > maxAgeMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async healthy(): Promise<boolean> {
    try {
      await mkdir(this.tmp, { recursive: true });
      await access(this.tmp, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  /** Keys are ours (job ids and fixed names), but refuse anything that would leave the root. */
  private pathOf(key: string): string {
    if (!/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/.test(key) || key.includes('..')) {
      throw new AppError('INTERNAL', 'invalid blob key');
    }
    const path = resolve(this.root, key);
    if (!path.startsWith(this.root + sep)) throw new AppError('INTERNAL', 'invalid blob key');
    return path;
  }
}

/** fsyncs a directory so that a rename into it survives power loss. */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
