/**
 * A voter file imported as shards (VOTER_SHARD_MAX_ROWS), through the real CLI and the real
 * embedded service: the import report names the file's own lines, a list job is split into
 * per-shard chunks on the queue and assembled, its result is byte-identical to `listmatch match`
 * on the same DATA_DIR and to the same file imported whole.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rankOneQuality } from '../support/match-quality.ts';
import { register, startTestService, until, upload, waitForResult } from '../support/test-service.ts';
import { readZip } from '../support/zip.ts';

const CLI = fileURLToPath(new URL('../../bin/listmatch.js', import.meta.url));

function listmatch(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return run;
}

/** What the command printed, standard output then standard error, once it succeeded. */
function ok(run: ReturnType<typeof listmatch>): string {
  assert.equal(run.status, 0, run.stderr);
  return run.stdout + run.stderr;
}

describe('a sharded voter file', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-shards-'));
    ok(
      listmatch([
        'generate',
        'voters',
        '--rows',
        '30000',
        '--states',
        'NC,OH,GA',
        '--seed',
        '7',
        '--out',
        join(dir, 'voters.csv'),
      ]),
    );
    ok(
      listmatch([
        'generate',
        'list',
        '--from',
        join(dir, 'voters.csv'),
        '--rows',
        '1500',
        '--match-rate',
        '0.8',
        '--pattern',
        'mixed',
        '--seed',
        '8',
        '--out',
        join(dir, 'list.csv'),
        '--truth',
        join(dir, 'truth.csv'),
      ]),
    );
  });
  after(async () => await rm(dir, { recursive: true, force: true }));

  test('imports as a shard per state, ZIP3 ranges above the limit, reporting the lines of the file', async () => {
    const voters = (await readFile(join(dir, 'voters.csv'), 'utf8')).trimEnd().split('\n');
    // Line 3 has a field too few; line 5 has no voterbase_id.
    voters[2] = voters[2]!.slice(0, voters[2]!.lastIndexOf(','));
    voters[4] = `,${voters[4]!.slice(voters[4]!.indexOf(',') + 1)}`;
    const path = join(dir, 'flawed.csv');
    await writeFile(path, `${voters.join('\n')}\n`);
    const dataDir = join(dir, 'import');
    const env = { DATA_DIR: dataDir, VOTER_SHARD_MAX_ROWS: '6000' };
    const out = ok(listmatch(['voters', 'import', path, '--replace'], env));
    assert.match(out, /29998 rows imported/);
    const names = await readdir(join(dataDir, 'voters'));
    const version = (await readFile(join(dataDir, 'voters', 'CURRENT'), 'utf8')).trim();
    const shards = names
      .filter((name) => name.startsWith(`${version}-`))
      .map((name) => name.slice(version.length + 1));
    // About 10,000 voters per state: each is cut in two ZIP3 ranges of at most 6,000.
    assert.deepEqual(shards.sort(), ['ga-1', 'ga-2', 'nc-1', 'nc-2', 'oh-1', 'oh-2']);
    const meta = JSON.parse(await readFile(join(dataDir, 'voters', version, 'meta.json'), 'utf8'));
    for (const shard of meta.shards.shards) {
      assert.ok(shard.rows <= 6000 && shard.rows > 0, `${shard.id}: ${shard.rows} rows`);
      assert.ok(shard.memoryBytes > 0);
    }
    const report = await readFile(join(dataDir, 'voters', version, 'import-report.csv'), 'utf8');
    assert.match(report, /^3,wrong_field_count$/m);
    assert.match(report, /^5,missing_voterbase_id$/m);

    const append = listmatch(['voters', 'import', path], env);
    assert.notEqual(append.status, 0);
    assert.match(
      append.stderr,
      /a sharded voter file is imported whole: import the complete file with --replace/,
    );
  });

  test('a job is split, matched per shard and assembled, or matched in one process by a worker holding every shard: the CLI result and the unsharded one byte for byte', async () => {
    // A voter cache smaller than the file: the worker splits the list, as workers holding part of
    // it do. On 4 threads the split and the assembly run there, and the chunks' batches.
    const service = await startTestService(
      { VOTER_SHARD_MAX_ROWS: '6000', RATE_LIMIT_POLL_SECONDS: '0', MATCH_THREADS: '4', VOTER_CACHE_MB: '1' },
      { voters: false },
    );
    try {
      await service.running.services.voters.importFile(join(dir, 'voters.csv'), { replace: true });
      const { key } = await service.createKey();
      const url = await register(
        service,
        key,
        'filename=sharded&include_email=True&max_matches=2&format=csv',
      );
      const put = await upload(url, await readFile(join(dir, 'list.csv')));
      assert.equal(put.status, 200);
      const polled = await waitForResult(service, key, 'sharded', 120_000);
      assert.equal(polled.error, null);
      const response = await fetch(polled.url);
      const actual = Buffer.from(await response.arrayBuffer());
      assert.equal(response.status, 200);

      // The chunks went through the queue, one queue per shard, and are gone after assembly.
      const database = service.running.services.database!;
      const doneTypes = () =>
        (
          database.db.prepare("SELECT DISTINCT type FROM queue WHERE state = 'done' ORDER BY type").all() as {
            type: string;
          }[]
        ).map((row) => row.type);
      // The job completes inside the assembly's handler; its queue message is marked done just after.
      await until(() => doneTypes().includes('assemble-list'), 'the assembly marked done');
      const ran = doneTypes();
      assert.ok(ran.includes('match-list') && ran.includes('assemble-list'), ran.join(' '));
      assert.ok(ran.filter((type) => type.startsWith('match-chunk.')).length >= 4, ran.join(' '));
      const work = await readdir(join(service.dataDir, 'blobs', 'work')).catch(() => [] as string[]);
      for (const job of work) {
        assert.deepEqual(
          await readdir(join(service.dataDir, 'blobs', 'work', job, 'chunks')).catch(() => []),
          [],
        );
      }

      // The CLI, holding every shard, matches the list itself on the same DATA_DIR.
      const cli = join(dir, 'cli.csv');
      ok(
        listmatch(
          ['match', join(dir, 'list.csv'), '--out', cli, '--max-matches', '2', '--append', 'party,email'],
          { DATA_DIR: service.dataDir, VOTER_SHARD_MAX_ROWS: '6000', MATCH_THREADS: '1' },
        ),
      );
      const expected = await readFile(cli);
      assert.ok(expected.length > 1000);
      assert.equal(actual.toString('utf8'), expected.toString('utf8'));
      assert.ok(actual.equals(expected), 'byte for byte');
      // On the job's thread alone, or with whole blocks on two or four threads: the same bytes.
      for (const threads of ['0', '2', '4']) {
        const again = join(dir, `cli-${threads}.csv`);
        ok(
          listmatch(
            ['match', join(dir, 'list.csv'), '--out', again, '--max-matches', '2', '--append', 'party,email'],
            { DATA_DIR: service.dataDir, VOTER_SHARD_MAX_ROWS: '6000', MATCH_THREADS: threads },
          ),
        );
        assert.ok((await readFile(again)).equals(expected), `the same bytes on ${threads} threads`);
      }
      // The CLI matches a sharded file holding every shard; a voter cache too small for them says so.
      const small = listmatch(['match', join(dir, 'list.csv'), '--out', join(dir, 'small.csv')], {
        DATA_DIR: service.dataDir,
        VOTER_CACHE_MB: '1',
      });
      assert.notEqual(small.status, 0);
      assert.match(small.stderr, /shards do not fit in VOTER_CACHE_MB together/);

      // A worker that holds every shard matches the job itself: no chunk, the same bytes.
      const holding = await startTestService(
        { VOTER_SHARD_MAX_ROWS: '6000', RATE_LIMIT_POLL_SECONDS: '0', MATCH_THREADS: '2' },
        { voters: false },
      );
      try {
        await holding.running.services.voters.importFile(join(dir, 'voters.csv'), { replace: true });
        const { key: holdingKey } = await holding.createKey();
        const holdingUrl = await register(
          holding,
          holdingKey,
          'filename=whole&include_email=True&max_matches=2&format=csv',
        );
        assert.equal((await upload(holdingUrl, await readFile(join(dir, 'list.csv')))).status, 200);
        const done = await waitForResult(holding, holdingKey, 'whole', 120_000);
        assert.equal(done.error, null);
        const heldWhole = Buffer.from(await (await fetch(done.url)).arrayBuffer());
        assert.ok(heldWhole.equals(expected), 'held whole: byte for byte');
        const types = (
          holding.running.services
            .database!.db.prepare('SELECT DISTINCT type FROM queue ORDER BY type')
            .all() as { type: string }[]
        ).map((row) => row.type);
        assert.ok(types.includes('match-list'), types.join(' '));
        assert.ok(
          !types.some((type) => type.startsWith('match-chunk.') || type === 'assemble-list'),
          types.join(' '),
        );
      } finally {
        await holding.stop();
      }

      // The same list on the same file imported whole: the same bytes (the same candidates, fit,
      // frequencies and tie-breaks however the file is stored).
      const plain = join(dir, 'plain');
      ok(listmatch(['voters', 'import', join(dir, 'voters.csv'), '--replace'], { DATA_DIR: plain }));
      ok(
        listmatch(
          [
            'match',
            join(dir, 'list.csv'),
            '--out',
            join(dir, 'plain.csv'),
            '--max-matches',
            '2',
            '--append',
            'party,email',
          ],
          { DATA_DIR: plain, MATCH_THREADS: '1' },
        ),
      );
      const unsharded = await readFile(join(dir, 'plain.csv'));
      assert.equal(
        unsharded.toString('utf8'),
        expected.toString('utf8'),
        'unsharded and sharded, line for line',
      );
      assert.ok(unsharded.equals(expected), 'unsharded and sharded: byte for byte');
      const truth = await readFile(join(dir, 'truth.csv'), 'utf8');
      const quality = rankOneQuality(expected.toString('utf8'), truth);
      assert.ok(
        quality.recall > 0.5 && quality.precision > 0.9,
        `precision ${quality.precision}, recall ${quality.recall}`,
      );
    } finally {
      await service.stop();
    }
  });
});

