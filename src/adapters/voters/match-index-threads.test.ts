import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildMatchIndex } from '../../domain/matching/index/build-match-index.ts';
import { countVoters } from '../../domain/matching/index/match-index.ts';
import { matchIndexParts } from '../../domain/matching/index/match-index-parts.ts';
import { normalizeLatLong } from '../../domain/matching/normalize/contact.ts';
import { InMemoryVoterSnapshot } from '../../domain/voters/in-memory-voter-snapshot.ts';
import { extendBox } from '../../domain/voters/shard-map.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import {
  type BuiltMatchIndex,
  buildMatchIndexFromRecords,
  MatchIndexThreads,
  MatchIndexWorkers,
} from './match-index-threads.ts';

const AS_OF = new Date('2026-01-01T00:00:00Z');
const rows = [...generateVoterRows({ rows: 4000, seed: 11 })];
let dir: string;
let records: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'listmatch-index-threads-'));
  records = join(dir, 'records.dat');
  // The records file's layout: one line per voter, fields joined by U+001F.
  await writeFile(records, rows.map((row) => `${row.join('\x1f')}\n`).join(''));
});
after(() => rm(dir, { recursive: true, force: true }));

function assertSameParts(
  actual: Pick<BuiltMatchIndex, 'meta' | 'parts'>,
  expected: Pick<BuiltMatchIndex, 'meta' | 'parts'>,
): void {
  assert.deepEqual(actual.meta, expected.meta);
  for (const [name, bytes] of expected.parts)
    assert.ok(Buffer.from(actual.parts.get(name)!).equals(Buffer.from(bytes)), `part ${name} differs`);
}

describe('buildMatchIndexFromRecords', () => {
  it('builds, on 1, 2 or 3 threads and from chunks of any size, the index one thread builds in memory', async () => {
    const voters = new InMemoryVoterSnapshot(VOTER_COLUMNS, rows);
    const inMemory = buildMatchIndex(voters, AS_OF);
    // A whole file's build stores its voters' counts by ZIP and birth date (counted on use in memory).
    assert.equal(inMemory.data.voterCounts, undefined);
    inMemory.data.voterCounts = countVoters(inMemory.data.fields);
    const single = matchIndexParts(inMemory);
    assert.ok(single.parts.has('voter-zip-counts') && single.parts.has('voter-dob-counts'));
    for (const [threads, chunkBytes] of [
      [1, 1 << 20],
      [2, 4096],
      [3, 777],
    ] as const) {
      const built = await buildMatchIndexFromRecords(records, VOTER_COLUMNS, {
        threads,
        chunkBytes,
        asOf: AS_OF,
      });
      assert.equal(built.meta.size, rows.length);
      assertSameParts(built, single);
    }
  });

  it("as a shard, gathers over its threads the box of its voters' coordinates and leaves the counts to the file", async () => {
    let box: [number, number, number, number] | null = null;
    const column = (name: (typeof VOTER_COLUMNS)[number]) => VOTER_COLUMNS.indexOf(name);
    for (const row of rows) {
      const point = normalizeLatLong(row[column('latitude')]!, row[column('longitude')]!);
      if (point !== null) box = extendBox(box, point[0], point[1]);
    }
    assert.notEqual(box, null, 'the generated voters have coordinates');
    const built = await buildMatchIndexFromRecords(records, VOTER_COLUMNS, {
      threads: 3,
      chunkBytes: 4096,
      asOf: AS_OF,
      shard: true,
    });
    assert.deepEqual(built.box, box);
    // A shard's counts are the whole file's, stored once every shard is built.
    assert.equal(built.parts.has('voter-zip-counts'), false);
    assert.equal(built.parts.has('voter-dob-counts'), false);
    const without = await buildMatchIndexFromRecords(records, VOTER_COLUMNS, { threads: 2, asOf: AS_OF });
    assert.equal(without.box, null);
    assert.equal(without.parts.has('voter-zip-counts'), true);
  });

  it('refuses a records file cut in the middle of a line, and leaves no thread behind', async () => {
    const cut = join(dir, 'cut.dat');
    await writeFile(cut, `${rows[0]!.join('\x1f')}\n${rows[1]!.join('\x1f').slice(0, 20)}`);
    await assert.rejects(
      buildMatchIndexFromRecords(cut, VOTER_COLUMNS, { threads: 2, asOf: AS_OF }),
      /does not end with a newline/,
    );
  });

  it('reports a thread that fails instead of hanging, and stops the threads', async () => {
    const threads = new MatchIndexThreads(VOTER_COLUMNS, { threads: 1, asOf: AS_OF });
    const line = (row: readonly string[]) => new TextEncoder().encode(`${row.join('\x1f')}\n`);
    threads.send(line(rows[0]!), 10);
    threads.send(line(rows[1]!), 3); // voters must come in ascending order
    await assert.rejects(threads.finish(), /building the match index failed: .*ascending order/);
  });

  it('builds one index after another on lent threads, the same as on fresh ones, and stops them when a build fails', async () => {
    const line = (row: readonly string[]) => new TextEncoder().encode(`${row.join('\x1f')}\n`);
    const build = async (
      part: readonly (readonly string[])[],
      options: ConstructorParameters<typeof MatchIndexThreads>[1],
    ) => {
      const threads = new MatchIndexThreads(VOTER_COLUMNS, { asOf: AS_OF, ...options });
      part.forEach((row, i) => {
        threads.send(line(row), i);
      });
      return await threads.finish();
    };
    const lent = new MatchIndexWorkers(2);
    const halves = [rows.slice(0, 1500), rows.slice(1500, 3500)];
    for (const half of [...halves, halves[0]!]) {
      assertSameParts(await build(half, { workers: lent }), await build(half, { threads: 2 }));
      assert.equal(lent.broken, false);
    }
    const failing = new MatchIndexThreads(VOTER_COLUMNS, { asOf: AS_OF, workers: lent });
    failing.send(line(rows[0]!), 10);
    failing.send(line(rows[1]!), 3); // voters must come in ascending order
    await assert.rejects(failing.finish(), /building the match index failed/);
    assert.equal(lent.broken, true, 'threads a build failed on are not lent again');
    assert.throws(() => new MatchIndexThreads(VOTER_COLUMNS, { workers: lent }), /stopped/);
  });
});
