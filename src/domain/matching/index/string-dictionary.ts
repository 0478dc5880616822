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
