import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, readFileSync, readlinkSync } from 'node:fs';
import { access, constants, mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, storageFullOr } from '../../domain/errors.ts';
import type { BlobListing, BlobStore, BlobWriter } from '../../domain/ports/blob-store.ts';

/** How often a process touches the temporary files it is writing (their mtime says it is alive). */
export const TEMP_TOUCH_MS = 60_000;
/**
 * A temporary file untouched for this long belongs to no live process: its writer touches it every
 * TEMP_TOUCH_MS, so only a process that is gone (or frozen for this long) leaves one this old.
 */
export const TEMP_STALE_MS = 15 * 60_000;

/**
 * Blobs as files under one root. Writes go to a temporary file in `.tmp/` on the same file
 * system and are renamed into place, so a blob is either whole or absent.
 *
 * Several processes may share the root (ROLES=api and ROLES=worker on one DATA_DIR), so a
 * temporary file is named after the process writing it (`<machine>-<pid>-<random>.part`, where
 * `<machine>` stands for this boot of this machine and this process namespace), and each process
 * touches its files while it writes them. A crash leaves them behind, holding personal data (a
 * partial upload, a copy of a result): sweepTemporary removes those of processes that are gone.
 * A full disk or quota is reported as STORAGE_FULL (the service's fault, never the client's).
 */
export class FsBlobStore implements BlobStore {
  private readonly root: string;
  private readonly tmp: string;
  private readonly touchEveryMs: number;
  /** The temporary files this process is writing (touched every `touchEveryMs`, kept by sweeps). */
  private readonly writing = new Set<string>();
  private touchTimer: NodeJS.Timeout | null = null;

  /** `touchEveryMs`: how often temporary files in progress are touched (tests shorten it). */
  constructor(root: string, options: { touchEveryMs?: number } = {}) {
    this.root = resolve(root);
    this.tmp = join(this.root, '.tmp');
    this.touchEveryMs = options.touchEveryMs ?? TEMP_TOUCH_MS;
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
      throw storageFullOr(error);
    }
  }

  async openWriter(key: string): Promise<BlobWriter> {
    const target = this.pathOf(key);
    await mkdir(this.tmp, { recursive: true }).catch((error: unknown) => {
      throw storageFullOr(error);
    });
    const temp = join(this.tmp, `${ownerTag()}-${process.pid}-${randomBytes(12).toString('hex')}.part`);
    this.startWriting(temp);
    // A large buffer lets the stream batch network chunks into one writev instead of a write each;
    // flush: the data reaches the disk (fsync) before the blob is renamed into place and announced.
    const stream = createWriteStream(temp, { flags: 'wx', highWaterMark: 4 * 1024 * 1024, flush: true });
    // Whoever writes to the stream (a pipeline, a job) sees a full disk as STORAGE_FULL: the error
    // a stream emits is the one its _destroy hands on.
    const destroy = stream._destroy.bind(stream);
    stream._destroy = (error, callback) =>
      destroy(error, (failure) => callback(storageFullOr(failure) as Error | null | undefined));
    let settled = false;
    return {
      stream,
      commit: async () => {
        try {
          if (!stream.writableFinished) {
            await new Promise<void>((done, fail) => {
              stream.once('error', fail);
              if (stream.writableEnded) stream.once('finish', () => done());
              else stream.end(() => done());
            });
          }
          await mkdir(dirname(target), { recursive: true });
          await rename(temp, target);
          settled = true;
          this.stopWriting(temp);
          await syncDirectory(dirname(target));
          return { bytes: (await stat(target)).size };
        } catch (error) {
          throw storageFullOr(error);
        }
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
        this.stopWriting(temp);
      },
    };
  }

  private startWriting(temp: string): void {
    this.writing.add(temp);
    if (this.touchTimer !== null) return;
    this.touchTimer = setInterval(() => {
      const now = new Date();
      // A file not created yet, or gone meanwhile, needs no touch.
      for (const path of this.writing) utimes(path, now, now).catch(() => {});
    }, this.touchEveryMs);
    this.touchTimer.unref();
  }

  private stopWriting(temp: string): void {
    this.writing.delete(temp);
    if (this.writing.size > 0 || this.touchTimer === null) return;
    clearInterval(this.touchTimer);
    this.touchTimer = null;
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

  /**
   * Removes the temporary files of writes cut short by a crash: at once those of a process of
   * this machine (and process namespace) that is no longer running, and any file untouched for
   * `maxAgeMs` (a process elsewhere, in another container, or of a version that named its files
   * otherwise). Run at start and by housekeeping; with `maxAgeMs` at least TEMP_STALE_MS it never
   * removes a file a live process is writing. Returns how many files it removed.
   */
  async sweepTemporary(maxAgeMs: number, now = Date.now()): Promise<number> {
    const entries = await readdir(this.tmp, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    let removed = 0;
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const path = join(this.tmp, entry.name);
      if (this.writing.has(path)) continue;
      const info = await stat(path).catch(() => null);
      if (info === null) continue;
      if (now - info.mtimeMs > maxAgeMs || this.writerIsGone(entry.name)) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** True when the temporary file's name says it was written by a process of ours that is gone. */
  private writerIsGone(name: string): boolean {
    const owner = /^([0-9a-f]{12})-([1-9][0-9]*)-[0-9a-f]+\.part$/.exec(name);
    if (owner === null || owner[1] !== ownerTag()) return false;
    // This process's own pid runs (another store of this process may be writing the file); a
    // file left by an earlier process that had it, or that had a pid now reused, goes when stale.
    return !processRuns(Number(owner[2]));
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

let cachedOwnerTag: string | undefined;

/**
 * Names the place where a process id means one process: this boot of this machine and, on
 * Linux, this process namespace (a container's pids mean nothing outside it). 12 hex digits.
 */
function ownerTag(): string {
  if (cachedOwnerTag === undefined) {
    let place: string;
    try {
      place = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}|${readlinkSync('/proc/self/ns/pid')}`;
    } catch {
      // Not Linux: no pid namespaces; the host name tells machines sharing a folder apart.
      place = hostname();
    }
    cachedOwnerTag = createHash('sha256').update(place).digest('hex').slice(0, 12);
  }
  return cachedOwnerTag;
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
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
