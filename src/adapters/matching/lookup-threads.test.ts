import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lookupModel } from '../../domain/lookups/lookup-voter-file.ts';
import { buildMatchIndex } from '../../domain/matching/index/build-match-index.ts';
import type { MatchInput, MatchOptions } from '../../domain/matching/matcher.ts';
import { createProbabilisticMatcher } from '../../domain/matching/probabilistic-matcher.ts';
import { InMemoryVoterSnapshot } from '../../domain/voters/in-memory-voter-snapshot.ts';
import type { VoterSnapshot } from '../../domain/voters/voter-snapshot.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import { SharedLookupThreads } from './lookup-threads.ts';

const OPTIONS: MatchOptions = {
  maxMatches: 2,
  searchRadiusMiles: null,
  asOf: new Date('2026-01-01T00:00:00Z'),
};

/** A voter file version with its match index (as the voter store's are). */
function versionOf(seed: number): VoterSnapshot {
  const voters = new InMemoryVoterSnapshot(VOTER_COLUMNS, [...generateVoterRows({ rows: 400, seed })]);
  return Object.assign(Object.create(voters) as VoterSnapshot, { matchIndex: buildMatchIndex(voters) });
}

/** Its first voter asked by name and ZIP. */
function rowOf(version: VoterSnapshot): MatchInput {
  const [first, last, zip] = version.fields(
    0,
    ['first_name', 'last_name', 'zip'].map((name) => version.columnIndex(name)),
  );
  return { row: 1, fields: { first_name: first!, last_name: last!, zip: zip! } };
}

const optionsOf = (version: VoterSnapshot) => ({ model: lookupModel(version.matchIndex!, 0.3) });

describe('the lookups’ threads, kept from one voter file version to the next', () => {
  it('open a newly published version on the threads in use and drop the replaced one when it closes', async () => {
    const [one, two] = [versionOf(3), versionOf(4)];
    const threads = new SharedLookupThreads(1);
    try {
      const first = threads.forVersion(1);
      await first.opened(one);
      const pool = threads.factory!.threadPool;
      assert.ok(pool !== null, 'threads started for the first version');
      const second = threads.forVersion(1);
      await second.opened(two);
      assert.equal(threads.factory!.threadPool, pool, 'the same threads');
      // Both answer from the threads, as in-thread.
      for (const [version, open] of [
        [one, first],
        [two, second],
      ] as const) {
        const expected = await createProbabilisticMatcher(
          version,
          version.matchIndex!,
          optionsOf(version),
        ).matchBatch([rowOf(version)], OPTIONS);
        assert.ok((expected[0]?.candidates.length ?? 0) > 0);
        assert.deepEqual(
          await open.create(version, optionsOf(version)).matchBatch([rowOf(version)], OPTIONS),
          expected,
        );
      }
      await first.close();
      assert.equal(threads.factory!.sourceOf(one), undefined, 'the replaced version let go');
      assert.ok(threads.factory!.sourceOf(two) !== undefined);
      assert.equal(threads.factory!.threadPool, pool);
    } finally {
      await threads.close();
    }
    assert.equal(threads.factory, null);
  });

  it('give a version of more files than the kept threads hold threads of its own, closed with it', async () => {
    const threads = new SharedLookupThreads(1);
    try {
      const first = threads.forVersion(1);
      await first.opened(versionOf(3));
      const shared = threads.factory!.threadPool;
      // Five shards: more than two versions of one file fit beside each other.
      const bigger = threads.forVersion(5);
      const version = versionOf(4);
      await bigger.opened(version);
      assert.equal(threads.factory!.sourceOf(version), undefined, 'not on the kept threads');
      assert.deepEqual(
        await bigger.create(version, optionsOf(version)).matchBatch([rowOf(version)], OPTIONS),
        await createProbabilisticMatcher(version, version.matchIndex!, optionsOf(version)).matchBatch(
          [rowOf(version)],
          OPTIONS,
        ),
      );
      await bigger.close();
      assert.equal(threads.factory!.threadPool, shared, 'the kept threads stay');
    } finally {
      await threads.close();
    }
  });
});
