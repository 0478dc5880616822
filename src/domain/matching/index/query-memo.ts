/**
 * What one query found comparing its names and street with a voter's, by the voter's dictionary
 * id: the candidates of a row share a few surnames (those of its sound in its ZIP) and streets
 * (its neighbours'), so each distinct value is compared once per query instead of once per
 * candidate (the string comparisons were a third of a matching thread's time).
 *
 * An entry is tagged with the generation of the query that wrote it, and every query gets a new
 * one (`begin`): an entry of another query reads as unknown, so queries may even be interleaved
 * (at the cost of comparing again). One memo per thread and voter file, of a fixed size whatever
 * the dictionaries' (a national file's streets number millions): a value's entry is a slot of a
 * small table, which another value may take (then the first is compared again).
 */
export class QueryMemo {
  readonly first = new IdLevels();
  readonly last = new IdLevels();
  readonly street = new IdLevels();
  #generation = 0;

  /** A generation no entry has yet: the next query's. */
  begin(): number {
    this.#generation = (this.#generation + 1) >>> 0;
    if (this.#generation === 0) {
      // After 2^32 queries the tags would alias: forget every entry and start over.
      for (const levels of [this.first, this.last, this.street]) levels.forget();
      this.#generation = 1;
    }
    return this.#generation;
  }
}

/** Slots per table: far more than the distinct values of one row's candidates (36 KiB a table). */
const SLOTS = 4096;

/** A level (≥ 1) per dictionary id, valid for the generation that wrote it, in a slot by id. */
export class IdLevels {
  readonly #ids = new Int32Array(SLOTS);
  readonly #generations = new Uint32Array(SLOTS);
  readonly #levels = new Uint8Array(SLOTS);

  /** The level this generation stored for `id`, 0 when it stored none (or another id took its slot). */
  get(id: number, generation: number): number {
    const slot = id & (SLOTS - 1);
    return this.#generations[slot] === generation && this.#ids[slot] === id ? this.#levels[slot]! : 0;
  }

  set(id: number, generation: number, level: number): void {
    const slot = id & (SLOTS - 1);
    this.#ids[slot] = id;
    this.#generations[slot] = generation;
    this.#levels[slot] = level;
  }

  forget(): void {
    this.#generations.fill(0);
  }
}
