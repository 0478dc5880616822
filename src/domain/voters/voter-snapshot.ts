import type { MatchIndex } from '../matching/index/match-index.ts';
import type { ShardDirectory } from './shard-directory.ts';
import type { ShardMap } from './shard-map.ts';
import type { IdIndexName } from './voter-columns.ts';

/**
 * One immutable version of the imported voter file, as the matcher sees it. Records are
 * addressed by index 0..size-1.
 */
export interface VoterSnapshot {
  readonly version: string;
  /** All columns: the core columns first, then the appendable ones in import order. */
  readonly columns: readonly string[];
  readonly size: number;
  /** Records whose normalized id equals `key` (see id-keys.ts); verified, never a hash guess. */
  lookup(index: IdIndexName, key: string): number[];
  /** All fields of one record, in `columns` order. */
  record(index: number): string[];
  /** The values of some columns of one record (a position of -1 gives ''), cheaper than record(). */
  fields(index: number, columns: readonly number[]): string[];
  /** Position of a column, or -1. */
  columnIndex(name: string): number;
  /** The probabilistic matcher's index, built at import and loaded with the snapshot (null: none stored). */
  readonly matchIndex: MatchIndex | null;
  /** Set when the version is sharded: lists are matched shard by shard (see shard-map.ts). */
  readonly shardMap?: ShardMap;
  /** A sharded version's directory of phones and e-mails (null: imported before there was one). */
  readonly shardDirectory?: ShardDirectory | null;
  /** A sharded version opens every shard before `lookup`, `record` or `fields` (id lookups across the file). */
  loadShards?(): Promise<void>;
  /**
   * Plain data (shared memory, the same files) from which a worker thread of this process reopens
   * this snapshot, to match there; absent or null: it can only be read in this thread.
   */
  shared?(): object | null;
}

export interface VoterImportReport {
  version: string;
  rowsRead: number;
  imported: number;
  /** Rows kept from the previous version (append mode). */
  carriedOver: number;
  rejected: number;
  rejectedByReason: Record<string, number>;
  warnings: number;
  warningsByKind: Record<string, number>;
  /** Path of the CSV listing every rejected or corrected line with its reason (no values). */
  reportPath: string;
  columns: string[];
  durationMs: number;
}

export interface VoterStats {
  version: string;
  rows: number;
  columns: string[];
  importedAt: string;
  /** A sharded version's shards (VOTER_SHARD_MAX_ROWS); absent for one snapshot. */
  shards?: number;
}

/** The imported voter file: versions on local disk, switched atomically. */
export interface VoterStore {
  /** The snapshot jobs should use now, or null when no voter file was imported. */
  current(): Promise<VoterSnapshot | null>;
  /** A specific version when it still exists (a resumed job keeps its version). */
  open(version: string): Promise<VoterSnapshot | null>;
  importFile(
    path: string,
    options: { replace: boolean; onProgress?: (bytesRead: number, totalBytes: number) => void },
  ): Promise<VoterImportReport>;
  stats(): Promise<VoterStats | null>;
}
