import { FirstNameCohortCount } from './first-name-cohorts.ts';
import { FirstNameGenderCount } from './first-name-genders.ts';
import type { FileStatistics, MatchIndexData } from './match-index-data.ts';
import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';
import { StringDictionary } from './string-dictionary.ts';

/**
 * The whole voter file's statistics, counted from its shards' indexes one at a time (a sharded
 * import never holds the file's index): each dictionary value's voters, first names' genders and
 * birth-year cohorts, voters per date of birth and per ZIP, and the file's size. `withFileStatistics`
 * then gives each shard's index these figures in place of its own, so that a shard scores a
 * candidate exactly as the whole file's index does (the same prior odds per voter, the same term
 * frequencies, the same first-name genders and cohorts).
 *
 * Every figure is a sum of integers (or, for genders and cohorts, computed from such sums by name),
 * so neither the shards' order nor the order of values within them changes it.
 */
export class FileStatisticsCount {
  private size = 0;
  private readonly values = {} as Record<TextField, Map<string, number>>;
  /** First names by a file-wide id, for the gender and cohort counts. */
  private readonly firstIds = new Map<string, number>();
  private readonly genders = new FirstNameGenderCount(1024);
  private readonly cohorts = new FirstNameCohortCount(1024);
  private readonly dobs = new Map<number, number>();
  private readonly zips = new Map<number, number>();

  constructor() {
    for (const field of TEXT_FIELDS) this.values[field] = new Map();
    this.firstIds.set('', 0);
  }

  /** One shard's index (its own statistics, as built). */
  add(data: MatchIndexData): void {
    this.size += data.size;
    for (const field of TEXT_FIELDS) {
      const dictionary = data.dictionaries[field];
      const counts = this.values[field];
      for (let id = 0; id < dictionary.size; id++) {
        const value = dictionary.value(id);
        counts.set(value, (counts.get(value) ?? 0) + dictionary.count(id));
      }
    }
    const first = data.dictionaries.first;
    const fileIds = new Uint32Array(first.size);
    for (let id = 1; id < first.size; id++) {
      const value = first.value(id);
      let fileId = this.firstIds.get(value);
      if (fileId === undefined) {
        fileId = this.firstIds.size;
        this.firstIds.set(value, fileId);
      }
      fileIds[id] = fileId;
    }
    const fields = data.fields;
    for (let voter = 0; voter < fields.size; voter++) {
      const firstId = fileIds[fields.first(voter)]!;
      const dob = fields.dob(voter);
      this.genders.add(firstId, fields.gender(voter));
      this.cohorts.add(firstId, dob);
      // As MatchIndex counts them: dates and ZIPs a voter has (0 is none).
      if (dob > 0) this.dobs.set(dob, (this.dobs.get(dob) ?? 0) + 1);
      const zip = fields.zip(voter);
      if (zip > 0 && zip < 100_000) this.zips.set(zip, (this.zips.get(zip) ?? 0) + 1);
    }
  }

  /** The file's figures, once every shard was added. */
  finish(): WholeFileStatistics {
    const zipIds = Uint32Array.from(this.zips.keys()).sort();
    return {
      size: this.size,
      values: this.values,
      firstIds: this.firstIds,
      genders: this.genders.genders(),
      cohorts: this.cohorts.concentrations(),
      dobs: this.dobs,
      zipIds,
      zipCounts: Uint32Array.from(zipIds, (zip) => this.zips.get(zip)!),
    };
  }
}

/** The whole file's figures (FileStatisticsCount.finish), to give each of its shards. */
export interface WholeFileStatistics {
  size: number;
  values: Record<TextField, Map<string, number>>;
  firstIds: Map<string, number>;
  /** By file-wide first-name id. */
  genders: Uint8Array;
  cohorts: Float32Array;
  dobs: Map<number, number>;
  zipIds: Uint32Array;
  zipCounts: Uint32Array;
}

/**
 * A shard's index with the whole file's statistics: its dictionaries count the file's voters, its
 * first names carry the file's genders and cohorts, and `file` holds the rest, with each voter's
 * position in the whole file (`order`, from the import).
 */
export function withFileStatistics(
  data: MatchIndexData,
  whole: WholeFileStatistics,
  order: Uint32Array,
): MatchIndexData {
  if (order.length !== data.size) throw new RangeError('one file position per voter of the shard');
  const dictionaries = {} as Record<TextField, StringDictionary>;
  for (const field of TEXT_FIELDS) {
    const own = data.dictionaries[field];
    const counts = whole.values[field];
    dictionaries[field] = StringDictionary.fromValues(
      own.values,
      Uint32Array.from(own.values, (value) => counts.get(value) ?? 0),
    );
  }
  const first = data.dictionaries.first;
  const firstGenders = new Uint8Array(first.size);
  const firstCohorts = new Float32Array(first.size).fill(1);
  for (let id = 1; id < first.size; id++) {
    const fileId = whole.firstIds.get(first.value(id));
    if (fileId === undefined) continue;
    firstGenders[id] = whole.genders[fileId] ?? 0;
    firstCohorts[id] = whole.cohorts[fileId] ?? 1;
  }
  const dobs = data.fields.dobs;
  const file: FileStatistics = {
    size: whole.size,
    order,
    dobCounts: Uint32Array.from(dobs, (dob) => (dob === 0 ? 0 : (whole.dobs.get(dob) ?? 0))),
    zipIds: whole.zipIds,
    zipCounts: whole.zipCounts,
  };
  return { ...data, dictionaries, firstGenders, firstCohorts, file };
}