describe('a row whose radius crosses a state line', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-state-line-'));
  });
  after(async () => await rm(dir, { recursive: true, force: true }));

  test('finds the voters across it in a file sharded by state, as in the file imported whole', async () => {
    // 40 voters of NC ZIP 27320 around 36.40 N 79.40 W; 40 of VA ZIP 24540 some 10 miles north,
    // one of them JOHN QUIXLEY. The row names the NC ZIP: only the NC shard is routed to it, while
    // the whole file's radius search around the ZIP reaches the VA voter.
    const firsts = ['MARY', 'JAMES', 'LINDA', 'ROBERT', 'SUSAN', 'DAVID', 'KAREN', 'PAUL'];
    const lasts = ['BAKER', 'COOPER', 'FOSTER', 'HAYES', 'MORGAN'];
    const lines = ['voterbase_id,first_name,last_name,address1,city,state,zip,dob,latitude,longitude'];
    for (const [state, zip, city, lat] of [
      ['NC', '27320', 'REIDSVILLE', 36.4],
      ['VA', '24540', 'DANVILLE', 36.55],
    ] as const) {
      for (let i = 0; i < 40; i++) {
        const quixley = state === 'VA' && i === 7;
        const first = quixley ? 'JOHN' : firsts[i % firsts.length]!;
        const last = quixley ? 'QUIXLEY' : lasts[i % lasts.length]!;
        const at = (lat + (i % 5) * 0.004).toFixed(5);
        const lon = (-79.4 - Math.floor(i / 5) * 0.004).toFixed(5);
        lines.push(
          `${state}-${100 + i},${first},${last},${10 + i} MAIN ST,${city},${state},${zip},19${50 + i}0${1 + (i % 9)}15,${at},${lon}`,
        );
      }
    }
    // Voters far from both (Wilmington NC, Fairfax VA), in ZIP3s of their own: shards more than a
    // voter cache of 1 MB holds together, so that the service splits the list into chunks.
    for (const [state, zip, city, lat, lon] of [
      ['NC', '28401', 'WILMINGTON', 34.2, -77.9],
      ['VA', '22030', 'FAIRFAX', 38.85, -77.3],
    ] as const) {
      for (let i = 0; i < 4000; i++) {
        lines.push(
          `${state}-F${i},${firsts[i % firsts.length]},${lasts[i % lasts.length]}${i % 97},${1 + i} OAK AVE,${city},${state},${zip},19${40 + (i % 50)}0${1 + (i % 9)}1${i % 9},${(lat + (i % 60) * 0.001).toFixed(5)},${(lon - Math.floor(i / 60) * 0.001).toFixed(5)}`,
        );
      }
    }
    await writeFile(join(dir, 'voters.csv'), `${lines.join('\n')}\n`);
    await writeFile(
      join(dir, 'list.csv'),
      [
        'matchback_id,first_name,last_name,address1,state,zip,dob',
        'q,JOHN,QUIXLEY,,,27320,',
        'a,JOHN,QUIXLEY,17 MAIN ST,NC,27320,',
        'd,MARY,BAKER,10 MAIN ST,NC,27320,19500115',
        '',
      ].join('\n'),
    );
    const results: string[] = [];
    for (const [name, env] of [
      ['whole', {}],
      ['sharded', { VOTER_SHARD_MAX_ROWS: '1000' }],
    ] as const) {
      const dataDir = join(dir, name);
      ok(
        listmatch(['voters', 'import', join(dir, 'voters.csv'), '--replace'], { DATA_DIR: dataDir, ...env }),
      );
      const out = join(dir, `${name}.csv`);
      const summary = join(dir, `${name}.json`);
      ok(
        listmatch(['match', join(dir, 'list.csv'), '--out', out, '--summary', summary], {
          DATA_DIR: dataDir,
          MATCH_THREADS: '1',
          ...env,
        }),
      );
      results.push(await readFile(out, 'utf8'));
      const told = JSON.parse(await readFile(summary, 'utf8'));
      // The VA voter is the first row's candidate, below the threshold (a name alone, 10 miles
      // away), and the second row's match (its house and street, across the state line: a row of
      // both NC shards, its radius reaching VA's); the third (a birth date: every shard) is placed
      // over them all and matched.
      assert.deepEqual(told.unmatchedReasons, { below_threshold: 1 }, name);
      assert.match(results.at(-1)!, /^a,.*,VA-107,/m, name);
      assert.match(results.at(-1)!, /^d,.*,NC-100,/m, name);
      // Sharded: a shard per ZIP3; the first row routed to its ZIP's alone, the second to NC's
      // two (each matched in VA's too), the third to every shard.
      if (name === 'sharded')
        assert.deepEqual(told.shardRouting, { rows: 3, shardRows: 7, everywhere: 0, shards: 4 });
    }
    assert.equal(results[1], results[0], 'sharded and whole, byte for byte');

    // Through the queue's chunks (a voter cache smaller than the file: the list is split): the
    // place steps find the row's radius reaching VA, and the VA shard's reach chunk matches it.
    const service = await startTestService(
      {
        VOTER_SHARD_MAX_ROWS: '1000',
        RATE_LIMIT_POLL_SECONDS: '0',
        MATCH_THREADS: '1',
        VOTER_CACHE_MB: '1',
      },
      { voters: false },
    );
    try {
      await service.running.services.voters.importFile(join(dir, 'voters.csv'), { replace: true });
      const { key, id } = await service.createKey();
      // The CLI's columns: no field appended.
      await service.running.services.keys.setProfile(id, 'default', {
        appendedFields: [],
        contactFields: [],
      });
      const url = await register(service, key, 'filename=reach&format=zip');
      assert.equal((await upload(url, await readFile(join(dir, 'list.csv')))).status, 200);
      const polled = await waitForResult(service, key, 'reach', 60_000);
      assert.equal(polled.error, null);
      const entries = await readZip(Buffer.from(await (await fetch(polled.url)).arrayBuffer()));
      const queued = entries.get('reach.csv')!.toString('utf8');
      const summary = JSON.parse(entries.get('summary.json')!.toString('utf8'));
      assert.deepEqual(summary.unmatchedReasons, { below_threshold: 1 }, 'the VA voter found by the chunks');
      const types = (
        service.running.services
          .database!.db.prepare('SELECT DISTINCT type FROM queue ORDER BY type')
          .all() as { type: string }[]
      ).map((row) => row.type);
      assert.ok(types.includes('assemble-list'), types.join(' '));
      assert.equal(queued, results[0], "the queue's chunks and the file imported whole, byte for byte");
    } finally {
      await service.stop();
    }
  });
});
