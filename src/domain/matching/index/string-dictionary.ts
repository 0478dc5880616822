/**
 * Distinct values of one voter field (first names, streets, …) with their frequencies. Records
 * store a value's id (4 bytes) instead of the string; id 0 is the empty value. The frequencies
 * give the term-frequency adjustment of the scorer (agreeing on a rare name is worth more).
 */
export class StringDictionary {
  readonly counts: Uint32Array;
  /**
   * The stored bytes the values were decoded from (newline-joined UTF-8), when they were: handed
   * on as they are (matchIndexParts) instead of joining and encoding the values again, which took
   * the api's thread 70 ms at once for a 10M-voter file as it opened a new version on its lookup
   * threads.
   */
  readonly text: Uint8Array | null;
  /** The values by id; null for a dictionary of shared values (then `numbers` says them). */
  private readonly own: readonly string[] | null;
  /**
   * Value → id, made on the first `idOf` (a dictionary read only to be counted or written again,
   * as a sharded import's statistics do with every shard's, never needs it); null for a
   * dictionary of shared values (then `shared` and `local` say it).
   */
  private ids: Map<string, number> | undefined | null;
  private readonly shared: SharedValues | null;
  /**
   * Each id's number among the shared values: 4 bytes an id where an array of the strings costs 8
   * (a national file's 1.4M surnames in each of 26 shards: 290 MB), in shared memory, held once
   * by the process (the matching threads are handed it: fromSharedNumbers).
   */
  private readonly numbers: Int32Array | null;
  /** The shared values' numbers → ids here (-1: not here); numbers past its end are not here. */
  private readonly local: Int32Array | null;
  /** derivedByte's bytes of own values by id, each plus one (0: not derived yet). */
  private derived: Uint8Array | null = null;
  /** The one function derivedByte's bytes of own values came from. */
  private derivedBy: ((value: string) => number) | null = null;

  /**
   * Of its own values (with their map, when made already), or of shared values by each id's
   * number there (SharedValues.numbersOf).
   */
  private constructor(
    counts: Uint32Array,
    of:
      | { values: readonly string[]; ids?: Map<string, number>; text?: Uint8Array }
      | { shared: SharedValues; numbers: Int32Array; local?: Int32Array },
  ) {
    this.counts = counts;
    this.text = ('text' in of && of.text) || null;
    if (!('shared' in of)) {
      this.own = of.values;
      this.ids = of.ids;
      this.shared = null;
      this.numbers = null;
      this.local = null;
      return;
    }
    const { shared, numbers } = of;
    let local = of.local;
    if (local === undefined) {
      // In shared memory, as `numbers` is: another thread holding the same shared values takes
      // both as they are (sharedNumbers) instead of numbering the values again.
      local = new Int32Array(new SharedArrayBuffer(shared.size * 4)).fill(-1);
      numbers.forEach((number, id) => {
        local![number] = id;
      });
    }
    // The shared strings stand for the values: the decoded ones are let go.
    this.own = null;
    this.ids = null;
    this.shared = shared;
    this.numbers = numbers;
    this.local = local;
  }

  /** The values by id (of a dictionary of shared values, made on each call). */
  get values(): readonly string[] {
    if (this.own !== null) return this.own;
    const shared = this.shared!;
    return Array.from(this.numbers!, (number) => shared.value(number));
  }

  /** `text`: the stored bytes `values` were decoded from, if they were (see `text`). */
  static fromValues(values: readonly string[], counts: Uint32Array, text?: Uint8Array): StringDictionary {
    return new StringDictionary(counts, text === undefined ? { values } : { values, text });
  }

  /**
   * fromValues, its map built `step` values at a time with `pause` between steps: a process that
   * answers requests while it loads a new voter file (the lookups' swap) is not held up for the
   * whole of a large dictionary (a 1M-voter file's took 56 ms at once, a national file's seconds).
   * `text`: the stored bytes `values` were decoded from, if they were (see `text`).
   */
  static async fromValuesInSteps(
    values: string[],
    counts: Uint32Array,
    pause: () => Promise<void>,
    options: { step?: number; text?: Uint8Array } = {},
  ): Promise<StringDictionary> {
    const { step = 20_000, text } = options;
    const ids = new Map<string, number>();
    for (let from = 0; from < values.length; from += step) {
      if (from > 0) await pause();
      const to = Math.min(values.length, from + step);
      for (let id = from; id < to; id++) ids.set(values[id]!, id);
    }
    return new StringDictionary(counts, text === undefined ? { values, ids } : { values, ids, text });
  }

