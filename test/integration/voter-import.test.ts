import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FsVoterStore } from '../../src/adapters/voters/fs-voter-store.ts';
import {
  PACKED_ID_FILES,
  RANDOM_PAIR_U_FILE,
  SNAPSHOT_FORMAT,
} from '../../src/adapters/voters/snapshot-files.ts';
import { formatCsvRow } from '../../src/domain/csv/csv-writer.ts';
import { buildMatchIndex } from '../../src/domain/matching/index/build-match-index.ts';
import { KeyPostings } from '../../src/domain/matching/index/key-postings.ts';
import { countVoters, type MatchIndex } from '../../src/domain/matching/index/match-index.ts';
import { MATCH_INDEX_FORMAT, matchIndexParts } from '../../src/domain/matching/index/match-index-parts.ts';
import { PackedPostings } from '../../src/domain/matching/index/packed-postings.ts';
import { createProbabilisticMatcher, randomPairU } from '../../src/domain/matching/probabilistic-matcher.ts';
import { hash52, IdHashTable } from '../../src/domain/voters/id-hash-table.ts';
import { idKey } from '../../src/domain/voters/id-keys.ts';
import { ID_INDEXES } from '../../src/domain/voters/voter-columns.ts';
import type { VoterSnapshot } from '../../src/domain/voters/voter-snapshot.ts';
import { generateVoterRows, VOTER_COLUMNS } from '../../src/lab/synthetic/synthetic-voters.ts';
import { FIXTURES } from '../support/test-service.ts';

const HEADER = 'voterbase_id,state,voter_id,first_name,last_name,dob,county';

