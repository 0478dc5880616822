import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DistinctIds, type SortedRuns } from './distinct-ids.ts';

/**
 * Runs kept in memory, watched from outside DistinctIds: what each run held, how many were being
 * read at once, and which were never deleted.
 */
class MemoryRuns implements SortedRuns {
  readonly stored = new Map<string, string[]>();
  /** Ids of each run written, in the order written. */
  readonly sizes: number[] = [];
  reading = 0;
  mostReadAtOnce = 0;
  private next = 0;

  async write(ids: Iterable<string> | AsyncIterable<string>): Promise<string> {
    const run: string[] = [];
    for await (const id of ids) run.push(id);
    const name = `run-${this.next++}`;
    this.stored.set(name, run);
    this.sizes.push(run.length);
    return name;
  }

  async *read(name: string): AsyncGenerator<string> {
    const run = this.stored.get(name);
    if (run === undefined) throw new Error(`no run ${name}`);
    this.reading++;
    this.mostReadAtOnce = Math.max(this.mostReadAtOnce, this.reading);
    try {
      yield* run;
    } finally {
      this.reading--;
    }
  }

  async delete(name: string): Promise<void> {
    this.stored.delete(name);
  }
}

async function collect(ids: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const id of ids) out.push(id);
  return out;
}

/** `count` ids drawn from `distinct` values in a fixed pseudo-random order (repeats everywhere). */
function* shuffledIds(count: number, distinct: number, seed = 7): Generator<string> {
  let state = seed;
  for (let i = 0; i < count; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    yield `NC-${String(state % distinct).padStart(9, '0')}`;
  }
}

const expected = (ids: Iterable<string>) => [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('DistinctIds: each id once, ascending, in bounded memory', () => {
  it('drops repeats that fall in different runs', async () => {
    const runs = new MemoryRuns();
    const dedup = new DistinctIds({ maxIdsHeld: 4, runs });
    // Runs of 4: [d a c b] [a b c d] [d d e a] — every id repeats across a run boundary.
    const ids = ['d', 'a', 'c', 'b', 'a', 'b', 'c', 'd', 'd', 'd', 'e', 'a'];
    assert.deepEqual(await collect(dedup.distinct(ids)), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(runs.sizes, [4, 4, 3], 'each run rid of its own repeats');
    assert.equal(dedup.stats.runs, 3);
    assert.equal(runs.stored.size, 0, 'every run deleted');
  });

  it('never holds more than maxIdsHeld ids, however long the stream (runs and merge fan-in bounded)', async () => {
    const runs = new MemoryRuns();
    const dedup = new DistinctIds({ maxIdsHeld: 50, fanIn: 4, runs });
    const out = await collect(dedup.distinct(shuffledIds(20_000, 3_000)));
    assert.deepEqual(out, expected(shuffledIds(20_000, 3_000)));
    assert.equal(dedup.stats.peakIdsHeld, 50);
    assert.ok(dedup.stats.runs >= 400, `${dedup.stats.runs} runs`);
    assert.ok(dedup.stats.mergePasses > 2, `${dedup.stats.mergePasses} merge passes`);
    // Seen from outside: the first pass wrote runs of at most 50 ids, and no merge read more than 4 runs.
    assert.ok(runs.sizes.slice(0, 400).every((size) => size <= 50));
    assert.equal(runs.mostReadAtOnce, 4);
    assert.equal(runs.stored.size, 0);
  });

  it('ids that fit in one run are sorted in memory and never written out', async () => {
    const runs = new MemoryRuns();
    const dedup = new DistinctIds({ maxIdsHeld: 100, runs });
    assert.deepEqual(await collect(dedup.distinct(['b', 'a', 'b', 'c'])), ['a', 'b', 'c']);
    assert.deepEqual(dedup.stats, { runs: 0, mergePasses: 0, peakIdsHeld: 4 });
    assert.equal(runs.sizes.length, 0);
    assert.deepEqual(await collect(new DistinctIds({ maxIdsHeld: 2, runs }).distinct([])), []);
  });

  it('deletes its runs when the consumer stops early', async () => {
    const runs = new MemoryRuns();
    const ids = new DistinctIds({ maxIdsHeld: 10, runs }).distinct(shuffledIds(1_000, 500));
    assert.equal((await ids.next()).value, 'NC-000000000');
    assert.ok(runs.stored.size > 0);
    await ids.return(undefined);
    assert.equal(runs.stored.size, 0);
    assert.equal(runs.reading, 0, 'every run closed');
  });

  it('orders as string comparison does (code units), the same in memory and merged', async () => {
    const ids = ['b', 'B', 'a10', 'a9', 'é', 'e', 'a10'];
    const inMemory = await collect(
      new DistinctIds({ maxIdsHeld: 100, runs: new MemoryRuns() }).distinct(ids),
    );
    const merged = await collect(new DistinctIds({ maxIdsHeld: 2, runs: new MemoryRuns() }).distinct(ids));
    assert.deepEqual(inMemory, ['B', 'a10', 'a9', 'b', 'e', 'é']);
    assert.deepEqual(merged, inMemory);
  });

  it('refuses a bound below 2', () => {
    assert.throws(() => new DistinctIds({ maxIdsHeld: 1, runs: new MemoryRuns() }), RangeError);
  });
});
