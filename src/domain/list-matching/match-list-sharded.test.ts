import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import {
  APPENDED,
  LIST,
  MAP,
  matcherFor,
  matchSharded,
  NC,
  OPTIONS,
  SAMPLE,
  VA,
  WHOLE,
} from '../../../test/support/sharded-lists.ts';
import { buildMatchIndex } from '../matching/index/build-match-index.ts';
import { createProbabilisticMatcher, DEFAULT_THRESHOLD_SCORE } from '../matching/probabilistic-matcher.ts';
import { type ShardDirectory, ShardDirectoryBuilder } from '../voters/shard-directory.ts';
import { ShardedVoterSnapshot } from '../voters/sharded-voter-snapshot.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { matchList } from './match-list.ts';
import { routeNormalized, routeOf } from './route-rows.ts';
import {
  matchShardedBlock,
  prepareOnePass,
  type ShardAtHand,
  type ShardedBlockRunner,
  type ShardRouting,
  sampleOfShards,
} from './sharded-in-one-pass.ts';

const SNAPSHOTS = [NC, VA];

/**
 * The one pass as `listmatch match` runs it (prepareOnePass, then matchList), here or on
 * `threadsFrom` (made from the shards as the matching threads would hold them).
 */
async function matchInOnePass(
  csv: string,
  options = OPTIONS,
  directory: ShardDirectory | null = null,
  threadsFrom?: (hands: readonly ShardAtHand[]) => ShardedBlockRunner,
): Promise<{ result: string; routing: ShardRouting }> {
  const whole = directory === null ? WHOLE : withDirectory(directory);
  const matcher = await prepareOnePass({
    whole,
    shards: SNAPSHOTS,
    createMatcher: (shard, listFit) =>
      listFit === null
        ? matcherFor(shard)
        : createProbabilisticMatcher(shard, buildMatchIndex(shard), { listFit }),
    sampleSource: Readable.from([Buffer.from(csv)]),
    appendedFields: APPENDED,
    options,
    thresholdScore: DEFAULT_THRESHOLD_SCORE,
    maxRowBytes: 1 << 20,
    sampleRows: SAMPLE,
    ...(threadsFrom === undefined
      ? {}
      : { threads: (_map, _directory, hands) => ({ ...threadsFrom(hands), close: () => {} }) }),
  });
  const output = new PassThrough();
  const result = text(output);
  await matchList({
    voters: whole,
    appendedFields: APPENDED,
    maxRowBytes: 1 << 20,
    ...options,
    source: Readable.from([Buffer.from(csv)]),
    output,
    matcher,
  }).finally(() => matcher.close());
  return { result: await result, routing: matcher.routing() };
}

/** The two-shard file with a directory (phones and e-mails → shard). */
function withDirectory(directory: ShardDirectory): VoterSnapshot {
  return new ShardedVoterSnapshot(
    { version: 'v1-a', columns: WHOLE.columns, rows: WHOLE.size, shards: MAP },
    async (version) => SNAPSHOTS.find((s) => s.version === version) ?? null,
    directory,
  );
}

/** The sample pass alone: the fit shard, and the rows routed before it stopped. */
async function sampleOf(csv: string) {
  let routed = 0;
  const sampled = await sampleOfShards({
    source: Readable.from([Buffer.from(csv)]),
    voters: WHOLE,
    appendedFields: APPENDED,
    maxRowBytes: 1 << 20,
    asOf: OPTIONS.asOf,
    route: (row) => {
      routed++;
      return routeOf(row, OPTIONS.asOf, MAP, null);
    },
    shards: MAP.shards.length,
    sampleRows: SAMPLE,
  });
  return { ...sampled, routed };
}

/** A list of `rows` rows cycling through LIST's, several blocks of 64 KiB long when big. */
function longList(rows: number): string {
  const lines = LIST.split('\n');
  const body = Array.from({ length: rows }, (_, i) => lines[1 + (i % (lines.length - 1))]);
  return `${[lines[0], ...body].join('\n')}\n`;
}

