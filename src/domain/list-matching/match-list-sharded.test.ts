import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import {
  LIST,
  MAP,
  matcherFor,
  matchSharded,
  NC,
  OPTIONS,
  runOf,
  VA,
  WHOLE,
} from '../../../test/support/sharded-lists.ts';
import { type ShardDirectory, ShardDirectoryBuilder } from '../voters/shard-directory.ts';
import { ShardedVoterSnapshot } from '../voters/sharded-voter-snapshot.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import type { BlockExecutor } from './block-executor.ts';
import { type HeldShards, matchBlock } from './block-stages.ts';
import { inThreadExecutor, type ListExecutor, matchList } from './match-list.ts';
import { readSample } from './sample-pass.ts';
import { type RoutingCounts, shardRouter } from './stages/route.ts';

const SNAPSHOTS = [NC, VA];

/**
 * A sharded list matched in one process, as `listmatch match` and a worker holding every shard
 * match it: here, or through `threadsFrom` (made from the held shards as the matching threads
 * would hold them).
 */
async function matchHere(
  csv: string,
  options = OPTIONS,
  directory: ShardDirectory | null = null,
  threadsFrom?: (held: HeldShards) => BlockExecutor,
): Promise<{ result: string; routing: RoutingCounts }> {
  const whole = directory === null ? WHOLE : withDirectory(directory);
  const here = inThreadExecutor((shard, fit) => matcherFor(shard, fit));
  const executor: ListExecutor =
    threadsFrom === undefined ? here : { ...here, blocks: (held) => threadsFrom(held) };
  const output = new PassThrough();
  const result = text(output);
  const summary = await matchList({
    open: () => Readable.from([Buffer.from(csv)]),
    sinks: { output },
    run: runOf(options, { every: true }),
    voters: whole,
    shards: SNAPSHOTS,
    executor,
  });
  const { shards, ...routing } = summary.shardRouting!;
  assert.equal(shards, 2);
  return { result: await result, routing };
}

/** The two-shard file with a directory (phones and e-mails → shard). */
function withDirectory(directory: ShardDirectory): VoterSnapshot {
  return new ShardedVoterSnapshot(
    { version: 'v1-a', columns: WHOLE.columns, rows: WHOLE.size, shards: MAP },
    async (version) => SNAPSHOTS.find((s) => s.version === version) ?? null,
    directory,
  );
}

/** The sample pass alone: the fit shard, its rows, and the rows routed before it stopped. */
async function sampleOf(csv: string) {
  let routed = 0;
  const router = shardRouter(MAP, null);
  const sampled = await readSample(Readable.from([Buffer.from(csv)]), runOf(), WHOLE, {
    ...router,
    route: (row, normalized, asOf) => {
      routed++;
      return router.route(row, normalized, asOf);
    },
  });
  return Object.assign(sampled, { routed });
}

/** A list of `rows` rows cycling through LIST's, several blocks of 64 KiB long when big. */
function longList(rows: number): string {
  const lines = LIST.split('\n');
  const body = Array.from({ length: rows }, (_, i) => lines[1 + (i % (lines.length - 1))]);
  return `${[lines[0], ...body].join('\n')}\n`;
}

describe('a sharded list matched in one process', () => {
  it('writes the bytes of the split, the chunks and the assembly, with the same routing counts', async () => {
    for (const maxMatches of [1, 2]) {
      const options = { ...OPTIONS, maxMatches };
      const steps = await matchSharded(LIST, options);
      const once = await matchHere(LIST, options);
      assert.equal(once.result, steps.result, `max_matches=${maxMatches}: byte for byte`);
      // Row c names no state and goes to both shards; row b too, for its street address without a
      // state (the whole file searches it in every state).
      assert.deepEqual(once.routing, { rows: 4, shardRows: 6, everywhere: 1 });
    }
  });

  it('fits on the list’s first rows, each weighed in every shard it goes to, as the queue’s steps do', async () => {
    const rows = ['matchback_id,first_name,last_name,address1,city,state,zip,email'];
    rows.push('n0,Margaret,Smith,12 Oak St,Raleigh,NC,27601,');
    rows.push('x0,Alan,Brown,,,,,alan@example.com'); // no place: both shards
    for (let i = 0; i < 3; i++) rows.push(`v${i},Alan,Brown,1 Main St,Norfolk,VA,23510,`);
    for (let i = 1; i < 6; i++) rows.push(`n${i},Margaret,Smith,12 Oak St,Raleigh,NC,27601,`);
    const list = rows.join('\n');
    const sampled = await sampleOf(list);
    assert.deepEqual(
      sampled.map(({ row, shards }) => `${row.row}:${shards.join('+')}`),
      ['1:0', '2:0+1', '3:1'],
      'the first three rows, with their shards',
    );
    const steps = await matchSharded(list);
    assert.deepEqual(steps.sampleChunks, ['nc', 'va'], 'an evidence step in each shard the sample went to');
    assert.equal((await matchHere(list)).result, steps.result);
  });

  it('matches a long list the same, and the same when whole blocks run elsewhere, whichever finishes first', async () => {
    const list = longList(4000);
    const steps = await matchSharded(list, OPTIONS, 1000);
    const here = await matchHere(list);
    const sampled = await sampleOf(list);
    // About 1,400 rows to a block of 64 KiB: the sample pass stopped after the first.
    assert.ok(sampled.routed < 2000, `${sampled.routed} rows read before matching`);
    assert.equal(here.result, steps.result);
    let started = 0;
    const threaded = await matchHere(list, OPTIONS, null, (held) => ({
      parallelism: 4,
      run: async (block, spec) => {
        const delay = 20 - 5 * (started++ % 4);
        await new Promise((resolve) => setTimeout(resolve, delay));
        return await matchBlock(block, spec, held);
      },
    }));
    assert.ok(started > 1, `${started} blocks`);
    assert.equal(threaded.result, steps.result);
    assert.deepEqual(threaded.routing, here.routing);
    assert.deepEqual(here.routing, { rows: 4000, shardRows: 6000, everywhere: 1000 });
  });

  it('routes by the directory as the split does', async () => {
    const builder = new ShardDirectoryBuilder();
    builder.add(0, [], 'peggy@example.com');
    builder.add(1, [], 'alan@example.com');
    const directory = builder.build();
    const once = await matchHere(LIST, OPTIONS, directory);
    // Row c goes to its e-mail's shard alone; row b, an address without a state, to both.
    assert.deepEqual(once.routing, { rows: 4, shardRows: 5, everywhere: 0 });
    assert.equal(once.result, (await matchSharded(LIST, OPTIONS, 1000, directory)).result);
  });

  it('writes the header alone for a list without data rows, fitting nothing', async () => {
    const header = LIST.split('\n')[0]!;
    assert.deepEqual((await sampleOf(`${header}\n`)).length, 0);
    const once = await matchHere(`${header}\n`);
    assert.equal(once.result, (await matchSharded(`${header}\n`)).result);
    assert.deepEqual(once.routing, { rows: 0, shardRows: 0, everywhere: 0 });
  });

  it('fails a list that is no list in its sample pass, with the error matching it would give', async () => {
    await assert.rejects(matchHere(''), /the uploaded file is empty/);
    await assert.rejects(matchHere('matchback_id,party\nx,DEM\n'), /identifier/);
  });
});
