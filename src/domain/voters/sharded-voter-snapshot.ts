import type { ShardDirectory } from './shard-directory.ts';
import type { ShardMap } from './shard-map.ts';
import type { IdIndexName } from './voter-columns.ts';
import type { VoterSnapshot } from './voter-snapshot.ts';

/**
 * A sharded voter file version as one snapshot. Matching never loads it whole: a list job reads
 * `shardMap` and matches each shard's chunk against that shard alone. Only id lookups across the
 * file (audience onboarding by voter id) call `loadShards`, which opens every shard; records are
 * then numbered shard after shard.
 */
export class ShardedVoterSnapshot implements VoterSnapshot {
  readonly version: string;
  readonly columns: readonly string[];
  readonly size: number;
  readonly shardMap: ShardMap;
  readonly shardDirectory: ShardDirectory | null;
  readonly matchIndex = null;
  private readonly positions: Map<string, number>;
  private readonly openShard: (version: string) => Promise<VoterSnapshot | null>;
  private loaded: { snapshots: VoterSnapshot[]; starts: number[] } | null = null;

  constructor(
    meta: { version: string; columns: readonly string[]; rows: number; shards: ShardMap },
    openShard: (version: string) => Promise<VoterSnapshot | null>,
    directory: ShardDirectory | null = null,
  ) {
    this.shardDirectory = directory;
    this.version = meta.version;
    this.columns = Object.freeze([...meta.columns]);
    this.size = meta.rows;
    this.shardMap = meta.shards;
    this.positions = new Map(meta.columns.map((name, i) => [name, i]));
    this.openShard = openShard;
  }

  /** The same version, its shards opened through another store (the bucket's, which fetches them). */
  withOpener(openShard: (version: string) => Promise<VoterSnapshot | null>): ShardedVoterSnapshot {
    return new ShardedVoterSnapshot(
      { version: this.version, columns: this.columns, rows: this.size, shards: this.shardMap },
      openShard,
      this.shardDirectory,
    );
  }

  async loadShards(): Promise<void> {
    if (this.loaded !== null) return;
    const snapshots: VoterSnapshot[] = [];
    const starts: number[] = [];
    let start = 0;
    for (const shard of this.shardMap.shards) {
      const snapshot = await this.openShard(shard.version);
      if (snapshot === null) throw new Error(`shard ${shard.id} of voter file ${this.version} is missing`);
      snapshots.push(snapshot);
      starts.push(start);
      start += snapshot.size;
    }
    this.loaded = { snapshots, starts };
  }

  columnIndex(name: string): number {
    return this.positions.get(name) ?? -1;
  }

  lookup(index: IdIndexName, key: string): number[] {
    const { snapshots, starts } = this.whole();
    const found: number[] = [];
    snapshots.forEach((snapshot, i) => {
      for (const record of snapshot.lookup(index, key)) found.push(starts[i]! + record);
    });
    return found;
  }

  record(index: number): string[] {
    const [snapshot, at] = this.locate(index);
    return snapshot.record(at);
  }

  fields(index: number, columns: readonly number[]): string[] {
    const [snapshot, at] = this.locate(index);
    return snapshot.fields(at, columns);
  }

  private whole(): { snapshots: VoterSnapshot[]; starts: number[] } {
    if (this.loaded === null) throw new Error('the shards of this voter file are not loaded (loadShards)');
    return this.loaded;
  }

  private locate(index: number): [VoterSnapshot, number] {
    const { snapshots, starts } = this.whole();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (starts[mid]! <= index) low = mid;
      else high = mid - 1;
    }
    return [snapshots[low]!, index - starts[low]!];
  }
}
