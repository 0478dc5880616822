import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';
import { readZip } from '../support/zip.ts';

const LIST = [
  'matchback_id,First_Name,LAST_NAME,voter_id,State,notes',
  '1,Peggy,Smith,123456,nc,first',
  'abc-007,Jose,Munoz,777,NC,"has, comma"',
  '3,Nobody,Here,999999,NC,=cmd()',
  '=1+1,Mary,OBrien,000123456,OH,"two\nlines"',
].join('\r\n');

describe('list matching over real HTTP', () => {
  let t: TestService;
  let key: string;
  let otherKey: string;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
    otherKey = (await t.createKey({ name: 'another client' })).key;
  });
  after(async () => await t.stop());

  test('register → PUT → poll → download (csv): every input row and column back, matched fields appended', async () => {
    const url = await register(t, key, 'filename=walk_csv&include_email=True');
    assert.match(url, new RegExp(`^${t.base}/files/job_[0-9A-Z]+/upload\\.csv\\?`));
    const put = await upload(url, LIST);
    assert.equal(put.status, 200);
    assert.equal(put.text, '');
    const result = await waitForResult(t, key, 'walk_csv');
    assert.equal(result.error, null);
    assert.equal(result.status, 'complete');
    const response = await fetch(result.url);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(response.headers.get('content-encoding'), null);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.notDeepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'no BOM');
    const lines = bytes.toString('utf8').trimEnd().split('\n');
    assert.equal(
      lines[0],
      'matchback_id,First_Name,LAST_NAME,voter_id,State,notes,ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id,vb.party,vb.email,sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain',
    );
    assert.equal(
      lines[1],
      '1,Peggy,Smith,123456,nc,first,1,1,Y,NC-000000001,DEM,peggy.smith@example.com,1,1,Y,100,voter_id,voter_id=exact first=nickname last=exact state=exact',
    );
    assert.equal(
      lines[2],
      'abc-007,Jose,Munoz,777,NC,"has, comma",2,2,Y,NC-000000003,UNA,jose.munoz@example.com,2,1,Y,100,voter_id,voter_id=exact first=exact last=exact state=exact',
    );
    // Every cell of the client's columns comes back byte for byte (formula-like ones counted in
    // the summary); the embedded newline became a space.
    assert.equal(lines[3], '3,Nobody,Here,999999,NC,=cmd(),3,3,N,,,,3,,N,,,,');
    assert.equal(
      lines[4],
      '=1+1,Mary,OBrien,000123456,OH,two lines,4,4,Y,OH-000000004,REP,,4,1,Y,100,voter_id,voter_id=exact first=exact last=exact state=exact',
    );
    assert.equal(lines.length, 5);
  });

  test('names and addresses match probabilistically, explained; a profile threshold above the score refuses them', async () => {
    const list = [
      'matchback_id,first_name,last_name,address1,zip',
      'a,Peggy,Smith,12 Oak Street,27601',
      'b,Jose,Munoz,400 North Elm Ave Apt 4B,27701',
      'c,Nobody,Known,1 Nowhere Rd,27601',
    ].join('\n');
    const read = async (apiKey: string, filename: string) => {
      await upload(await register(t, apiKey, `filename=${filename}`), list);
      const result = await waitForResult(t, apiKey, filename);
      assert.equal(result.error, null);
      return (await (await fetch(result.url)).text()).trimEnd().split('\n').slice(1);
    };
    const lines = await read(key, 'names_default');
    assert.equal(lines.length, 3);
    const [peggy, jose, nobody] = lines.map((l) => l.split(','));
    // matchback_id,…,zip,ts__input_row,ts__row,tsmart_match_code,vb.voterbase_id,vb.party,
    // sm.input_row,sm.rank,sm.match,sm.score,sm.method,sm.explain
    assert.deepEqual([peggy![7], peggy![14], peggy![8]], ['Y', 'name_address', 'NC-000000001']);
    assert.match(peggy![15]!, /^first=nickname last=exact .*address=exact zip=exact$/);
    assert.ok(Number(peggy![13]) >= 90, `score ${peggy![13]}`);
    assert.deepEqual([jose![7], jose![8]], ['Y', 'NC-000000003']);
    assert.equal(nobody![7], 'N');

    const strict = await t.createKey({ name: 'strict client' });
    await t.running.services.keys.setProfile(strict.id, 'default', { matchThreshold: 100 });
    const refused = await read(strict.key, 'names_strict');
    assert.deepEqual(
      refused.map((l) => l.split(',')[7]),
      ['N', 'N', 'N'],
      'no probabilistic score reaches 100',
    );
  });

  test('filenames ending in a dot complete and download under a clean name', async () => {
    const url = await register(t, key, 'filename=list.');
    assert.equal((await upload(url, LIST)).status, 200);
    const result = await waitForResult(t, key, 'list.');
    assert.equal(result.error, null);
    assert.match(result.url, /\/list\.csv\?/);
    const response = await fetch(result.url);
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="list.csv"');
  });

  test('gzip is served as the gzip file itself, without Content-Encoding', async () => {
    const url = await register(t, key, 'filename=walk_gzip&format=gzip');
    assert.equal((await upload(url, LIST)).status, 200);
    const result = await waitForResult(t, key, 'walk_gzip');
    assert.match(result.url, /walk_gzip\.csv\.gz\?/);
    const response = await fetch(result.url);
    assert.equal(response.headers.get('content-encoding'), null);
    assert.equal(response.headers.get('content-type'), 'application/gzip');
    const csv = gunzipSync(Buffer.from(await response.arrayBuffer())).toString('utf8');
    assert.equal(csv.trimEnd().split('\n').length, 5);
  });

  test('zip holds the CSV and summary.json with counts by method', async () => {
    const url = await register(t, key, 'filename=tmc_1a2b3c4d-5.csv&format=zip');
    assert.equal((await upload(url, LIST)).status, 200);
    const result = await waitForResult(t, key, 'tmc_1a2b3c4d-5.csv');
    const response = await fetch(result.url);
    assert.equal(response.headers.get('content-type'), 'application/zip');
    const entries = await readZip(Buffer.from(await response.arrayBuffer()));
    assert.deepEqual([...entries.keys()].sort(), ['summary.html', 'summary.json', 'tmc_1a2b3c4d-5.csv']);
    const summary = JSON.parse(entries.get('summary.json')!.toString('utf8'));
    assert.equal(summary.rows, 4);
    assert.equal(summary.matchedRows, 3);
    assert.deepEqual(summary.matchesByMethod, { voter_id: 3 });
    assert.deepEqual(summary.unmatchedReasons, { id_not_found: 1 });
    assert.equal(entries.get('tmc_1a2b3c4d-5.csv')!.toString('utf8').trimEnd().split('\n').length, 5);
  });

  test('max_matches gives ranks 1..k for ids that point at several people', async () => {
    // voterbase_id finds one person, smartvan_id+state another: both come back, ranked.
    const url = await register(t, key, 'filename=ranks&max_matches=3');
    await upload(url, 'voterbase_id,smartvan_id,state\nNC-000000001,9002,NC\n');
    const csv = await (await fetch((await waitForResult(t, key, 'ranks')).url)).text();
    const rows = csv.trimEnd().split('\n').slice(1);
    assert.deepEqual(
      rows.map((r) => r.split(',').slice(3).join(',')),
      [
        '1,1,Y,NC-000000001,DEM,1,1,Y,100,voterbase_id,voterbase_id=exact state=exact',
        '1,2,Y,NC-000000002,REP,1,2,Y,100,smartvan_id,smartvan_id=exact state=exact',
      ],
    );
  });

  test('poll answers before upload, right after upload, and the same ready URL on later polls', async () => {
    const url = await register(t, key, 'filename=poll_states');
    const before = await getJson(`${t.base}/service/smartmatch/poll?filename=poll_states`, key);
    assert.equal(before.status, 200);
    assert.deepEqual([before.body['url'], before.body['error']], ['', null]);
    await upload(url, LIST);
    const immediately = await getJson(`${t.base}/service/smartmatch/poll?filename=poll_states`, key);
    assert.equal(immediately.status, 200);
    assert.equal(immediately.body['error'], null);
    const ready = await waitForResult(t, key, 'poll_states');
    const again = await getJson(`${t.base}/service/smartmatch/poll?filename=poll_states`, key);
    assert.equal(again.body['url'], ready.url);
  });

  test("another client's filename and an unknown filename: 200 with a Validation Error (clients.md 7)", async () => {
    await register(t, key, 'filename=private_list');
    for (const [who, name] of [
      [otherKey, 'private_list'],
      [key, 'never_registered'],
    ] as const) {
      const { status, body } = await getJson(`${t.base}/service/smartmatch/poll?filename=${name}`, who);
      // 200: the Python connector polls on forever after any non-2xx, without reading the error.
      assert.equal(status, 200);
      assert.equal(body['url'], null);
      assert.match(String(body['error']), /^Validation Error: no list-matching job named/);
    }
  });

  test('registering a filename again before its upload: the later job replaces it, poll follows it', async () => {
    const first = await register(t, key, 'filename=again');
    const second = await register(t, key, 'filename=again&format=gzip');
    assert.notEqual(first, second);
    const refused = await upload(first, LIST);
    assert.equal(refused.status, 403);
    assert.match(refused.text, /Authorization Error: this upload URL was replaced by a later registration/);
    const poll = await getJson(`${t.base}/service/smartmatch/poll?filename=again`, key);
    assert.deepEqual(
      [poll.body['url'], poll.body['status']],
      ['', 'registered'],
      'poll follows the newest job',
    );
    assert.equal((await upload(second, LIST)).status, 200);
    assert.match((await waitForResult(t, key, 'again')).url, /again\.csv\.gz/);
  });

  test('the JSON-body client variant registers with filename and webhook from the body', async () => {
    const response = await getJson(`${t.base}/service/smartmatch`, key, {
      method: 'GET',
      headers: { 'content-type': 'application/json', 'content-length': '0' },
    });
    assert.equal(response.status, 200);
    assert.equal(response.body['url'], null);
    assert.match(String(response.body['error']), /^Validation Error: filename is required/);
    // fetch refuses GET bodies, so send one with node:http as that client does.
    const { request } = await import('node:http');
    const body = JSON.stringify({
      filename: 'json_body',
      webhook: 'https://example.org/hook',
      max_matches: 2,
    });
    const answer = await new Promise<{ status: number; json: Record<string, unknown> }>((resolve, reject) => {
      const req = request(`${t.base}/service/smartmatch`, {
        method: 'GET',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('response', async (res) => {
        let text = '';
        for await (const chunk of res) text += chunk;
        resolve({ status: res.statusCode!, json: JSON.parse(text) });
      });
      req.on('error', reject);
      req.end(body);
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.json['error'], null);
    assert.match(String(answer.json['url']), /\/files\/job_/);
  });

  test('booleans in every client spelling, unknown parameters ignored, header case ignored', async () => {
    for (const [i, value] of ['True', 'False', 'true', 'false', '1', '0'].entries()) {
      const { status, body } = await getJson(
        `${t.base}/service/smartmatch?filename=bools_${i}&include_email=${value}&mbp_onboarding=false&utm_source=x`,
        undefined,
        { headers: { 'X-API-KEY': key } },
      );
      assert.equal(status, 200, `${value}: ${JSON.stringify(body)}`);
      assert.equal(body['error'], null);
    }
  });

  test('validation errors name the rule, with status 200 (clients.md 7) and both keys', async () => {
    const cases: [string, RegExp][] = [
      ['', /filename is required/],
      ['filename=a/b', /filename may hold only/],
      ['filename=..hidden', /filename/],
      ['filename=has%20space', /filename may hold only/],
      [`filename=${'x'.repeat(46)}`, /at most 45 characters/],
      ['filename=ok&max_matches=11', /max_matches must be an integer from 1 to 10/],
      ['filename=ok&max_matches=0', /max_matches must be an integer from 1 to 10/],
      ['filename=ok&include_email=yes', /include_email must be true or false/],
      ['filename=ok&format=xlsx', /format must be one of csv, zip, gzip/],
      ['filename=ok&search_radius=-1', /search_radius must be a positive number/],
      ['filename=ok&webhook=ftp://x', /webhook must be a valid http or https URL/],
      ['filename=ok&notification_email=nope', /notification_email must be a valid e-mail address/],
      ['filename=ok&mbp_onboarding=True', /digital_audience_name is required when mbp_onboarding is true/],
      [
        `filename=ok&mbp_onboarding=1&digital_audience_name=${'a'.repeat(36)}`,
        /digital_audience_name must be 1-35/,
      ],
      ['filename=ok&profile_id=nope', /profile_id "nope" is not a profile of this API key/],
      ['filename=ok&filename=twice', /filename must be given once/],
    ];
    for (const [query, pattern] of cases) {
      const { status, body } = await getJson(`${t.base}/service/smartmatch?${query}`, key);
      assert.equal(status, 200, query);
      assert.equal(body['url'], null, query);
      assert.match(String(body['error']), /^Validation Error: /, query);
      assert.match(String(body['error']), pattern, query);
    }
  });

  test('include_* without entitlement is refused naming the flag', async () => {
    const { key: plainKey, id } = await t.createKey({ name: 'no contact' });
    await t.running.services.keys.setProfile(id, 'default', { contactFields: ['email'] });
    const { status, body } = await getJson(
      `${t.base}/service/smartmatch?filename=ok&include_email=1&include_wireless=1&include_voip=true`,
      plainKey,
    );
    assert.equal(status, 200);
    assert.equal(body['url'], null);
    assert.match(String(body['error']), /include_wireless, include_voip are not enabled/);
  });

  test('keys: missing, unknown, malformed and revoked → 401; without the right → 200 with an Authorization Error', async () => {
    const revoked = await t.createKey({ name: 'to revoke' });
    await t.running.services.keys.revoke(revoked.id);
    const noMatching = await t.createKey({ name: 'onboarding only', entitlements: { listMatching: false } });
    const cases: [string | undefined, number, RegExp][] = [
      [undefined, 401, /missing x-api-key/],
      ['', 401, /missing x-api-key/],
      ['lm_unknownunknownunknownunknownunknownunknown1', 401, /invalid API key/],
      ['not-a-key', 401, /malformed API key/],
      [revoked.key, 401, /revoked/],
      // A valid key's refusal is 200 with the error set: the Python connector raises on any 4xx
      // before it reads `error` (clients.md 7).
      [noMatching.key, 200, /not enabled for list matching/],
    ];
    for (const [presented, status, pattern] of cases) {
      for (const path of ['/service/smartmatch?filename=x', '/service/smartmatch/poll?filename=x']) {
        if (status === 200 && path.includes('poll')) continue;
        const response = await getJson(`${t.base}${path}`, presented);
        assert.equal(response.status, status, `${path} ${presented}`);
        assert.equal(response.body['url'], null);
        assert.match(String(response.body['error']), /^Authorization Error: /);
        assert.match(String(response.body['error']), pattern);
      }
    }
  });

  test('unknown routes and methods answer JSON (404, 405 with Allow)', async () => {
    const missing = await getJson(`${t.base}/service/nothing`, key);
    assert.equal(missing.status, 404);
    assert.match(String(missing.body['error']), /^Validation Error: no endpoint GET \/service\/nothing/);
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const wrong = await getJson(`${t.base}/service/smartmatch?filename=x`, key, { method });
      assert.equal(wrong.status, 405, method);
      assert.equal(wrong.headers.get('allow'), 'GET');
      assert.match(String(wrong.body['error']), /^Validation Error: method .* is not allowed here; use GET/);
    }
  });

  test('every response carries a request id', async () => {
    const ok = await fetch(`${t.base}/healthz`);
    assert.match(ok.headers.get('x-request-id') ?? '', /^req_/);
    const bad = await getJson(`${t.base}/service/smartmatch`, 'nope');
    assert.equal(bad.body['request_id'], bad.headers.get('x-request-id'));
  });
});

