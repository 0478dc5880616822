/**
 * The list pipeline on worker threads: blocks of the list are parsed, matched and formatted on
 * 1, 2, 3 or 8 threads (or on the calling thread), and the result is the same bytes every time,
 * with the same summary.
 */
import assert from 'node:assert/strict';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { ThreadedMatcherFactory } from '../../src/adapters/matching/threaded-matcher-factory.ts';
import { FsVoterStore } from '../../src/adapters/voters/fs-voter-store.ts';
import { listRun } from '../../src/domain/list-matching/list-run.ts';
import { matchList } from '../../src/domain/list-matching/match-list.ts';
import type { VoterSnapshot } from '../../src/domain/voters/voter-snapshot.ts';
import { generateContactListFromFile } from '../../src/lab/synthetic/lists/generate-list.ts';
import { writeVotersCsv } from '../../src/lab/synthetic/synthetic-voters.ts';

describe('matchList on worker threads', () => {
  let dir: string;
  let voters: VoterSnapshot;
  let list: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-threads-'));
    const votersCsv = join(dir, 'voters.csv');
    list = join(dir, 'list.csv');
    await writeVotersCsv({ rows: 20_000, seed: 31_337, out: createWriteStream(votersCsv) });
    // 6,000 rows of every pattern: about ten blocks.
    await generateContactListFromFile({
      from: votersCsv,
      out: list,
      truth: join(dir, 'truth.csv'),
      rows: 6000,
      matchRate: 0.7,
      pattern: 'mixed',
      seed: 77,
    });
    const store = new FsVoterStore({ dir: join(dir, 'voters'), maxRowBytes: 1 << 20 });
    await store.importFile(votersCsv, { replace: true });
    voters = (await store.current())!;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function run(threads: number) {
    const factory = new ThreadedMatcherFactory(threads);
    const [every, best, additional] = [new PassThrough(), new PassThrough(), new PassThrough()];
    const texts = Promise.all([every, best, additional].map((stream) => text(stream)));
    const ids: string[] = [];
    try {
      const summary = await matchList({
        open: () => createReadStream(list),
        sinks: { output: every, split: { best, additional }, onBestMatch: (id) => ids.push(id) },
        run: listRun({
          maxMatches: 3,
          searchRadiusMiles: null,
          asOf: new Date('2026-01-01T00:00:00Z'),
          thresholdScore: 50,
          appendedFields: [{ source: 'party', as: 'party' }],
          maxRowBytes: 1 << 20,
          outputs: { every: true, split: true, bestIds: true },
        }),
        voters,
        executor: factory,
      });
      assert.equal(factory.threadPool !== null, threads > 0, 'threads run whole blocks');
      return { summary, outputs: await texts, ids };
    } finally {
      await factory.close();
    }
  }

  test('gives the same bytes, summary and audience ids on 0, 1, 2, 3 and 8 threads', async () => {
    const reference = await run(0);
    assert.equal(reference.summary.rows, 6000);
    assert.ok(reference.summary.matchedRows > 3000, `${reference.summary.matchedRows} matched`);
    assert.equal(reference.outputs[0]!.split('\n').length - 2, reference.summary.outputRows);
    for (const threads of [1, 2, 3, 8]) {
      const threaded = await run(threads);
      assert.ok(threaded.outputs[0] === reference.outputs[0], `${threads} threads: the every-rank CSV`);
      assert.ok(threaded.outputs[1] === reference.outputs[1], `${threads} threads: best`);
      assert.ok(threaded.outputs[2] === reference.outputs[2], `${threads} threads: additional`);
      assert.deepEqual(threaded.summary, reference.summary, `${threads} threads: summary`);
      assert.deepEqual(threaded.ids, reference.ids, `${threads} threads: best-match ids`);
    }
  });
});
