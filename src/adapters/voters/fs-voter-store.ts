import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../domain/errors.ts';
import { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import { ShardedVoterSnapshot } from '../../domain/voters/sharded-voter-snapshot.ts';
import type {
  VoterImportReport,
  VoterSnapshot,
  VoterStats,
  VoterStore,
} from '../../domain/voters/voter-snapshot.ts';
import { syncDirectory } from '../blobs/fs-blob-store.ts';
import { importSharded, memoryBytes, SHARD_DIRECTORY_FILE } from './sharded-import.ts';
import { buildSnapshot, loadMatchIndex } from './snapshot-builder.ts';
import {
  FsVoterSnapshot,
  isVoterVersion,
  readMeta,
  SNAPSHOT_FORMAT,
  type SnapshotMeta,
  versionFamily,
} from './snapshot-files.ts';

export { isVoterVersion, versionFamily } from './snapshot-files.ts';

/**
 * Voter file versions under `<dir>/<version>/`, the current one named by `<dir>/CURRENT`
 * (replaced by rename, so a reader sees the old or the new version, never a half-built one).
 * Imports build a version (snapshot-builder.ts) and switch to it; loaded versions are cached,
 * the least recently used let go beyond a memory budget (snapshot-files.ts reads them).
 */
const VERSIONS_KEPT = 2;

export interface FsVoterStoreOptions {
  dir: string;
  maxRowBytes: number;
  /** Import voter files as shards by state, no shard above this many records (null: one snapshot). */
  shardMaxRows?: number | null;
  /**
   * Memory for loaded snapshots (bytes, estimated from their files): the least recently used
   * shards are let go beyond it. Unset: every shard of the two newest imports used stays loaded.
   */
  cacheBytes?: number;
  /** Called when a loaded snapshot is let go (its matching threads can be closed). */
  onEvict?: (snapshot: VoterSnapshot) => void;
  /** Called when a snapshot is loaded into memory (a metric). */
  onLoad?: (snapshot: VoterSnapshot) => void;
}

/** Imports whose loaded snapshots stay cached (the current one and the one a resumed job may pin). */
const FAMILIES_CACHED = 2;

export class FsVoterStore implements VoterStore {
  private readonly dir: string;
  private readonly maxRowBytes: number;
  private readonly shardMaxRows: number | null;
  private readonly cacheBytes: number;
  private readonly onEvict: ((snapshot: VoterSnapshot) => void) | undefined;
  private readonly onLoad: ((snapshot: VoterSnapshot) => void) | undefined;
  /** Loaded snapshots, least recently used first. */
  private readonly cache = new Map<string, { snapshot: VoterSnapshot; bytes: number }>();
  private readonly loading = new Map<string, Promise<VoterSnapshot | null>>();
  /** Versions a running job is matching against now: never let go. */
  private readonly pinned = new Map<string, number>();

  constructor(options: FsVoterStoreOptions) {
    this.dir = options.dir;
    this.maxRowBytes = options.maxRowBytes;
    this.shardMaxRows = options.shardMaxRows ?? null;
    this.cacheBytes = options.cacheBytes ?? Number.POSITIVE_INFINITY;
    this.onEvict = options.onEvict;
    this.onLoad = options.onLoad;
  }

  /**
   * Keeps a version loaded while a job matches against it (another job's load must not let it go
   * to stay within cacheBytes); returns the release.
   */
  pin(version: string): () => void {
    this.pinned.set(version, (this.pinned.get(version) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.pinned.get(version) ?? 1) - 1;
      if (left > 0) this.pinned.set(version, left);
      else this.pinned.delete(version);
    };
  }

  /** The snapshots loaded in this process now (what a worker prefers to match against). */
  loadedVersions(): string[] {
    return [...this.cache.keys()];
  }

  async current(): Promise<VoterSnapshot | null> {
    const version = await this.currentVersion();
    return version === null ? null : this.open(version);
  }

  async open(version: string): Promise<VoterSnapshot | null> {
    const hit = this.cache.get(version);
    if (hit !== undefined) {
      this.cache.delete(version);
      this.cache.set(version, hit);
      return hit.snapshot;
    }
    if (!isVoterVersion(version)) return null;
    let loading = this.loading.get(version);
    if (loading === undefined) {
      loading = this.load(version).finally(() => this.loading.delete(version));
      this.loading.set(version, loading);
    }
    return loading;
  }

  private async load(version: string): Promise<VoterSnapshot | null> {
    const versionDir = join(this.dir, version);
    const meta = await readMeta(versionDir);
    if (meta === null) return null;
    if (meta.shards !== undefined) {
      // The map and the directory: nothing of the shards is loaded until a chunk or an id lookup
      // needs it. A version imported before there were directories has none.
      const directoryBytes = await readFile(join(versionDir, SHARD_DIRECTORY_FILE)).catch((error) => {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      });
      const whole = new ShardedVoterSnapshot(
        { ...meta, shards: meta.shards },
        (shard) => this.open(shard),
        directoryBytes === null ? null : ShardDirectory.fromBytes(directoryBytes),
      );
      this.remember(version, whole, 0);
      return whole;
    }
    const snapshot = await FsVoterSnapshot.load(versionDir, meta, loadMatchIndex);
    this.onLoad?.(snapshot);
    this.remember(version, snapshot, await memoryBytes(versionDir));
    return snapshot;
  }

  /** Caches a loaded snapshot and lets go of the least recently used ones beyond the budget. */
  private remember(version: string, snapshot: VoterSnapshot, bytes: number): void {
    this.cache.set(version, { snapshot, bytes });
    const families: string[] = [];
    for (const name of [...this.cache.keys()].reverse()) {
      const family = versionFamily(name);
      if (!families.includes(family)) families.push(family);
    }
    const kept = new Set(families.slice(0, FAMILIES_CACHED));
    let total = 0;
    for (const entry of this.cache.values()) total += entry.bytes;
    for (const [name, entry] of this.cache) {
      if (name === version || this.pinned.has(name)) continue;
      if (kept.has(versionFamily(name)) && total <= this.cacheBytes) continue;
      this.cache.delete(name);
      total -= entry.bytes;
      this.onEvict?.(entry.snapshot);
    }
  }

  /** Stats of one version on this machine (a shard's, for publishing it). */
  async statsOf(version: string): Promise<VoterStats | null> {
    const meta = await readMeta(this.versionDir(version));
    if (meta === null) return null;
    const stats: VoterStats = {
      version,
      rows: meta.rows,
      columns: meta.columns,
      importedAt: meta.importedAt,
    };
    return meta.shards === undefined ? stats : { ...stats, shards: meta.shards.shards.length };
  }

  async stats(): Promise<VoterStats | null> {
    const version = await this.currentVersion();
    return version === null ? null : this.statsOf(version);
  }

  async importFile(
    path: string,
    options: { replace: boolean; onProgress?: (bytesRead: number, totalBytes: number) => void },
  ): Promise<VoterImportReport> {
    const started = Date.now();
    const totalBytes = (await stat(path)).size;
    await mkdir(this.dir, { recursive: true });
    const unlock = await this.lockImports();
    try {
      return await this.importLocked(path, totalBytes, started, options);
    } finally {
      await unlock();
    }
  }

  private async importLocked(
    path: string,
    totalBytes: number,
    started: number,
    options: { replace: boolean; onProgress?: (bytesRead: number, totalBytes: number) => void },
  ): Promise<VoterImportReport> {
    // Read under the lock: an append must start from the version the previous import left.
    const previous = options.replace ? null : await this.current();
    const version = `v${started.toString(36)}-${randomBytes(3).toString('hex')}`;
    if (this.shardMaxRows !== null || previous?.shardMap !== undefined) {
      if (previous !== null) {
        throw new AppError(
          'VALIDATION_FAILED',
          'a sharded voter file is imported whole: import the complete file with --replace',
        );
      }
      return this.importShardedLocked(path, totalBytes, started, version, options.onProgress);
    }
    const buildDir = join(this.dir, `.building-${version}`);
    await mkdir(buildDir, { recursive: true });
    try {
      const report = await buildSnapshot({
        path,
        totalBytes,
        buildDir,
        version,
        previous,
        maxRowBytes: this.maxRowBytes,
        onProgress: options.onProgress,
      });
      await rename(buildDir, join(this.dir, version));
      await this.writeCurrent(version);
      await this.removeOldVersions(version, previous?.version ?? (await this.previousVersion(version)));
      return {
        ...report,
        reportPath: join(this.dir, version, 'import-report.csv'),
        durationMs: Date.now() - started,
      };
    } catch (error) {
      await rm(buildDir, { recursive: true, force: true });
      throw error;
    }
  }

  private async importShardedLocked(
    path: string,
    totalBytes: number,
    started: number,
    version: string,
    onProgress: ((bytesRead: number, totalBytes: number) => void) | undefined,
  ): Promise<VoterImportReport> {
    const workDir = join(this.dir, `.building-${version}`);
    await mkdir(workDir, { recursive: true });
    const built: string[] = [];
    try {
      const result = await importSharded({
        path,
        totalBytes,
        workDir,
        version,
        maxRows: this.shardMaxRows ?? Number.POSITIVE_INFINITY,
        maxRowBytes: this.maxRowBytes,
        onProgress,
        buildShard: async (shard) => {
          const buildDir = join(this.dir, `.building-${shard.version}`);
          built.push(buildDir);
          await mkdir(buildDir, { recursive: true });
          const report = await buildSnapshot({
            ...shard,
            buildDir,
            previous: null,
            maxRowBytes: this.maxRowBytes,
            onProgress: undefined,
            // The whole file's u is stored in each shard once they are all built.
            storesRandomPairU: false,
          });
          return { report, buildDir };
        },
      });
      // Shards first, the version that names them last: a reader never finds a shard missing.
      for (let i = 0; i < result.buildDirs.length; i++) {
        await rename(result.buildDirs[i]!, join(this.dir, result.map.shards[i]!.version));
      }
      const meta: SnapshotMeta = {
        format: SNAPSHOT_FORMAT,
        version,
        columns: result.report.columns,
        rows: result.report.imported,
        importedAt: new Date().toISOString(),
        indexCounts: {},
        shards: result.map,
      };
      await writeFile(join(workDir, 'meta.json'), JSON.stringify(meta, null, 2), { flush: true });
      await writeFile(
        join(workDir, 'import-report.csv'),
        `line,problem\n${result.reportLines.map((l) => `${l}\n`).join('')}`,
      );
      await rename(workDir, join(this.dir, version));
      await this.writeCurrent(version);
      await this.removeOldVersions(version, await this.previousVersion(version));
      return {
        ...result.report,
        reportPath: join(this.dir, version, 'import-report.csv'),
        durationMs: Date.now() - started,
      };
    } catch (error) {
      await rm(workDir, { recursive: true, force: true });
      for (const dir of built) await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * One import at a time per voter directory (two at once would each start from the same
   * version and one file's rows would be lost). A lock left by an import that died is taken over.
   */
  private async lockImports(): Promise<() => Promise<void>> {
    const lockPath = join(this.dir, '.import.lock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await writeFile(lockPath, String(process.pid), { flag: 'wx' });
        return () => rm(lockPath, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && processIsAlive(holder)) {
        throw new AppError(
          'CONFLICT',
          `another voter import is running (process ${holder}); run imports one after another`,
        );
      }
      await rm(lockPath, { force: true });
    }
    throw new AppError('CONFLICT', 'could not take the voter import lock; try again');
  }

  /** The folder of a version on this machine (which may not exist). */
  versionDir(version: string): string {
    if (!isVoterVersion(version)) throw new Error('not a voter file version');
    return join(this.dir, version);
  }

  /** The folder where a version being fetched from elsewhere is put together (same filesystem). */
  stagingDir(version: string): string {
    this.versionDir(version);
    return join(this.dir, `.fetching-${version}-${randomBytes(3).toString('hex')}`);
  }

  /**
   * Makes a version present on this machine the current one (an import on another machine, fetched
   * here), so that an append import starts from it.
   */
  async makeCurrent(version: string): Promise<void> {
    if ((await readMeta(this.versionDir(version))) === null)
      throw new Error(`voter file ${version} is not here`);
    await this.writeCurrent(version);
  }

  private async writeCurrent(version: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const pointer = join(this.dir, `CURRENT.${version}.tmp`);
    await writeFile(pointer, version, { flush: true });
    await rename(pointer, join(this.dir, 'CURRENT'));
    await syncDirectory(this.dir);
  }

  private async currentVersion(): Promise<string | null> {
    try {
      const version = (await readFile(join(this.dir, 'CURRENT'), 'utf8')).trim();
      return version === '' ? null : version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  private async previousVersion(except: string): Promise<string | null> {
    const versions = (await this.listVersions()).filter((v) => v !== except);
    return versions.at(-1) ?? null;
  }

  /** The imports here, oldest first (a sharded import counts once: its shards go with it). */
  private async listVersions(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true });
    // Version names start with the import time in base 36 (fixed width for centuries): sortable.
    const families = entries
      .filter((e) => e.isDirectory() && e.name.startsWith('v'))
      .map((e) => versionFamily(e.name));
    return [...new Set(families)].sort();
  }

  /** Removes an import: its folder and its shards' folders. */
  private async removeVersion(family: string): Promise<void> {
    const entries = await readdir(this.dir, { withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isDirectory() || versionFamily(entry.name) !== family || !entry.name.startsWith('v'))
        continue;
      await rm(join(this.dir, entry.name), { recursive: true, force: true });
    }
  }

  /**
   * Removes the versions on this machine other than `keep`, the newest `VERSIONS_KEPT` and the
   * current one: what a worker that fetches versions from object storage does after each fetch.
   * A snapshot already loaded stays usable (its files were read into memory).
   */
  async pruneExcept(keep: readonly string[]): Promise<string[]> {
    const versions = await this.listVersions().catch(() => []);
    const current = await this.currentVersion();
    const kept = new Set(
      [...keep, ...versions.slice(-VERSIONS_KEPT), ...(current === null ? [] : [current])].map(versionFamily),
    );
    const removed = versions.filter((version) => !kept.has(version));
    for (const version of removed) await this.removeVersion(version);
    return removed;
  }

  /** Keeps the new version and the one before (a job that started on it may still resume). */
  private async removeOldVersions(current: string, previous: string | null): Promise<void> {
    const keep = new Set([current, previous].filter((v): v is string => v !== null).map(versionFamily));
    const versions = (await this.listVersions()).filter((v) => !keep.has(v));
    const removable = versions.slice(0, Math.max(0, versions.length - (VERSIONS_KEPT - keep.size)));
    for (const version of removable) await this.removeVersion(version);
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
