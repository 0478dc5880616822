import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createReadStream, createWriteStream, openSync, readSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { readCsvTable } from '../../domain/csv/csv-reader.ts';
import { AppError } from '../../domain/errors.ts';
import { hashString } from '../../domain/matching/index/hashing.ts';
import { KeyPostings, PostingsCollector } from '../../domain/matching/index/key-postings.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import {
  MATCH_INDEX_FORMAT,
  type MatchIndexMeta,
  matchIndexFromParts,
} from '../../domain/matching/index/match-index-parts.ts';
import { rememberRandomPairU } from '../../domain/matching/probabilistic-matcher.ts';
import { estimateRandomPairU } from '../../domain/matching/score/random-pair-u.ts';
import { hash32, hash52, IdHashTable } from '../../domain/voters/id-hash-table.ts';
import { idKey } from '../../domain/voters/id-keys.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import { ShardedVoterSnapshot } from '../../domain/voters/sharded-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS, ID_INDEXES, type IdIndexName } from '../../domain/voters/voter-columns.ts';
import { VoterRowChecker } from '../../domain/voters/voter-row-checks.ts';
import type {
  VoterImportReport,
  VoterSnapshot,
  VoterStats,
  VoterStore,
} from '../../domain/voters/voter-snapshot.ts';
import { syncDirectory } from '../blobs/fs-blob-store.ts';
import { buildMatchIndexFromRecords, defaultIndexThreads, MatchIndexThreads } from './match-index-threads.ts';
import { importSharded, memoryBytes } from './sharded-import.ts';

/**
 * Voter file versions under `<dir>/<version>/`, the current one named by `<dir>/CURRENT`
 * (replaced by rename, so a reader sees the old or the new version, never a half-built one).
 *
 * Files of a version:
 * - `records.dat`: one record per line, fields joined by U+001F (values never contain it nor a
 *   newline: import replaces both with a space);
 * - `offsets.bin`: Float64Array of size+1 byte offsets of the lines;
 * - `ids-{hashes,voters,directory}.bin`: every id's key as postings (key-postings.ts), checked
 *   against the record on lookup; versions of format 1 have float64 tables `idx-<name>.bin`;
 * - `match/`: the probabilistic matcher's index (normalized fields, blocking postings, density
 *   map), built in the same pass as the records (see match-index-parts.ts);
 * - `meta.json`: version, columns, counts; `import-report.csv`: rejected and corrected lines.
 */
const FIELD_SEPARATOR = '\x1f';
const SEPARATOR_BYTE = 0x1f;
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+001F is our field separator and must never occur in a value.
const UNSAFE_CHAR = /[\x1f\r\n]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
const UNSAFE_CHARS = /[\x1f\r\n]/g;
const VERSIONS_KEPT = 2;
/** Widest voter file accepted (core columns plus appendable fields). */
const MAX_VOTER_COLUMNS = 2000;

/** 2: ids in one postings structure (ids-*.bin); 1 (no field): float64 tables (idx-*.bin). */
const SNAPSHOT_FORMAT = 2;

interface SnapshotMeta {
  format?: number;
  version: string;
  columns: string[];
  rows: number;
  importedAt: string;
  indexCounts: Record<string, number>;
  /** A sharded version's folder holds only this meta: its shards are versions of their own. */
  shards?: ShardMap;
}

/**
 * A version name as imports make them (`v<time base 36>-<random>`, a shard's with `-<shard id>`
 * after it): safe as a folder or key segment.
 */
export function isVoterVersion(name: string): boolean {
  return /^v[0-9A-Za-z-]+$/.test(name);
}

