import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BlobStore, listPages } from '../../domain/ports/blob-store.ts';
import { ShardedVoterSnapshot } from '../../domain/voters/sharded-voter-snapshot.ts';
import type {
  VoterImportReport,
  VoterSnapshot,
  VoterStats,
  VoterStore,
} from '../../domain/voters/voter-snapshot.ts';
import { type FsVoterStore, isVoterVersion, versionFamily } from './fs-voter-store.ts';

/** What a published version holds, written after its files: a version without it is incomplete. */
interface Manifest {
  format: 1;
  version: string;
  stats: VoterStats;
  files: { path: string; bytes: number; sha256: string }[];
}

export interface BucketVoterStoreOptions {
  /** The voter files on this machine: the cache of fetched versions, and where imports are built. */
  local: FsVoterStore;
  /** The object storage every process shares. */
  blobs: BlobStore;
  /** Key prefix of the voter files in the bucket (default `voters/`). */
  prefix?: string;
  /** How long the bucket's CURRENT pointer is trusted before it is read again (default 30 s). */
  refreshMs?: number;
}

/**
 * The voter file shared through object storage (scale-out). An import is built on the machine that
 * runs it, as in the embedded mode, then published: every file of the version, a manifest with the
 * size and SHA-256 of each, and last the `CURRENT` pointer, so that no process ever sees a partial
 * version. A worker fetches a version the first time a job needs it into its own DATA_DIR (checked
 * against the manifest, then renamed into place) and opens it from there. Every process thus
 * matches against the same version id, and a job resumed on another worker finds the version it
 * pinned. Each side keeps two versions: a publish deletes older ones from the bucket, a fetch
 * older ones from this machine.
 */
export class BucketVoterStore implements VoterStore {
  private readonly local: FsVoterStore;
  private readonly blobs: BlobStore;
  private readonly prefix: string;
  private readonly refreshMs: number;
  private pointer: { version: string | null; readAt: number } | null = null;
  private readonly fetching = new Map<string, Promise<void>>();
  private readonly manifests = new Map<string, Manifest>();

  constructor(options: BucketVoterStoreOptions) {
    this.local = options.local;
    this.blobs = options.blobs;
    this.prefix = options.prefix ?? 'voters/';
    this.refreshMs = options.refreshMs ?? 30_000;
  }

  async current(): Promise<VoterSnapshot | null> {
    const version = await this.currentVersion();
    return version === null ? null : this.open(version);
  }

  async open(version: string): Promise<VoterSnapshot | null> {
    if (!isVoterVersion(version)) return null;
    let here = await this.local.open(version);
    if (here === null) {
      if ((await this.readManifest(version)) === null) return null;
      await this.fetch(version);
      here = await this.local.open(version);
    }
    // A sharded version's shards are fetched one by one, when a chunk or a lookup needs them.
    return here instanceof ShardedVoterSnapshot ? here.withOpener((shard) => this.open(shard)) : here;
  }

  /** From the manifest, without fetching the version (readiness probes call it often). */
  async stats(): Promise<VoterStats | null> {
    const version = await this.currentVersion();
    return version === null ? null : ((await this.readManifest(version, true))?.stats ?? null);
  }

  /**
   * Builds the new version here and publishes it. An append starts from the cluster's current
   * version (fetched first), not from whatever this machine last built.
   */
  async importFile(
    path: string,
    options: { replace: boolean; onProgress?: (bytesRead: number, totalBytes: number) => void },
  ): Promise<VoterImportReport> {
    if (!options.replace) {
      const base = await this.currentVersion(true);
      if (base !== null && (await this.open(base)) !== null) await this.local.makeCurrent(base);
    }
    const report = await this.local.importFile(path, options);
    await this.publish(report.version);
    return report;
  }

  /**
   * Uploads a version built here: its files, then the manifest, then the pointer. A sharded
   * version publishes each shard as a version of its own first, then the one that names them.
   */
  async publish(version: string): Promise<void> {
    const stats = await this.local.stats();
    if (stats === null || stats.version !== version) throw new Error('the import did not become current');
    const whole = await this.local.open(version);
    for (const shard of whole?.shardMap?.shards ?? []) {
      const shardStats = await this.local.statsOf(shard.version);
      if (shardStats === null) throw new Error(`shard ${shard.id} of the import is missing`);
      await this.publishFiles(shard.version, shardStats);
    }
    await this.publishFiles(version, stats);
    await this.blobs.put(`${this.prefix}CURRENT`, once(version));
    this.pointer = { version, readAt: Date.now() };
    await this.pruneBucket(version);
  }

  private async publishFiles(version: string, stats: VoterStats): Promise<void> {
    const dir = this.local.versionDir(version);
    const files: Manifest['files'] = [];
    for (const file of await listFiles(dir)) {
      const hashing = new Sha256PassThrough();
      const source = createReadStream(join(dir, file)).pipe(hashing);
      const { bytes } = await this.blobs.put(this.key(version, file), source);
      files.push({ path: file, bytes, sha256: hashing.hex() });
    }
    const manifest: Manifest = { format: 1, version, stats, files };
    await this.blobs.put(this.key(version, 'manifest.json'), once(JSON.stringify(manifest)));
  }

