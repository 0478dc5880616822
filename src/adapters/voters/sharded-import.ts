import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import type { CsvWarning } from '../../domain/csv/csv-reader.ts';
import { AppError } from '../../domain/errors.ts';
import { LineBuffer } from '../../domain/list-matching/line-buffer.ts';
import { ShardDirectoryBuilder } from '../../domain/voters/shard-directory.ts';
import {
  NO_STATE_SHARD,
  planShards,
  ShardCounts,
  type ShardMap,
  type ShardPlan,
} from '../../domain/voters/shard-map.ts';
import { answerCsvBlocksInOrder } from '../threads/csv-blocks-on-threads.ts';
import { TaskPool } from '../threads/task-pool.ts';
import { contactsHashCount, readShardContacts, type ShardContacts } from './shard-contacts.ts';
import { fileOrders, storeFileStatistics } from './shard-file-statistics.ts';
import {
  headerColumns,
  type ShardPart,
  type SplitBlock,
  type SplitPlan,
  voterLine,
} from './shard-split-blocks.ts';
import { type BuildReport, BuildThreads } from './snapshot-builder.ts';

export interface ShardedImportInput {
  path: string;
  totalBytes: number;
  /**
   * Folder of the version's own files: the shards' CSV files and contacts while they are built
   * (each removed once used), and the directory (SHARD_DIRECTORY_FILE), written there once every
   * shard is built.
   */
  workDir: string;
  version: string;
  maxRows: number;
  maxRowBytes: number;
  onProgress: ((bytesRead: number, totalBytes: number) => void) | undefined;
  /** Shards built at once (default: concurrentBuilds()). */
  concurrentBuilds?: number;
  /**
   * Builds one shard's snapshot from its CSV into `buildDir` (the unsharded import, reused), on
   * `threads` (kept from one shard's build to the next), its voters' contacts written to
   * `contactsPath` (BuildInput.contactsPath).
   */
  buildShard(input: {
    path: string;
    totalBytes: number;
    version: string;
    threads: BuildThreads;
    contactsPath: string;
  }): Promise<{
    report: BuildReport;
    buildDir: string;
  }>;
}

export interface ShardedImportResult {
  report: BuildReport;
  map: ShardMap;
  /** Build folder of each shard, in map order. */
  buildDirs: string[];
  /** Every rejected or corrected line of the whole file, by its line there. */
  reportLines: string[];
}

/** The file of a sharded version's ShardDirectory, in the version's folder beside meta.json. */
export const SHARD_DIRECTORY_FILE = 'shard-directory.bin';

/**
 * Imports a voter file as shards: one pass writes each record to its state's CSV, counting records
 * per state and ZIP3, from which the shards are planned; a state the plan cuts into ZIP3 ranges
 * is split again among them; each shard is then built alone (memory is one shard's, not the
 * file's). Line numbers in the report are the original file's.
 */
