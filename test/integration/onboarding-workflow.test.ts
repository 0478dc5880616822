import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import type { Job } from '../../src/domain/client-jobs/job-types.ts';
import { type FakeMetaGraph, startFakeMetaGraph } from '../support/fake-meta-graph.ts';
import { MbpServer } from '../support/mbp-server.ts';
import { PoliticalDspServer } from '../support/politicaldsp-server.ts';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const jobIdOf = (url: string) => /files\/(job_[^/]+)\//.exec(url)![1]!;
const OPERATOR_ACCOUNT = '1111111111';
const CLIENT_ACCOUNT = '2222222222';
/** voter ids of test/fixtures/voters-small.csv (the test service imports it). */
const KNOWN = ['NC-000000001', 'NC-000000002', 'NC-000000003'];

async function onboard(t: TestService, key: string, query: string, csv: string): Promise<string> {
  const { status, body } = await getJson(`${t.base}/service/onboarding?${query}`, key);
  assert.equal(status, 200, JSON.stringify(body));
  const url = String(body['url']);
  assert.equal((await upload(url, csv)).status, 200);
  return jobIdOf(url);
}

async function finished(t: TestService, jobId: string): Promise<Job> {
  await until(
    async () => {
      const state = (await t.running.services.jobStore.getJob(jobId))?.state;
      return state === 'complete' || state === 'failed';
    },
    `job ${jobId} to finish`,
    20_000,
  );
  return (await t.running.services.jobStore.getJob(jobId))!;
}

