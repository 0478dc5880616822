import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { CsvBlock } from '../../domain/csv/csv-blocks.ts';
import type { CsvWarning } from '../../domain/csv/csv-reader.ts';
import { AppError } from '../../domain/errors.ts';
import { Uint32List } from '../../domain/matching/candidates/key-batch.ts';
import { PostingsCollector } from '../../domain/matching/index/key-postings.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import {
  dictionariesFromParts,
  isPartLetGoOnLoad,
  isReadableIndexFormat,
  matchIndexFromParts,
  requiredParts,
} from '../../domain/matching/index/match-index-parts.ts';
import { PackedPostings } from '../../domain/matching/index/packed-postings.ts';
import { randomPairU, rememberRandomPairU } from '../../domain/matching/probabilistic-matcher.ts';
import { estimateRandomPairU } from '../../domain/matching/score/random-pair-u.ts';
import { hash32, hash52, IdHashTable } from '../../domain/voters/id-hash-table.ts';
import { CORE_VOTER_COLUMNS, ID_INDEXES, type IdIndexName } from '../../domain/voters/voter-columns.ts';
import type { VoterImportReport, VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { syncDirectory } from '../blobs/fs-blob-store.ts';
import { answerCsvBlocksInOrder } from '../threads/csv-blocks-on-threads.ts';
import { idlePause } from '../threads/idle-pause.ts';
import { TaskPool } from '../threads/task-pool.ts';
import { buildMatchIndexFromRecords, MatchIndexThreads, MatchIndexWorkers } from './match-index-threads.ts';
import { writeShardContacts } from './shard-contacts.ts';
import {
  FIELD_SEPARATOR,
  idPostingsHash,
  PACKED_ID_FILES,
  RANDOM_PAIR_U_FILE,
  readMatchMeta,
  readWhole,
  SNAPSHOT_FORMAT,
  type SnapshotMeta,
} from './snapshot-files.ts';
import { type PreparedVoterBlock, RecordLines, recordIds, type VoterBlockPlan } from './voter-blocks.ts';

/** Records carried over from the previous version are queued in batches of about this many bytes. */
const CARRIED_BATCH_BYTES = 256 * 1024;

/**
 * Builds a voter file version from a CSV: records, ids and the match index, written into a
 * folder the store then renames into place (snapshot-files.ts says what each file is). Also
 * the match index of a version whose stored one is missing or of an older format.
 */
/** Widest voter file accepted (core columns plus appendable fields). */
const MAX_VOTER_COLUMNS = 2000;

export interface BuildInput {
  path: string;
  totalBytes: number;
  buildDir: string;
  version: string;
  previous: VoterSnapshot | null;
  maxRowBytes: number;
  onProgress: ((bytesRead: number, totalBytes: number) => void) | undefined;
  /**
   * Whether the build estimates the voter file's random-pair u and stores it (default). A shard of
   * a sharded import does not: the file's u replaces it once every shard is built
   * (shard-file-statistics.ts), and estimating it on the shard alone cost a fifth of the import's
   * CPU on the thread every build waits for.
   */
  storesRandomPairU?: boolean;
  /** Threads kept over several builds (a sharded import's shards); absent: the build's own. */
  threads?: BuildThreads;
  /** A sharded import's shard: where its voters' contacts for the directory and map go (shard-contacts.ts). */
  contactsPath?: string;
}

/** What building one snapshot reports, before the import adds where and how long. */
export type BuildReport = Omit<VoterImportReport, 'reportPath' | 'durationMs'>;

export async function buildSnapshot(input: BuildInput): Promise<BuildReport> {
  const builder = new SnapshotBuilder(input.buildDir, input.threads, input.contactsPath);
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
  let rowsRead = 0;
  let carriedOver = 0;
  const note = (line: number, reason: string, rejected: boolean) => {
    const counts = rejected ? rejectedByReason : warningsByKind;
    counts[reason] = (counts[reason] ?? 0) + 1;
    reportLines.push(`${line},${reason}`);
  };
  const noteWarning = (warning: CsvWarning) =>
    note(warning.line, warning.kind, warning.kind === 'row_too_long');

  const source = createReadStream(input.path, { highWaterMark: 1024 * 1024 });
  let bytesRead = 0;
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
    input.onProgress?.(bytesRead, input.totalBytes);
  });
  // Threads prepare blocks side by side (parse, clean, check, hash the ids); this thread takes
  // them in order, rejects duplicates and writes the records, which the index threads read.
  let reserved = false;
  await answerCsvBlocksInOrder<PreparedVoterBlock>(
    source,
    { maxRowBytes: input.maxRowBytes, blockBytes: IMPORT_BLOCK_BYTES },
    {
      threads: (header) => {
        const plan = planColumns(header, input.previous, input.maxRowBytes, input.contactsPath !== undefined);
        builder.setColumns(plan.columns);
        return input.threads?.parse(plan) ?? parseThreads(plan);
      },
      keepThreads: input.threads !== undefined,
      onHeader: async (_header, warnings) => {
        for (const warning of warnings) noteWarning(warning);
        if (input.previous !== null) carriedOver = await builder.carryOver(input.previous);
      },
      take: async (block) => {
        rowsRead += block.rowsRead;
        for (const [line, reason, rejected] of block.report) note(line, reason, rejected);
        for (const line of builder.addBlock(block)) note(line, 'duplicate_voterbase_id', true);
        if (!reserved && block.lines.length > 0) {
          // Size the id tables once from the first rows' size, instead of doubling ~11 times.
          reserved = true;
          const bytesPerRow = Math.max(1, block.records.length / block.lines.length);
          builder.reserve(carriedOver + Math.ceil((input.totalBytes / bytesPerRow) * 1.05));
        }
        await builder.waitForDrain();
      },
      onEnd: (warnings) => {
        for (const warning of warnings) noteWarning(warning);
      },
    },
  );
  if (builder.columns.length === 0) throw new AppError('VALIDATION_FAILED', 'the voter file is empty');
  await writeFile(join(input.buildDir, 'import-report.csv'), `${reportLines.join('\n')}\n`);
  const meta = await builder.finish(input.version, input.storesRandomPairU ?? true);
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