  /**
   * A dictionary whose values are held once by every dictionary of `field` on this thread: the
   * shards of a sharded voter file each hold the whole file's names (file-statistics.ts), which as
   * a map per shard cost some 60 bytes a name per shard and thread (30+ MB for the half million
   * surnames of a national file, times its shards, times the matching threads); shared, a shard's
   * costs 8 bytes a name (its number, and the numbers' ids), in shared memory that the matching
   * threads are handed (fromSharedNumbers). Values stay in the table while the thread lives (the
   * names of the next voter file are mostly the same).
   */
  static fromSharedValues(
    field: string,
    values: string[],
    counts: Uint32Array,
    /** The shard's own values, listed first (the file's it lacks follow: file-statistics.ts). */
    own = values.length,
  ): StringDictionary {
    const shared = sharedValuesOf(field);
    return new StringDictionary(counts, { shared, numbers: shared.numbersOf(values, own) });
  }

  /**
   * A dictionary of this thread's shared values of `field` from another thread's (sharedNumbers),
   * once this thread holds the same shared values (appendSharedValues): nothing numbered again.
   */
  static fromSharedNumbers(field: string, counts: Uint32Array, numbers: SharedNumbers): StringDictionary {
    const shared = SHARED.get(field);
    if (shared === undefined || numbers.local.length > shared.size)
      throw new Error(`shared ${field} values: this thread lacks values another numbered`);
    return new StringDictionary(counts, { shared, numbers: numbers.numbers, local: numbers.local });
  }

  /** A dictionary of shared values: its ids' numbers and their inverse, in shared memory; else null. */
  sharedNumbers(): SharedNumbers | null {
    return this.numbers === null ? null : { numbers: this.numbers, local: this.local! };
  }

  /** This thread's shared values of `field` from number `from` on (to hand to another thread). */
  static sharedValuesSince(field: string, from: number): string[] {
    return SHARED.get(field)?.since(from) ?? [];
  }

  /**
   * Adds another thread's shared values of `field` from number `from` on (sharedValuesSince), so
   * that this thread numbers them as that one does; throws unless this thread holds exactly the
   * values before `from` (a thread numbers values in one order only: its own, or another's).
   */
  static appendSharedValues(field: string, from: number, values: readonly string[]): void {
    const shared = sharedValuesOf(field);
    if (shared.size !== from)
      throw new Error(`shared ${field} values out of step: ${shared.size} held, ${from} expected`);
    for (const value of values) shared.number(value);
    if (shared.size !== from + values.length)
      throw new Error(`shared ${field} values: another thread's list repeats a value`);
  }

  get size(): number {
    return this.own?.length ?? this.numbers!.length;
  }

  /** Whether its values are this thread's shared values of its field (a shard's dictionary). */
  get sharesValues(): boolean {
    return this.shared !== null;
  }

  /** How many values this thread's shared values of the field hold (0 for its own values). */
  get sharedSize(): number {
    return this.shared?.size ?? 0;
  }

  /**
   * A value's number among this thread's shared values of the dictionary's field (-1: not among
   * them, yet), or null for a dictionary of its own values. Every dictionary of the field on this
   * thread numbers values alike, so a row searched in several shards of a file looks each of its
   * values up once (compare-person.ts) and each shard reads its id by the number (idOfNumber).
   */
  numberOf(value: string): number | null {
    return this.shared === null ? null : this.shared.numberOf(value);
  }

  /** The id of the value numbered `number` (numberOf's, at least 0) here, or -1 when no voter has it. */
  idOfNumber(number: number): number {
    const local = this.local!;
    return number >= local.length ? -1 : local[number]!;
  }

  /** Id of a value, or -1 when no voter has it. */
  idOf(value: string): number {
    if (this.ids === undefined) this.ids = new Map(this.own!.map((value, id) => [value, id]));
    if (this.ids !== null) return this.ids.get(value) ?? -1;
    const number = this.shared!.numberOf(value);
    const local = this.local!;
    return number < 0 || number >= local.length ? -1 : local[number]!;
  }

  value(id: number): string {
    if (this.own !== null) return this.own[id] ?? '';
    const number = this.numbers![id];
    return number === undefined ? '' : this.shared!.value(number);
  }