describe('rate limits', () => {
  let t: TestService;
  let key: string;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_REGISTER_PER_MINUTE: '3' });
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  test('registration: the configured number per minute, then 429 with Retry-After', async () => {
    for (let i = 0; i < 3; i++)
      assert.equal((await getJson(`${t.base}/service/smartmatch?filename=r${i}`, key)).status, 200);
    const limited = await getJson(`${t.base}/service/smartmatch?filename=r4`, key);
    assert.equal(limited.status, 429);
    assert.equal(limited.body['url'], null);
    assert.match(
      String(limited.body['error']),
      /^Rate Limit Error: at most 3 registrations per minute per key; retry in \d+ s/,
    );
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    // Another key has its own budget.
    assert.equal(
      (await getJson(`${t.base}/service/smartmatch?filename=r5`, (await t.createKey()).key)).status,
      200,
    );
  });

  test('poll: once per 30 s per key and filename; a fast poller never fails the job', async () => {
    const { key: pollKey } = await t.createKey();
    const url = await register(t, pollKey, 'filename=fast_poller');
    assert.equal(
      (await getJson(`${t.base}/service/smartmatch/poll?filename=fast_poller`, pollKey)).status,
      200,
    );
    await upload(url, 'voterbase_id\nNC-000000001\n');
    const second = await getJson(`${t.base}/service/smartmatch/poll?filename=fast_poller`, pollKey);
    assert.equal(second.status, 429);
    assert.match(
      String(second.body['error']),
      /^Rate Limit Error: poll each filename at most once every 30 seconds; retry in (2[89]|30) s/,
    );
    assert.equal(
      second.headers.get('retry-after'),
      /retry in (\d+) s/.exec(String(second.body['error']))![1],
    );
    // Other filenames of the same key are polled independently.
    await register(t, pollKey, 'filename=other_file');
    assert.equal(
      (await getJson(`${t.base}/service/smartmatch/poll?filename=other_file`, pollKey)).status,
      200,
    );
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    await until(
      async () => (await t.running.services.jobStore.getJob(jobId))?.state === 'complete',
      'job complete',
    );
  });
});

