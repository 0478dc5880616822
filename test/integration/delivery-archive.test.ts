/**
 * The delivery archive over the real HTTP API: every completed job has one (whatever its
 * `format`), with `<base>_best.csv` and `<base>_additional.csv` when max_matches > 1, and
 * summary.json and summary.html; `format=zip` polls that very archive, `csv` and `gzip` keep one
 * CSV with every rank.
 */
import assert from 'node:assert/strict';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { deliveryArchiveKey } from '../../src/domain/client-jobs/result-files.ts';
import { MATCH_LIST_JOB } from '../../src/domain/ports/job-catalog.ts';
import {
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';
import { readZip } from '../support/zip.ts';

// voters-small.csv: voterbase_id NC-000000001 is smartvan_id 9001; smartvan_id 9002 is
// NC-000000002; voter_id 777 is NC-000000003.
const IDS_LIST = [
  'matchback_id,voterbase_id,smartvan_id,voter_id,state',
  'a,NC-000000001,9002,777,NC', // three people: ranks 1, 2, 3
  'b,NC-999999999,,,NC', // not matched
  'c,NC-000000003,,,NC', // rank 1 only
  'd,,9001,,NC', // rank 1 only
  'e,NC-000000002,9001,,NC', // ranks 1 and 2
].join('\n');

/**
 * Column positions in the output of a 5-column list (the test key's profile appends vb.party): its
 * columns, then ts__input_row, ts__row, tsmart_match_code, vb.voterbase_id, vb.party,
 * sm.input_row, sm.rank, sm.match, …
 */
const INPUT_ROW = 5;
const TS_ROW = 6;
const VOTERBASE_ID = 8;
const RANK = 11;
const MATCH = 12;

const lines = (csv: Buffer) => csv.toString('utf8').trimEnd().split('\n');
const cells = (line: string) => line.split(',');
const jobIdOf = (uploadUrl: string) => /\/files\/(job_[^/]+)\//.exec(uploadUrl)![1]!;

describe('delivery archive', () => {
  let t: TestService;
  let key: string;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  const archiveOf = async (jobId: string) =>
    buffer(await t.running.services.blobs.read(deliveryArchiveKey(jobId)));

  test('max_matches=3, format=zip: the poll download is the archive, with _best, _additional and the summaries', async () => {
    const url = await register(t, key, 'filename=ranked.csv&max_matches=3&format=zip');
    assert.equal((await upload(url, IDS_LIST)).status, 200);
    const result = await waitForResult(t, key, 'ranked.csv');
    assert.equal(result.error, null);
    assert.match(result.url, /\/ranked\.zip\?/);
    const response = await fetch(result.url);
    assert.equal(response.headers.get('content-type'), 'application/zip');
    const polled = Buffer.from(await response.arrayBuffer());
    assert.ok(polled.equals(await archiveOf(jobIdOf(url))), 'the polled zip is the delivery archive');

    const entries = await readZip(polled);
    assert.deepEqual([...entries.keys()].sort(), [
      'ranked_additional.csv',
      'ranked_best.csv',
      'summary.html',
      'summary.json',
    ]);
    const best = lines(entries.get('ranked_best.csv')!);
    const additional = lines(entries.get('ranked_additional.csv')!);
    assert.equal(best[0], additional[0], 'same columns in both');
    assert.match(
      best[0]!,
      /^matchback_id,voterbase_id,smartvan_id,voter_id,state,ts__input_row,ts__row,tsmart_match_code,vb\.voterbase_id,vb\.party,sm\.input_row,sm\.rank,sm\.match,/,
    );
    // _best: exactly one line per input row, in input order, unmatched rows included.
    assert.deepEqual(
      best.slice(1).map((l) => [cells(l)[0], cells(l)[INPUT_ROW], cells(l)[RANK]]),
      [
        ['a', '1', '1'],
        ['b', '2', ''],
        ['c', '3', '1'],
        ['d', '4', '1'],
        ['e', '5', '1'],
      ],
    );
    // _additional: ranks 2.. only, in input order then rank, each line numbered in its file.
    assert.deepEqual(
      additional.slice(1).map((l) => [cells(l)[0], cells(l)[RANK], cells(l)[TS_ROW]]),
      [
        ['a', '2', '1'],
        ['a', '3', '2'],
        ['e', '2', '3'],
      ],
    );
    const summary = JSON.parse(entries.get('summary.json')!.toString('utf8'));
    assert.equal(summary.rows, 5);
    assert.equal(summary.matchedRows, 4);
    assert.equal(summary.outputRows, 8);
    assert.deepEqual(summary.matchesByState, { NC: 4 });
    assert.equal(summary.matchThreshold, 50);
    const html = entries.get('summary.html')!.toString('utf8');
    assert.match(html, /^<!DOCTYPE html>/);
    assert.ok(html.includes('<title>Match summary: ranked.csv</title>'));
    assert.equal(html.match(/<svg /g)?.length, 4);
    for (const value of ['NC-000000001', 'NC-999999999', '9002']) assert.ok(!html.includes(value), value);
  });

  test('max_matches=3, format=csv: the poll download is unchanged (one CSV, every rank); the archive is split', async () => {
    const url = await register(t, key, 'filename=ranked_csv&max_matches=3');
    assert.equal((await upload(url, IDS_LIST)).status, 200);
    const result = await waitForResult(t, key, 'ranked_csv');
    assert.match(result.url, /\/ranked_csv\.csv\?/);
    const response = await fetch(result.url);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    const csv = lines(Buffer.from(await response.arrayBuffer()));
    assert.deepEqual(
      csv.slice(1).map((l) => `${cells(l)[0]}${cells(l)[RANK]}`),
      ['a1', 'a2', 'a3', 'b', 'c1', 'd1', 'e1', 'e2'],
    );
    const entries = await readZip(await archiveOf(jobIdOf(url)));
    assert.deepEqual([...entries.keys()].sort(), [
      'ranked_csv_additional.csv',
      'ranked_csv_best.csv',
      'summary.html',
      'summary.json',
    ]);
    // The split holds exactly the poll download's lines.
    const best = lines(entries.get('ranked_csv_best.csv')!);
    const additional = lines(entries.get('ranked_csv_additional.csv')!);
    // Each line numbered in its own file (ts__row): the same lines otherwise.
    const unnumbered = (line: string) => cells(line).toSpliced(TS_ROW, 1).join(',');
    assert.deepEqual(
      [...best.slice(1), ...additional.slice(1)].map(unnumbered).sort(),
      csv.slice(1).map(unnumbered).sort(),
    );
    assert.equal(best.length, 1 + 5);
  });

  test('max_matches=1, format=gzip: the archive holds the one CSV; no work files are left', async () => {
    const url = await register(t, key, 'filename=single&format=gzip');
    assert.equal((await upload(url, IDS_LIST)).status, 200);
    const result = await waitForResult(t, key, 'single');
    assert.match(result.url, /\/single\.csv\.gz\?/);
    const entries = await readZip(await archiveOf(jobIdOf(url)));
    assert.deepEqual([...entries.keys()].sort(), ['single.csv', 'summary.html', 'summary.json']);
    assert.equal(lines(entries.get('single.csv')!).length, 1 + 5);
    const jobId = jobIdOf(url);
    for (const work of ['result.csv', 'best.csv', 'additional.csv']) {
      assert.equal(await t.running.services.blobs.stat(`work/${jobId}/${work}`), null, work);
    }
  });

  test('a couple row keeps both people in _best (ranks 1 and 2)', async () => {
    const list = [
      'matchback_id,first_name_combined,last_name,address1,zip',
      'couple,Margaret & Robert,Smith,12 Oak St,27601',
      'single,Jose,Munoz,400 N Elm Ave Apt 4B,27701',
    ].join('\n');
    const url = await register(t, key, 'filename=couples&max_matches=2&format=zip');
    assert.equal((await upload(url, list)).status, 200);
    const result = await waitForResult(t, key, 'couples');
    const entries = await readZip(Buffer.from(await (await fetch(result.url)).arrayBuffer()));
    const best = lines(entries.get('couples_best.csv')!).slice(1);
    assert.deepEqual(
      best.map((l) => [cells(l)[0], cells(l)[RANK], cells(l)[MATCH]]),
      [
        ['couple', '1', 'Y'],
        ['couple', '2', 'Y'],
        ['single', '1', 'Y'],
      ],
    );
    assert.deepEqual(
      best
        .slice(0, 2)
        .map((l) => cells(l)[VOTERBASE_ID])
        .sort(),
      ['NC-000000001', 'NC-000000002'],
    );
    for (const line of lines(entries.get('couples_additional.csv')!).slice(1)) {
      assert.ok(Number(cells(line)[RANK]) >= 3, line);
    }
  });

  test('max_matches=1: a couple row gets one line, the better-scoring person (the first of max_matches=2)', async () => {
    const list = [
      'matchback_id,first_name_combined,last_name,address1,zip',
      'couple,Margaret & Robert,Smith,12 Oak St,27601',
      'single,Jose,Munoz,400 N Elm Ave Apt 4B,27701',
    ].join('\n');
    const run = async (filename: string, maxMatches: number) => {
      const url = await register(t, key, `filename=${filename}&max_matches=${maxMatches}`);
      assert.equal((await upload(url, list)).status, 200);
      const result = await waitForResult(t, key, filename);
      const csv = lines(Buffer.from(await (await fetch(result.url)).arrayBuffer())).slice(1);
      return { csv, jobId: jobIdOf(url) };
    };
    const { csv: one, jobId } = await run('couples_one', 1);
    const { csv: two } = await run('couples_two', 2);
    assert.deepEqual(
      one.map((l) => [cells(l)[0], cells(l)[RANK]]),
      [
        ['couple', '1'],
        ['single', '1'],
      ],
    );
    assert.equal(one[0], two[0], 'the better-scoring person, as rank 1 of max_matches=2');
    const SCORE = RANK + 2;
    assert.ok(
      Number(cells(two[0]!)[SCORE]) >= Number(cells(two[1]!)[SCORE]),
      'rank 1 scores at least rank 2',
    );
    const entries = await readZip(await archiveOf(jobId));
    const summary = JSON.parse(entries.get('summary.json')!.toString('utf8'));
    assert.deepEqual([summary.rows, summary.matchedRows, summary.outputRows], [2, 2, 2]);
  });

  test('running a job again (as after a crash) gives the same result files', async () => {
    const url = await register(t, key, 'filename=rerun&max_matches=3&format=zip');
    assert.equal((await upload(url, IDS_LIST)).status, 200);
    await waitForResult(t, key, 'rerun');
    const jobId = jobIdOf(url);
    const first = await readZip(await archiveOf(jobId));
    const { jobStore, registry } = t.running.services;
    assert.ok(await jobStore.transition(jobId, ['complete'], 'processing', {}, Date.now()));
    await registry
      .get(MATCH_LIST_JOB)!
      .handle({ v: 1, jobId }, { attempt: 2, isFinalAttempt: false, signal: new AbortController().signal });
    assert.equal((await jobStore.getJob(jobId))?.state, 'complete');
    const second = await readZip(await archiveOf(jobId));
    assert.deepEqual([...second.keys()], [...first.keys()]);
    for (const name of ['rerun_best.csv', 'rerun_additional.csv']) {
      assert.ok(second.get(name)!.equals(first.get(name)!), name);
    }
  });
});