/** The import a version belongs to: itself, or for a shard the sharded version (`v…-…`). */
export function versionFamily(name: string): string {
  return name.split('-').slice(0, 2).join('-');
}

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
      // Only the map: nothing of the shards is loaded until a chunk or an id lookup needs it.
      const whole = new ShardedVoterSnapshot({ ...meta, shards: meta.shards }, (shard) => this.open(shard));
      this.remember(version, whole, 0);
      return whole;
    }
    const snapshot = await FsVoterSnapshot.load(versionDir, meta);
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
    return meta && { version, rows: meta.rows, columns: meta.columns, importedAt: meta.importedAt };
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

async function readMeta(versionDir: string): Promise<SnapshotMeta | null> {
  try {
    return JSON.parse(await readFile(join(versionDir, 'meta.json'), 'utf8')) as SnapshotMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

interface BuildInput {
  path: string;
  totalBytes: number;
  buildDir: string;
  version: string;
  previous: VoterSnapshot | null;
  maxRowBytes: number;
  onProgress: ((bytesRead: number, totalBytes: number) => void) | undefined;
}

/** What building one snapshot reports, before the import adds where and how long. */
export type BuildReport = Omit<VoterImportReport, 'reportPath' | 'durationMs'>;

export async function buildSnapshot(input: BuildInput): Promise<BuildReport> {
  const builder = new SnapshotBuilder(input.buildDir);
  try {
    return await fillSnapshot(input, builder);
  } finally {
    await builder.abort();
  }
}

async function fillSnapshot(input: BuildInput, builder: SnapshotBuilder): Promise<BuildReport> {
  const reportLines = ['line,problem'];
  const rejectedByReason: Record<string, number> = {};
  const warningsByKind: Record<string, number> = {};
  const raggedLines = new Set<number>();
  let rowsRead = 0;
  let carriedOver = 0;
  const note = (counts: Record<string, number>, line: number, reason: string) => {
    counts[reason] = (counts[reason] ?? 0) + 1;
    reportLines.push(`${line},${reason}`);
  };

  const source = createReadStream(input.path, { highWaterMark: 1024 * 1024 });
  let bytesRead = 0;
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
    input.onProgress?.(bytesRead, input.totalBytes);
  });
  let columnMap: number[] = [];
  let checker: VoterRowChecker | null = null;
  /** Copied per row: slicing a filled array is cheaper than filling a new one. */
  let emptyValues: string[] = [];
  let reserved = false;
  for await (const part of readCsvTable(source, {
    maxRowBytes: input.maxRowBytes,
    onWarning: (warning) => {
      if (warning.kind === 'ragged_row') raggedLines.add(warning.line);
      else if (warning.kind === 'row_too_long') note(rejectedByReason, warning.line, 'row_too_long');
      else note(warningsByKind, warning.line, warning.kind);
    },
  })) {
    if (part.kind === 'header') {
      if (part.header.length > MAX_VOTER_COLUMNS) {
        throw new AppError(
          'VALIDATION_FAILED',
          `the voter file has ${part.header.length} columns; at most ${MAX_VOTER_COLUMNS} are accepted`,
        );
      }
      const header = part.header.map((name) => name.trim().toLowerCase());
      if (!header.includes('voterbase_id')) {
        throw new AppError('VALIDATION_FAILED', 'the voter file has no voterbase_id column');
      }
      const extras = header.filter((name, i) => name !== '' && header.indexOf(name) === i && !isCore(name));
      const previousExtras = (input.previous?.columns ?? []).filter((name) => !isCore(name));
      const columns = [
        ...CORE_VOTER_COLUMNS,
        ...previousExtras,
        ...extras.filter((e) => !previousExtras.includes(e)),
      ];
      builder.setColumns(columns);
      checker = new VoterRowChecker(columns);
      emptyValues = new Array<string>(columns.length).fill('');
      columnMap = header.map((name, i) => (header.indexOf(name) === i ? columns.indexOf(name) : -1));
      if (input.previous !== null) carriedOver = await builder.carryOver(input.previous);
      continue;
    }
    for (const row of part.rows) {
      rowsRead++;
      if (raggedLines.has(row.line)) {
        // A voter row with a wrong field count has shifted columns: importing it would
        // attach values to the wrong fields.
        raggedLines.delete(row.line);
        note(rejectedByReason, row.line, 'wrong_field_count');
        continue;
      }
      const values = emptyValues.slice();
      for (let i = 0; i < row.fields.length; i++) {
        const target = columnMap[i];
        if (target !== undefined && target >= 0) values[target] = clean(row.fields[i]!);
      }
      for (const problem of checker!.check(values)) note(warningsByKind, row.line, problem);
      const rejection = builder.add(values);
      if (rejection !== null) note(rejectedByReason, row.line, rejection);
    }
    if (!reserved && rowsRead > 0) {
      // Size the id tables once from the first rows' size, instead of doubling ~11 times.
      reserved = true;
      let sampleBytes = 0;
      for (const row of part.rows) for (const field of row.fields) sampleBytes += field.length + 1;
      const bytesPerRow = Math.max(1, sampleBytes / part.rows.length);
      builder.reserve(carriedOver + Math.ceil((input.totalBytes / bytesPerRow) * 1.05));
    }
    await builder.waitForDrain();
  }
  if (builder.columns.length === 0) throw new AppError('VALIDATION_FAILED', 'the voter file is empty');
  await writeFile(join(input.buildDir, 'import-report.csv'), `${reportLines.join('\n')}\n`);
  const meta = await builder.finish(input.version);
  return {
    version: input.version,
    rowsRead,
    imported: meta.rows - carriedOver,
    carriedOver,
    rejected: sum(rejectedByReason),
    rejectedByReason,
    warnings: sum(warningsByKind),
    warningsByKind,
    columns: meta.columns,
  };
}

