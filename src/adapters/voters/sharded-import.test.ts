import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ShardDirectory } from '../../domain/voters/shard-directory.ts';
import {
  concurrentBuilds,
  importSharded,
  inParallel,
  SHARD_DIRECTORY_FILE,
  splitThreads,
} from './sharded-import.ts';
import { buildSnapshot } from './snapshot-builder.ts';
import { RANDOM_PAIR_U_FILE } from './snapshot-files.ts';

/**
 * importSharded with the ordinary snapshot builder, its builds in `work`; `seen` is given each
 * shard's CSV before its build (the import removes it after).
 */
async function importWithBuilds(
  path: string,
  work: string,
  options: {
    version: string;
    maxRows: number;
    concurrentBuilds: number;
    seen?: (version: string, csv: string) => void;
  },
) {
  return await importSharded({
    path,
    totalBytes: (await stat(path)).size,
    workDir: work,
    version: options.version,
    maxRows: options.maxRows,
    maxRowBytes: 1 << 20,
    onProgress: undefined,
    concurrentBuilds: options.concurrentBuilds,
    buildShard: async (shard) => {
      const buildDir = join(work, `build-${shard.version}`);
      await mkdir(buildDir, { recursive: true });
      options.seen?.(shard.version, await readFile(shard.path, 'utf8'));
      const report = await buildSnapshot({
        ...shard,
        buildDir,
        previous: null,
        maxRowBytes: 1 << 20,
        onProgress: undefined,
        storesRandomPairU: false,
      });
      return { report, buildDir };
    },
  });
}

describe('inParallel (shards built at once)', () => {
  /** Runs builds that take `ms[i]` milliseconds, recording what ran together. */
  async function run(rows: number[], most: number, ms: number[]) {
    const started: number[] = [];
    let now = 0;
    let peak = 0;
    let peakRows = 0;
    let runningRows = 0;
    const results = await inParallel(rows, most, async (i) => {
      started.push(i);
      now++;
      runningRows += rows[i]!;
      peak = Math.max(peak, now);
      peakRows = Math.max(peakRows, runningRows);
      await new Promise((resolve) => setTimeout(resolve, ms[i]));
      now--;
      runningRows -= rows[i]!;
      return `shard ${i}`;
    });
    return { results, started, peak, peakRows };
  }

  it('gives the results in shard order, the biggest started first, at most `most` at once', async () => {
    const { results, started, peak } = await run([10, 40, 20, 30], 2, [5, 20, 5, 15]);
    assert.deepEqual(results, ['shard 0', 'shard 1', 'shard 2', 'shard 3']);
    assert.deepEqual(started.slice(0, 1), [1]);
    assert.ok(peak <= 2, `${peak} at once`);
  });

  it('never runs more rows at once than the biggest shard has', async () => {
    const { peakRows, peak } = await run([100, 60, 50, 40, 10], 8, [20, 10, 10, 10, 10]);
    assert.ok(peakRows <= 100, `${peakRows} rows at once`);
    assert.ok(peak >= 2, 'the small ones share the budget');
  });

  it('runs one at a time when asked, and waits for the running ones before reporting a failure', async () => {
    const one = await run([5, 5, 5], 1, [1, 1, 1]);
    assert.equal(one.peak, 1);
    // Shard 1 (the biggest) alone, then 0, 2 and 3 together; 0 fails while 2 and 3 still run.
    const finished: number[] = [];
    await assert.rejects(
      inParallel([4, 10, 3, 3], 3, async (i) => {
        await new Promise((resolve) => setTimeout(resolve, i === 0 ? 1 : 20));
        if (i === 0) throw new Error('shard 0 broke');
        finished.push(i);
      }),
      /shard 0 broke/,
    );
    assert.deepEqual(finished, [1, 2, 3], 'the builds already running finished before the import failed');
  });

  it('builds one shard at a time below eight cores, one more per four cores above', () => {
    assert.deepEqual(
      [1, 2, 4, 7, 8, 16, 64].map((cores) => concurrentBuilds(cores)),
      [1, 1, 1, 1, 2, 4, 16],
    );
  });
  it('counts and splits on every core but the writing one, on two threads at least', () => {
    assert.deepEqual(
      [1, 2, 4, 16].map((cores) => splitThreads(cores)),
      [2, 2, 3, 15],
    );
  });
});