/** Blocks of the voter CSV handed to the preparing threads: about 2,000 voter rows. */
const IMPORT_BLOCK_BYTES = 256 * 1024;

/** The snapshot's columns from the CSV header (and the version it is appended to), and where each header column goes. */
function planColumns(
  header: string[],
  previous: VoterSnapshot | null,
  maxRowBytes: number,
  contacts: boolean,
): VoterBlockPlan {
  if (header.length > MAX_VOTER_COLUMNS) {
    throw new AppError(
      'VALIDATION_FAILED',
      `the voter file has ${header.length} columns; at most ${MAX_VOTER_COLUMNS} are accepted`,
    );
  }
  const names = header.map((name) => name.trim().toLowerCase());
  if (!names.includes('voterbase_id')) {
    throw new AppError('VALIDATION_FAILED', 'the voter file has no voterbase_id column');
  }
  const extras = names.filter((name, i) => name !== '' && names.indexOf(name) === i && !isCore(name));
  const previousExtras = (previous?.columns ?? []).filter((name) => !isCore(name));
  const columns = [
    ...CORE_VOTER_COLUMNS,
    ...previousExtras,
    ...extras.filter((e) => !previousExtras.includes(e)),
  ];
  return {
    width: header.length,
    columns,
    columnMap: names.map((name, i) => (names.indexOf(name) === i ? columns.indexOf(name) : -1)),
    maxRowBytes,
    ...(contacts ? { contacts } : {}),
  };
}

/**
 * Threads of an import: some prepare blocks of the CSV, some build the match index from the
 * records (each builds a segment, one merges them). This thread takes the prepared blocks in order.
 */
export function importThreads(cores = availableParallelism()): { parse: number; index: number } {
  const index = Math.max(1, Math.min(8, Math.floor(cores / 2)));
  return { index, parse: Math.max(1, cores - index - 1) };
}

function parseThreads(plan: VoterBlockPlan): TaskPool<CsvBlock, PreparedVoterBlock> {
  return new TaskPool(new URL('./voter-block.worker.ts', import.meta.url), importThreads().parse, {
    workerData: plan,
  });
}

