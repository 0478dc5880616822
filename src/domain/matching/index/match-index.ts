import type { NormalizedPerson } from '../normalize/person.ts';
import { valueKey } from './blocking-keys.ts';
import { positionOf } from './lower-bound.ts';
import type { MatchIndexData, VoterCounts } from './match-index-data.ts';
import { MatchIndexSegmentBuilder } from './match-index-segment.ts';
import { mergeMatchIndexSegments } from './merge-match-index-segments.ts';
import type { VoterFieldTable } from './voter-field-table.ts';

export class MatchIndex {
  readonly data: MatchIndexData;
  /**
   * The voter file's random-pair u (score/random-pair-u.ts), once known: the one its import
   * estimated and stored, or the first estimate (see randomPairU in probabilistic-matcher.ts).
   */
  randomPairU: Float64Array | null = null;

  constructor(data: MatchIndexData) {
    this.data = data;
  }

  /** Sound of the first name with this dictionary id (0 for id 0, the empty name). */
  firstSound(id: number): number {
    return this.data.firstSounds[id] ?? 0;
  }

  lastSound(id: number): number {
    return this.data.lastSounds[id] ?? 0;
  }

  /**
   * The gender (GENDER_CODE) that at least 95% of the voters with this first name are filed
   * under, when at least 5 are: MICHAEL and MICHELLE, DANIEL and DANIELLE read alike but are
   * a man's and a woman's names. 0 when the file says nothing clear (no gender column, a rare or
   * unisex name). Counted when the index is built (first-name-genders.ts).
   */
  firstNameGender(id: number): number {
    return id <= 0 ? 0 : (this.data.firstGenders[id] ?? 0);
  }

  /**
   * How much more often two voters with this first name share a birth year than two of the
   * file's voters (first-name-cohorts.ts): 1 for id 0, a name no voter has, or one without dates.
   */
  firstNameCohort(id: number): number {
    return id <= 0 ? 1 : (this.data.firstCohorts[id] ?? 1);
  }

  /**
   * Voters in the voter file: the whole file's when this index holds a shard of it, so that prior
   * odds and term frequencies are the same however the file is stored. `data.size` is this
   * index's own voters.
   */
  get size(): number {
    return this.data.file?.size ?? this.data.size;
  }

  /**
   * The voter's position in the whole voter file (its record index when the file was imported
   * whole, the same number when it was imported as shards): ties between candidates fall back to
   * it, so a shard orders them as the whole file does.
   */
  voterOrder(voter: number): number {
    const file = this.data.file;
    return file === undefined ? voter : file.order[voter]!;
  }

  /**
   * The whole file's postings of a blocking key that has `own` postings in this index (the hash's
   * range in its postings): a shard's key may be too common to block on in the whole file only.
   */
  filePostings(hash: number, own: number): number {
    const file = this.data.file;
    if (file === undefined || own === 0 || file.postingsHashes.length === 0) return own;
    const i = positionOf(file.postingsHashes, hash >>> 0);
    return i < 0 ? own : file.postingsCounts[i]!;
  }

  /**
   * Voters per map cell, sorted by cell id: the whole file's when this index holds a shard of it
   * (a row's dynamic radius and its coordinates' check are then the whole file's), else its own.
   */
  densityCells(): { cellIds: Uint32Array; cellCounts: Uint32Array } {
    const file = this.data.file;
    return file !== undefined && file.cellIds.length > 0 ? file : this.data;
  }

  /** Voters of the file in a map cell (0 when none): see densityCells. */
  cellCount(cell: number): number {
    const { cellIds, cellCounts } = this.densityCells();
    const i = positionOf(cellIds, cell);
    return i < 0 ? 0 : cellCounts[i]!;
  }

  /** A map cell's position in `cellIds` (and its key filter's), -1 when no voter is in it. */
  cellIndex(cell: number): number {
    return positionOf(this.data.cellIds, cell);
  }

  /** Whether some voter of the file lives in this ZIP (located or not). */
  hasZip(zip: number): boolean {
    return this.zipCount(zip) > 0;
  }

  /** How many voters live in this ZIP (located or not). */
  zipCount(zip: number): number {
    if (zip <= 0 || zip >= ZIP_COUNT) return 0;
    const file = this.data.file;
    if (file !== undefined) {
      const i = positionOf(file.zipIds, zip);
      return i < 0 ? 0 : file.zipCounts[i]!;
    }
    this.data.voterCounts ??= countVoters(this.data.fields);
    return this.data.voterCounts.zips[zip]!;
  }

