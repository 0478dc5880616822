import { GENDER_CODE } from './match-index-fields.ts';

const CLEAR_GENDER_SHARE = 0.95;
const CLEAR_GENDER_VOTERS = 5;

/**
 * Per first-name dictionary id, the gender (GENDER_CODE) that at least 95% of the voters with that
 * name are filed under, when at least 5 are; 0 when the file says nothing clear (no gender column,
 * a rare or unisex name). Counted once when the index is built and stored with it, so that no
 * matching thread scans the whole file for it.
 */
export class FirstNameGenderCount {
  private women: Uint32Array;
  private men: Uint32Array;

  constructor(firstNames: number) {
    this.women = new Uint32Array(firstNames);
    this.men = new Uint32Array(firstNames);
  }

  add(firstId: number, gender: number): void {
    // A sharded file's names are counted as its shards come (file-statistics.ts): ids beyond the
    // first guess grow the tables.
    if (firstId >= this.women.length) {
      this.women = grown(this.women, firstId + 1);
      this.men = grown(this.men, firstId + 1);
    }
    if (gender === GENDER_CODE.F) this.women[firstId]!++;
    else if (gender === GENDER_CODE.M) this.men[firstId]!++;
  }

  genders(): Uint8Array {
    const genders = new Uint8Array(this.women.length);
    for (let id = 1; id < genders.length; id++) {
      const w = this.women[id]!;
      const m = this.men[id]!;
      const total = w + m;
      if (total < CLEAR_GENDER_VOTERS) continue;
      if (w >= CLEAR_GENDER_SHARE * total) genders[id] = GENDER_CODE.F;
      else if (m >= CLEAR_GENDER_SHARE * total) genders[id] = GENDER_CODE.M;
    }
    return genders;
  }
}

/** A copy of `array`, at least `length` long (doubling, so counting n names grows log n times). */
export function grown(array: Uint32Array, length: number): Uint32Array {
  const next = new Uint32Array(Math.max(length, array.length * 2));
  next.set(array);
  return next;
}
