import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  FIXTURES,
  getJson,
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';
import { readZip } from '../support/zip.ts';

/** Uploads a body as a zip job and returns the poll outcome plus, when complete, summary and CSV. */
async function run(t: TestService, key: string, name: string, body: string | Uint8Array) {
  const url = await register(t, key, `filename=${name}&format=zip`);
  assert.equal((await upload(url, body)).status, 200);
  const result = await waitForResult(t, key, name, 30_000);
  if (result.url === '') return { ...result, summary: null, csv: null };
  const entries = await readZip(Buffer.from(await (await fetch(result.url)).arrayBuffer()));
  return {
    ...result,
    summary: JSON.parse(entries.get('summary.json')!.toString('utf8')),
    csv: entries.get(`${name}.csv`)!.toString('utf8'),
  };
}

describe('bad input files never crash the service; the job says why', () => {
  let t: TestService;
  let key: string;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  test('empty file → failed with a clear error', async () => {
    const result = await run(t, key, 'empty', '');
    assert.equal(result.status, 'failed');
    assert.equal(result.error, 'Validation Error: the uploaded file is empty');
  });

  test('header only → complete with zero rows and a warning', async () => {
    const result = await run(t, key, 'header_only', 'first_name,last_name,voter_id,state\r\n');
    assert.equal(result.status, 'complete');
    assert.equal(result.summary.rows, 0);
    assert.deepEqual(result.summary.warnings.byKind, { no_data_rows: 1 });
    assert.equal(
      result.csv!.split('\n')[0],
      'first_name,last_name,voter_id,state,ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id,vb.party,sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain',
    );
  });

  test('no recognizable identifier column → failed naming the identifiers', async () => {
    const result = await run(t, key, 'no_ids', 'foo,bar\n1,2\n');
    assert.equal(result.status, 'failed');
    assert.match(
      String(result.error),
      /^Validation Error: the file has no recognizable identifier column; the header must name at least one of voterbase_id, smartvan_id, voter_id/,
    );
  });

  test('binary garbage → failed, not crashed; the service still answers', async () => {
    const garbage = randomBytes(256 * 1024);
    const result = await run(t, key, 'garbage', garbage);
    assert.equal(result.status, 'failed');
    assert.match(String(result.error), /^Validation Error: /);
    assert.equal((await fetch(`${t.base}/healthz`)).status, 200);
  });

  test('a 10 MB single line → failed: the first line cannot be a header', async () => {
    const result = await run(t, key, 'one_long_line', `voterbase_id,${'x'.repeat(10 * 1024 * 1024)}`);
    assert.equal(result.status, 'failed');
    assert.match(String(result.error), /^Validation Error: the first line is longer than 1048576 bytes/);
  });

  test('a 10 MB data row is skipped with its line number; other rows are matched', async () => {
    const body = `voterbase_id,notes\nNC-000000001,a\nNC-000000002,"${'y'.repeat(10 * 1024 * 1024)}"\nNC-000000003,c\n`;
    const result = await run(t, key, 'long_row', body);
    assert.equal(result.status, 'complete');
    assert.equal(result.summary.rows, 2);
    assert.equal(result.summary.matchedRows, 2);
    assert.deepEqual(result.summary.warnings.byKind, { row_too_long: 1 });
    assert.match(result.summary.warnings.first[0], /line 3/);
  });

  test('lines ending in a lone CR, mixed with LF and CRLF lines → every row answered (csv result)', async () => {
    // Old Mac exports and mail-merge tools: a 200-row list with every third line ending in CR
    // came back with 133 rows and status complete.
    const endings = ['\n', '\r\n', '\r'];
    let body = 'voterbase_id,notes\r\n';
    for (let i = 1; i <= 200; i++) {
      const note = i % 17 === 0 ? '"two\rlines"' : i % 19 === 0 ? '"two\nlines"' : `n${i}`;
      body += `NC-${String(i).padStart(9, '0')},${note}${endings[i % 3]}`;
    }
    const url = await register(t, key, 'filename=lone_cr&format=csv');
    assert.equal((await upload(url, body)).status, 200);
    const result = await waitForResult(t, key, 'lone_cr', 30_000);
    assert.equal(result.status, 'complete');
    const lines = (await (await fetch(result.url)).text()).trimEnd().split('\n');
    assert.equal(lines.length, 201);
    const inputRows = lines.slice(1).map((line) => Number(line.split(',')[2]));
    assert.deepEqual(
      inputRows,
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
    assert.deepEqual(result.warnings, { total: 0, rows_skipped: 0, by_kind: {}, first: [] });
  });

  test('a row the reader cannot return is named in the poll answer of a csv result', async () => {
    const body = `voterbase_id,notes\nNC-000000001,a\nNC-000000002,${'y'.repeat(2 * 1024 * 1024)}\nNC-000000003,c\n`;
    const url = await register(t, key, 'filename=long_row_csv&format=csv');
    assert.equal((await upload(url, body)).status, 200);
    const result = await waitForResult(t, key, 'long_row_csv', 30_000);
    assert.equal(result.status, 'complete');
    const warnings = result.warnings as { rows_skipped: number; first: string[] };
    assert.equal(warnings.rows_skipped, 1);
    assert.match(warnings.first[0]!, /^line 3: row is 2097165 bytes, more than the limit/);
  });

  test('a quoted field never closed that swallows the lines after it → failed naming its line', async () => {
    const body = 'voterbase_id,notes\nNC-000000001,a\nNC-000000002,"open\nNC-000000003,c\nNC-000000004,d\n';
    const result = await run(t, key, 'swallowed', body);
    assert.equal(result.status, 'failed');
    assert.equal(
      result.error,
      'Validation Error: line 3: a quoted field is never closed, so the 3 lines after it were read into one cell; close or remove the quote and upload again',
    );
  });

  test('malformed CSV: ragged rows, stray quotes, unterminated quote → warnings, every row answered', async () => {
    const body = [
      'voterbase_id,first_name,last_name',
      'NC-000000001,MARGARET',
      'NC-000000002,ROBERT,SMITH,EXTRA,MORE',
      'NC-000000003,JO"SE,MU"NOZ',
      'OH-000000004,"MARY,O\'BRIEN',
    ].join('\n');
    const result = await run(t, key, 'malformed', body);
    assert.equal(result.status, 'complete');
    assert.equal(result.summary.rows, 4);
    // Lines 2, 3 and the unterminated one (its quote swallows the comma) have the wrong field count.
    assert.equal(result.summary.warnings.byKind.ragged_row, 3);
    assert.equal(result.summary.warnings.byKind.unterminated_quote, 1);
    const lines = result.csv!.trimEnd().split('\n');
    assert.equal(lines.length, 5);
    for (const line of lines) assert.doesNotMatch(line, /\r/);
  });

  test('the CSV fixtures: BOM+CRLF, quoted newlines, Windows-1252, ragged', async () => {
    for (const name of ['bom-crlf', 'quoted-newlines', 'latin1', 'ragged', 'malformed-quotes', 'good']) {
      const body = await readFile(join(FIXTURES, 'csv', `${name}.csv`));
      const result = await run(t, key, `fixture_${name.replace('-', '_')}`, body);
      // A fixture without identifier columns fails cleanly; every other one completes.
      assert.ok(
        result.status === 'complete' ||
          /^Validation Error: the file has no recognizable identifier/.test(String(result.error)),
        name,
      );
      if (result.csv !== null) {
        assert.equal(
          result.csv.split('\n').length - 2,
          result.summary.outputRows,
          `${name}: one line per output row, no embedded newlines`,
        );
        assert.ok(!result.csv.startsWith('\ufeff'), `${name}: no BOM`);
      }
    }
  });

  test('hostile values: emoji, control characters, absurdly long fields, formula prefixes', async () => {
    const long = 'z'.repeat(200_000);
    const body = `voterbase_id,first_name,notes\nNC-000000001,😀\u0007\u0000,${long}\n@SUM(A1),+cmd,-2\n`;
    const result = await run(t, key, 'hostile', body);
    assert.equal(result.status, 'complete');
    const lines = result.csv!.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.ok(lines[1]!.includes(long));
    // The client's own cells come back as sent; summary.json counts the formula-like ones.
    assert.match(lines[2]!, /^@SUM\(A1\),\+cmd,-2,2,2,N,/);
    assert.deepEqual(result.summary.formulaCells, { total: 2, byColumn: { voterbase_id: 1, first_name: 1 } });
  });

  test('every endpoint still answers after all of the above', async () => {
    assert.equal((await getJson(`${t.base}/readyz`)).status, 200);
  });
});

describe('inputs built to exhaust memory or disk', () => {
  let t: TestService;
  let key: string;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  test('a header of 20,000 columns over 200,000 one-field rows fails fast; the service stays up', async () => {
    const body = `voterbase_id${',c'.repeat(20_000)}\n${'1\n'.repeat(200_000)}`;
    const result = await run(t, key, 'wide_header', body);
    assert.equal(result.status, 'failed');
    assert.equal(result.error, 'Validation Error: the header has 20001 columns; at most 1000 are accepted');
    assert.equal((await fetch(`${t.base}/healthz`)).status, 200);
  });

  test('a file of mostly ragged rows under a wide header fails as not a consistent CSV', async () => {
    const body = `voterbase_id${',c'.repeat(900)}\n${'1\n'.repeat(50_000)}`;
    const result = await run(t, key, 'mostly_ragged', body);
    assert.equal(result.status, 'failed');
    assert.match(
      String(result.error),
      /^Validation Error: \d+ of the first \d+ rows have a different number of fields than the header/,
    );
    assert.equal((await fetch(`${t.base}/healthz`)).status, 200);
  });
});