const isCore = (name: string) => (CORE_VOTER_COLUMNS as readonly string[]).includes(name);
// A non-global regex for the test: a /g one would carry lastIndex from one value to the next.
const clean = (value: string): string => {
  if (value === '') return value;
  const safe = UNSAFE_CHAR.test(value) ? value.replace(UNSAFE_CHARS, ' ') : value;
  // Trim only when an end is white space: most values need nothing.
  return safe.charCodeAt(0) <= 32 || safe.charCodeAt(safe.length - 1) <= 32 ? safe.trim() : safe;
};
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Writes records and builds the id tables of one new version. */
class SnapshotBuilder {
  columns: string[] = [];
  private readonly dir: string;
  private out: Writable | null = null;
  /** Record lines not written yet (without their newline). */
  private pending: string[] = [];
  private pendingChars = 0;
  private flushedRows = 0;
  private offset = 0;
  private offsets = new Float64Array(1 << 16);
  private rows = 0;
  /** voterbase_id is indexed as rows arrive, to reject duplicates on the spot. */
  private readonly voterbaseTable = IdHashTable.create();
  /** Every id's key (voterbase_id too) as (hash, row) postings: 8 bytes per id when loaded. */
  private readonly idPostings = new PostingsCollector();
  private readonly idCounts: Record<IdIndexName, number> = {
    voterbase_id: 0,
    voter_id: 0,
    smartvan_id: 0,
    exact_track: 0,
  };
  /** Second hash of each record's voterbase_id, to tell true duplicates from 52-bit collisions. */
  private voterbaseCheck = new Uint32Array(1 << 16);
  private idColumns: Record<IdIndexName, number> = {
    voterbase_id: 0,
    voter_id: 0,
    smartvan_id: 0,
    exact_track: 0,
  };
  private stateColumn = 0;
  private needsDrain = false;
  /** Builds the match index from the records as they are written, on its own thread. */
  private matchIndex: MatchIndexThreads | null = null;

  constructor(dir: string) {
    this.dir = dir;
  }

