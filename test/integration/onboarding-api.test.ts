import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getJson, startTestService, type TestService, upload } from '../support/test-service.ts';

const jobIdOf = (url: string) => /files\/(job_[^/]+)\//.exec(url)![1]!;

/** Both onboarding platforms connected (to addresses nobody answers: these tests stop at the queue). */
const PLATFORMS = {
  META_GRAPH_URL: 'http://127.0.0.1:9',
  META_AD_ACCOUNT_ID: 'act_1',
  META_API_VERSION: 'v24.0',
  META_ACCESS_TOKEN: 'test-token',
  POLITICALDSP_URL: 'http://127.0.0.1:9',
  POLITICALDSP_TOKEN: 'test-token',
};

describe('GET /service/onboarding', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService(PLATFORMS);
  });
  after(async () => await t.stop());

  test('social with social_adid: 200, upload stored, the audience build queued', async () => {
    const { key } = await t.createKey();
    const { status, body } = await getJson(
      `${t.base}/service/onboarding?platform=social&audience=gotv_2026&status_email=ops@example.org&social_adid=act_1234567890`,
      key,
    );
    assert.equal(status, 200);
    assert.equal(body['error'], null);
    const url = String(body['url']);
    assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200);
    const job = (await t.running.services.jobStore.getJob(jobIdOf(url)))!;
    assert.equal(job.kind, 'onboarding');
    assert.ok(job.uploadBlob !== null && job.uploadBytes === 'voterbase_id\nNC-000000001\n'.length);
    assert.deepEqual(job.params, {
      platform: 'social',
      audience: 'gotv_2026',
      statusEmail: 'ops@example.org',
      socialAdid: 'act_1234567890',
      ownerAdid: null,
    });
    assert.deepEqual((await t.running.services.queue.messagesForJob(job.id)).map((m) => m.type).sort(), [
      'onboard-audience',
      'send-notice',
    ]);
  });

  test('politicaldsp without social_adid is fine', async () => {
    const { key } = await t.createKey();
    const { status } = await getJson(
      `${t.base}/service/onboarding?platform=politicaldsp&audience=a&status_email=a@b.co`,
      key,
    );
    assert.equal(status, 200);
  });

  test('one request per minute per key: the second is 429 Rate Limit Error', async () => {
    const { key } = await t.createKey();
    const query = 'platform=politicaldsp&audience=a&status_email=a@b.co';
    assert.equal((await getJson(`${t.base}/service/onboarding?${query}`, key)).status, 200);
    const second = await getJson(`${t.base}/service/onboarding?${query}`, key);
    assert.equal(second.status, 429);
    assert.match(
      String(second.body['error']),
      /^Rate Limit Error: at most 1 onboarding request\(s\) per minute per key; retry in (59|60) s/,
    );
    assert.equal(second.body['url'], null);
  });

  test('validation: platform, audience, status_email, social_adid, owner_adid rules', async () => {
    const cases: [string, RegExp][] = [
      ['audience=a&status_email=a@b.co', /platform is required/],
      ['platform=tv&audience=a&status_email=a@b.co', /platform must be social or politicaldsp/],
      ['platform=politicaldsp&status_email=a@b.co', /audience is required/],
      [
        `platform=politicaldsp&audience=${'a'.repeat(51)}&status_email=a@b.co`,
        /audience must be 1-50 letters, digits or underscores/,
      ],
      ['platform=politicaldsp&audience=bad-name&status_email=a@b.co', /audience must be 1-50/],
      ['platform=politicaldsp&audience=a&status_email=nope', /status_email must be a valid e-mail address/],
      ['platform=social&audience=a&status_email=a@b.co', /social_adid is required when platform is social/],
      [
        'platform=social&audience=a&status_email=a@b.co&social_adid=abc',
        /social_adid must be an ad account id/,
      ],
      [
        'platform=politicaldsp&audience=a&status_email=a@b.co&owner_adid=123',
        /owner_adid applies only to platform social/,
      ],
    ];
    for (const [query, pattern] of cases) {
      // A fresh key per case: the 1-per-minute limit counts every authenticated request.
      const { key } = await t.createKey();
      const { status, body } = await getJson(`${t.base}/service/onboarding?${query}`, key);
      // 200 with the error set: the Python connector raises on any 4xx before reading `error`.
      assert.equal(status, 200, query);
      assert.equal(body['url'], null, query);
      assert.match(String(body['error']), /^Validation Error: /, query);
      assert.match(String(body['error']), pattern, query);
    }
  });

  test('owner_adid only for keys approved for direct upload; onboarding right required', async () => {
    const query = 'platform=social&audience=a&status_email=a@b.co&social_adid=1&owner_adid=act_2';
    const plain = await t.createKey();
    const refused = await getJson(`${t.base}/service/onboarding?${query}`, plain.key);
    assert.equal(refused.status, 200);
    assert.equal(refused.body['url'], null);
    assert.match(
      String(refused.body['error']),
      /^Authorization Error: owner_adid requires approval for direct upload/,
    );
    const approved = await t.createKey({ entitlements: { directUpload: true } });
    assert.equal((await getJson(`${t.base}/service/onboarding?${query}`, approved.key)).status, 200);
    const noOnboarding = await t.createKey({ entitlements: { onboarding: false } });
    const forbidden = await getJson(`${t.base}/service/onboarding?${query}`, noOnboarding.key);
    assert.equal(forbidden.status, 200);
    assert.match(String(forbidden.body['error']), /not enabled for audience onboarding/);
    assert.equal((await getJson(`${t.base}/service/onboarding?${query}`)).status, 401);
  });
});