/** The status e-mails of a job in the outbox (MAIL=outbox), by notice kind. */
async function notices(t: TestService, jobId: string, expected: string[]): Promise<Map<string, string>> {
  const outbox = join(t.dataDir, 'outbox');
  const name = (kind: string) => `${jobId}.${kind}.eml`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const files = await readdir(outbox).catch(() => [] as string[]);
    if (expected.every((kind) => files.includes(name(kind)))) break;
    if (Date.now() > deadline)
      throw new Error(`notices ${expected.join(', ')} not all sent: ${files.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const texts = new Map<string, string>();
  // Subject and plain-text body, decoded (quoted-printable wraps long lines).
  for (const kind of expected) {
    const parsed = await simpleParser(await readFile(join(outbox, name(kind))));
    texts.set(kind, `${parsed.subject ?? ''}\n${parsed.text ?? ''}`);
  }
  return texts;
}

describe('audience onboarding on the social platform (local Graph API server)', () => {
  let meta: FakeMetaGraph;
  let t: TestService;
  before(async () => {
    meta = await startFakeMetaGraph({
      adAccounts: [OPERATOR_ACCOUNT, CLIENT_ACCOUNT, '3333333333'],
      termsNotAccepted: ['3333333333'],
    });
    t = await startTestService({
      META_GRAPH_URL: meta.url,
      META_API_VERSION: meta.version,
      META_AD_ACCOUNT_ID: `act_${OPERATOR_ACCOUNT}`,
      META_ACCESS_TOKEN: meta.token,
      ONBOARDING_RETRY_BASE_SECONDS: '0.05',
      ONBOARDING_CHECK_SECONDS: '0.05',
    });
  });
  after(async () => {
    await t.stop();
    await meta.close();
  });

  test('Pattern #1: ids become a partner-provided audience in the operator account, shared, ready; status e-mails', async () => {
    const { key } = await t.createKey();
    const csv = `voterbase_id\n${KNOWN.join('\n')}\nNC-999999999\n??\n`;
    const jobId = await onboard(
      t,
      key,
      `platform=social&audience=gotv_2026&status_email=ops@client.example&social_adid=act_${CLIENT_ACCOUNT}`,
      csv,
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'complete', String(job.error));
    const audiences = [...meta.audiences.values()].filter((a) => a.name === 'gotv_2026');
    assert.equal(audiences.length, 1);
    const audience = audiences[0]!;
    assert.equal(audience.adAccountId, OPERATOR_ACCOUNT);
    assert.equal(audience.customerFileSource, 'PARTNER_PROVIDED_ONLY');
    assert.equal(audience.members.size, KNOWN.length);
    assert.deepEqual([...audience.sharedWith], [CLIENT_ACCOUNT]);
    const mail = await notices(t, jobId, ['received', 'uploaded', 'shared', 'ready']);
    assert.match(mail.get('uploaded')!, /Rows in the file:\s+5/);
    // NC-999999999 and ?? are well-formed ids (voterbase ids are free text) that the file lacks.
    assert.match(mail.get('uploaded')!, /Ids not in the voter file:\s+2/);
    assert.match(mail.get('uploaded')!, /Rows sent to the platform:\s+3/);
    assert.match(mail.get('ready')!, /is ready to use/);
    for (const text of mail.values()) assert.ok(!text.includes('NC-000000001'), 'no voter id in an e-mail');
    // The token went only in the Authorization header, never in a URL.
    for (const request of meta.requests) assert.ok(!request.url.includes(meta.token));
  });

  test("Pattern #2: the client's identifiers become a user-provided audience in owner_adid, shared with social_adid", async () => {
    const { key } = await t.createKey({ entitlements: { directUpload: true } });
    const csv =
      "email,PHONE,Fn,LN,zip\nJohn_Smith@gmail.com,(650)555-1212,Mary,O'Brien,94035\n,,,,\n" +
      `${'a'.repeat(64)},,,,\n`;
    const jobId = await onboard(
      t,
      key,
      `platform=social&audience=own_list&status_email=ops@client.example&social_adid=act_${OPERATOR_ACCOUNT}&owner_adid=act_${CLIENT_ACCOUNT}`,
      csv,
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'failed', 'a column mixing hashed and plain e-mails is refused');
    assert.match(String(job.error), /EMAIL mixes SHA-256 hashed and plain values/);

    // One onboarding per key per minute: a second key (the same client could wait a minute).
    const second = (await t.createKey({ entitlements: { directUpload: true } })).key;
    const clean = await onboard(
      t,
      second,
      `platform=social&audience=own_list_2&status_email=ops@client.example&social_adid=act_${OPERATOR_ACCOUNT}&owner_adid=act_${CLIENT_ACCOUNT}`,
      "email,PHONE,Fn,LN,zip\nJohn_Smith@gmail.com,(650)555-1212,Mary,O'Brien,94035\nperson@example.com,,,,\n",
    );
    assert.equal((await finished(t, clean)).state, 'complete');
    const audience = [...meta.audiences.values()].find((a) => a.name === 'own_list_2')!;
    assert.equal(audience.adAccountId, CLIENT_ACCOUNT);
    assert.equal(audience.customerFileSource, 'USER_PROVIDED_ONLY');
    assert.equal(audience.members.size, 2);
    assert.deepEqual([...audience.sharedWith], [OPERATOR_ACCOUNT]);
  });

  test('a platform that is down mid-upload: the job retries and goes on from the last confirmed batch', async () => {
    const { key } = await t.createKey();
    // Three 503s on the add-users call: the adapter's own retries (1 s, 5 s) give up, the job is
    // retried by the queue, and the batch goes again under the same batch_seq.
    meta.inject({ on: 'users', times: 3, status: 503, rawBody: '<html>Service Unavailable</html>' });
    const jobId = await onboard(
      t,
      key,
      `platform=social&audience=outage&status_email=ops@client.example&social_adid=act_${CLIENT_ACCOUNT}`,
      `voterbase_id\n${KNOWN.join('\n')}\n`,
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'complete', String(job.error));
    const audience = [...meta.audiences.values()].find((a) => a.name === 'outage')!;
    assert.equal(audience.members.size, KNOWN.length);
    // An attempt that made progress (staged, created) before failing is retried as a fresh message.
    const attempts = (await t.running.services.queue.messagesForJob(jobId))
      .filter((m) => m.type === 'onboard-audience')
      .reduce((sum, m) => sum + m.attempts, 0);
    assert.ok(attempts >= 2, 'the job was retried');
    await notices(t, jobId, ['received', 'uploaded', 'shared', 'ready']);
  });

  test('a platform refusal (custom audience terms not accepted, 2655) fails the job saying why', async () => {
    const { key } = await t.createKey({ entitlements: { directUpload: true } });
    const jobId = await onboard(
      t,
      key,
      `platform=social&audience=refused&status_email=ops@client.example&social_adid=act_${CLIENT_ACCOUNT}&owner_adid=act_3333333333`,
      'EMAIL,FN\nJohn_Smith@gmail.com,Mary\n',
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'failed');
    assert.match(String(job.error), /^Platform Error: .*terms/i);
    const mail = await notices(t, jobId, ['received', 'failed']);
    assert.match(mail.get('failed')!, /could not be built/);
  });

  test('a file of the wrong shape fails with a Validation Error and a failed notice; nothing reaches the platform', async () => {
    const { key } = await t.createKey();
    const before = meta.audiences.size;
    const jobId = await onboard(
      t,
      key,
      `platform=social&audience=wrong&status_email=ops@client.example&social_adid=act_${CLIENT_ACCOUNT}`,
      'EMAIL\nperson@example.com\n',
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'failed');
    assert.match(String(job.error), /^Validation Error: the header must be the single column voterbase_id/);
    await notices(t, jobId, ['received', 'failed']);
    assert.equal(meta.audiences.size, before);
  });
});

describe('audience onboarding on the political DSP (local file-drop server)', () => {
  let dsp: PoliticalDspServer;
  let t: TestService;
  before(async () => {
    dsp = new PoliticalDspServer({ token: 'pdsp-test-token', processingMs: 10 });
    await dsp.start();
    t = await startTestService({
      POLITICALDSP_URL: dsp.url,
      POLITICALDSP_TOKEN: 'pdsp-test-token',
      ONBOARDING_RETRY_BASE_SECONDS: '0.05',
    });
  });
  after(async () => {
    await t.stop();
    await dsp.stop();
  });

  test('Pattern #1: a hashed CSV in the platform columns is uploaded; the job waits for the platform e-mail', async () => {
    const { key } = await t.createKey();
    const jobId = await onboard(
      t,
      key,
      'platform=politicaldsp&audience=dsp_aud&status_email=ops@client.example',
      `voterbase_id\n${KNOWN.join('\n')}\n`,
    );
    const job = await finished(t, jobId);
    assert.equal(job.state, 'complete', String(job.error));
    const segment = [...dsp.segments.values()].find((s) => s.name === 'dsp_aud')!;
    await until(
      () => segment.state !== 'processing' && segment.state !== 'awaiting_file',
      'the platform to process',
    );
    assert.equal(segment.state, 'ready', String(segment.failureReason));
    assert.equal(segment.rowCount, KNOWN.length);
    assert.ok(segment.header!.includes('email_sha256'));
    for (const row of segment.rows) for (const cell of row) assert.match(cell, /^(|[0-9a-f]{64})$/);
    const mail = await notices(t, jobId, ['received', 'uploaded', 'awaiting']);
    assert.match(mail.get('awaiting')!, /e-mails you itself/);

    // The platform told the client it is ready; the operator relays it, once.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [join(ROOT, 'bin', 'listmatch.js'), ...args], {
        env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      });
    const marked = cli('audiences', 'mark-ready', jobId);
    assert.equal(marked.status, 0, marked.stderr);
    const ready = await notices(t, jobId, ['ready']);
    assert.match(ready.get('ready')!, /is ready to use on the political DSP/);
    const again = cli('audiences', 'mark-ready', jobId);
    assert.notEqual(again.status, 0);
    assert.match(again.stderr, /is ready, not awaiting/);
  });
});

describe('a media-buying audience from a list-matching job (mbp_onboarding, local platform)', () => {
  let mbp: MbpServer;
  let t: TestService;
  before(async () => {
    mbp = new MbpServer({ token: 'mbp-test-key', pollsUntilReady: 1 });
    await mbp.start();
    t = await startTestService({
      MBP_URL: mbp.url,
      MBP_TOKEN: 'mbp-test-key',
      ONBOARDING_CHECK_SECONDS: '0.05',
      RATE_LIMIT_POLL_SECONDS: '0',
    });
  });
  after(async () => {
    await t.stop();
    await mbp.stop();
  });

  test("the matches' voterbase_ids become the audience digital_audience_name; notification_email hears it", async () => {
    const { key } = await t.createKey();
    const url = await register(
      t,
      key,
      'filename=mbp_list&mbp_onboarding=true&digital_audience_name=mbp_aud&notification_email=ops@client.example',
    );
    const csv = `matchback_id,voterbase_id\n1,${KNOWN[0]}\n2,${KNOWN[1]}\n3,${KNOWN[0]}\n4,NC-999999999\n`;
    assert.equal((await upload(url, csv)).status, 200);
    const result = await waitForResult(t, key, 'mbp_list');
    assert.equal(result.error, null);
    const jobId = jobIdOf(url);
    const mail = await notices(t, jobId, ['audience_ready']);
    assert.match(mail.get('audience_ready')!, /now the audience\s+"mbp_aud"/);
    const audience = [...mbp.audiences.values()].find((a) => a.name === 'mbp_aud')!;
    assert.equal(audience.status, 'ready');
    assert.equal(audience.rowCount, 2, 'each matched voter once');
    assert.equal((await t.running.services.jobStore.getJob(jobId))!.state, 'complete');
  });

  test('a platform refusal tells notification_email and leaves the matched list as it is', async () => {
    const { key } = await t.createKey();
    const name = 'mbp_aud_refused';
    // The platform refuses a second audience of the same name (422): fatal, with its reason.
    await fetch(`${mbp.url}/api/v1/audiences`, {
      method: 'POST',
      headers: { 'x-api-key': 'mbp-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    const url = await register(
      t,
      key,
      `filename=mbp_refused&mbp_onboarding=true&digital_audience_name=${name}&notification_email=ops@client.example`,
    );
    assert.equal((await upload(url, `voterbase_id\n${KNOWN[2]}\n`)).status, 200);
    assert.equal((await waitForResult(t, key, 'mbp_refused')).error, null);
    const jobId = jobIdOf(url);
    const mail = await notices(t, jobId, ['audience_failed']);
    assert.match(mail.get('audience_failed')!, /could not be built/);
    assert.match(mail.get('audience_failed')!, /matched list itself is ready/);
    assert.equal((await t.running.services.jobStore.getJob(jobId))!.state, 'complete');
  });
});
