import { grown } from './first-name-genders.ts';

/** Birth years counted (earlier and later ones are counted with the first and the last). */
const FIRST_YEAR = 1890;
const YEARS = 128;
/** Keys counted at once (4 MB). */
const PENDING_KEYS = 1 << 20;
/** Voters' worth of "no concentration" each first name's own figure is mixed with. */
const PRIOR_VOTERS = 20;

/**
 * Per first-name dictionary id, how much more often two voters with that name share a birth year
 * than two voters of the file do: names have their decades (LINDA in the 1950s, MADISON in the
 * 2000s), so two people named MICHELLE agree on the year far more often than the file's average
 * agreement says, and a row's name and birth year found in the file are weaker evidence than the
 * two weighed apart. The unbiased share of a name's pairs born in one year over the file's, mixed
 * with 1 by PRIOR_VOTERS (a rare name says little); 1 where no voter with the name has a date.
 * Counted once when the index is built and stored with it.
 */
export class FirstNameCohortCount {
  /** Voters per name and year (key: first-name id × YEARS + year). */
  private readonly counts = new Map<number, number>();
  /**
   * Keys not yet in `counts`: sorted and counted a run at a time, a map update per distinct key
   * of the batch instead of one per voter.
   */
  private pending: Uint32Array | null = null;
  private pendingCount = 0;
  private named: Uint32Array;
  private readonly years = new Float64Array(YEARS);
  private total = 0;

  constructor(firstNames: number) {
    this.named = new Uint32Array(firstNames);
  }

  /** One voter: its first name's id and its date of birth as packed (yyyymmdd, 0 when none). */
  add(firstId: number, packedDob: number): void {
    if (firstId <= 0 || packedDob <= 0) return;
    const year = Math.min(YEARS - 1, Math.max(0, Math.floor(packedDob / 10000) - FIRST_YEAR));
    const key = firstId * YEARS + year;
    if (key > 0xffff_ffff) this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    else {
      this.pending ??= new Uint32Array(PENDING_KEYS);
      this.pending[this.pendingCount++] = key;
      if (this.pendingCount === PENDING_KEYS) this.countPending();
    }
    if (firstId >= this.named.length) this.named = grown(this.named, firstId + 1);
    this.named[firstId]!++;
    this.years[year]!++;
    this.total++;
  }

  private countPending(): void {
    if (this.pending === null) return;
    const keys = this.pending.subarray(0, this.pendingCount).sort();
    for (let i = 0; i < keys.length; ) {
      const key = keys[i]!;
      let next = i + 1;
      while (next < keys.length && keys[next] === key) next++;
      this.counts.set(key, (this.counts.get(key) ?? 0) + next - i);
      i = next;
    }
    this.pendingCount = 0;
  }

  concentrations(): Float32Array {
    this.countPending();
    const ratios = new Float32Array(this.named.length).fill(1);
    if (this.total < 2) return ratios;
    let fileSquares = 0;
    for (const count of this.years) fileSquares += count * count;
    const fileShare = (fileSquares - this.total) / (this.total * (this.total - 1));
    if (fileShare <= 0) return ratios;
    const squares = new Float64Array(this.named.length);
    for (const [key, count] of this.counts) squares[Math.floor(key / YEARS)]! += count * count;
    for (let id = 1; id < ratios.length; id++) {
      const n = this.named[id]!;
      if (n < 2) continue;
      const share = (squares[id]! - n) / (n * (n - 1));
      ratios[id] = (n * (share / fileShare) + PRIOR_VOTERS) / (n + PRIOR_VOTERS);
    }
    return ratios;
  }
}
