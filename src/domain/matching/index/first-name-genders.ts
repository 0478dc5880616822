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
  private readonly women: Uint32Array;
  private readonly men: Uint32Array;

  constructor(firstNames: number) {
    this.women = new Uint32Array(firstNames);
    this.men = new Uint32Array(firstNames);
  }

  add(firstId: number, gender: number): void {
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
