/**
 * Distinct values of one voter field (first names, streets, …) with their frequencies. Records
 * store a value's id (4 bytes) instead of the string; id 0 is the empty value. The frequencies
 * give the term-frequency adjustment of the scorer (agreeing on a rare name is worth more).
 */
export class StringDictionary {
  readonly values: string[];
  readonly counts: Uint32Array;
  private readonly ids: Map<string, number>;

  private constructor(values: string[], counts: Uint32Array) {
    this.values = values;
    this.counts = counts;
    this.ids = new Map(values.map((value, id) => [value, id]));
  }

  static fromValues(values: string[], counts: Uint32Array): StringDictionary {
    return new StringDictionary(values, counts);
  }

  get size(): number {
    return this.values.length;
  }

  /** Id of a value, or -1 when no voter has it. */
  idOf(value: string): number {
    return this.ids.get(value) ?? -1;
  }

  value(id: number): string {
    return this.values[id] ?? '';
  }

  /** Records carrying this id. */
  count(id: number): number {
    return id < 0 ? 0 : (this.counts[id] ?? 0);
  }
}

/** Builds a dictionary while records stream in. */
export class StringDictionaryBuilder {
  private readonly ids = new Map<string, number>([['', 0]]);
  private readonly values: string[] = [''];
  private counts = new Uint32Array(1024);

  /** Id of the value (added on first sight), counting one more record. */
  add(value: string): number {
    if (value === '') {
      // Empty is the commonest value of several fields (unit, suffix, middle): no map lookup.
      this.counts[0]!++;
      return 0;
    }
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(value, id);
      this.values.push(value);
      if (id >= this.counts.length) {
        const grown = new Uint32Array(this.counts.length * 2);
        grown.set(this.counts);
        this.counts = grown;
      }
    }
    this.counts[id]!++;
    return id;
  }

  finish(): StringDictionary {
    return StringDictionary.fromValues(this.values, this.counts.slice(0, this.values.length));
  }
}
