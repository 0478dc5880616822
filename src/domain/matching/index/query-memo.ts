import type { StringDictionary } from './string-dictionary.ts';

/**
 * What one query found comparing its names and street with a voter's, by the voter's dictionary
 * id: the candidates of a row share a few surnames (those of its sound in its ZIP) and streets
 * (its neighbours'), so each distinct value is compared once per query instead of once per
 * candidate (the string comparisons were a third of a matching thread's time).
 *
 * An entry is tagged with the generation of the query that wrote it, and every query gets a new
 * one (`begin`): an entry of another query reads as unknown, so queries may even be interleaved
 * (at the cost of comparing again). One memo per thread, sized to the dictionaries (5 bytes a
 * value, about 2 MB for a million voters).
 */
export class QueryMemo {
  readonly first: IdLevels;
  readonly last: IdLevels;
  readonly street: IdLevels;
  #generation = 0;

  constructor(dictionaries: { first: StringDictionary; last: StringDictionary; street: StringDictionary }) {
    this.first = new IdLevels(dictionaries.first.size);
    this.last = new IdLevels(dictionaries.last.size);
    this.street = new IdLevels(dictionaries.street.size);
  }

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

/** A level (≥ 1) per dictionary id, valid for the generation that wrote it. */
export class IdLevels {
  readonly #generations: Uint32Array;
  readonly #levels: Uint8Array;

  constructor(size: number) {
    this.#generations = new Uint32Array(size);
    this.#levels = new Uint8Array(size);
  }

  /** The level this generation stored for `id`, 0 when it stored none. */
  get(id: number, generation: number): number {
    return this.#generations[id] === generation ? this.#levels[id]! : 0;
  }

  set(id: number, generation: number, level: number): void {
    this.#generations[id] = generation;
    this.#levels[id] = level;
  }

  forget(): void {
    this.#generations.fill(0);
  }
}
