import type { StringDictionary } from './string-dictionary.ts';

/**
 * What one query found comparing its names and street with a voter's, by the voter's dictionary
 * id: the candidates of a row share a few surnames (those of its sound in its ZIP) and streets
 * (its neighbours'), so each distinct value is compared once per query instead of once per
 * candidate (the string comparisons were a third of a matching thread's time).
 *
 * An entry is tagged with the generation of the query that wrote it, and every query gets a new
 * one (`begin`): an entry of another query reads as unknown, so queries may even be interleaved
 * (at the cost of comparing again), and one memo serves a thread's queries against every voter
 * file it holds (a generation belongs to one query, so to one file). Its tables are as long as
 * the largest dictionary met (5 bytes a value: about 0.5 MB for a million voters, some 25 MB for
 * a national file), once per thread whatever the number of files or shards. (A fixed table of
 * slots taken by hashed ids cost a tenth more time: a common name's row has thousands of
 * candidates.)
 */
export class QueryMemo {
  readonly first = new IdLevels();
  readonly last = new IdLevels();
  readonly street = new IdLevels();
  #generation = 0;

  /** A generation no entry has yet: the next query's, against a file with these dictionaries. */
  begin(dictionaries: { first: StringDictionary; last: StringDictionary; street: StringDictionary }): number {
    this.first.reserve(dictionaries.first.size);
    this.last.reserve(dictionaries.last.size);
    this.street.reserve(dictionaries.street.size);
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
  #generations = new Uint32Array(0);
  #levels = new Uint8Array(0);

  /** Room for ids below `size` (entries are dropped when the tables grow). */
  reserve(size: number): void {
    if (size <= this.#levels.length) return;
    const length = Math.max(size, this.#levels.length * 2);
    this.#generations = new Uint32Array(length);
    this.#levels = new Uint8Array(length);
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

/** The memo of this thread's queries (each thread has its own module instance). */
export const threadQueryMemo = new QueryMemo();