  /**
   * The blocking-key parts of the states the file's voters are filed under (valueKey of each):
   * where a row that gives no state is searched by its address and city.
   */
  stateKeys(): readonly number[] {
    if (this.#stateKeys === null) {
      const states = this.data.dictionaries.state;
      const keys: number[] = [];
      for (let id = 1; id < states.size; id++)
        if (states.count(id) > 0) keys.push(valueKey(states.value(id)));
      this.#stateKeys = keys;
    }
    return this.#stateKeys;
  }

  #stateKeys: readonly number[] | null = null;

  /**
   * How many voters were born on this date (yyyymmdd, as packed): a placeholder (1900-01-01)
   * many share weighs little when it agrees, a rare date much.
   */
  dobCount(dob: number): number {
    const fields = this.data.fields;
    const code = dob <= 0 ? -1 : positionOf(fields.dobs, dob);
    if (code <= 0) return 0;
    // A shard's voters born on a date the file's count (a date no voter of the shard has cannot
    // agree with any of its candidates, so its count weighs nothing here).
    if (this.data.file !== undefined) return this.data.file.dobCounts[code]!;
    this.data.voterCounts ??= countVoters(fields);
    return this.data.voterCounts.dobs[code]!;
  }

  /**
   * Counts the voters by ZIP and by birth date (zipCount, dobCount) of an index stored without
   * them now, `step` voters at a time with `pause` between steps, instead of on the first row that
   * asks: a pass over a 10M-voter file took 0.7 s, and on a thread that answers lookups while it
   * opens a newly published file, the first lookup after the swap waited for it while some
   * thousand more queued behind (a p50 of seconds). An import stores them (voterCounts); a
   * shard's are the file's (`file`): nothing to count.
   */
  async countInSteps(pause: () => Promise<void>, step = 250_000): Promise<void> {
    if (this.data.file !== undefined || this.data.voterCounts !== undefined) return;
    const fields = this.data.fields;
    const counts = emptyCounts(fields);
    for (let from = 0; from < fields.size; from += step) {
      if (from > 0) await pause();
      addVoterCounts(fields, counts, from, Math.min(fields.size, from + step));
    }
    // A row between the steps may have counted them at once (the same counts).
    this.data.voterCounts ??= counts;
  }

  /** Mean coordinates of the voters of a ZIP, or null. */
  zipCentroid(zip: number): [number, number] | null {
    const i = positionOf(this.data.zipIds, zip);
    return i < 0 ? null : [this.data.zipLat[i]!, this.data.zipLon[i]!];
  }
}

/** ZIPs are counted by their 5 digits: a table of this many entries. */
export const ZIP_COUNT = 100_000;

/** The voters of a whole file by 5-digit ZIP and by date-of-birth code (MatchIndexData.voterCounts). */
export function countVoters(fields: VoterFieldTable): VoterCounts {
  const counts = emptyCounts(fields);
  addVoterCounts(fields, counts, 0, fields.size);
  return counts;
}

const emptyCounts = (fields: VoterFieldTable): VoterCounts => ({
  zips: new Uint32Array(ZIP_COUNT),
  dobs: new Uint32Array(fields.dobs.length),
});

/** Adds voters [from, to) to the counts by 5-digit ZIP and by date-of-birth code. */
function addVoterCounts(fields: VoterFieldTable, counts: VoterCounts, from: number, to: number): void {
  const { zips, dobs } = counts;
  for (let voter = from; voter < to; voter++) {
    const zip = fields.zip(voter);
    if (zip > 0 && zip < ZIP_COUNT) zips[zip]!++;
    dobs[fields.dobCode(voter)]!++;
  }
}

/**
 * Builds the index on one thread from normalized voters added in record order: one segment,
 * merged alone. Large files are built by several segment builders on threads (the voter import);
 * the merge makes both the same index.
 */
export class MatchIndexBuilder {
  private readonly segment: MatchIndexSegmentBuilder;
  private size = 0;

  /** `postings: false`: an index without postings (MatchIndexSegmentBuilder). */
  constructor(options: { postings?: boolean } = {}) {
    this.segment = new MatchIndexSegmentBuilder(options);
  }

  add(voter: number, person: NormalizedPerson): void {
    if (voter !== this.size) throw new RangeError(`voters must be added in order (expected ${this.size})`);
    this.segment.add(voter, person);
    this.size++;
  }

  finish(): MatchIndex {
    return new MatchIndex(this.finishData());
  }

  /** The index's data alone (what is stored), without deriving what only matching needs. */
  finishData(): MatchIndexData {
    return mergeMatchIndexSegments([this.segment.finish()]);
  }
}