  /**
   * Deletes the published versions other than `current` and the newest one before it (a job
   * pinned to that one may still resume elsewhere), manifest first so that no process starts
   * fetching a version whose files are going.
   */
  private async pruneBucket(current: string): Promise<void> {
    const keys: string[] = [];
    for await (const page of listPages(this.blobs, this.prefix)) keys.push(...page.map((blob) => blob.key));
    const versions = [...new Set(keys.map((key) => key.slice(this.prefix.length).split('/')[0]!))]
      .filter((name) => isVoterVersion(name))
      .sort();
    // An import and its shards go together.
    const families = [...new Set(versions.map(versionFamily))].sort();
    const previous = families.filter((name) => name < versionFamily(current)).at(-1);
    for (const version of versions) {
      const family = versionFamily(version);
      if (family === versionFamily(current) || family === previous) continue;
      const files = keys.filter((key) => key.startsWith(`${this.prefix}${version}/`));
      const manifest = this.key(version, 'manifest.json');
      await this.blobs.delete(manifest);
      for (const key of files) if (key !== manifest) await this.blobs.delete(key);
    }
  }

  /** The cluster's current version, from the bucket's pointer (cached for refreshMs). */
  private async currentVersion(fresh = false): Promise<string | null> {
    if (!fresh && this.pointer !== null && Date.now() - this.pointer.readAt < this.refreshMs) {
      return this.pointer.version;
    }
    const text = await this.readText(`${this.prefix}CURRENT`);
    const version = text === null ? null : text.trim();
    const valid = version !== null && isVoterVersion(version) ? version : null;
    this.pointer = { version: valid, readAt: Date.now() };
    return valid;
  }

  /**
   * A version's manifest, or null when the version is not (or no longer) published. A published
   * version never changes, so `cached` may answer from memory; whether it still exists may change.
   */
  private async readManifest(version: string, cached = false): Promise<Manifest | null> {
    const known = cached ? this.manifests.get(version) : undefined;
    if (known !== undefined) return known;
    const text = await this.readText(this.key(version, 'manifest.json'));
    if (text === null) return null;
    const manifest = JSON.parse(text) as Manifest;
    if (manifest.format !== 1 || manifest.version !== version) {
      throw new Error(
        `the manifest of voter file ${version} in object storage is not one this version reads`,
      );
    }
    this.manifests.set(version, manifest);
    return manifest;
  }

  /** Downloads a version once per process at a time, checks every file, then renames it into place. */
  private fetch(version: string): Promise<void> {
    let running = this.fetching.get(version);
    if (running === undefined) {
      running = this.download(version).finally(() => this.fetching.delete(version));
      this.fetching.set(version, running);
    }
    return running;
  }

  private async download(version: string): Promise<void> {
    const manifest = await this.readManifest(version);
    if (manifest === null) throw new Error(`voter file ${version} is not in object storage`);
    const staging = this.local.stagingDir(version);
    try {
      for (const file of manifest.files) {
        if (file.path.split('/').some((part) => part === '..' || part === '')) {
          throw new Error(`the manifest of voter file ${version} names an unsafe path`);
        }
        const target = join(staging, ...file.path.split('/'));
        await mkdir(dirname(target), { recursive: true });
        const hashing = new Sha256PassThrough();
        await pipeline(
          await this.blobs.read(this.key(version, file.path)),
          hashing,
          createWriteStream(target),
        );
        if (hashing.bytes !== file.bytes || hashing.hex() !== file.sha256) {
          throw new Error(
            `voter file ${version}: ${file.path} in object storage does not match its manifest`,
          );
        }
      }
      try {
        await rename(staging, this.local.versionDir(version));
      } catch (error) {
        // Another process on this machine put the same version in place first: theirs is as good.
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    // A worker keeps what it fetched last and the newest versions, not every import ever made.
    await this.local.pruneExcept([version]);
  }

  private key(version: string, file: string): string {
    return `${this.prefix}${version}/${file}`;
  }

  private async readText(key: string): Promise<string | null> {
    if ((await this.blobs.stat(key)) === null) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of await this.blobs.read(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** Passes bytes through unchanged, counting them and hashing them with SHA-256. */
class Sha256PassThrough extends Transform {
  bytes = 0;
  private readonly digest = createHash('sha256');

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ) {
    this.digest.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  /** The hex digest of everything passed through; call once, after the stream ended. */
  hex(): string {
    return this.digest.digest('hex');
  }
}

async function* once(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

/** Every file under `dir`, as `/`-separated paths relative to it, in a stable order. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    files.push(relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
  }
  return files.sort();
}
