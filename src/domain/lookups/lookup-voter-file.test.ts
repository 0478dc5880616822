import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import { buildMatchIndex } from '../matching/index/build-match-index.ts';
import { createProbabilisticMatcher } from '../matching/probabilistic-matcher.ts';
import { InMemoryVoterSnapshot } from '../voters/in-memory-voter-snapshot.ts';
import type { VoterSnapshot, VoterStore } from '../voters/voter-snapshot.ts';
import { CurrentLookupFile, type LookupThreads, lookupModel } from './lookup-voter-file.ts';

/** A voter file version with its match index (as the voter store's are). */
function versionOf(name: string, seed: number): VoterSnapshot {
  const voters = new InMemoryVoterSnapshot(VOTER_COLUMNS, [...generateVoterRows({ rows: 300, seed })]);
  const index = buildMatchIndex(voters);
  return Object.assign(Object.create(voters) as VoterSnapshot, { version: name, matchIndex: index });
}

/** Threads that match here, telling what was asked of them. */
function recordingThreads(log: string[], name: string): LookupThreads {
  let open = false;
  return {
    async opened(voters) {
      log.push(`${name} opened ${voters.version}`);
      open = true;
    },
    create(voters, options) {
      if (!open) throw new Error('a matcher asked for before the file was open on the threads');
      log.push(`${name} create`);
      return createProbabilisticMatcher(voters, voters.matchIndex!, options);
    },
    async close() {
      log.push(`${name} closed`);
    },
  };
}

function storeOf(versions: VoterSnapshot[]): VoterStore & { publish(v: VoterSnapshot): void } {
  let current = versions[0]!;
  return {
    current: async () => current,
    open: async (version: string) => versions.find((v) => v.version === version) ?? null,
    stats: async () => null,
    importFile: async () => {
      throw new Error('not here');
    },
    publish(v: VoterSnapshot) {
      current = v;
    },
  } as unknown as VoterStore & { publish(v: VoterSnapshot): void };
}

const SETTINGS = { matchRate: 0.3, candidateScore: 20 };

describe('the lookups’ voter file on its threads', () => {
  it('opens each version on its threads before its matchers are made there; a replaced one’s go after the delay', async () => {
    const first = versionOf('v1', 3);
    const second = versionOf('v2', 4);
    const store = storeOf([first, second]);
    const log: string[] = [];
    let made = 0;
    const file = new CurrentLookupFile(store, SETTINGS, {
      refreshMs: 0,
      threads: {
        forVersion: (shards) => {
          assert.equal(shards, 1);
          return recordingThreads(log, `t${++made}`);
        },
        close: async () => {
          log.push('threads closed');
        },
      },
      retireAfterMs: 50,
      // Each switch told (the api's swaps metric).
      onSwap: () => log.push('swapped'),
    });
    const one = await file.get();
    assert.equal(one?.version, 'v1');
    assert.equal(log.pop(), 'swapped');
    assert.deepEqual(log, ['t1 opened v1', 't1 create', 't1 create']);
    store.publish(second);
    const two = await file.check();
    assert.equal(two?.version, 'v2');
    assert.deepEqual(log.slice(3), ['t2 opened v2', 't2 create', 't2 create', 'swapped']);
    // The same version again: nothing loaded, no switch.
    assert.equal((await file.check())?.version, 'v2');
    assert.equal(log.filter((line) => line === 'swapped').length, 1);
    // The replaced version's threads stay while its requests may still run.
    assert.ok(!log.includes('t1 closed'));
    await new Promise((resolve) => setTimeout(resolve, 120));
    assert.ok(log.includes('t1 closed'));
    await file.close();
    assert.deepEqual(log.slice(-2), ['t2 closed', 'threads closed']);
  });

  it('warms ahead of the first lookup; with no file yet, the first lookup looks again at once', async () => {
    const version = versionOf('v1', 3);
    let current: VoterSnapshot | null = null;
    let looks = 0;
    const store = {
      current: async () => {
        looks++;
        return current;
      },
      open: async () => version,
      stats: async () => null,
    } as unknown as VoterStore;
    const file = new CurrentLookupFile(store, SETTINGS, { refreshMs: 60_000 });
    await file.warm();
    assert.equal(looks, 1);
    // Imported after the api started: found by the first lookup, not a minute later.
    current = version;
    assert.equal((await file.get())?.version, 'v1');
    assert.equal(looks, 2);
    // Once loaded, lookups answer from it until the refresh interval is up.
    assert.equal((await file.get())?.version, 'v1');
    assert.equal(looks, 2);
    await file.close();

    const warmed = new CurrentLookupFile(store, SETTINGS, { refreshMs: 60_000 });
    await warmed.warm();
    assert.equal(looks, 3);
    assert.equal((await warmed.get())?.version, 'v1');
    assert.equal(looks, 3, 'the version warmed is the one the first lookup answers from');
    await warmed.close();
  });

  it('closes a replaced version at once when the api stops', async () => {
    const store = storeOf([versionOf('v1', 3), versionOf('v2', 4)]);
    const log: string[] = [];
    let made = 0;
    const file = new CurrentLookupFile(store, SETTINGS, {
      refreshMs: 0,
      threads: { forVersion: () => recordingThreads(log, `t${++made}`), close: async () => {} },
      retireAfterMs: 60_000,
    });
    await file.get();
    store.publish((await store.open('v2'))!);
    await file.check();
    await file.close();
    assert.ok(log.includes('t1 closed') && log.includes('t2 closed'), log.join(', '));
  });

  it('matches here when the threads fail a lookup or cannot open the file: no lookup fails for them', async () => {
    const version = versionOf('v1', 3);
    // A voter of the file, asked by name and ZIP.
    const [first, last, zip] = version.fields(
      5,
      ['first_name', 'last_name', 'zip'].map((name) => version.columnIndex(name)),
    );
    const row = { row: 1, fields: { first_name: first!, last_name: last!, zip: zip! } };
    const options = { maxMatches: 2, searchRadiusMiles: null, asOf: new Date('2026-01-01') };
    const model = lookupModel(version.matchIndex!, SETTINGS.matchRate);
    const expected = await createProbabilisticMatcher(version, version.matchIndex!, {
      model,
      thresholdScore: SETTINGS.candidateScore,
    }).matchBatch([row], options);
    const failing: LookupThreads = {
      opened: async () => {},
      create: () =>
        ({
          matchBatch: async () => {
            throw new Error('a matching thread died');
          },
        }) as unknown as ReturnType<LookupThreads['create']>,
      close: async () => {},
    };
    const unopened: LookupThreads = {
      opened: async () => {
        throw new Error('the matching threads are closed');
      },
      create: () => {
        throw new Error('no matcher of threads that do not hold the file');
      },
      close: async () => {},
    };
    for (const threads of [failing, unopened]) {
      const file = new CurrentLookupFile(storeOf([version]), SETTINGS, {
        refreshMs: 0,
        threads: { forVersion: () => threads, close: async () => {} },
      });
      const part = await (await file.get())!.part(0);
      // The first lookup (the threads failing it) and the next (matched here from then on).
      assert.ok((expected[0]?.candidates.length ?? 0) > 0, 'the voter is found');
      assert.deepEqual(await part.select.matchBatch([row], options), expected);
      assert.deepEqual(await part.select.matchBatch([row], options), expected);
      await file.close();
    }
  });
});