  setColumns(columns: string[]): void {
    this.columns = columns;
    for (const name of ID_INDEXES) this.idColumns[name] = columns.indexOf(name);
    this.stateColumn = columns.indexOf('state');
    this.matchIndex = new MatchIndexThreads(columns, { threads: Math.max(1, defaultIndexThreads() - 1) });
    // Up to 16 MiB may queue before the import waits: with the default 16 KiB every 1 MiB flush
    // made the parser idle until the disk caught up.
    // flush: every file of a version is on disk before CURRENT can name it.
    this.out = createWriteStream(join(this.dir, 'records.dat'), {
      highWaterMark: 16 * 1024 * 1024,
      flush: true,
    });
  }

  /** Makes room for about `rows` records so the tables do not rehash as they fill. */
  reserve(rows: number): void {
    this.voterbaseTable.reserve(rows);
  }

  async carryOver(previous: VoterSnapshot): Promise<number> {
    this.reserve(previous.size);
    const map = previous.columns.map((name) => this.columns.indexOf(name));
    for (let i = 0; i < previous.size; i++) {
      if (i % 10_000 === 0) await this.waitForDrain();
      const values = new Array<string>(this.columns.length).fill('');
      const record = previous.record(i);
      for (let c = 0; c < record.length; c++) values[map[c]!] = record[c]!;
      this.add(values);
    }
    return this.rows;
  }

  /** Adds one record; returns the reason when it is rejected. */
  add(values: string[]): string | null {
    const voterbaseId = idKey('voterbase_id', values[this.idColumns.voterbase_id]!, '');
    if (voterbaseId === null) return 'missing_voterbase_id';
    const h = hash52(voterbaseId);
    const check = hash32(voterbaseId);
    const row = this.rows;
    if (!this.voterbaseTable.insertUnique(h, row, (existing) => this.voterbaseCheck[existing] === check)) {
      return 'duplicate_voterbase_id';
    }
    this.rows++;
    const state = values[this.stateColumn]!;
    for (const name of ID_INDEXES) {
      const key = name === 'voterbase_id' ? voterbaseId : idKey(name, values[this.idColumns[name]]!, state);
      if (key === null) continue;
      this.idPostings.add(idPostingsHash(name, key), row);
      this.idCounts[name]++;
    }
    if (row >= this.voterbaseCheck.length) this.voterbaseCheck = growUint32(this.voterbaseCheck);
    this.voterbaseCheck[row] = check;
    const line = values.join(FIELD_SEPARATOR);
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars > 1 << 20) this.flushPending();
    return null;
  }

  /** Encodes the pending lines once and takes their byte offsets from the newlines in the buffer. */
  private flushPending(): void {
    const count = this.pending.length;
    if (count === 0) return;
    const chunk = Buffer.from(`${this.pending.join('\n')}\n`);
    this.pending = [];
    this.pendingChars = 0;
    while (this.flushedRows + count + 1 > this.offsets.length) this.offsets = growFloat64(this.offsets);
    let position = 0;
    for (let i = 0; i < count; i++) {
      this.offsets[this.flushedRows + i] = this.offset + position;
      position = chunk.indexOf(0x0a, position) + 1;
    }
    this.offset += chunk.length;
    this.matchIndex!.send(chunk, this.flushedRows);
    this.flushedRows += count;
    this.offsets[this.flushedRows] = this.offset;
    if (!this.out!.write(chunk)) this.needsDrain = true;
  }

  /** Waits for the record stream to drain; callers await it between batches to bound memory. */
  async waitForDrain(): Promise<void> {
    await this.matchIndex?.waitForRoom();
    if (!this.needsDrain) return;
    await once(this.out!, 'drain');
    this.needsDrain = false;
  }

  /** Stops the index thread of a failed import. */
  async abort(): Promise<void> {
    await this.matchIndex?.terminate();
  }

  async finish(version: string): Promise<SnapshotMeta> {
    if (this.out === null) throw new AppError('VALIDATION_FAILED', 'the voter file is empty');
    this.flushPending();
    const out = this.out;
    // The records file finishes (and is fsynced) while the tables are built; every write runs on
    // libuv's threads, so the CPU work here overlaps with the disk.
    const recordsDone = new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
    const writes = [
      recordsDone,
      writeTyped(join(this.dir, 'offsets.bin'), this.offsets.subarray(0, this.rows + 1)),
    ];
    const indexCounts: Record<string, number> = { ...this.idCounts };
    const ids = this.idPostings.build();
    writes.push(writeTyped(join(this.dir, 'ids-hashes.bin'), ids.hashes));
    writes.push(writeTyped(join(this.dir, 'ids-voters.bin'), ids.voters));
    writes.push(writeTyped(join(this.dir, 'ids-directory.bin'), ids.directory));
    const { meta: matchMeta, parts } = await this.matchIndex!.finish();
    await mkdir(join(this.dir, 'match'));
    for (const [name, bytes] of parts)
      writes.push(writeFile(join(this.dir, 'match', name), bytes, { flush: true }));
    // u depends on the voter file alone: estimated once here, not by every process (or every
    // shard a worker loads) before its first job.
    const byName = new Map(parts);
    const u = estimateRandomPairU(matchIndexFromParts(matchMeta, (name) => byName.get(name)!));
    writes.push(
      writeFile(join(this.dir, 'match', RANDOM_PAIR_U_FILE), Buffer.from(u.buffer), { flush: true }),
    );
    writes.push(writeFile(join(this.dir, 'match', 'meta.json'), JSON.stringify(matchMeta), { flush: true }));
    await Promise.all(writes);
    const meta: SnapshotMeta = {
      format: SNAPSHOT_FORMAT,
      version,
      columns: this.columns,
      rows: this.rows,
      importedAt: new Date().toISOString(),
      indexCounts,
    };
    await writeFile(join(this.dir, 'meta.json'), JSON.stringify(meta, null, 2), { flush: true });
    return meta;
  }
}