/**
 * An import's threads kept from one build to the next (a sharded import's shards, built one after
 * another): each thread loads and compiles its code and makes its tables once. A 250k-voter build
 * on fresh threads took about 1.3 s more on its parsing thread and 1.4 s more on its index thread
 * than a quarter of a 1M-voter build (measured, 2-core VM). The parsing threads serve builds of
 * the same columns (every shard has the file's); threads that failed are replaced. `close` stops
 * them all.
 */
export class BuildThreads {
  private parsing: { plan: string; pool: TaskPool<CsvBlock, PreparedVoterBlock> } | null = null;
  private indexing: MatchIndexWorkers | null = null;

  /** The parsing threads for blocks of this plan. */
  parse(plan: VoterBlockPlan): TaskPool<CsvBlock, PreparedVoterBlock> {
    const key = JSON.stringify(plan);
    const kept = this.parsing;
    if (kept !== null && kept.plan === key && !kept.pool.failed && !kept.pool.isClosed) return kept.pool;
    void kept?.pool.close();
    const pool = parseThreads(plan);
    this.parsing = { plan: key, pool };
    return pool;
  }

  /** The index threads for the next build. */
  index(): MatchIndexWorkers {
    if (this.indexing === null || this.indexing.broken)
      this.indexing = new MatchIndexWorkers(importThreads().index);
    return this.indexing;
  }

  async close(): Promise<void> {
    await Promise.all([this.parsing?.pool.close(), this.indexing?.terminate()]);
  }
}

const isCore = (name: string) => (CORE_VOTER_COLUMNS as readonly string[]).includes(name);
const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Writes records and builds the id tables of one new version. */
class SnapshotBuilder {
  columns: string[] = [];
  private readonly dir: string;
  private out: Writable | null = null;
  /** Record lines not written yet (whole lines, UTF-8), in shared memory (voter-blocks.ts). */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private pendingRows = 0;
  private flushedRows = 0;
  /** Bytes of the records queued so far (written or pending). */
  private offset = 0;
  /** Each record's byte offset in the records file, and the file's end after the last. */
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

  private readonly threads: BuildThreads | undefined;
  private readonly contactsPath: string | undefined;
  /** Records carried over from the previous version, not queued yet. */
  private readonly carried = new RecordLines();
  /** A shard's kept records' directory hashes (PreparedVoterBlock contactHashes). */
  private readonly contactHashes = new Uint32List();

  constructor(dir: string, threads?: BuildThreads, contactsPath?: string) {
    this.dir = dir;
    this.threads = threads;
    this.contactsPath = contactsPath;
  }