export async function importSharded(input: ShardedImportInput): Promise<ShardedImportResult> {
  const byState = await splitByState(input);
  const plan = planShards(byState.counts, input.maxRows);
  const split = await splitCutStates(input, plan, byState);
  const total: BuildReport = {
    version: input.version,
    rowsRead: split.rowsRead,
    imported: 0,
    carriedOver: 0,
    rejected: 0,
    rejectedByReason: { ...split.rejectedByReason },
    warnings: 0,
    warningsByKind: {},
    columns: [],
  };
  const reportLines = [...split.reportLines];
  // Each build at once has its threads, which the next build takes over.
  const idle: BuildThreads[] = [];
  const everyThreads: BuildThreads[] = [];
  const built = await inParallel(
    plan.shards.map((planned) => planned.rows),
    input.concurrentBuilds ?? concurrentBuilds(),
    async (i) => {
      const planned = plan.shards[i]!;
      const version = `${input.version}-${planned.id}`;
      const path = split.files[i]!;
      let threads = idle.pop();
      if (threads === undefined) {
        threads = new BuildThreads();
        everyThreads.push(threads);
      }
      const { report, buildDir } = await input.buildShard({
        path,
        totalBytes: (await stat(path)).size,
        version,
        threads,
        contactsPath: contactsPathOf(input, planned.id),
      });
      idle.push(threads);
      await rm(path, { force: true });
      // The shard's own report names lines of its CSV (line 1 the header): back to the file's lines.
      const lines = split.lines[i]!;
      const shardReport = (await readFile(join(buildDir, 'import-report.csv'), 'utf8')).split('\n').slice(1);
      const mapped: string[] = [];
      for (const entry of shardReport) {
        if (entry === '') continue;
        const comma = entry.indexOf(',');
        const original = lines.at(Number(entry.slice(0, comma)) - 2) ?? 0;
        mapped.push(`${original}${entry.slice(comma)}`);
      }
      await writeFile(join(buildDir, 'import-report.csv'), `${['line,problem', ...mapped].join('\n')}\n`);
      // The file lines of the records the shard kept, in its records' order: their positions in
      // the whole file (fileOrders) break ties as an import of the whole file would.
      const rejectedAt = new Set<number>();
      for (const entry of shardReport) {
        const comma = entry.indexOf(',');
        if (comma > 0 && entry.slice(comma + 1) in report.rejectedByReason)
          rejectedAt.add(Number(entry.slice(0, comma)) - 2);
      }
      const accepted = rejectedAt.size === 0 ? lines : lines.filter((_line, at) => !rejectedAt.has(at));
      const shard: ShardMap['shards'][number] = {
        ...planned,
        rows: report.imported,
        version,
        memoryBytes: await memoryBytes(buildDir),
        // From the shard's contacts, once every shard is built.
        box: null,
      };
      if (accepted.length !== report.imported)
        throw new Error(`shard ${planned.id}: ${accepted.length} lines kept for ${report.imported} records`);
      return { report, buildDir, mapped, shard, accepted };
    },
  ).finally(() => Promise.all(everyThreads.map((threads) => threads.close())));
  const boxes = await writeShardDirectory(input, plan);
  for (const [i, b] of built.entries()) b.shard = { ...b.shard, box: boxes[i]! };
  // Every shard scores as the whole file: its statistics and its voters' order are the file's.
  await storeFileStatistics(
    built.map((b) => b.buildDir),
    fileOrders(built.map((b) => b.accepted)),
  );
  // A shard's memory as it is loaded: with the parts the statistics added.
  for (const b of built) b.shard = { ...b.shard, memoryBytes: await memoryBytes(b.buildDir) };
  // Added up in map order, whichever shard was built first.
  for (const { report, mapped } of built) {
    total.imported += report.imported;
    total.columns = report.columns;
    for (const [reason, count] of Object.entries(report.rejectedByReason)) {
      total.rejectedByReason[reason] = (total.rejectedByReason[reason] ?? 0) + count;
    }
    for (const [kind, count] of Object.entries(report.warningsByKind)) {
      total.warningsByKind[kind] = (total.warningsByKind[kind] ?? 0) + count;
    }
    reportLines.push(...mapped);
  }
  total.rejected = Object.values(total.rejectedByReason).reduce((a, b) => a + b, 0);
  total.warnings = Object.values(total.warningsByKind).reduce((a, b) => a + b, 0);
  reportLines.sort((a, b) => Number(a.slice(0, a.indexOf(','))) - Number(b.slice(0, b.indexOf(','))));
  return {
    report: total,
    map: { shards: built.map((b) => b.shard), zip3States: plan.zip3States },
    buildDirs: built.map((b) => b.buildDir),
    reportLines,
  };
}

/**
 * Shards built at once by default: one per four cores (each build runs its own parse and index
 * threads, and its last step, merging the index, runs on one of them), one below eight cores.
 */
export function concurrentBuilds(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 4));
}

/**
 * Runs `build` for every shard (by index), at most `most` at once, the biggest first, and never more
 * rows at once than the biggest shard has (a build's memory grows with its rows: the import's peak
 * stays one biggest shard's, as when they are built one by one). The results in shard order.
 */
