import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lookupModel } from '../../domain/lookups/lookup-voter-file.ts';
import { buildMatchIndex, voterFieldReader } from '../../domain/matching/index/build-match-index.ts';
import { FileStatisticsCount, withFileStatistics } from '../../domain/matching/index/file-statistics.ts';
import { MatchIndexBuilder } from '../../domain/matching/index/match-index.ts';
import { matchIndexFromParts, matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import type { MatchInput, MatchOptions } from '../../domain/matching/matcher.ts';
import { voterNormalizer } from '../../domain/matching/normalize/person.ts';
import { createProbabilisticMatcher, inThreadRunner } from '../../domain/matching/probabilistic-matcher.ts';
import { InMemoryVoterSnapshot } from '../../domain/voters/in-memory-voter-snapshot.ts';
import type { ShardMap } from '../../domain/voters/shard-map.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import { MatchThreadPool } from './match-thread-pool.ts';
import { ThreadedMatcherFactory } from './threaded-matcher-factory.ts';

const OPTIONS: MatchOptions = {
  maxMatches: 2,
  searchRadiusMiles: null,
  asOf: new Date('2026-01-01T00:00:00Z'),
};

/** Voters and list rows made from them: exact copies, lower-cased names, and ZIP-only rows. */
function fixture(listRows = 600) {
  const rows = [...generateVoterRows({ rows: 3000, seed: 7 })];
  const voters = new InMemoryVoterSnapshot(VOTER_COLUMNS, rows);
  const col = (name: string) => VOTER_COLUMNS.indexOf(name as (typeof VOTER_COLUMNS)[number]);
  const list: MatchInput[] = rows.slice(0, listRows).map((r, i) => {
    const pick = (name: string) => r[col(name)] ?? '';
    const fields: MatchInput['fields'] =
      i % 3 === 0
        ? {
            first_name: pick('first_name'),
            last_name: pick('last_name'),
            address1: pick('address1'),
            zip: pick('zip'),
          }
        : i % 3 === 1
          ? {
              first_name: pick('first_name').toLowerCase(),
              last_name: pick('last_name'),
              dob: pick('dob'),
              state: pick('state'),
            }
          : { first_name: pick('first_name'), last_name: pick('last_name'), zip: pick('zip') };
    return { row: i + 1, fields };
  });
  return { voters, list, rows };
}

describe('matching on worker threads', () => {
  it('gives exactly the in-thread outcomes, in row order', async () => {
    const { voters, list } = fixture(2500);
    const index = buildMatchIndex(voters);
    const local = createProbabilisticMatcher(voters, index);
    const inThread = await local.matchBatch(list, OPTIONS);
    const pool = new MatchThreadPool(2);
    try {
      const remote = createProbabilisticMatcher(voters, index, {}, pool.open(index));
      const threaded = await remote.matchBatch(list, OPTIONS);
      assert.deepEqual(threaded, inThread);
      // EM ran on the threads' share of the sample and found the same model.
      assert.equal(local.model()!.source, 'em');
      assert.deepEqual(remote.model(), local.model());
      assert.ok(inThread.filter((o) => o.candidates.length > 0).length > 2000, 'most rows match');
    } finally {
      await pool.close();
    }
  });

  it('gives the in-thread evidence of a sample’s persons (what the fit weighs), in order', async () => {
    const { voters, list } = fixture(1200);
    const index = buildMatchIndex(voters);
    const local = createProbabilisticMatcher(voters, index);
    await local.matchBatch(list, OPTIONS);
    const job = local.jobFor(OPTIONS);
    const expected = await inThreadRunner(index).sampleEvidence(list, job);
    assert.equal(expected.length, list.length, 'one person per row, each searchable');
    const pool = new MatchThreadPool(2);
    try {
      assert.deepEqual(await pool.open(index).sampleEvidence(list, job), expected);
    } finally {
      await pool.close();
    }
  });

  it('serves concurrent batches of several jobs, then refuses work once closed', async () => {
    const { voters, list } = fixture();
    const factory = new ThreadedMatcherFactory(2);
    const a = factory.create(voters);
    const b = factory.create(voters, { thresholdScore: 0 });
    const [ra, rb] = await Promise.all([
      a.matchBatch(list, OPTIONS),
      b.matchBatch(list.slice(0, 300), OPTIONS),
    ]);
    assert.equal(ra.length, 600);
    assert.equal(rb.length, 300);
    await factory.close();
    const pool = new MatchThreadPool(1);
    const source = pool.open(buildMatchIndex(voters));
    await pool.close();
    await assert.rejects(
      source.run(list, {
        model: null as never,
        options: OPTIONS,
        candidates: { maxPostings: 10, searchRadiusMiles: null },
        thresholdScore: 50,
      }),
      /closed/,
    );
  });

  it('a thread that dies fails the batch it was serving, and the next job gets new threads', async () => {
    const { voters, list } = fixture(1200);
    const factory = new ThreadedMatcherFactory(2);
    try {
      const first = factory.create(voters);
      // Big enough to start threads (a smaller batch is matched on the calling thread).
      await first.matchBatch(list.slice(0, 1100), OPTIONS);
      const pool = factory.threadPool!;
      await pool.terminateOne();
      assert.equal(pool.broken, true);
      assert.equal(factory.sourceOf(voters)!.broken, true);
      await assert.rejects(
        Promise.resolve().then(() => first.matchBatch(list, OPTIONS)),
        /matching thread/,
      );
      const again = await factory.create(voters).matchBatch(list, OPTIONS);
      assert.equal(again.length, list.length);
      assert.notEqual(factory.threadPool, pool);
    } finally {
      await factory.close();
    }
  });
});

describe('ThreadedMatcherFactory', () => {
  it('matches a small batch on the calling thread, the same outcomes, and starts threads for a big one', async () => {
    const { voters, list } = fixture(1200);
    const factory = new ThreadedMatcherFactory(2);
    try {
      const inThread = (rows: MatchInput[]) =>
        createProbabilisticMatcher(voters, buildMatchIndex(voters)).matchBatch(rows, OPTIONS);
      const expected = await inThread(list);
      const small = factory.create(voters);
      assert.deepEqual(
        await small.matchBatch(list.slice(0, 999), OPTIONS),
        await inThread(list.slice(0, 999)),
      );
      assert.equal(factory.sourceOf(voters), undefined, 'no threads for 999 rows');
      const big = factory.create(voters);
      assert.deepEqual(await big.matchBatch(list, OPTIONS), expected);
      assert.ok(factory.sourceOf(voters), 'threads for 1,200 rows');
      factory.release(voters);
      assert.equal(factory.sourceOf(voters), undefined, 'released with its voter snapshot');
    } finally {
      await factory.close();
    }
  });

  it('matches single rows on the threads once the file is opened there (the lookups), as in-thread', async () => {
    const { voters, list } = fixture(40);
    const factory = new ThreadedMatcherFactory(2);
    try {
      await factory.opened(voters);
      const matcher = factory.create(voters);
      const local = createProbabilisticMatcher(voters, buildMatchIndex(voters));
      const singly = await Promise.all(list.map((row) => matcher.matchBatch([row], OPTIONS)));
      assert.deepEqual(singly, await Promise.all(list.map((row) => local.matchBatch([row], OPTIONS))));
      // They run there: with a thread gone, a single row fails rather than run here.
      await factory.threadPool!.terminateOne();
      await assert.rejects(async () => await matcher.matchBatch([list[0]!], OPTIONS), /matching thread died/);
    } finally {
      await factory.close();
    }
  });
});

describe('opening a voter file on threads that answer others', () => {
  it('answers the files already open while it decodes another in steps; a task for that one waits for it', async () => {
    const { voters, list } = fixture(20);
    // A file of many names: its surnames' dictionary takes several steps to decode.
    const big = new InMemoryVoterSnapshot(
      VOTER_COLUMNS,
      [...generateVoterRows({ rows: 60_000, seed: 12 })].map((row, i) =>
        row.map((cell, c) => (VOTER_COLUMNS[c] === 'last_name' ? `${cell}${i.toString(36)}` : cell)),
      ),
    );
    const bigIndex = buildMatchIndex(big);
    const index = buildMatchIndex(voters);
    const pool = new MatchThreadPool(1);
    try {
      const small = pool.open(index);
      await small.ready;
      // Matching's jobs as a matcher of each file hands them to the threads.
      const job = createProbabilisticMatcher(voters, index, { model: lookupModel(index, 0.3) }).jobFor(
        OPTIONS,
      );
      const bigJob = createProbabilisticMatcher(big, bigIndex, { model: lookupModel(bigIndex, 0.3) }).jobFor(
        OPTIONS,
      );
      const expected = await inThreadRunner(index).run(list, job);
      const order: string[] = [];
      const opening = pool.open(bigIndex);
      const opened = opening.ready.then(() => order.push('opened'));
      // Sent after the open: answered between its steps, before it ends.
      const answered = small.run(list, job).then((outcomes) => {
        order.push('answered');
        return outcomes;
      });
      // A task for the file being opened, sent before it is open, waits for it.
      const first = big.fields(
        0,
        ['first_name', 'last_name'].map((name) => big.columnIndex(name)),
      );
      const row = { row: 1, fields: { first_name: first[0]!, last_name: first[1]! } };
      const onBig = opening.run([row], bigJob);
      assert.deepEqual(await answered, expected);
      await opened;
      assert.deepEqual(order, ['answered', 'opened']);
      assert.deepEqual(await onBig, await inThreadRunner(bigIndex).run([row], bigJob));
    } finally {
      await pool.close();
    }
  });
});

describe('opening voter files one after the other', () => {
  it('opens them in the order sent, a small one after a big one still opening (their shared names in order)', async () => {
    const big = new InMemoryVoterSnapshot(
      VOTER_COLUMNS,
      [...generateVoterRows({ rows: 60_000, seed: 13 })].map((row, i) =>
        row.map((cell, c) => (VOTER_COLUMNS[c] === 'last_name' ? `${cell}${i.toString(36)}` : cell)),
      ),
    );
    const small = fixture(10).voters;
    const [bigIndex, smallIndex] = [buildMatchIndex(big), buildMatchIndex(small)];
    const pool = new MatchThreadPool(1);
    try {
      const order: string[] = [];
      const first = pool.open(bigIndex).ready.then(() => order.push('big'));
      const second = pool.open(smallIndex).ready.then(() => order.push('small'));
      await Promise.all([first, second]);
      assert.deepEqual(order, ['big', 'small']);
    } finally {
      await pool.close();
    }
  });
});

describe('ThreadedMatcherFactory.start', () => {
  it('starts the threads before any voter file, and the first list then runs on them', async () => {
    const { voters, list } = fixture(1200);
    const factory = new ThreadedMatcherFactory(2);
    try {
      factory.start();
      const pool = factory.threadPool;
      assert.ok(pool, 'threads started with no voter file yet');
      assert.equal(pool.threads, 2);
      factory.start();
      assert.equal(factory.threadPool, pool, 'started once');
      const expected = await createProbabilisticMatcher(voters, buildMatchIndex(voters)).matchBatch(
        list,
        OPTIONS,
      );
      assert.deepEqual(await factory.create(voters).matchBatch(list, OPTIONS), expected);
      assert.equal(factory.threadPool, pool, 'the list ran on the started threads');
    } finally {
      await factory.close();
    }
  });

  it('starts nothing when matching runs on the calling thread (0 threads)', async () => {
    const factory = new ThreadedMatcherFactory(0);
    factory.start();
    assert.equal(factory.threadPool, null);
    await factory.close();
  });
});

describe('one pool of threads for several voter files', () => {
  it('matches each file on the same threads, as in-thread, and lets a released one go', async () => {
    const one = fixture(1200);
    const rows = [...generateVoterRows({ rows: 2000, seed: 11 })];
    const other = new InMemoryVoterSnapshot(VOTER_COLUMNS, rows);
    const otherList: MatchInput[] = one.list.map((row) => ({ ...row }));
    const factory = new ThreadedMatcherFactory(2, { sourcesKept: 4 });
    try {
      const expectedOne = await createProbabilisticMatcher(
        one.voters,
        buildMatchIndex(one.voters),
      ).matchBatch(one.list, OPTIONS);
      const expectedOther = await createProbabilisticMatcher(other, buildMatchIndex(other)).matchBatch(
        otherList,
        OPTIONS,
      );
      const [a, b] = await Promise.all([
        factory.create(one.voters).matchBatch(one.list, OPTIONS),
        factory.create(other).matchBatch(otherList, OPTIONS),
      ]);
      assert.deepEqual(a, expectedOne);
      assert.deepEqual(b, expectedOther);
      const pool = factory.threadPool!;
      assert.equal(pool.threads, 2, 'two files, still two threads');
      assert.notEqual(factory.sourceOf(one.voters), factory.sourceOf(other));
      const released = factory.sourceOf(other)!;
      factory.release(other);
      await assert.rejects(
        Promise.resolve().then(() => released.run(otherList, null as never)),
        /let this voter file go/,
      );
      assert.deepEqual(await factory.create(one.voters).matchBatch(one.list, OPTIONS), expectedOne);
      assert.equal(factory.threadPool, pool, 'the same threads');
    } finally {
      await factory.close();
    }
  });
});

describe('shards on worker threads', () => {
  /** The fixture's voters as shards by state, each with the file's statistics, through the stored form. */
  function shards(rows: readonly string[][]) {
    const read = voterFieldReader(VOTER_COLUMNS);
    const normalize = voterNormalizer(OPTIONS.asOf);
    const persons = rows.map((row) => normalize(read(row)));
    const byState = new Map<string, number[]>();
    persons.forEach((person, i) => {
      byState.set(person.state, [...(byState.get(person.state) ?? []), i]);
    });
    const built = [...byState.values()].map((positions) => {
      const builder = new MatchIndexBuilder();
      positions.forEach((position, voter) => {
        builder.add(voter, persons[position]!);
      });
      return { index: builder.finish(), positions: Uint32Array.from(positions) };
    });
    const count = new FileStatisticsCount(built.length);
    for (const { index, positions } of built) count.add(index.data, positions);
    for (const { index } of built) count.countPostings(index.data.postings);
    const whole = count.finish();
    return built.map(({ index, positions }) => {
      const { meta, parts } = matchIndexParts({ data: withFileStatistics(index.data, whole, positions) });
      return matchIndexFromParts(meta, (name) => parts.get(name)!);
    });
  }

  it("hand each shard's names to the threads as numbers: the in-thread outcomes, shard by shard", async () => {
    const { voters, list, rows } = fixture(400);
    const indexes = shards(rows);
    assert.ok(indexes.length >= 2, 'several states');
    assert.ok(
      indexes.every((index) => index.data.dictionaries.last.sharedNumbers() !== null),
      'shared names',
    );
    const pool = new MatchThreadPool(2, indexes.length);
    try {
      // Every shard opened before any is matched, as a worker holding every shard does: the
      // threads take each opening's new names in turn.
      const sources = indexes.map((index) => pool.open(index));
      for (const [i, index] of indexes.entries()) {
        const local = createProbabilisticMatcher(voters, index);
        const expected = await local.matchBatch(list, OPTIONS);
        const remote = createProbabilisticMatcher(voters, index, {}, sources[i]!);
        assert.deepEqual(await remote.matchBatch(list, OPTIONS), expected, `shard ${i}`);
        assert.ok(
          expected.some((o) => o.candidates.length > 0),
          `shard ${i} matches rows`,
        );
      }
    } finally {
      await pool.close();
    }
  });
});

describe('ThreadedMatcherFactory sized by the voter file it meets', () => {
  const mapOf = (shards: number): ShardMap => ({
    shards: Array.from({ length: shards }, (_, i) => ({
      id: `s${i}`,
      state: `S${i}`,
      zip3From: '',
      zip3To: '',
      rows: 1000,
      version: `v1-s${i}`,
      memoryBytes: 1_000_000,
      box: null,
    })),
    zip3States: {},
  });

  it('holds every shard of the first sharded file, its threads started with heaps for them', async () => {
    const factory = new ThreadedMatcherFactory(1);
    try {
      assert.equal(factory.keepsOpen(4), false, 'two voter files before it meets one');
      assert.equal(factory.holdsEveryShard(mapOf(4), undefined), true);
      assert.equal(factory.keepsOpen(4), true);
      factory.start();
      assert.equal(factory.threadPool!.sourcesKept, 4);
    } finally {
      await factory.close();
    }
  });

  it('threads already started keep their heaps: a bigger sharded file is matched in chunks', async () => {
    const factory = new ThreadedMatcherFactory(1);
    try {
      factory.start();
      assert.equal(factory.holdsEveryShard(mapOf(4), undefined), false);
      assert.equal(factory.threadPool!.sourcesKept, 2);
    } finally {
      await factory.close();
    }
  });

  it('shards that do not fit the voter cache, or a count the caller fixed, change nothing', async () => {
    const tooSmall = new ThreadedMatcherFactory(1);
    const fixed = new ThreadedMatcherFactory(1, { sourcesKept: 2 });
    try {
      assert.equal(tooSmall.holdsEveryShard(mapOf(4), 3_000_000), false);
      assert.equal(tooSmall.keepsOpen(4), false);
      assert.equal(fixed.holdsEveryShard(mapOf(4), undefined), false);
      tooSmall.start();
      fixed.start();
      assert.deepEqual([tooSmall.threadPool!.sourcesKept, fixed.threadPool!.sourcesKept], [2, 2]);
    } finally {
      await tooSmall.close();
      await fixed.close();
    }
  });
});
