import { idKey } from './id-keys.ts';
import { ID_INDEXES, type IdIndexName } from './voter-columns.ts';
import type { VoterSnapshot } from './voter-snapshot.ts';

/**
 * A voter file held as arrays, with id indexes built by the same `idKey` as the on-disk store:
 * for unit tests and small reference data. Lookups are recorded in `lookups` so tests can see
 * what the matcher asked for.
 */
export class InMemoryVoterSnapshot implements VoterSnapshot {
  readonly version: string;
  readonly columns: readonly string[];
  readonly lookups: [IdIndexName, string][] = [];
  /** Built from the rows by the matcher on first use. */
  readonly matchIndex = null;
  private readonly rows: string[][];
  private readonly indexes = new Map<IdIndexName, Map<string, number[]>>();

  constructor(columns: readonly string[], rows: string[][], version = 'in-memory') {
    this.version = version;
    this.columns = columns;
    this.rows = rows;
    const state = columns.indexOf('state');
    for (const index of ID_INDEXES) {
      const column = columns.indexOf(index);
      const keys = new Map<string, number[]>();
      if (column >= 0) {
        rows.forEach((row, i) => {
          const key = idKey(index, row[column] ?? '', state >= 0 ? (row[state] ?? '') : '');
          if (key !== null) keys.set(key, [...(keys.get(key) ?? []), i]);
        });
      }
      this.indexes.set(index, keys);
    }
  }

  get size(): number {
    return this.rows.length;
  }

  lookup(index: IdIndexName, key: string): number[] {
    this.lookups.push([index, key]);
    return [...(this.indexes.get(index)?.get(key) ?? [])];
  }

  record(index: number): string[] {
    const row = this.rows[index];
    if (row === undefined) throw new RangeError(`no record ${index}`);
    return [...row];
  }

  fields(index: number, columns: readonly number[]): string[] {
    const row = this.record(index);
    return columns.map((column) => (column < 0 ? '' : (row[column] ?? '')));
  }

  columnIndex(name: string): number {
    return this.columns.indexOf(name);
  }
}
