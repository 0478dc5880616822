import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { ListmatchClient, ListmatchError } from 'listmatch/client';
import { readCsvTable } from '../../src/domain/csv/csv-reader.ts';
import { formatCsvRow } from '../../src/domain/csv/csv-writer.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

const BIN = fileURLToPath(new URL('../../bin/listmatch.js', import.meta.url));

/** A list with the client's own columns beside the identifiers, quoting and a row that matches no one. */
const LIST = [
  'member,First_Name,LAST_NAME,voter_id,State,address1,zip,notes',
  'm1,Peggy,Smith,123456,nc,,,first',
  'm2,Jose,Munoz,777,NC,,,"has, comma"',
  'm3,Nobody,Here,999999,NC,,,=cmd()',
  'm4,Mary,OBrien,000123456,OH,,,"say ""hi"""',
  'm5,Peggy,Smith,,,12 Oak Street,27601,by address',
].join('\r\n');

async function parseCsv(bytes: Uint8Array): Promise<string[][]> {
  const rows: string[][] = [];
  for await (const event of readCsvTable(Readable.from([bytes]), {
    maxRowBytes: 1 << 20,
    onWarning: () => {},
  })) {
    if (event.kind === 'header') rows.push(event.header);
    else for (const row of event.rows) rows.push(row.fields);
  }
  return rows;
}

function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env['PATH'] ?? '', ...env } },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : Number((error as { code?: number }).code ?? 1),
          stdout,
          stderr,
        });
      },
    );
  });
}

describe('listmatch submit against a started service', () => {
  let t: TestService;
  let key: string;
  let dir: string;
  let listPath: string;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
    dir = await mkdtemp(join(tmpdir(), 'listmatch-submit-'));
    listPath = join(dir, 'Members 2026.csv');
    await writeFile(listPath, LIST);
  });
  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('submit --join gives the rows the Python connector flow gives by hand (matchback_id join)', async () => {
    const joinedPath = join(dir, 'joined.csv');
    const outPath = join(dir, 'result.csv.gz');
    const cli = await runCli(
      [
        'submit',
        listPath,
        '--server',
        t.base,
        '--format',
        'gzip',
        '--max-matches',
        '2',
        '--out',
        outPath,
        '--join',
        joinedPath,
        '--poll-interval',
        '0.1',
        '--progress',
      ],
      { LISTMATCH_API_KEY: key },
    );
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, '');
    assert.match(cli.stderr, /^upload \[#+\] /m, 'an upload progress line');
    assert.match(cli.stderr, /^job complete \[#+\] 5 rows matched of 5$/m, 'a poll progress line');
    assert.match(
      cli.stderr,
      /Members_2026: 5 rows, uploaded .* MB\/s; result in .*result\.csv\.gz; \d+ joined rows/,
    );
    const joined = await parseCsv(await readFile(joinedPath));
    const result = await parseCsv(gunzipSync(await readFile(outPath)));
    assert.equal(joined.length, result.length, 'one joined line per result line');

    // By hand, as the Python connector does: number the rows as matchback_id, upload only the
    // identifier columns, poll, download the gzip result, left-join it to the list on matchback_id.
    const client = new ListmatchClient({ server: t.base, apiKey: key });
    const [header, ...rows] = await parseCsv(Buffer.from(LIST));
    const identifiers = ['First_Name', 'LAST_NAME', 'voter_id', 'State', 'address1', 'zip'];
    const at = identifiers.map((name) => header!.indexOf(name));
    const upload = [
      formatCsvRow([...identifiers, 'matchback_id'], []),
      ...rows.map((row, i) => formatCsvRow([...at.map((k) => row[k]!), String(i + 1)], [])),
    ].join('');
    const url = await client.registerSmartmatch({ filename: 'by_hand', format: 'gzip', max_matches: 2 });
    await client.upload(url, upload);
    let answer = await client.poll('by_hand');
    while (answer.url === '' || answer.url === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await client.poll('by_hand');
    }
    const downloaded = gunzipSync(Buffer.from(await (await client.download(answer.url)).arrayBuffer()));
    const [resultHeader, ...resultRows] = await parseCsv(downloaded);
    const matchback = resultHeader!.indexOf('matchback_id');
    const appended = resultHeader!.length > identifiers.length + 1 ? identifiers.length + 1 : 0;
    const byHand = [
      [...header!, ...resultHeader!.slice(appended)],
      ...resultRows.map((line) => [...rows[Number(line[matchback]) - 1]!, ...line.slice(appended)]),
    ];
    assert.deepEqual(joined, byHand);
    // The client's cells come back as written, and at least one row matched.
    assert.deepEqual(joined[2]!.slice(0, 8), ['m2', 'Jose', 'Munoz', '777', 'NC', '', '', 'has, comma']);
    assert.ok(joined.some((line) => line.includes('NC-000000001')));
  });

  test("the service's error text is what the user sees; exit codes tell the kinds apart", async () => {
    const validation = await runCli(['submit', listPath, '--server', t.base, '--max-matches', '11'], {
      LISTMATCH_API_KEY: key,
    });
    assert.equal(validation.code, 2);
    assert.equal(validation.stderr.trim(), 'Validation Error: max_matches must be an integer from 1 to 10');

    const keyFile = join(dir, 'key.txt');
    await writeFile(keyFile, 'lm_not_a_real_key\n');
    const authorization = await runCli(['submit', listPath, '--server', t.base, '--key-file', keyFile], {});
    assert.equal(authorization.code, 3);
    assert.match(authorization.stderr, /^Authorization Error: /);

    const noKey = await runCli(['submit', listPath, '--server', t.base], {});
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /no API key: set LISTMATCH_API_KEY, or give --key-file PATH/);

    const joinZip = await runCli(
      ['submit', listPath, '--server', t.base, '--format', 'zip', '--join', join(dir, 'x.csv')],
      { LISTMATCH_API_KEY: key },
    );
    assert.equal(joinZip.code, 1);
    assert.match(joinZip.stderr, /--join reads a csv or gzip result/);
  });

  test('a result that failed: the job error is printed and the exit code is its kind', async () => {
    const empty = join(dir, 'no_identifiers.csv');
    await writeFile(empty, 'member,notes\nm1,x\n');
    const cli = await runCli(
      ['submit', empty, '--server', t.base, '--poll-interval', '0.1', '--no-progress'],
      {
        LISTMATCH_API_KEY: key,
      },
    );
    assert.equal(cli.code, 2, cli.stderr);
    assert.match(cli.stderr, /^Validation Error: /);
  });
});