describe('a voter file imported as shards, several built at once', () => {
  let dir: string;
  const STATES = ['NC', 'VA', 'OH', 'GA'];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-sharded-import-'));
    const header = 'voterbase_id,state,first_name,last_name,address1,city,zip,dob,email,wireless_phone,party';
    const lines = [header];
    for (let i = 0; i < 400; i++) {
      const state = STATES[i % (i % 7 === 0 ? 2 : 4)]!;
      const n = String(i).padStart(6, '0');
      lines.push(
        `${state}-${n},${state},ANN${i % 13},SMITH${i % 17},${i} OAK ST,CITY${i % 5},${27000 + (i % 40)},19${50 + (i % 40)}0412,a${i}@example.com,91955${String(10000 + i).slice(-5)},DEM`,
      );
    }
    // A rejected line and a corrected one: the report names their lines in the whole file.
    lines.push('NC-000001,NC,ANN,SMITH,1 OAK ST,CITY,27001,19500412,,,DEM');
    lines.push('VA-999999,VA,BOB,,2 ELM ST,CITY,2700,99999999,,,REP');
    await writeFile(join(dir, 'voters.csv'), `${lines.join('\n')}\n`);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function importWith(concurrent: number) {
    const work = join(dir, `work-${concurrent}`);
    await mkdir(work, { recursive: true });
    const path = join(dir, 'voters.csv');
    const result = await importWithBuilds(path, work, {
      version: 'v1-test',
      maxRows: 1000,
      concurrentBuilds: concurrent,
    });
    const files: Record<string, string> = {};
    for (const buildDir of result.buildDirs) {
      for (const name of (await readdir(buildDir, { recursive: true })).sort()) {
        const file = join(buildDir, name);
        if ((await stat(file)).isDirectory()) continue;
        const bytes = await readFile(file);
        // The build's time is the only thing allowed to differ.
        const text =
          name === 'meta.json'
            ? bytes.toString('utf8').replace(/"importedAt": "[^"]+"/, '')
            : bytes.toString('base64');
        files[`${buildDir.slice(work.length)}/${name}`] = text;
      }
    }
    // Written beside the shards' CSV files once the split was done (the version's folder).
    const directory = ShardDirectory.fromBytes(await readFile(join(work, SHARD_DIRECTORY_FILE)));
    return { result, files, directory };
  }

  it('gives the same shards, map, report and directory as building them one by one', async () => {
    const one = await importWith(1);
    const three = await importWith(3);
    assert.deepEqual(
      one.result.map.shards.map((s) => s.id),
      ['ga', 'nc', 'oh', 'va'],
    );
    assert.ok(Object.keys(one.files).length > 20, `${Object.keys(one.files).length} files`);
    assert.deepEqual(three.files, one.files);
    assert.deepEqual(three.result.map, one.result.map);
    assert.deepEqual(three.result.report, one.result.report);
    assert.deepEqual(three.result.reportLines, one.result.reportLines);
    assert.ok(one.result.reportLines.length >= 1, one.result.reportLines.join(' | '));
    assert.deepEqual(Buffer.from(three.directory.toBytes()), Buffer.from(one.directory.toBytes()));
    // Every voter's phones and e-mail are in it (the test file gives each voter one of both).
    assert.ok(one.directory.size >= one.result.report.imported, `${one.directory.size} entries`);
    // The shards' builds estimate no u: every shard stores the whole file's, the same bytes.
    const us = Object.entries(one.files).filter(([name]) => name.endsWith(`/match/${RANDOM_PAIR_U_FILE}`));
    assert.equal(us.length, one.result.buildDirs.length);
    for (const [name, bytes] of us) assert.equal(bytes, us[0]![1], name);
  });
});