export async function inParallel<T>(
  rows: readonly number[],
  most: number,
  build: (shard: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(rows.length);
  const budget = Math.max(0, ...rows);
  const waiting = rows.map((_, i) => i).sort((a, b) => rows[b]! - rows[a]! || a - b);
  const running = new Map<number, Promise<void>>();
  let runningRows = 0;
  let failure: { error: unknown } | null = null;
  while (waiting.length > 0 && failure === null) {
    const next = waiting[0]!;
    if (running.size > 0 && (running.size >= most || runningRows + rows[next]! > budget)) {
      await Promise.race(running.values());
      continue;
    }
    waiting.shift();
    runningRows += rows[next]!;
    running.set(
      next,
      build(next)
        .then(
          (result) => {
            results[next] = result;
          },
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(() => {
          running.delete(next);
          runningRows -= rows[next]!;
        }),
    );
  }
  // The others finish (or fail) before the import gives up: none is left writing.
  await Promise.all(running.values());
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}

/**
 * One pass over a CSV in blocks, split on the threads of shard-split.worker.ts (by state with
 * `plan` null, else among the plan's shards), started once the header is read; the answers go to
 * `take` in the file's order. Returns the header (null for a file without one).
 */
async function overBlocks(
  input: ShardedImportInput,
  source: NodeJS.ReadableStream & AsyncIterable<Uint8Array>,
  plan: ShardPlan | null,
  steps: {
    onHeader?: (header: string[], warnings: CsvWarning[]) => void;
    take: (answer: SplitBlock) => void | Promise<void>;
    onEnd?: (warnings: CsvWarning[]) => void;
    /** Threads kept from an earlier pass with the same plan and header (their owner closes them). */
    threads?: SplitThreads;
  },
): Promise<string[] | null> {
  const kept = steps.threads;
  return await answerCsvBlocksInOrder<SplitBlock>(
    source,
    { maxRowBytes: input.maxRowBytes, blockBytes: SPLIT_BLOCK_BYTES },
    {
      ...steps,
      keepThreads: kept !== undefined,
      threads: (header) => kept?.threads(header) ?? splitThreadsFor(input, plan, header),
    },
  );
}

function splitThreadsFor(input: ShardedImportInput, plan: ShardPlan | null, header: string[]) {
  const split: SplitPlan = {
    plan,
    columns: headerColumns(header),
    width: header.length,
    maxRowBytes: input.maxRowBytes,
  };
  return new TaskPool<CsvBlock, SplitBlock>(
    new URL('./shard-split.worker.ts', import.meta.url),
    splitThreads(),
    {
      workerData: split,
    },
  );
}

/** The split's threads for one plan, started with the first file split and kept for the next. */
class SplitThreads {
  readonly #input: ShardedImportInput;
  readonly #plan: ShardPlan;
  #pool: TaskPool<CsvBlock, SplitBlock> | null = null;

  constructor(input: ShardedImportInput, plan: ShardPlan) {
    this.#input = input;
    this.#plan = plan;
  }

  threads(header: string[]): TaskPool<CsvBlock, SplitBlock> {
    this.#pool ??= splitThreadsFor(this.#input, this.#plan, header);
    return this.#pool;
  }

  async close(): Promise<void> {
    await this.#pool?.close();
  }
}

/** Records' CSV lines appended to a file, with the line each came from. */
class PartFile {
  readonly path: string;
  readonly #stream: WriteStream;
  readonly #writer: LineBuffer;
  #lines = new Uint32Array(1024);
  #count = 0;

  constructor(path: string, headerLine: string) {
    this.path = path;
    this.#stream = createWriteStream(path);
    this.#writer = new LineBuffer(this.#stream);
    this.#writer.write(headerLine);
  }

  add(part: ShardPart, lineOf: (line: number) => number): void {
    this.#writer.writeBytes(part.bytes);
    if (this.#count + part.lines.length > this.#lines.length) {
      const grown = new Uint32Array(Math.max(this.#lines.length * 2, this.#count + part.lines.length));
      grown.set(this.#lines);
      this.#lines = grown;
    }
    for (const line of part.lines) this.#lines[this.#count++] = lineOf(line);
  }

  /** The voter file's line of each record written, in order. */
  get lines(): Uint32Array {
    return this.#lines.subarray(0, this.#count);
  }

  ready(): Promise<void> {
    return this.#writer.ready();
  }

  end(): Promise<void> {
    return this.#writer.end();
  }

  destroy(): void {
    this.#stream.destroy();
  }
}

/** The first pass: each state's records in a CSV of their own, counted, and what the report says. */
interface ByState {
  /** The voter file's header as a CSV line: each state's file, and each shard's, begins with it. */
  headerLine: string;
  /** By state ('' for records without one), in the order first met. */
  files: Map<string, PartFile>;
  counts: ShardCounts;
  rowsRead: number;
  rejectedByReason: Record<string, number>;
  reportLines: string[];
}

/**
 * Rejected rows of a pass, counted by reason and listed by the voter file's line; `tooLong`
 * rejects the rows a pass's warnings say were too long (`lineOf`: a line of the file split to
 * the voter file's).
 */
function rejections() {
  const rejectedByReason: Record<string, number> = {};
  const reportLines: string[] = [];
  const reject = (line: number, reason: string) => {
    rejectedByReason[reason] = (rejectedByReason[reason] ?? 0) + 1;
    reportLines.push(`${line},${reason}`);
  };
  const tooLong = (warnings: readonly CsvWarning[], lineOf = (line: number) => line) => {
    for (const warning of warnings)
      if (warning.kind === 'row_too_long') reject(lineOf(warning.line), 'row_too_long');
  };
  return { rejectedByReason, reportLines, reject, tooLong };
}

async function splitByState(input: ShardedImportInput): Promise<ByState> {
  const files = new Map<string, PartFile>();
  const counts = new ShardCounts();
  const { rejectedByReason, reportLines, reject, tooLong } = rejections();
  let headerLine = '';
  let rowsRead = 0;
  const source = createReadStream(input.path, { highWaterMark: 1 << 20 });
  let bytesRead = 0;
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
    input.onProgress?.(bytesRead, input.totalBytes);
  });
  let header: string[] | null;
  try {
    // Threads split blocks side by side (records and their states); this thread takes them in
    // order and appends each state's part to its file.
    header = await overBlocks(input, source, null, {
      onHeader: (fields, warnings) => {
        tooLong(warnings);
        headerLine = voterLine(fields);
      },
      take: async (block) => {
        rowsRead += block.records;
        for (const [line, reason] of block.rejected) reject(line, reason);
        for (const [state, zip3, records] of block.counts) counts.add(state, zip3, records);
        for (const part of block.parts) {
          let file = files.get(part.state);
          if (file === undefined) {
            file = new PartFile(join(input.workDir, `${stateFileId(part.state)}.csv`), headerLine);
            files.set(part.state, file);
          }
          file.add(part, (line) => line);
        }
        await Promise.all([...files.values()].map((file) => file.ready()));
      },
      onEnd: (warnings) => tooLong(warnings),
    });
    await Promise.all([...files.values()].map((file) => file.end()));
  } catch (error) {
    for (const file of files.values()) file.destroy();
    throw error;
  }
  if (header === null) throw new AppError('VALIDATION_FAILED', 'the voter file is empty');
  return { headerLine, files, counts, rowsRead, rejectedByReason, reportLines };
}

/** The first pass's file of a state's records: named as the state's shard is when it is not cut. */
const stateFileId = (state: string) => (state === '' ? NO_STATE_SHARD : state.toLowerCase());

interface SplitResult {
  files: string[];
  /** Per shard, the file's line of each of its rows, in order. */
  lines: Uint32Array[];
  rowsRead: number;
  rejectedByReason: Record<string, number>;
  reportLines: string[];
}

/**
 * The shards' CSV files: a state's file of the first pass is its shard's when the plan keeps the
 * state whole; a state cut into ZIP3 ranges is split again among them (its records in the voter
 * file's order in each).
 */
async function splitCutStates(
  input: ShardedImportInput,
  plan: ShardPlan,
  byState: ByState,
): Promise<SplitResult> {
  // Each state's shards (their numbers in the plan), in the order of its number.
  const shardsOf = new Map(
    [...byState.files.keys()].map((state) => [
      state,
      plan.shards.flatMap((shard, i) => (shard.state === state ? [i] : [])),
    ]),
  );
  const shardFiles: { path: string; lines: Uint32Array }[] = [];
  const rejected = rejections();
  const threads = new SplitThreads(input, plan);
  try {
    for (const [state, whole] of byState.files) {
      const shards = shardsOf.get(state)!;
      if (shards.length === 0)
        throw new Error(`the shard plan has no shard for the records of ${whole.path}`);
      if (shards.length === 1) {
        shardFiles[shards[0]!] = whole;
        continue;
      }
      const parts = await splitState(input, whole, shards, {
        plan,
        threads,
        headerLine: byState.headerLine,
        rejected,
      });
      for (const [shard, file] of parts) shardFiles[shard] = file;
      await rm(whole.path, { force: true });
    }
  } finally {
    await threads.close();
  }
  // Not held while the shards are built: the states' files (their lines are the shards' now).
  byState.files.clear();
  return {
    files: plan.shards.map((_, i) => shardFiles[i]!.path),
    lines: plan.shards.map((_, i) => shardFiles[i]!.lines),
    rowsRead: byState.rowsRead,
    rejectedByReason: addCounts(byState.rejectedByReason, rejected.rejectedByReason),
    reportLines: [...byState.reportLines, ...rejected.reportLines],
  };
}

/**
 * A cut state's file of the first pass split among its shards (`shards`: their numbers), each
 * record's line in the voter file kept.
 */
async function splitState(
  input: ShardedImportInput,
  whole: PartFile,
  shards: readonly number[],
  split: {
    plan: ShardPlan;
    threads: SplitThreads;
    headerLine: string;
    rejected: Pick<ReturnType<typeof rejections>, 'reject' | 'tooLong'>;
  },
): Promise<Map<number, PartFile>> {
  // The state's file holds a record a line (a cell's line break was written as a space).
  const fileLines = whole.lines;
  const lineOf = (line: number) => fileLines[line - 2]!;
  const parts = new Map<number, PartFile>();
  for (const shard of shards) {
    parts.set(
      shard,
      new PartFile(join(input.workDir, `${split.plan.shards[shard]!.id}.csv`), split.headerLine),
    );
  }
  try {
    await overBlocks(input, createReadStream(whole.path, { highWaterMark: 1 << 20 }), split.plan, {
      threads: split.threads,
      take: async (block) => {
        for (const [line, reason] of block.rejected) split.rejected.reject(lineOf(line), reason);
        for (const part of block.parts) parts.get(part.shard)!.add(part, lineOf);
        await Promise.all([...parts.values()].map((file) => file.ready()));
      },
      // A record written from its fields may have grown past the limit (its last one too).
      onEnd: (warnings) => split.rejected.tooLong(warnings, lineOf),
    });
    await Promise.all([...parts.values()].map((file) => file.end()));
  } catch (error) {
    for (const file of parts.values()) file.destroy();
    throw error;
  }
  return parts;
}

/**
 * Which shards hold each phone, e-mail and id (SHARD_DIRECTORY_FILE), from what each shard's build
 * gathered; returns each shard's area. The entries (6 bytes each, some 2.4 a voter: 720 MB at 50M
 * voters, more while sorted and turned into bytes) are held only here, between the builds and the
 * file statistics, never beside either.
 */
async function writeShardDirectory(
  input: ShardedImportInput,
  plan: ShardPlan,
): Promise<ShardContacts['box'][]> {
  const paths = plan.shards.map((shard) => contactsPathOf(input, shard.id));
  // Sized to the entries at once: grown by doubling, a national file's arrays held twice over.
  let entries = 0;
  for (const path of paths) entries += contactsHashCount(path, (await stat(path)).size);
  const directory = new ShardDirectoryBuilder(entries);
  const boxes: ShardContacts['box'][] = [];
  for (const [i, path] of paths.entries()) {
    const contacts = await readShardContacts(path);
    directory.addHashes(i, contacts.hashes);
    boxes.push(contacts.box);
    await rm(path, { force: true });
  }
  // Written in pieces from the sorted entries: neither the directory nor its file held whole.
  const file = await open(join(input.workDir, SHARD_DIRECTORY_FILE), 'w');
  try {
    for (const piece of directory.fileChunks()) await file.write(piece);
    await file.sync();
  } finally {
    await file.close();
  }
  return boxes;
}

/** Where a shard's build writes its voters' contacts (shard-contacts.ts). */
const contactsPathOf = (input: ShardedImportInput, shardId: string) =>
  join(input.workDir, `${shardId}.contacts`);

function addCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const sum = { ...a };
  for (const [key, count] of Object.entries(b)) sum[key] = (sum[key] ?? 0) + count;
  return sum;
}

/** Blocks of the voter CSV handed to the split's threads: about 1,000 voter rows. */
const SPLIT_BLOCK_BYTES = 256 * 1024;

/**
 * Threads of the count and split passes: all cores but the one that writes the shards' files, and
 * at least two. That thread is busy about a quarter of the time (measured on 2 cores: 1.7 s of
 * the 6.7 s a split thread took over 1M voters), so on a small machine it shares a core with a
 * split thread rather than leave one idle.
 */
export function splitThreads(cores = availableParallelism()): number {
  return Math.max(2, cores - 1);
}

/** What a loaded snapshot keeps in memory: its files but the records (read from disk per lookup). */
export async function memoryBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name === 'records.dat' || entry.name.endsWith('.csv')) continue;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}