describe('voter file import', () => {
  let dir: string;
  let store: FsVoterStore;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-voters-'));
    store = new FsVoterStore({ dir: join(dir, 'voters'), maxRowBytes: 1 << 20 });
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('imports the fixture; ids are found with or without leading zeros; bad dob is cleared and reported', async () => {
    const report = await store.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    assert.equal(report.imported, 6);
    assert.equal(report.rejected, 0);
    assert.deepEqual(report.warningsByKind, { invalid_dob_cleared: 1 });
    const voters = (await store.current())!;
    assert.equal(voters.size, 6);
    const [a] = voters.lookup('voter_id', idKey('voter_id', '123456', 'nc')!);
    assert.equal(voters.record(a!)[voters.columnIndex('voterbase_id')], 'NC-000000001');
    assert.deepEqual(voters.lookup('voter_id', idKey('voter_id', '00000123456', 'OH')!).length, 1);
    assert.deepEqual(voters.lookup('voterbase_id', 'NC-999'), []);
    const linda = voters.lookup('exact_track', 'ETAAA0000006')[0]!;
    assert.equal(voters.record(linda)[voters.columnIndex('dob')], '');
    assert.equal(voters.record(linda)[voters.columnIndex('last_name')], 'DE LA CRUZ');
    assert.ok(voters.columns.includes('party'), 'other columns are kept as appendable fields');
  });

  test('a voter file mixing LF, CRLF and lone-CR lines, with CRs and LFs quoted in cells, imports every row', async () => {
    const endings = ['\n', '\r\n', '\r'];
    let text = `${HEADER}\r`;
    for (let i = 1; i <= 90; i++) {
      const county = i % 7 === 0 ? '"WAKE\rEAST"' : i % 11 === 0 ? '"WAKE\nWEST"' : 'WAKE';
      text += `NC-${String(i).padStart(9, '0')},NC,${1000 + i},ANN,SMITH${i},1970-01-01,${county}${endings[i % 3]}`;
    }
    const path = join(dir, 'mixed-endings.csv');
    await writeFile(path, text);
    const mixed = new FsVoterStore({ dir: join(dir, 'voters-mixed'), maxRowBytes: 1 << 20 });
    const report = await mixed.importFile(path, { replace: true });
    assert.equal(report.rejected, 0);
    assert.equal(report.imported, 90);
    const voters = (await mixed.current())!;
    for (const i of [1, 2, 3, 7, 11, 90]) {
      const [row] = voters.lookup('voterbase_id', `NC-${String(i).padStart(9, '0')}`);
      assert.ok(row !== undefined, `voter ${i}`);
      assert.equal(voters.record(row)[voters.columnIndex('last_name')], `SMITH${i}`);
    }
  });

  test('bad rows are rejected with line numbers and reasons, never their values', async () => {
    const path = join(dir, 'bad.csv');
    await writeFile(
      path,
      [
        HEADER,
        'NC-1,NC,1,ANN,LEE,19800101,WAKE',
        ',NC,2,NO,ID,19800101,WAKE',
        'NC-1,NC,3,DUP,LICATE,19800101,WAKE',
        'NC-4,NC,4,TOO,FEW',
        'NC-5,NC,5,OK,ROW,1980,"WAKE, NORTH"',
        'NC-6,XYZ,6,BAD,STATE,19801301,WAKE',
      ].join('\n'),
    );
    const report = await store.importFile(path, { replace: true });
    assert.equal(report.rowsRead, 6);
    assert.equal(report.imported, 3);
    assert.deepEqual(report.rejectedByReason, {
      missing_voterbase_id: 1,
      duplicate_voterbase_id: 1,
      wrong_field_count: 1,
    });
    assert.deepEqual(report.warningsByKind, { invalid_dob_cleared: 1, invalid_state_cleared: 1 });
    const lines = (await readFile(report.reportPath, 'utf8')).trim().split('\n');
    assert.deepEqual(lines.sort(), [
      '3,missing_voterbase_id',
      '4,duplicate_voterbase_id',
      '5,wrong_field_count',
      '7,invalid_dob_cleared',
      '7,invalid_state_cleared',
      'line,problem',
    ]);
    const voters = (await store.current())!;
    assert.equal(
      voters.record(voters.lookup('voterbase_id', 'NC-5')[0]!)[voters.columnIndex('county')],
      'WAKE, NORTH',
    );
  });

  test('without --replace a file is added to the current one; duplicates of kept rows are rejected', async () => {
    const first = join(dir, 'nc.csv');
    const second = join(dir, 'oh.csv');
    await writeFile(first, `${HEADER}\nNC-1,NC,1,ANN,LEE,19800101,WAKE\nNC-2,NC,2,BO,LEE,1980,WAKE\n`);
    await writeFile(second, 'voterbase_id,state,voter_id,precinct\nOH-1,OH,1,P7\nNC-2,NC,9,P8\n');
    await store.importFile(first, { replace: true });
    const report = await store.importFile(second, { replace: false });
    assert.equal(report.carriedOver, 2);
    assert.equal(report.imported, 1);
    assert.deepEqual(report.rejectedByReason, { duplicate_voterbase_id: 1 });
    const voters = (await store.current())!;
    assert.equal(voters.size, 3);
    assert.ok(voters.columns.includes('county') && voters.columns.includes('precinct'));
    const oh = voters.record(voters.lookup('voter_id', 'OH|1')[0]!);
    assert.equal(oh[voters.columnIndex('precinct')], 'P7');
    assert.equal(oh[voters.columnIndex('county')], '');
  });

  test('replacing is atomic: readers see the old version until the new one is whole', async () => {
    await store.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const old = (await store.stats())!.version;
    const big = join(dir, 'big.csv');
    const rows = ['voterbase_id,state,voter_id'];
    for (let i = 0; i < 300_000; i++) rows.push(`TX-${i},TX,${i}`);
    await writeFile(big, `${rows.join('\n')}\n`);
    const seen = new Set<string>();
    let importing = true;
    const watcher = (async () => {
      while (importing) {
        const stats = await store.stats();
        seen.add(`${stats!.version}:${stats!.rows}`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    const report = await store.importFile(big, { replace: true });
    importing = false;
    await watcher;
    assert.equal(report.imported, 300_000);
    for (const entry of seen) assert.ok(entry === `${old}:6` || entry === `${report.version}:300000`, entry);
    assert.ok(seen.has(`${old}:6`), 'the old version was visible during the import');
    // A job that pinned the old version can still open it.
    assert.equal((await store.open(old))!.size, 6);
  });

  test('a second import while one runs is refused; a lock left by a dead import is taken over', async () => {
    await store.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const a = join(dir, 'a.csv');
    const rows = ['voterbase_id,state,voter_id'];
    for (let i = 0; i < 200_000; i++) rows.push(`VA-${i},VA,${i}`);
    await writeFile(a, `${rows.join('\n')}\n`);
    const b = join(dir, 'b.csv');
    await writeFile(b, 'voterbase_id,state\nWV-1,WV\n');
    const first = store.importFile(a, { replace: false });
    const lock = join(dir, 'voters', '.import.lock');
    while (!(await stat(lock).catch(() => null))) await new Promise((r) => setImmediate(r));
    await assert.rejects(store.importFile(b, { replace: false }), /another voter import is running/);
    assert.equal((await first).imported, 200_000);
    const voters = (await store.current())!;
    assert.equal(voters.size, 200_006);
    // A crashed import's lock (its process is gone) does not block the next one.
    await writeFile(join(dir, 'voters', '.import.lock'), '2147483646');
    assert.equal((await store.importFile(b, { replace: false })).imported, 1);
    assert.equal((await store.current())!.size, 200_007);
  });

  test('a file without voterbase_id, and an empty file, are refused whole', async () => {
    const noId = join(dir, 'no-id.csv');
    await writeFile(noId, 'first_name,last_name\nA,B\n');
    await assert.rejects(
      store.importFile(noId, { replace: true }),
      /the voter file has no voterbase_id column/,
    );
    const empty = join(dir, 'empty.csv');
    await writeFile(empty, '');
    await assert.rejects(store.importFile(empty, { replace: true }), /the voter file is empty/);
    assert.ok((await store.current()) !== null, 'the current version is untouched');
  });

  test('a version whose ids are unpacked postings (format 2) still loads; its ids are found alike', async () => {
    const older = new FsVoterStore({ dir: join(dir, 'format2'), maxRowBytes: 1 << 20 });
    await older.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const version = (await older.stats())!.version;
    const versionDir = join(dir, 'format2', version);
    const meta = JSON.parse(await readFile(join(versionDir, 'meta.json'), 'utf8'));
    assert.equal(meta.format, SNAPSHOT_FORMAT);
    // Rewrite the ids as format 2 stored them: every entry's hash and voter, and a directory.
    const read = async (
      part: keyof typeof PACKED_ID_FILES,
      Type: typeof Uint32Array | typeof Uint16Array,
    ) => {
      const bytes = await readFile(join(versionDir, PACKED_ID_FILES[part]));
      return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    };
    const voterBytes = await readFile(join(versionDir, PACKED_ID_FILES.voterData));
    const packed = new PackedPostings(
      {
        directory: (await read('directory', Uint32Array)) as Uint32Array,
        keyDirectory: (await read('keyDirectory', Uint32Array)) as Uint32Array,
        keyResiduals: (await read('keyResiduals', Uint16Array)) as Uint16Array,
        starts: (await read('starts', Uint32Array)) as Uint32Array,
        voterData: new Uint8Array(voterBytes),
      },
      3,
    );
    const hashes: number[] = [];
    packed.forEachKey((hash, entries) => {
      for (let i = 0; i < entries; i++) hashes.push(hash);
    });
    const voters = Array.from({ length: packed.size }, (_, i) => packed.voterAt(i));
    assert.ok(hashes.length > 6, 'the fixture has ids');
    const unpacked = KeyPostings.fromSorted(Uint32Array.from(hashes), Uint32Array.from(voters));
    for (const [name, array] of [
      ['hashes', unpacked.hashes],
      ['voters', unpacked.voters],
      ['directory', unpacked.directory],
    ] as const)
      await writeFile(join(versionDir, `ids-${name}.bin`), new Uint8Array(array.buffer));
    for (const file of Object.values(PACKED_ID_FILES)) await rm(join(versionDir, file));
    await writeFile(join(versionDir, 'meta.json'), JSON.stringify({ ...meta, format: 2 }));

    const reopened = new FsVoterStore({ dir: join(dir, 'format2'), maxRowBytes: 1 << 20 });
    const current = (await reopened.current())!;
    const [a] = current.lookup('voter_id', idKey('voter_id', '123456', 'NC')!);
    assert.equal(current.record(a!)[current.columnIndex('voterbase_id')], 'NC-000000001');
    assert.deepEqual(current.lookup('voter_id', idKey('voter_id', '999999999', 'NC')!), []);
    // Every id of every record is found again, as the packed postings found it.
    const fresh = (await older.current())!;
    for (const name of ID_INDEXES) {
      const column = fresh.columnIndex(name);
      for (let row = 0; row < fresh.size; row++) {
        const record = fresh.record(row);
        const key = idKey(name, record[column] ?? '', record[current.columnIndex('state')] ?? '');
        if (key !== null)
          assert.deepEqual(current.lookup(name, key), fresh.lookup(name, key), `${name} of ${row}`);
      }
    }
  });

  test('a version imported before the match index (format 1: float64 id tables, no index) still loads and matches', async () => {
    const legacy = new FsVoterStore({ dir: join(dir, 'legacy'), maxRowBytes: 1 << 20 });
    await legacy.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const version = (await legacy.stats())!.version;
    const versionDir = join(dir, 'legacy', version);
    const current = (await legacy.current())!;
    // Rewrite the version as the earlier release left it.
    const meta = JSON.parse(await readFile(join(versionDir, 'meta.json'), 'utf8'));
    delete meta.format;
    const state = current.columnIndex('state');
    for (const name of ID_INDEXES) {
      const column = current.columnIndex(name);
      const pairs: number[] = [];
      for (let row = 0; row < current.size; row++) {
        const record = current.record(row);
        const key = idKey(name, record[column] ?? '', record[state] ?? '');
        if (key !== null) pairs.push(hash52(key), row);
      }
      const table = IdHashTable.build(Float64Array.from(pairs), pairs.length / 2);
      await writeFile(join(versionDir, `idx-${name}.bin`), new Uint8Array(table.slots.buffer));
      meta.indexCounts[name] = table.count;
    }
    for (const file of await readdir(versionDir))
      if (file.startsWith('ids-')) await rm(join(versionDir, file));
    await rm(join(versionDir, 'match'), { recursive: true });
    await writeFile(join(versionDir, 'meta.json'), JSON.stringify(meta));

    const reopened = new FsVoterStore({ dir: join(dir, 'legacy'), maxRowBytes: 1 << 20 });
    const voters = (await reopened.current())!;
    const [a] = voters.lookup('voter_id', idKey('voter_id', '123456', 'NC')!);
    assert.equal(voters.record(a!)[voters.columnIndex('voterbase_id')], 'NC-000000001');
    // The match index was built from the records on load and stored: the same index one thread
    // builds in memory.
    assert.ok(voters.matchIndex !== null, 'the index is built on load');
    const stored = JSON.parse(await readFile(join(versionDir, 'match', 'meta.json'), 'utf8'));
    assert.equal(stored.format, MATCH_INDEX_FORMAT);
    assertSameIndex(voters.matchIndex, builtInMemory(voters));
    const matcher = createProbabilisticMatcher(voters, voters.matchIndex);
    const [outcome] = await matcher.matchBatch(
      [
        {
          row: 1,
          fields: { first_name: 'Margaret', last_name: 'Smith', address1: '12 Oak St', zip: '27601' },
        },
      ],
      { maxMatches: 1, searchRadiusMiles: null, asOf: new Date('2026-01-01T00:00:00Z') },
    );
    assert.equal(voters.record(outcome!.candidates[0]!.voter)[0], 'NC-000000001');
  });

  test('an index of an older format is rebuilt on load and replaced', async () => {
    const store = new FsVoterStore({ dir: join(dir, 'stale'), maxRowBytes: 1 << 20 });
    await store.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const versionDir = join(dir, 'stale', (await store.stats())!.version);
    const metaPath = join(versionDir, 'match', 'meta.json');
    const meta = JSON.parse(await readFile(metaPath, 'utf8'));
    await writeFile(metaPath, JSON.stringify({ ...meta, format: 1 }));
    const voters = (await new FsVoterStore({ dir: join(dir, 'stale'), maxRowBytes: 1 << 20 }).current())!;
    assert.equal(JSON.parse(await readFile(metaPath, 'utf8')).format, MATCH_INDEX_FORMAT);
    assertSameIndex(voters.matchIndex!, builtInMemory(voters));
    assert.deepEqual(
      (await readdir(versionDir)).filter((name) => name.startsWith('.match-')),
      [],
      'no temporary directory left',
    );
  });
  test('a stored u of another level layout (or none) is estimated on load and stored again, private', async () => {
    const store = new FsVoterStore({ dir: join(dir, 'old-u'), maxRowBytes: 1 << 20 });
    await store.importFile(join(FIXTURES, 'voters-small.csv'), { replace: true });
    const versionDir = join(dir, 'old-u', (await store.stats())!.version);
    const uPath = join(versionDir, 'match', RANDOM_PAIR_U_FILE);
    const current = await readFile(uPath);
    // What an import before the dob typo level stored: fewer levels per field.
    await writeFile(uPath, current.subarray(0, current.length - 13 * 8));
    const voters = (await new FsVoterStore({ dir: join(dir, 'old-u'), maxRowBytes: 1 << 20 }).current())!;
    const stored = await readFile(uPath);
    assert.equal(stored.length, current.length, 'the u of this layout is back');
    assert.ok(stored.equals(Buffer.from(randomPairU(voters.matchIndex!).buffer)), 'the one matching uses');
    assert.equal((await stat(uPath)).mode & 0o777, 0o600);
    assert.deepEqual(
      (await readdir(join(versionDir, 'match'))).filter((name) => name.startsWith('.')),
      [],
      'no temporary file left',
    );
  });

  test('reads back every record, across block boundaries and at the end of the file, in any order', async () => {
    // About 1.6 MB of records: more 4 KiB blocks than the reader caches, so cached blocks give
    // their slots to others and are read again.
    const rows = [...generateVoterRows({ rows: 8000, seed: 17 })];
    const csv = join(dir, 'generated.csv');
    await writeFile(
      csv,
      [formatCsvRow([...VOTER_COLUMNS]), ...rows.map((row) => formatCsvRow(row))].join(''),
    );
    const generated = new FsVoterStore({ dir: join(dir, 'generated'), maxRowBytes: 1 << 20 });
    await generated.importFile(csv, { replace: true });
    const voters = (await new FsVoterStore({ dir: join(dir, 'generated'), maxRowBytes: 1 << 20 }).current())!;
    const order = [...rows.keys()].reverse();
    for (let i = 0; i < order.length; i += 7)
      [order[i], order[order.length - 1 - i]] = [order[order.length - 1 - i]!, order[i]!];
    for (const row of [...rows.keys(), ...order])
      assert.deepEqual(voters.record(row), rows[row], `record ${row}`);
    const last = rows.length - 1;
    assert.deepEqual(voters.lookup('voterbase_id', idKey('voterbase_id', rows[last]![0]!, '')!), [last]);
  });
});

/**
 * The index one thread builds in memory, with the voters' counts by ZIP and birth date that a
 * stored index carries (an index in memory counts them on first use): a rebuilt index must store
 * them too.
 */
function builtInMemory(voters: VoterSnapshot): MatchIndex {
  const index = buildMatchIndex(voters);
  assert.equal(index.data.voterCounts, undefined);
  index.data.voterCounts = countVoters(index.data.fields);
  return index;
}

/** Two indexes with the same stored bytes, part by part. */
function assertSameIndex(actual: MatchIndex, expected: MatchIndex): void {
  const a = matchIndexParts(actual).parts;
  const b = matchIndexParts(expected).parts;
  assert.deepEqual([...a.keys()], [...b.keys()]);
  for (const [name, bytes] of a)
    assert.ok(Buffer.from(bytes).equals(Buffer.from(b.get(name)!)), `part ${name} differs`);
}