function growFloat64(array: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const next = new Float64Array(array.length * 2);
  next.set(array);
  return next;
}

function growUint32(array: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const next = new Uint32Array(array.length * 2);
  next.set(array);
  return next;
}

async function writeTyped(path: string, array: Float64Array | Uint32Array): Promise<void> {
  await writeFile(path, new Uint8Array(array.buffer, array.byteOffset, array.byteLength), { flush: true });
}

/** Reads a whole file into memory in chunks (fs.readFile stops at 2 GiB), optionally into shared memory. */
async function readWhole(path: string, shared = false): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = shared ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafeSlow(size);
    let position = 0;
    while (position < size) {
      const { bytesRead } = await handle.read(buffer, position, Math.min(1 << 30, size - position), position);
      if (bytesRead === 0) throw new Error(`unexpected end of ${path}`);
      position += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

/** A file of raw typed-array bytes as that typed array (readWhole's buffers are aligned). */
async function readTyped<T>(
  path: string,
  Type: { new (buffer: ArrayBufferLike, offset: number, length: number): T; BYTES_PER_ELEMENT: number },
  shared = false,
): Promise<T> {
  const buffer = await readWhole(path, shared);
  return new Type(buffer.buffer, buffer.byteOffset, buffer.byteLength / Type.BYTES_PER_ELEMENT);
}

/**
 * The stored match index. A version imported before the index existed, or whose index has an
 * older format, gets one built from its records (on every core) and stored beside them, once.
 */
async function loadMatchIndex(versionDir: string, columns: readonly string[]): Promise<MatchIndex> {
  const dir = join(versionDir, 'match');
  let meta = await readMatchMeta(dir);
  if (meta === null || meta.format !== MATCH_INDEX_FORMAT) {
    await rebuildMatchIndex(versionDir, columns);
    meta = await readMatchMeta(dir);
    if (meta === null) throw new Error(`the match index of ${versionDir} was not stored`);
  }
  const parts = new Map<string, Uint8Array>();
  // Shared memory: the matching threads read these arrays without a copy.
  for (const name of meta.parts) parts.set(name, await readWhole(join(dir, name), true));
  const index = matchIndexFromParts(meta, (name) => {
    const part = parts.get(name);
    if (part === undefined) throw new Error(`match index part ${name} is missing`);
    return part;
  });
  // Versions imported before u was stored estimate it on first use instead.
  const u = await readFile(join(dir, RANDOM_PAIR_U_FILE)).catch(() => null);
  if (u !== null)
    rememberRandomPairU(index, new Float64Array(u.buffer, u.byteOffset, u.byteLength / 8).slice());
  return index;
}

/** The random-pair u of the index (score/random-pair-u.ts), stored beside its parts. */
const RANDOM_PAIR_U_FILE = 'random-pair-u.bin';

async function readMatchMeta(dir: string): Promise<MatchIndexMeta | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as MatchIndexMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Builds and stores a version's match index in a temporary directory renamed into place, so a
 * crash leaves either no index or a whole one; when two processes race, the first rename wins.
 */
async function rebuildMatchIndex(versionDir: string, columns: readonly string[]): Promise<void> {
  const { meta, parts } = await buildMatchIndexFromRecords(join(versionDir, 'records.dat'), columns);
  const dir = join(versionDir, 'match');
  const building = join(versionDir, `.match-${randomBytes(4).toString('hex')}`);
  await mkdir(building);
  try {
    await Promise.all(
      [...parts].map(([name, bytes]) => writeFile(join(building, name), bytes, { flush: true })),
    );
    await writeFile(join(building, 'meta.json'), JSON.stringify(meta), { flush: true });
    const stale = await readMatchMeta(dir);
    if (stale !== null && stale.format !== MATCH_INDEX_FORMAT)
      await rm(dir, { recursive: true, force: true });
    await rename(building, dir).catch((error: NodeJS.ErrnoException) => {
      // Another process stored it first (its rename made `match` a non-empty directory).
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
    await syncDirectory(versionDir);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}

/**
 * The records file, read by position: the operating system's page cache keeps the hot pages,
 * and the process holds none of it (records are most of a voter file's bytes).
 */
class RecordFile {
  private readonly fd: number;
  private scratch = Buffer.allocUnsafe(64 * 1024);
  /**
   * Recently read 4 KiB blocks, least recently used first. One read of a block costs about what
   * one read of a record does (the system call dominates), and it serves the record's second
   * read (an id lookup verifies a record, then its fields are appended) and the neighbours of
   * lists sorted like the voter file.
   */
  private readonly blocks = new Map<number, Buffer>();

  constructor(path: string) {
    this.fd = openSync(path, 'r');
    // A snapshot is dropped when a newer version replaces it and no job holds it any more.
    recordFiles.register(this, this.fd);
  }

  /** The bytes of [start, end) in a buffer valid until the next read. */
  read(start: number, end: number): Buffer {
    const block = Math.floor(start / BLOCK_BYTES);
    if (Math.floor((end - 1) / BLOCK_BYTES) === block && end > start) {
      const bytes = this.block(block);
      const from = start - block * BLOCK_BYTES;
      if (from + (end - start) <= bytes.length) return bytes.subarray(from, from + (end - start));
    }
    return this.readDirect(start, end);
  }

  private block(index: number): Buffer {
    const cached = this.blocks.get(index);
    if (cached !== undefined) {
      this.blocks.delete(index);
      this.blocks.set(index, cached);
      return cached;
    }
    if (this.blocks.size >= CACHED_BLOCKS) this.blocks.delete(this.blocks.keys().next().value!);
    const buffer = Buffer.allocUnsafe(BLOCK_BYTES);
    let done = 0;
    // A short read only happens at the end of the file: the block is what there is.
    for (;;) {
      const n = readSync(this.fd, buffer, done, BLOCK_BYTES - done, index * BLOCK_BYTES + done);
      if (n === 0) break;
      done += n;
      if (done === BLOCK_BYTES) break;
    }
    const bytes = buffer.subarray(0, done);
    this.blocks.set(index, bytes);
    return bytes;
  }

  private readDirect(start: number, end: number): Buffer {
    const length = end - start;
    if (length > this.scratch.length) this.scratch = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, this.scratch, done, length - done, start + done);
      if (n === 0) throw new Error('the voter records file is shorter than its offsets');
      done += n;
    }
    return this.scratch.subarray(0, length);
  }
}

const BLOCK_BYTES = 4096;
/** 1 MiB of blocks per loaded snapshot. */
const CACHED_BLOCKS = 256;

const recordFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing to release.
  }
});