  /**
   * What `derive` (a pure function of a value, 0-254) gives for the value of `id`, derived once a
   * thread and kept: the scorer reads a voter's name's marks (compare-person.ts) for each distinct
   * name among a row's candidates, hundreds a row, and the same names row after row. Kept by the
   * thread's shared values for a dictionary of them (once for every shard), else by the
   * dictionary. One derivation a field: a dictionary keeps one byte a value, and another
   * function is refused (its bytes would be read as the first one's).
   */
  derivedByte(id: number, derive: (value: string) => number): number {
    if (this.own !== null) {
      this.derivedBy = sameDerivation(this.derivedBy, derive);
      this.derived ??= new Uint8Array(this.own.length);
      const kept = this.derived[id];
      if (kept === undefined) return derive(this.own[id] ?? '');
      if (kept !== 0) return kept - 1;
      const byte = derive(this.own[id] ?? '');
      this.derived[id] = byte + 1;
      return byte;
    }
    const number = this.numbers![id];
    return number === undefined ? derive('') : this.shared!.derivedByte(number, derive);
  }

  /** Records carrying this id. */
  count(id: number): number {
    return id < 0 ? 0 : (this.counts[id] ?? 0);
  }
}

/** The values of one field met by this thread's shared dictionaries, each numbered once. */
class SharedValues {
  private readonly numbers = new Map<string, number>();
  private readonly values: string[] = [];
  /** The numbers of the last dictionary's values past its own (numbersOf). */
  private previousRest = new Int32Array(0);

  get size(): number {
    return this.values.length;
  }

  number(value: string): number {
    let number = this.numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.numbers.set(value, number);
      this.values.push(value);
    }
    return number;
  }

  numberOf(value: string): number {
    return this.numbers.get(value) ?? -1;
  }

  /**
   * The numbers of a shard's values: its `own` first, each looked up; then the file's values it
   * lacks, which every shard of a file lists in one order (the file's), walked beside the last
   * shard's so that only the values that differ are looked up. A national file's 1.4M surnames in
   * each of its 26 shards were 36M lookups in a table of 1.4M a thread (17 s of a matching
   * thread's 22.6 s to open them). Every number taken from the walk is checked against its value,
   * so a shard of another file, or a wrong `own`, costs lookups, never a wrong number.
   */
  numbersOf(values: readonly string[], own: number): Int32Array {
    // In shared memory: see the constructor's `local`.
    const numbers = new Int32Array(new SharedArrayBuffer(values.length * 4));
    const ownEnd = Math.max(0, Math.min(own, values.length));
    for (let i = 0; i < ownEnd; i++) numbers[i] = this.number(values[i]!);
    const inOwn = new Uint8Array(this.values.length);
    for (let i = 0; i < ownEnd; i++) inOwn[numbers[i]!] = 1;
    const previous = this.previousRest;
    let at = 0;
    for (let i = ownEnd; i < values.length; i++) {
      const value = values[i]!;
      // The last shard's values that are this one's own are not in this one's rest.
      while (at < previous.length && inOwn[previous[at]!] === 1) at++;
      if (at < previous.length && this.values[previous[at]!] === value) numbers[i] = previous[at++]!;
      // One of the last shard's own values (not in its rest), or another file's.
      else numbers[i] = this.number(value);
    }
    this.previousRest = numbers.slice(ownEnd);
    return numbers;
  }

  value(number: number): string {
    return this.values[number]!;
  }

  /** StringDictionary.derivedByte's bytes of shared values by number, each plus one (0: not yet). */
  private derived = new Uint8Array(0);
  private derivedBy: ((value: string) => number) | null = null;

  derivedByte(number: number, derive: (value: string) => number): number {
    this.derivedBy = sameDerivation(this.derivedBy, derive);
    if (number >= this.derived.length) {
      const grown = new Uint8Array(Math.max(this.values.length, 2 * this.derived.length, 1024));
      grown.set(this.derived);
      this.derived = grown;
    }
    const kept = this.derived[number]!;
    if (kept !== 0) return kept - 1;
    const byte = derive(this.values[number]!);
    this.derived[number] = byte + 1;
    return byte;
  }

  since(from: number): string[] {
    return this.values.slice(from);
  }
}

/** `derive`, when it is the function bytes were derived by before (or none was): derivedByte's one derivation. */
function sameDerivation(
  before: ((value: string) => number) | null,
  derive: (value: string) => number,
): (value: string) => number {
  if (before !== null && before !== derive)
    throw new Error('a dictionary derives its bytes by one function only (derivedByte)');
  return derive;
}

/** A shared-value dictionary's numbers (id → number) and their inverse (number → id, -1: none). */
export interface SharedNumbers {
  numbers: Int32Array;
  local: Int32Array;
}

/** Per field, this thread's shared values (each thread has its own module instance). */
const SHARED = new Map<string, SharedValues>();

/** This thread's shared values of `field`, made on first use. */
function sharedValuesOf(field: string): SharedValues {
  let shared = SHARED.get(field);
  if (shared === undefined) {
    shared = new SharedValues();
    SHARED.set(field, shared);
  }
  return shared;
}