describe('listmatch audience submit', () => {
  let t: TestService;
  let dir: string;

  before(async () => {
    t = await startTestService({
      POLITICALDSP_URL: 'http://127.0.0.1:9',
      POLITICALDSP_TOKEN: 'test-token',
      RATE_LIMIT_ONBOARDING_PER_MINUTE: '1',
    });
    dir = await mkdtemp(join(tmpdir(), 'listmatch-audience-'));
  });
  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('registers and uploads; a second registration within the minute is a rate limit (exit 4)', async () => {
    const { key } = await t.createKey();
    const ids = join(dir, 'ids.csv');
    await writeFile(ids, 'voterbase_id\nNC-000000001\nNC-000000003\n');
    const args = [
      'audience',
      'submit',
      ids,
      '--server',
      t.base,
      '--platform',
      'politicaldsp',
      '--audience',
      'gotv_2026',
      '--status-email',
      'ops@example.org',
    ];
    const first = await runCli(args, { LISTMATCH_API_KEY: key });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /gotv_2026: uploaded 0\.0 MB; the audience is being built/);
    const jobs = await t.running.services.jobStore.listJobs({ limit: 10 });
    assert.equal(jobs.filter((job) => job.kind === 'onboarding' && job.state !== 'registered').length, 1);
    const second = await runCli(args, { LISTMATCH_API_KEY: key });
    assert.equal(second.code, 4);
    assert.match(second.stderr, /^Rate Limit Error: /);
  });
});

describe('the typed client streams an upload with node:http', () => {
  let t: TestService;
  let client: ListmatchClient;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', MAX_UPLOAD_BYTES: '100000' });
    client = new ListmatchClient({ server: t.base, apiKey: (await t.createKey()).key });
  });
  after(async () => await t.stop());

  test('a stream is sent whole and counted; a refusal mid-stream is the service answer', async () => {
    const url = await client.registerSmartmatch({ filename: 'streamed' });
    const seen: number[] = [];
    const body = Buffer.from(LIST);
    await client.upload(url, Readable.from([body.subarray(0, 50), body.subarray(50)]), {
      bytes: body.length,
      onBytes: (sent) => seen.push(sent),
    });
    assert.deepEqual(seen, [50, body.length]);
    assert.equal((await client.poll('streamed')).status === 'registered', false);

    const big = await client.registerSmartmatch({ filename: 'too_big' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    await assert.rejects(
      client.upload(big, Readable.from(Array.from({ length: 40 }, () => chunk)), {
        bytes: 40 * chunk.length,
      }),
      (error: unknown) => {
        assert.ok(error instanceof ListmatchError);
        assert.equal(error.status, 413);
        assert.match(error.message, /^Validation Error: the upload exceeds the maximum of 100000 bytes/);
        return true;
      },
    );
  });
});