/** Id lookups of one snapshot: key hash → records, verified against the records themselves. */
interface IdLookup {
  candidates(index: IdIndexName, key: string): number[];
}

/** Format 2: the ids' keys in one postings structure (8 bytes per id). */
class PostingsIdLookup implements IdLookup {
  readonly postings: KeyPostings;
  constructor(postings: KeyPostings) {
    this.postings = postings;
  }
  candidates(index: IdIndexName, key: string): number[] {
    const [start, end] = this.postings.range(idPostingsHash(index, key));
    return Array.from(this.postings.voters.subarray(start, end));
  }
}

/** Format 1 (versions imported before format 2): one float64 hash table per id. */
class TableIdLookup implements IdLookup {
  private readonly tables: Map<IdIndexName, IdHashTable>;
  constructor(tables: Map<IdIndexName, IdHashTable>) {
    this.tables = tables;
  }
  candidates(index: IdIndexName, key: string): number[] {
    return this.tables.get(index)?.find(hash52(key)) ?? [];
  }
}

/**
 * What a worker thread reopens a loaded snapshot from: the version's folder (each thread reads
 * records through its own file handle) and the arrays it holds, in shared memory (no copy).
 */
export interface SharedFsSnapshot {
  kind: 'fs';
  dir: string;
  meta: SnapshotMeta;
  offsets: Float64Array;
  ids: { hashes: Uint32Array; voters: Uint32Array; directory: Uint32Array } | null;
}