describe('HEAD and malformed URLs', () => {
  let t: TestService;
  let key: string;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  test('HEAD on the API registers nothing (405); HEAD on a result URL answers its headers', async () => {
    const head = await fetch(`${t.base}/service/smartmatch?filename=head_job`, {
      method: 'HEAD',
      headers: { 'x-api-key': key },
    });
    assert.equal(head.status, 405);
    assert.equal((await t.running.services.jobStore.listJobs({ limit: 10 })).length, 0);
    const url = await register(t, key, 'filename=head_result');
    await upload(url, 'voterbase_id\nNC-000000001\n');
    const result = await waitForResult(t, key, 'head_result');
    const size = (await (await fetch(result.url)).arrayBuffer()).byteLength;
    const resultHead = await fetch(result.url, { method: 'HEAD' });
    assert.equal(resultHead.status, 200);
    assert.equal(resultHead.headers.get('content-length'), String(size));
    assert.equal(await resultHead.text(), '');
  });

  test('a malformed URL gets the JSON error shape with a request id', async () => {
    const bad = await getJson(`${t.base}/files/%zz/x`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body['url'], null);
    assert.match(String(bad.body['error']), /^Validation Error: /);
    assert.match(bad.headers.get('x-request-id') ?? '', /^req_/);
  });
});