describe('onboarding to a platform the operator has not connected', () => {
  let t: TestService;
  before(async () => {
    // Only the political DSP is connected: no Meta ad account.
    t = await startTestService({
      POLITICALDSP_URL: PLATFORMS.POLITICALDSP_URL,
      POLITICALDSP_TOKEN: 'test-token',
    });
  });
  after(async () => await t.stop());

  test('is refused at registration with an Authorization Error (200, no URL), nothing registered', async () => {
    const { key, id } = await t.createKey();
    const { status, body } = await getJson(
      `${t.base}/service/onboarding?platform=social&audience=a&status_email=a@b.co&social_adid=act_1`,
      key,
    );
    assert.equal(status, 200);
    assert.equal(body['url'], null);
    assert.match(
      String(body['error']),
      /^Authorization Error: the social platform is not available on this service \(platform=social\)/,
    );
    assert.deepEqual(await t.running.services.jobStore.listJobs({ keyId: id, limit: 10 }), []);
    const other = await t.createKey();
    const dsp = await getJson(
      `${t.base}/service/onboarding?platform=politicaldsp&audience=a&status_email=a@b.co`,
      other.key,
    );
    assert.equal(dsp.status, 200);
    assert.equal(dsp.body['error'], null);
  });

  test('mbp_onboarding without a media buying platform is refused at list-matching registration', async () => {
    const { key } = await t.createKey();
    const { status, body } = await getJson(
      `${t.base}/service/smartmatch?filename=mbp&mbp_onboarding=true&digital_audience_name=spring`,
      key,
    );
    assert.equal(status, 200);
    assert.equal(body['url'], null);
    assert.match(
      String(body['error']),
      /^Authorization Error: the media buying platform is not available on this service \(mbp_onboarding\)/,
    );
  });
});

describe('operations endpoints', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({}, { voters: false });
  });
  after(async () => await t.stop());

  test('/healthz, /readyz (reports the voter file), /metrics, /openapi.json', async () => {
    assert.deepEqual((await getJson(`${t.base}/healthz`)).body, { status: 'ok' });
    const ready = await getJson(`${t.base}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body['checks'], {
      database: true,
      storage: true,
      voter_file: null,
      delivery: true,
    });
    const metrics = await (await fetch(`${t.base}/metrics`)).text();
    assert.match(metrics, /listmatch_http_requests_total\{route="\/readyz",method="GET",status="200"\} 1/);
    assert.match(metrics, /listmatch_queue_messages\{state="ready"\} 0/);
    const openapi = (await getJson(`${t.base}/openapi.json`)).body as {
      openapi: string;
      paths: Record<
        string,
        { get?: { parameters: { name: string; required: boolean; schema: { maxLength?: number } }[] } }
      >;
    };
    assert.equal(openapi.openapi, '3.1.0');
    const params = openapi.paths['/service/smartmatch']!.get!.parameters;
    const filename = params.find((p) => p.name === 'filename')!;
    assert.equal(filename.required, true);
    assert.equal(filename.schema.maxLength, 45);
    assert.deepEqual(params.map((p) => p.name).sort(), [
      'digital_audience_name',
      'filename',
      'format',
      'include_email',
      'include_landline',
      'include_voip',
      'include_wireless',
      'max_matches',
      'mbp_onboarding',
      'notification_email',
      'profile_id',
      'search_radius',
      'webhook',
    ]);
    assert.ok(openapi.paths['/service/onboarding']!.get!.parameters.some((p) => p.name === 'social_adid'));
  });

  test('a job uploaded before any voter file is imported waits and retries; the service stays up', async () => {
    const { key } = await t.createKey();
    const { body } = await getJson(`${t.base}/service/smartmatch?filename=no_voters`, key);
    assert.equal((await upload(String(body['url']), 'voterbase_id\nX-1\n')).status, 200);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await fetch(`${t.base}/healthz`)).status, 200);
    const poll = await getJson(`${t.base}/service/smartmatch/poll?filename=no_voters`, key);
    assert.equal(poll.body['error'], null);
    assert.ok(['uploaded', 'processing'].includes(String(poll.body['status'])));
    assert.equal(
      (await t.running.services.queue.stats()).ready + (await t.running.services.queue.stats()).running,
      1,
      'kept for a retry',
    );
  });
});