class FsVoterSnapshot implements VoterSnapshot {
  readonly version: string;
  readonly columns: readonly string[];
  readonly size: number;
  private readonly records: RecordFile;
  private readonly offsets: Float64Array;
  private readonly ids: IdLookup;
  private readonly positions: Map<string, number>;
  readonly matchIndex: MatchIndex | null;

  private readonly dir: string;
  private readonly meta: SnapshotMeta;

  private constructor(
    dir: string,
    meta: SnapshotMeta,
    records: RecordFile,
    offsets: Float64Array,
    ids: IdLookup,
    matchIndex: MatchIndex | null,
  ) {
    this.dir = dir;
    this.meta = meta;
    this.matchIndex = matchIndex;
    this.version = meta.version;
    this.columns = Object.freeze([...meta.columns]);
    this.size = meta.rows;
    this.records = records;
    this.offsets = offsets;
    this.ids = ids;
    this.positions = new Map(meta.columns.map((name, i) => [name, i]));
  }

  static async load(dir: string, meta: SnapshotMeta): Promise<FsVoterSnapshot> {
    let ids: IdLookup;
    if ((meta.format ?? 1) >= 2) {
      // Shared memory: the matching threads look ids up in the same arrays.
      const part = (name: string) => readTyped(join(dir, `ids-${name}.bin`), Uint32Array, true);
      ids = new PostingsIdLookup(
        new KeyPostings(await part('hashes'), await part('voters'), await part('directory')),
      );
    } else {
      const tables = new Map<IdIndexName, IdHashTable>();
      for (const name of ID_INDEXES) {
        const slots = await readTyped(join(dir, `idx-${name}.bin`), Float64Array);
        tables.set(name, new IdHashTable(slots, meta.indexCounts[name] ?? 0));
      }
      ids = new TableIdLookup(tables);
    }
    const records = new RecordFile(join(dir, 'records.dat'));
    const offsets = await readTyped(join(dir, 'offsets.bin'), Float64Array, true);
    return new FsVoterSnapshot(dir, meta, records, offsets, ids, await loadMatchIndex(dir, meta.columns));
  }