  setColumns(columns: string[]): void {
    this.columns = columns;
    for (const name of ID_INDEXES) this.idColumns[name] = columns.indexOf(name);
    this.stateColumn = columns.indexOf('state');
    this.matchIndex = new MatchIndexThreads(columns, {
      ...(this.threads === undefined
        ? { threads: importThreads().index }
        : { workers: this.threads.index() }),
      shard: this.contactsPath !== undefined,
    });
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
    // A shard's records carried over would have no directory hashes (voter-blocks.ts makes them).
    if (this.contactsPath !== undefined) throw new Error('a shard is built without a previous version');
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

  /** Adds one record (a kept one of an earlier version); returns the reason when it is rejected. */
  add(values: string[]): string | null {
    const keys = recordIds(values, this.idColumns, this.stateColumn);
    if (keys === null) return 'missing_voterbase_id';
    const row = this.keep(hash52(keys.voterbaseId), hash32(keys.voterbaseId));
    if (row < 0) return 'duplicate_voterbase_id';
    for (const [name, key] of keys.ids) {
      this.idPostings.add(idPostingsHash(name, key), row);
      this.idCounts[name]++;
    }
    this.carried.add(values.join(FIELD_SEPARATOR));
    if (this.carried.size >= CARRIED_BATCH_BYTES) this.queueCarried();
    return null;
  }

  /**
   * Adds a prepared block's rows in order; returns the lines of those rejected as duplicates of
   * an earlier voterbase_id (the only check that needs every earlier row).
   */
  addBlock(block: PreparedVoterBlock): number[] {
    this.queueCarried();
    const count = block.lines.length;
    const rowOf = new Int32Array(count);
    const duplicates: number[] = [];
    for (let i = 0; i < count; i++) {
      rowOf[i] = this.keep(block.voterbase[i]!, block.checks[i]!);
      if (rowOf[i]! < 0) duplicates.push(block.lines[i]!);
    }
    for (let j = 0; j < block.idRows.length; j++) {
      const row = rowOf[block.idRows[j]!]!;
      if (row < 0) continue;
      this.idPostings.add(block.idHashes[j]!, row);
      this.idCounts[ID_INDEXES[block.idKinds[j]!]!]++;
    }
    for (let j = 0; j < block.contactRows.length; j++)
      if (rowOf[block.contactRows[j]!]! >= 0) this.contactHashes.push(block.contactHashes[j]!);
    if (duplicates.length === 0) this.queue(block.records, block.recordBytes);
    else this.queueKept(block, rowOf, duplicates.length);
    return duplicates;
  }

  /** Takes the next record number for a voterbase_id, or -1 when an earlier record has it. */
  private keep(h: number, check: number): number {
    const row = this.rows;
    if (!this.voterbaseTable.insertUnique(h, row, (existing) => this.voterbaseCheck[existing] === check)) {
      return -1;
    }
    this.rows++;
    if (row >= this.voterbaseCheck.length) this.voterbaseCheck = growUint32(this.voterbaseCheck);
    this.voterbaseCheck[row] = check;
    return row;
  }

  /** The block's lines of the rows kept (rowOf ≥ 0), in new shared memory: a block with duplicates. */
  private queueKept(block: PreparedVoterBlock, rowOf: Int32Array, rejected: number): void {
    const lengths: number[] = [];
    let size = 0;
    for (let i = 0; i < rowOf.length; i++) if (rowOf[i]! >= 0) size += block.recordBytes[i]!;
    const kept = new Uint8Array(new SharedArrayBuffer(size));
    let from = 0;
    let to = 0;
    for (let i = 0; i < rowOf.length; i++) {
      const length = block.recordBytes[i]!;
      if (rowOf[i]! >= 0) {
        kept.set(block.records.subarray(from, from + length), to);
        to += length;
        lengths.push(length);
      }
      from += length;
    }
    if (lengths.length !== rowOf.length - rejected)
      throw new Error('a block kept other rows than it counted');
    this.queue(kept, lengths);
  }

  /** Queues whole record lines (`lengths`: each line's bytes) and takes their offsets in the file. */
  private queue(lines: Uint8Array, lengths: ArrayLike<number>): void {
    const first = this.flushedRows + this.pendingRows;
    while (first + lengths.length + 1 > this.offsets.length) this.offsets = growFloat64(this.offsets);
    for (let i = 0; i < lengths.length; i++) {
      this.offsets[first + i] = this.offset;
      this.offset += lengths[i]!;
    }
    this.offsets[first + lengths.length] = this.offset;
    this.pending.push(lines);
    this.pendingBytes += lines.length;
    this.pendingRows += lengths.length;
    if (this.pendingBytes > 1 << 20) this.flushPending();
  }

  /** Writes the pending lines and hands the same bytes to the index threads (shared, not copied). */
  private flushPending(): void {
    const count = this.pendingRows;
    if (count === 0) return;
    const chunks = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingRows = 0;
    this.matchIndex!.send(chunks, this.flushedRows);
    this.flushedRows += count;
    let room = true;
    for (const chunk of chunks) room = this.out!.write(chunk) && room;
    if (!room) this.needsDrain = true;
  }

  /** Queues the records carried over from the previous version added so far. */
  private queueCarried(): void {
    if (this.carried.size === 0) return;
    const { records, recordBytes } = this.carried.take();
    this.queue(records, recordBytes);
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

  async finish(version: string, storesRandomPairU: boolean): Promise<SnapshotMeta> {
    if (this.out === null) throw new AppError('VALIDATION_FAILED', 'the voter file is empty');
    this.queueCarried();
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
    const sorted = this.idPostings.build();
    const ids = PackedPostings.fromSorted(sorted.hashes, sorted.voters, this.rows);
    for (const [part, file] of Object.entries(PACKED_ID_FILES))
      writes.push(writeTyped(join(this.dir, file), ids[part as keyof typeof PACKED_ID_FILES]));
    const { meta: matchMeta, parts, box } = await this.matchIndex!.finish();
    if (this.contactsPath !== undefined)
      writes.push(
        writeShardContacts(this.contactsPath, {
          hashes: this.contactHashes.values.subarray(0, this.contactHashes.size),
          box,
        }),
      );
    await mkdir(join(this.dir, 'match'));
    for (const [name, bytes] of parts)
      writes.push(writeFile(join(this.dir, 'match', name), bytes, { flush: true }));
    if (storesRandomPairU) {
      // u depends on the voter file alone: estimated once here, not by every process (or every
      // shard a worker loads) before its first job.
      const byName = new Map(parts);
      const u = estimateRandomPairU(matchIndexFromParts(matchMeta, (name) => byName.get(name)!));
      writes.push(
        writeFile(join(this.dir, 'match', RANDOM_PAIR_U_FILE), Buffer.from(u.buffer), { flush: true }),
      );
    }
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

async function writeTyped(
  path: string,
  array: Float64Array | Uint32Array | Uint16Array | Uint8Array,
): Promise<void> {
  await writeFile(path, new Uint8Array(array.buffer, array.byteOffset, array.byteLength), { flush: true });
}

/**
 * The stored match index. A version imported before the index existed, or whose index has an
 * older format, gets one built from its records (on every core) and stored beside them, once.
 */
export async function loadMatchIndex(versionDir: string, columns: readonly string[]): Promise<MatchIndex> {
  const dir = join(versionDir, 'match');
  let meta = await readMatchMeta(dir);
  if (meta === null || !isReadableIndexFormat(meta.format)) {
    await rebuildMatchIndex(versionDir, columns);
    meta = await readMatchMeta(dir);
    if (meta === null) throw new Error(`the match index of ${versionDir} was not stored`);
  }
  const parts = new Map<string, Uint8Array>();
  // Shared memory: the matching threads read these arrays without a copy (but for a part laid
  // out anew as it loads, which is then garbage where the file reader's thread might hold it).
  for (const name of meta.parts) parts.set(name, await readWhole(join(dir, name), !isPartLetGoOnLoad(name)));
  const part = requiredParts((name) => parts.get(name));
  // The dictionaries' maps are made a step at a time, each once the thread is quiet: a process
  // answering lookups while it loads a newly published voter file keeps answering meanwhile.
  const dictionaries = await dictionariesFromParts(meta, part, idlePause(null));
  const index = matchIndexFromParts(meta, part, dictionaries);
  const u = await readFile(join(dir, RANDOM_PAIR_U_FILE)).catch(() => null);
  const stored =
    u !== null &&
    rememberRandomPairU(index, new Float64Array(u.buffer, u.byteOffset, u.byteLength / 8).slice());
  if (!stored) {
    // Imported before u was stored, or stored for another layout of the comparison levels:
    // estimated once here and stored, or every process would estimate it on each load. A
    // folder this process cannot write to only costs the estimate again next time.
    const fresh = randomPairU(index);
    const temporary = join(dir, `.${RANDOM_PAIR_U_FILE}.${randomBytes(4).toString('hex')}`);
    await writeFile(temporary, Buffer.from(fresh.buffer, fresh.byteOffset, fresh.byteLength), {
      flush: true,
      mode: 0o600,
    })
      .then(() => rename(temporary, join(dir, RANDOM_PAIR_U_FILE)))
      .catch(() => rm(temporary, { force: true }));
  }
  return index;
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
    // u as an import stores it, or every process would estimate it again on each load.
    const u = estimateRandomPairU(matchIndexFromParts(meta, (name) => parts.get(name)!));
    await writeFile(join(building, RANDOM_PAIR_U_FILE), Buffer.from(u.buffer), { flush: true });
    await writeFile(join(building, 'meta.json'), JSON.stringify(meta), { flush: true });
    const stale = await readMatchMeta(dir);
    if (stale !== null && !isReadableIndexFormat(stale.format))
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
