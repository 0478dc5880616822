/**
 * Where sorted runs live between the passes of DistinctIds (the job's work area in the blob store;
 * memory in tests). Runs are written once, read once from the start, then deleted.
 */
export interface SortedRuns {
  /** Stores a run (ids ascending, no repeats), consuming `ids` as it goes; resolves with its name. */
  write(ids: Iterable<string> | AsyncIterable<string>): Promise<string>;
  /** The ids of a run, in the order written. Breaking out of the iteration closes it. */
  read(name: string): AsyncIterable<string>;
  delete(name: string): Promise<void>;
}

export interface DistinctIdsOptions {
  /**
   * Most ids held in memory at once: the run being gathered, or one id per run being merged.
   * At least 2.
   */
  maxIdsHeld: number;
  /** Most runs merged at once (default 64, and never more than `maxIdsHeld`). */
  fanIn?: number;
  runs: SortedRuns;
}

export interface DistinctIdsStats {
  /** Sorted runs written, intermediate merges included (0 when the ids fitted in one run). */
  runs: number;
  /** Passes that merged runs: 1 for up to `fanIn` runs, more beyond. */
  mergePasses: number;
  /** Most ids held in memory at once. */
  peakIdsHeld: number;
}

/**
 * Each distinct id of a stream once, in ascending order (UTF-16 code units, as `<` compares
 * strings), in memory bounded by `maxIdsHeld` whatever the stream's length: an external sort.
 * Ids are gathered into runs of up to `maxIdsHeld`, each sorted, rid of repeats and written out;
 * the runs are then merged `fanIn` at a time (in further passes while there are more) into one
 * ascending stream whose repeats are dropped. Ids that fit in one run are never written out.
 * Every run is deleted by the end, also when the consumer stops early or a step fails.
 */
export class DistinctIds {
  readonly stats: DistinctIdsStats = { runs: 0, mergePasses: 0, peakIdsHeld: 0 };
  private readonly maxIdsHeld: number;
  private readonly fanIn: number;
  private readonly runs: SortedRuns;

  constructor(options: DistinctIdsOptions) {
    if (!Number.isInteger(options.maxIdsHeld) || options.maxIdsHeld < 2) {
      throw new RangeError('maxIdsHeld must be an integer of at least 2');
    }
    this.maxIdsHeld = options.maxIdsHeld;
    this.fanIn = Math.max(2, Math.min(options.fanIn ?? 64, options.maxIdsHeld));
    this.runs = options.runs;
  }

  /** See the class. One stream per instance: `stats` describe it. */
  async *distinct(ids: AsyncIterable<string> | Iterable<string>): AsyncGenerator<string> {
    /** Runs written and not yet deleted, deleted however this ends. */
    const live = new Set<string>();
    const write = async (sorted: Iterable<string> | AsyncIterable<string>) => {
      this.stats.runs++;
      const name = await this.runs.write(sorted);
      live.add(name);
      return name;
    };
    const drop = async (name: string) => {
      live.delete(name);
      await this.runs.delete(name);
    };
    try {
      let runs: string[] = [];
      let gathered: string[] = [];
      for await (const id of ids) {
        gathered.push(id);
        this.held(gathered.length);
        if (gathered.length === this.maxIdsHeld) {
          runs.push(await write(sortedDistinct(gathered)));
          gathered = [];
        }
      }
      if (runs.length === 0) {
        yield* sortedDistinct(gathered);
        return;
      }
      if (gathered.length > 0) runs.push(await write(sortedDistinct(gathered)));
      gathered = [];
      // Merge passes until one pass can take every run; that last merge is the answer.
      while (runs.length > this.fanIn) {
        this.stats.mergePasses++;
        const merged: string[] = [];
        for (let i = 0; i < runs.length; i += this.fanIn) {
          const group = runs.slice(i, i + this.fanIn);
          merged.push(await write(this.merge(group)));
          for (const name of group) await drop(name);
        }
        runs = merged;
      }
      this.stats.mergePasses++;
      yield* this.merge(runs);
    } finally {
      for (const name of [...live]) await drop(name);
    }
  }

  /** The runs' ids in ascending order, each once: a k-way merge holding one id per run. */
  private async *merge(names: readonly string[]): AsyncGenerator<string> {
    const sources = names.map((name) => this.runs.read(name)[Symbol.asyncIterator]());
    const heap = new MinHeap();
    try {
      for (let i = 0; i < sources.length; i++) {
        const next = await sources[i]!.next();
        if (next.done !== true) heap.push(next.value, i);
      }
      this.held(heap.size);
      let last: string | null = null;
      while (heap.size > 0) {
        const { id, source } = heap.pop();
        if (id !== last) {
          last = id;
          yield id;
        }
        const next = await sources[source]!.next();
        if (next.done !== true) heap.push(next.value, source);
      }
    } finally {
      for (const source of sources) await source.return?.();
    }
  }

  private held(count: number): void {
    if (count > this.stats.peakIdsHeld) this.stats.peakIdsHeld = count;
  }
}

/** Sorts in place and yields each id once. */
function* sortedDistinct(ids: string[]): Generator<string> {
  ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] !== ids[i - 1]) yield ids[i]!;
}

/** A binary min-heap of (id, source) by id: the merge's one current id per run. */
class MinHeap {
  private readonly ids: string[] = [];
  private readonly sources: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  push(id: string, source: number): void {
    const { ids, sources } = this;
    let i = ids.length;
    ids.push(id);
    sources.push(source);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (ids[parent]! <= ids[i]!) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): { id: string; source: number } {
    const { ids, sources } = this;
    const top = { id: ids[0]!, source: sources[0]! };
    const lastId = ids.pop()!;
    const lastSource = sources.pop()!;
    if (ids.length > 0) {
      ids[0] = lastId;
      sources[0] = lastSource;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < ids.length && ids[left]! < ids[smallest]!) smallest = left;
        if (right < ids.length && ids[right]! < ids[smallest]!) smallest = right;
        if (smallest === i) break;
        this.swap(i, smallest);
        i = smallest;
      }
    }
    return top;
  }

  private swap(a: number, b: number): void {
    const { ids, sources } = this;
    [ids[a], ids[b]] = [ids[b]!, ids[a]!];
    [sources[a], sources[b]] = [sources[b]!, sources[a]!];
  }
}
