import type { NormalizedPerson } from '../normalize/person.ts';
import { positionOf } from './lower-bound.ts';
import type { MatchIndexData } from './match-index-data.ts';
import { GENDER_CODE } from './match-index-fields.ts';
import { MatchIndexSegmentBuilder } from './match-index-segment.ts';
import { mergeMatchIndexSegments } from './merge-match-index-segments.ts';

export class MatchIndex {
  readonly data: MatchIndexData;
  /** Per first-name id, the gender nearly all its voters share (GENDER_CODE), 0 when none does. */
  #firstGenders: Uint8Array | null = null;
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
   * unisex name). Counted over the whole file once per thread, on first use.
   */
  firstNameGender(id: number): number {
    if (id <= 0) return 0;
    this.#firstGenders ??= firstNameGenders(this.data);
    return this.#firstGenders[id] ?? 0;
  }

  get size(): number {
    return this.data.size;
  }

  /** Voters in a map cell (0 when none). */
  cellCount(cell: number): number {
    const i = this.cellIndex(cell);
    return i < 0 ? 0 : this.data.cellCounts[i]!;
  }

  /** A map cell's position in `cellIds` (and its key filter's), -1 when no voter is in it. */
  cellIndex(cell: number): number {
    return positionOf(this.data.cellIds, cell);
  }

  /** Mean coordinates of the voters of a ZIP, or null. */
  zipCentroid(zip: number): [number, number] | null {
    const i = positionOf(this.data.zipIds, zip);
    return i < 0 ? null : [this.data.zipLat[i]!, this.data.zipLon[i]!];
  }
}

const CLEAR_GENDER_SHARE = 0.95;
const CLEAR_GENDER_VOTERS = 5;

function firstNameGenders(data: MatchIndexData): Uint8Array {
  const size = data.dictionaries.first.size;
  const women = new Uint32Array(size);
  const men = new Uint32Array(size);
  const fields = data.fields;
  for (let voter = 0; voter < data.size; voter++) {
    const g = fields.gender(voter);
    if (g === GENDER_CODE.F) women[fields.first(voter)]!++;
    else if (g === GENDER_CODE.M) men[fields.first(voter)]!++;
  }
  const genders = new Uint8Array(size);
  for (let id = 1; id < size; id++) {
    const w = women[id]!;
    const m = men[id]!;
    const total = w + m;
    if (total < CLEAR_GENDER_VOTERS) continue;
    if (w >= CLEAR_GENDER_SHARE * total) genders[id] = GENDER_CODE.F;
    else if (m >= CLEAR_GENDER_SHARE * total) genders[id] = GENDER_CODE.M;
  }
  return genders;
}

/**
 * Builds the index on one thread from normalized voters added in record order: one segment,
 * merged alone. Large files are built by several segment builders on threads (the voter import);
 * the merge makes both the same index.
 */
export class MatchIndexBuilder {
  private readonly segment = new MatchIndexSegmentBuilder();
  private size = 0;

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