describe('a sharded list matched in one pass', () => {
  it('writes the bytes of the split, the chunks and the assembly, with the same routing counts', async () => {
    for (const maxMatches of [1, 2]) {
      const options = { ...OPTIONS, maxMatches };
      const steps = await matchSharded(LIST, options);
      const once = await matchInOnePass(LIST, options);
      assert.equal(once.result, steps.result, `max_matches=${maxMatches}: byte for byte`);
      // Row c names no state and goes to both shards.
      assert.deepEqual(once.routing, { rows: 4, shardRows: 5, everywhere: 1 });
    }
  });

  it('fits on the shard that filled the sample first, reading the list only that far first', async () => {
    // VA's part fills the sample (3 rows) on row 4; NC's part ends longer.
    const rows = ['matchback_id,first_name,last_name,address1,city,state,zip'];
    rows.push('n0,Margaret,Smith,12 Oak St,Raleigh,NC,27601');
    for (let i = 0; i < 3; i++) rows.push(`v${i},Alan,Brown,1 Main St,Norfolk,VA,23510`);
    for (let i = 1; i < 6; i++) rows.push(`n${i},Margaret,Smith,12 Oak St,Raleigh,NC,27601`);
    const list = rows.join('\n');
    const sampled = await sampleOf(list);
    assert.equal(sampled.fitShard, 1, 'VA filled its three rows first');
    assert.equal(sampled.routed, 4, 'the sample pass stopped at the row that filled it');
    assert.deepEqual(
      sampled.sample.map((row) => row.row),
      [2, 3, 4],
    );
    const steps = await matchSharded(list);
    assert.equal(steps.fitChunk, 'va');
    assert.equal((await matchInOnePass(list)).result, steps.result);
  });

  it('matches a long list the same, and the same when whole blocks run elsewhere, whichever finishes first', async () => {
    const list = longList(4000);
    const steps = await matchSharded(list, OPTIONS, 1000);
    const here = await matchInOnePass(list);
    const sampled = await sampleOf(list);
    assert.ok(sampled.routed < 100, `${sampled.routed} rows read before matching`);
    assert.equal(here.result, steps.result);
    let started = 0;
    const threaded = await matchInOnePass(list, OPTIONS, null, (hands) => ({
      parallelism: 4,
      run: async (block, spec) => {
        const delay = 20 - 5 * (started++ % 4);
        await new Promise((resolve) => setTimeout(resolve, delay));
        return await matchShardedBlock(
          block,
          spec,
          (row, normalized) => routeNormalized(row, normalized, MAP, null),
          (shard) => hands[shard]!,
          DEFAULT_THRESHOLD_SCORE,
        );
      },
    }));
    assert.ok(started > 1, `${started} blocks`);
    assert.equal(threaded.result, steps.result);
    assert.deepEqual(threaded.routing, here.routing);
    assert.deepEqual(here.routing, { rows: 4000, shardRows: 5000, everywhere: 1000 });
  });

  it('routes by the directory as the split does', async () => {
    const builder = new ShardDirectoryBuilder();
    builder.add(0, [], 'peggy@example.com');
    builder.add(1, [], 'alan@example.com');
    const directory = builder.build();
    const once = await matchInOnePass(LIST, OPTIONS, directory);
    assert.deepEqual(once.routing, { rows: 4, shardRows: 4, everywhere: 0 });
    assert.equal(once.result, (await matchSharded(LIST, OPTIONS, 1000, directory)).result);
  });

  it('writes the header alone for a list without data rows, fitting nothing', async () => {
    const header = LIST.split('\n')[0]!;
    assert.equal((await sampleOf(`${header}\n`)).fitShard, null);
    const once = await matchInOnePass(`${header}\n`);
    assert.equal(once.result, (await matchSharded(`${header}\n`)).result);
    assert.deepEqual(once.routing, { rows: 0, shardRows: 0, everywhere: 0 });
  });

  it('fails a list that is no list in its sample pass, with the error matching it would give', async () => {
    await assert.rejects(matchInOnePass(''), /the uploaded file is empty/);
    await assert.rejects(matchInOnePass('matchback_id,party\nx,DEM\n'), /identifier/);
  });
});
