import { closeSync, openSync, readSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashString } from '../../domain/matching/index/hashing.ts';
import type { MatchIndex } from '../../domain/matching/index/match-index.ts';
import type { MatchIndexMeta } from '../../domain/matching/index/match-index-parts.ts';
import { PackedPostings, type PackedPostingsParts } from '../../domain/matching/index/packed-postings.ts';
import { LEVELS_LAYOUT } from '../../domain/matching/score/comparison-levels.ts';
import { hash52, IdHashTable } from '../../domain/voters/id-hash-table.ts';
import { idKey } from '../../domain/voters/id-keys.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import { ID_INDEXES, type IdIndexName } from '../../domain/voters/voter-columns.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { backgroundReader } from './background-reader.ts';

/**
 * The files of one voter file version (a snapshot) and their reader. The folder
 * `<dir>/<version>/` holds (fs-voter-store.ts names the current one, snapshot-builder.ts writes them):
 * - `records.dat`: one record per line, fields joined by U+001F (values never contain it nor a
 *   newline: import replaces both with a space);
 * - `offsets.bin`: Float64Array of size+1 byte offsets of the lines;
 * - `ids-packed-{directory,key-directory,key-residuals,starts,voters}.bin`: every id's key as
 *   packed postings (packed-postings.ts), checked against the record on lookup; versions of
 *   format 2 have them unpacked in `ids-{hashes,voters,directory}.bin` (key-postings.ts), of
 *   format 1 float64 tables `idx-<name>.bin`;
 * - `match/`: the probabilistic matcher's index (normalized fields, blocking postings, density
 *   map), built in the same pass as the records (see match-index-parts.ts);
 * - `meta.json`: version, columns, counts; `import-report.csv`: rejected and corrected lines.
 */
export const FIELD_SEPARATOR = '\x1f';
const SEPARATOR_BYTE = 0x1f;

/**
 * 3: ids in packed postings (ids-packed-*.bin: about 5.3 bytes an id, where 2 took 8: 11 bytes
 * less per voter of 4 ids); 2: ids in one postings structure (ids-*.bin); 1 (no field): float64
 * tables (idx-*.bin).
 */
export const SNAPSHOT_FORMAT = 3;