describe('a voter file whose states are cut into ZIP3 ranges', () => {
  let dir: string;
  // NC's records over four ZIP3s, VA's over one; lines 2, 3, … of the file.
  const ZIPS = ['27012', '27512', '28012', '27112', '22030'];
  const rows: { line: number; state: string; zip: string; lat: number; phone: string }[] = [];
  /** Each shard's CSV, by its version, as its build read it. */
  const csvs = new Map<string, string>();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-cut-import-'));
    const lines = ['voterbase_id,state,first_name,last_name,address1,zip,latitude,longitude,wireless_phone'];
    for (let i = 0; i < 200; i++) {
      const zip = ZIPS[i % ZIPS.length]!;
      const state = zip.startsWith('2') && zip < '24000' ? 'VA' : 'NC';
      const phone = `91955${String(10000 + i).slice(-5)}`;
      const lat = 30 + i / 100;
      lines.push(`${state}-${i},${state},ANN${i % 13},SMITH${i % 17},${i} OAK ST,${zip},${lat},-80,${phone}`);
      rows.push({ line: lines.length, state, zip, lat, phone });
    }
    // A row of NC with a cell too many: rejected, named by its line in the whole file.
    lines.push('NC-999,NC,BOB,JONES,1 ELM ST,27512,35,-80,9195500000,EXTRA');
    // A second record of NC-5 (ZIP 27012, shard nc-1): rejected, and its phone routes nowhere.
    lines.push('NC-5,NC,ANN,SMITH,5 OAK ST,27012,35,-80,9198880000');
    await writeFile(join(dir, 'voters.csv'), `${lines.join('\n')}\n`);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('splits a state among its ZIP3 shards, each in file order, with its area, lines and directory', async () => {
    const path = join(dir, 'voters.csv');
    const result = await importWithBuilds(path, dir, {
      version: 'v-cut',
      maxRows: 50,
      concurrentBuilds: 1,
      seen: (version, csv) => csvs.set(version, csv),
    });
    const shards = result.map.shards;
    assert.deepEqual(
      shards.map((s) => [s.id, s.zip3From, s.zip3To, s.rows]),
      [
        ['nc-1', '270', '270', 40],
        ['nc-2', '271', '271', 40],
        ['nc-3', '275', '275', 40],
        ['nc-4', '280', '280', 40],
        ['va', '', '', 40],
      ],
    );
    const zip3In = (zip: string, shard: (typeof shards)[number]) =>
      shard.zip3From === '' || (zip.slice(0, 3) >= shard.zip3From && zip.slice(0, 3) <= shard.zip3To);
    for (const [i, shard] of shards.entries()) {
      const own = rows.filter((row) => row.state === shard.state && zip3In(row.zip, shard));
      // The voter file's records of the shard, in its order, as they were written there.
      // (nc-1's also holds the second NC-5, which its build rejects.)
      const csv = csvs
        .get(`v-cut-${shard.id}`)!
        .split('\n')
        .slice(1, -1)
        .filter((line) => !line.endsWith('9198880000'));
      assert.deepEqual(
        csv.map((line) => line.split(',')[0]),
        own.map((row) => `${row.state}-${row.line - 2}`),
        shard.id,
      );
      const lats = own.map((row) => row.lat);
      assert.deepEqual(shard.box, [Math.min(...lats), -80, Math.max(...lats), -80], shard.id);
      const directory = ShardDirectory.fromBytes(await readFile(join(dir, SHARD_DIRECTORY_FILE)));
      for (const row of own) {
        const found = new Set<number>();
        directory.phoneShards(row.phone, found);
        assert.deepEqual([...found], [i], `${shard.id}: ${row.phone}`);
      }
    }
    assert.deepEqual(result.reportLines, ['202,wrong_field_count', '203,duplicate_voterbase_id']);
    assert.equal(result.report.rejected, 2);
    assert.equal(result.report.imported, 200);
    // A rejected record's phone is in no shard's part of the directory.
    const directory = ShardDirectory.fromBytes(await readFile(join(dir, SHARD_DIRECTORY_FILE)));
    const found = new Set<number>();
    directory.phoneShards('9198880000', found);
    assert.deepEqual([...found], []);
  });
});