  /** The snapshot in another thread of this process, from `shared()`, with the index that thread holds. */
  static fromShared(shared: SharedFsSnapshot, matchIndex: MatchIndex | null): FsVoterSnapshot {
    const ids =
      shared.ids === null
        ? new TableIdLookup(new Map())
        : new PostingsIdLookup(new KeyPostings(shared.ids.hashes, shared.ids.voters, shared.ids.directory));
    return new FsVoterSnapshot(
      shared.dir,
      shared.meta,
      new RecordFile(join(shared.dir, 'records.dat')),
      shared.offsets,
      ids,
      matchIndex,
    );
  }

  /** Plain data (shared memory and a folder) that another thread reopens this snapshot from. */
  shared(): SharedFsSnapshot | null {
    if (!(this.ids instanceof PostingsIdLookup)) return null;
    const { hashes, voters, directory } = this.ids.postings;
    return {
      kind: 'fs',
      dir: this.dir,
      meta: this.meta,
      offsets: this.offsets,
      ids: { hashes, voters, directory },
    };
  }

  columnIndex(name: string): number {
    return this.positions.get(name) ?? -1;
  }

  record(index: number): string[] {
    return this.line(index).toString('utf8').split(FIELD_SEPARATOR);
  }

  lookup(index: IdIndexName, key: string): number[] {
    const hits = this.ids.candidates(index, key);
    if (hits.length === 0) return hits;
    const idColumn = this.positions.get(index)!;
    const stateColumn = this.positions.get('state')!;
    // Keys are hashed: verify each hit on the two fields that make the key.
    return hits.filter((row) => {
      const line = this.line(row);
      return idKey(index, fieldOf(line, idColumn), fieldOf(line, stateColumn)) === key;
    });
  }

  fields(index: number, columns: readonly number[]): string[] {
    const line = this.line(index);
    if (columns.length > 4) {
      const record = line.toString('utf8').split(FIELD_SEPARATOR);
      return columns.map((column) => (column < 0 ? '' : (record[column] ?? '')));
    }
    return columns.map((column) => (column < 0 ? '' : fieldOf(line, column)));
  }

  /** The record's bytes without its newline (valid until the next read). */
  private line(index: number): Buffer {
    const start = this.offsets[index];
    const end = this.offsets[index + 1];
    if (start === undefined || end === undefined || index < 0 || index >= this.size) {
      throw new RangeError(`no voter record ${index}`);
    }
    return this.records.read(start, end - 1);
  }
}

/** A snapshot loaded in another thread of this process, reopened here from its `shared()` data. */
export function reopenFsSnapshot(shared: SharedFsSnapshot, matchIndex: MatchIndex | null): VoterSnapshot {
  return FsVoterSnapshot.fromShared(shared, matchIndex);
}

/** One field of a record line, found by scanning for separators in the raw bytes. */
function fieldOf(line: Buffer, column: number): string {
  let start = 0;
  for (let c = 0; c < column; c++) {
    const next = line.indexOf(SEPARATOR_BYTE, start);
    if (next < 0) return '';
    start = next + 1;
  }
  let stop = line.indexOf(SEPARATOR_BYTE, start);
  if (stop < 0) stop = line.length;
  return line.toString('utf8', start, stop);
}

/** Hash of an id key in the id postings (the index name keeps equal ids of two kinds apart). */
export function idPostingsHash(index: IdIndexName, key: string): number {
  return hashString(`${index}|${key}`);
}