export interface SnapshotMeta {
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

/** A version's meta.json, or null when the folder holds no version. */
export async function readMeta(versionDir: string): Promise<SnapshotMeta | null> {
  try {
    return JSON.parse(await readFile(join(versionDir, 'meta.json'), 'utf8')) as SnapshotMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Reads a whole file into memory in chunks (fs.readFile stops at 2 GiB), optionally into shared
 * memory: a version's arrays that the matching threads share, read at the lowest CPU priority
 * (BackgroundReader) so that a process answering lookups meanwhile keeps its cores.
 */
export async function readWhole(path: string, shared = false): Promise<Buffer> {
  if (shared) return await backgroundReader.read(path);
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafeSlow(size);
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
export async function readTyped<T>(
  path: string,
  Type: { new (buffer: ArrayBufferLike, offset: number, length: number): T; BYTES_PER_ELEMENT: number },
  shared = false,
): Promise<T> {
  const buffer = await readWhole(path, shared);
  return new Type(buffer.buffer, buffer.byteOffset, buffer.byteLength / Type.BYTES_PER_ELEMENT);
}

/**
 * The random-pair u of the index (score/random-pair-u.ts), stored beside its parts under the
 * layout of comparison levels it was estimated for: after an upgrade that changes the levels,
 * the old file is ignored and u is estimated and stored again on first load.
 */
export const RANDOM_PAIR_U_FILE = `random-pair-u.${LEVELS_LAYOUT}.bin`;

export async function readMatchMeta(dir: string): Promise<MatchIndexMeta | null> {
  try {
    return JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as MatchIndexMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
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
  /** The cached blocks' bytes, a 4 KiB slot each, reused: reading a block allocates nothing. */
  private slab: Buffer | null = null;

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
    this.slab ??= Buffer.allocUnsafe(CACHED_BLOCKS * BLOCK_BYTES);
    let slot = this.blocks.size;
    if (slot >= CACHED_BLOCKS) {
      // The least recently used block gives up its slot.
      const [oldest, bytes] = this.blocks.entries().next().value!;
      this.blocks.delete(oldest);
      slot = (bytes.byteOffset - this.slab.byteOffset) / BLOCK_BYTES;
    }
    const at = slot * BLOCK_BYTES;
    let done = 0;
    // A short read only happens at the end of the file: the block is what there is.
    for (;;) {
      const n = readSync(this.fd, this.slab, at + done, BLOCK_BYTES - done, index * BLOCK_BYTES + done);
      if (n === 0) break;
      done += n;
      if (done === BLOCK_BYTES) break;
    }
    const bytes = this.slab.subarray(at, at + done);
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

/** Formats 2 and 3: the ids' keys in one postings structure (format 2's laid out so as it loads). */
class PostingsIdLookup implements IdLookup {
  readonly postings: PackedPostings;
  constructor(postings: PackedPostings) {
    this.postings = postings;
  }
  candidates(index: IdIndexName, key: string): number[] {
    const [start, end] = this.postings.range(idPostingsHash(index, key));
    const voters: number[] = [];
    for (let i = start; i < end; i++) voters.push(this.postings.voterAt(i));
    return voters;
  }
}

/** Packed id postings as handed to another thread. */
export interface PackedIds extends PackedPostingsParts {
  voterBytes: 3 | 4;
}

/** The files of packed id postings (format 3), by part. */
export const PACKED_ID_FILES = {
  directory: 'ids-packed-directory.bin',
  keyDirectory: 'ids-packed-key-directory.bin',
  keyResiduals: 'ids-packed-key-residuals.bin',
  starts: 'ids-packed-starts.bin',
  voterData: 'ids-packed-voters.bin',
} as const satisfies Record<keyof PackedPostingsParts, string>;

/** A version's id postings as its format stores them, in shared memory (the threads read them). */
async function loadIdPostings(dir: string, meta: SnapshotMeta): Promise<PackedPostings> {
  if ((meta.format ?? 1) === 2) {
    // Read here only: laid out anew in shared memory, and let go.
    const part = (name: string) => readTyped(join(dir, `ids-${name}.bin`), Uint32Array);
    const [hashes, voters] = [await part('hashes'), await part('voters')];
    return PackedPostings.fromSorted(hashes, voters, meta.rows, true);
  }
  const file = (name: keyof typeof PACKED_ID_FILES) => join(dir, PACKED_ID_FILES[name]);
  const directory = await readTyped(file('directory'), Uint32Array, true);
  const voterData = await readWhole(file('voterData'), true);
  const entries = directory[directory.length - 1] ?? 0;
  const voterBytes = entries === 0 ? 3 : voterData.byteLength / entries;
  if (voterBytes !== 3 && voterBytes !== 4)
    throw new Error(`the id postings of ${dir} are damaged: ${voterData.byteLength} bytes of voters`);
  return new PackedPostings(
    {
      directory,
      keyDirectory: await readTyped(file('keyDirectory'), Uint32Array, true),
      keyResiduals: await readTyped(file('keyResiduals'), Uint16Array, true),
      starts: await readTyped(file('starts'), Uint32Array, true),
      voterData: new Uint8Array(voterData.buffer, voterData.byteOffset, voterData.byteLength),
    },
    voterBytes,
  );
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
  ids: PackedIds | null;
}

export class FsVoterSnapshot implements VoterSnapshot {
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

  /** Loads a version's files; `loadMatchIndex` gives its match index (rebuilding an old one). */
  static async load(
    dir: string,
    meta: SnapshotMeta,
    loadMatchIndex: (dir: string, columns: readonly string[]) => Promise<MatchIndex>,
  ): Promise<FsVoterSnapshot> {
    let ids: IdLookup;
    if ((meta.format ?? 1) >= 2) {
      // Shared memory: the matching threads look ids up in the same arrays.
      ids = new PostingsIdLookup(await loadIdPostings(dir, meta));
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
        : new PostingsIdLookup(new PackedPostings(shared.ids, shared.ids.voterBytes));
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
    const { directory, keyDirectory, keyResiduals, starts, voterData, voterBytes } = this.ids.postings;
    return {
      kind: 'fs',
      dir: this.dir,
      meta: this.meta,
      offsets: this.offsets,
      ids: { directory, keyDirectory, keyResiduals, starts, voterData, voterBytes },
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
