import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { SEND_NOTICE_JOB } from '../../src/domain/ports/job-catalog.ts';
import { jobIdOf } from '../support/delivery-archive.ts';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';
import {
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const AUTH = { user: 'listmatch', password: 'smtp-pass-7Qx' };
const EMAIL = 'ops@client.example';
const ROW_ID = 'NC-000000001';

function smtpEnv(sink: SmtpSink, extra: Record<string, string> = {}): Record<string, string> {
  return {
    RATE_LIMIT_POLL_SECONDS: '0',
    MAIL: 'smtp',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(sink.port),
    SMTP_USER: AUTH.user,
    SMTP_PASSWORD: AUTH.password,
    SMTP_TLS: 'starttls',
    // The sink's certificate is smtp-server's self-signed one.
    SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
    SMTP_TIMEOUT_SECONDS: '5',
    MAIL_FROM: 'Listmatch Results <results@lm.example>',
    MAIL_RETRY_BASE_SECONDS: '0.05',
    ...extra,
  };
}

const mailsFor = (sink: SmtpSink, filename: string): ReceivedMail[] =>
  sink.received.filter((m) => m.parsed.subject?.includes(`"${filename}"`));

/** What no notice may carry: row contents, keys, storage paths, or a link that grants access. */
function assertNothingSensitive(mail: ReceivedMail, key: string): void {
  const all = `${mail.parsed.subject}\n${mail.parsed.text}\n${mail.parsed.html}`;
  for (const secret of [ROW_ID, key, 'uploads/', 'results/', 'sig=', 'signature=', 'expires=']) {
    assert.equal(all.includes(secret), false, `notice contains ${secret}`);
  }
}

describe('e-mail notices over SMTP (real server)', () => {
  let sink: SmtpSink;
  let t: TestService;
  let key: string;
  let keyId: string;

  before(async () => {
    sink = await startSmtpSink(AUTH);
    t = await startTestService(smtpEnv(sink));
    ({ key, id: keyId } = await t.createKey());
  });
  after(async () => {
    await t.stop();
    await sink.stop();
  });

  test('received, then complete with the match rate, to notification_email over STARTTLS with login', async () => {
    const url = await register(
      t,
      key,
      `filename=spring_list&notification_email=${encodeURIComponent(EMAIL)}`,
    );
    await upload(url, `voterbase_id\n${ROW_ID}\nNC-999999999\n`);
    await waitForResult(t, key, 'spring_list');
    await until(() => mailsFor(sink, 'spring_list').length === 2, 'two notices');
    const [received, complete] = mailsFor(sink, 'spring_list') as [ReceivedMail, ReceivedMail];
    assert.equal(received.parsed.subject, 'List "spring_list" received');
    assert.equal(complete.parsed.subject, 'List "spring_list" is ready: 50.0% matched');
    for (const mail of [received, complete]) {
      assert.deepEqual(mail.envelopeTo, [EMAIL]);
      assert.equal((mail.parsed.to as { text: string }).text, EMAIL);
      assert.deepEqual(mail.parsed.from?.value, [
        { name: 'Listmatch Results', address: 'results@lm.example' },
      ]);
      assert.equal(mail.secure, true, 'sent after STARTTLS');
      assert.equal(mail.user, AUTH.user);
      assert.match(String(mail.parsed.html), /<table/);
      assertNothingSensitive(mail, key);
    }
    assert.match(String(complete.parsed.text), /Rows:\s+2\n/);
    assert.match(String(complete.parsed.text), /Matched rows:\s+1\n/);
    assert.match(String(complete.parsed.text), /Match rate:\s+50\.0%\n/);
    assert.match(String(complete.parsed.text), /\/service\/smartmatch\/poll\?filename=spring_list/);
  });

  test('failed carries the reason from the job', async () => {
    const url = await register(t, key, `filename=empty_list&notification_email=${encodeURIComponent(EMAIL)}`);
    await upload(url, '');
    const result = await waitForResult(t, key, 'empty_list');
    assert.equal(result.status, 'failed');
    await until(() => mailsFor(sink, 'empty_list').length === 2, 'received and failed notices');
    const failed = mailsFor(sink, 'empty_list').find((m) =>
      m.parsed.subject?.includes('could not be matched'),
    );
    assert.ok(failed, 'a failed notice');
    assert.match(String(failed.parsed.text), /Reason:\s+Validation Error: the uploaded file is empty\n/);
    assertNothingSensitive(failed, key);
  });

  test('a job without notification_email sends nothing', async () => {
    const before = sink.received.length;
    const url = await register(t, key, 'filename=quiet_list');
    await upload(url, `voterbase_id\n${ROW_ID}\n`);
    assert.equal((await waitForResult(t, key, 'quiet_list')).status, 'complete');
    // A notice is enqueued in the same transaction as the state change it reports: the job is
    // complete, so any notice it was to get (received, complete) is in the queue now.
    const jobId = await jobIdOf(t, keyId, 'quiet_list');
    const queued = (await t.running.services.queue.messagesForJob(jobId)).map((m) => m.type);
    assert.ok(queued.length > 0, 'the job has queue messages (its match)');
    assert.equal(queued.includes(SEND_NOTICE_JOB), false, `queued: ${queued.join(', ')}`);
    // A later job with an address gets its two notices, and they are the only mails since.
    const later = await register(
      t,
      key,
      `filename=after_quiet&notification_email=${encodeURIComponent(EMAIL)}`,
    );
    await upload(later, `voterbase_id\n${ROW_ID}\n`);
    await waitForResult(t, key, 'after_quiet');
    await until(() => mailsFor(sink, 'after_quiet').length === 2, "the later job's two notices");
    assert.deepEqual(
      sink.received
        .slice(before)
        .map((m) => m.parsed.subject)
        .sort(),
      ['List "after_quiet" is ready: 100.0% matched', 'List "after_quiet" received'],
    );
  });

  test('SMTP down: the job still completes and polls; the notice is retried and arrives when the server is back', async () => {
    await sink.stop();
    const url = await register(t, key, `filename=down_list&notification_email=${encodeURIComponent(EMAIL)}`);
    await upload(url, `voterbase_id\n${ROW_ID}\n`);
    const result = await waitForResult(t, key, 'down_list');
    assert.equal(result.status, 'complete');
    assert.equal(result.error, null);
    const job = (await t.running.services.jobStore.findLatestByFilename(
      (
        await t.running.services.keys.authenticate(key)
      ).id,
      'down_list',
    ))!;
    const notices = async () =>
      (await t.running.services.queue.messagesForJob(job.id)).filter((m) => m.type === 'send-notice');
    await until(
      async () =>
        (await notices()).length === 2 &&
        (await notices()).every((m) => m.attempts >= 2 && m.state !== 'done'),
      'both notices failed at least once',
    );
    for (const m of await notices()) {
      assert.match(String(m.lastError), /^SMTP send failed: .*ECONNREFUSED/);
      assert.equal(String(m.lastError).includes(EMAIL), false, 'the recorded reason names no recipient');
      assert.equal(String(m.lastError).includes(AUTH.password), false);
    }
    // Poll works while the notices are failing.
    assert.equal((await waitForResult(t, key, 'down_list')).status, 'complete');
    await sink.start();
    await until(
      () => mailsFor(sink, 'down_list').length === 2,
      'both notices after the server came back',
      20_000,
    );
    // The worker marks a notice done just after the server took the mail: wait for that too.
    await until(
      async () => (await notices()).every((m) => m.state === 'done'),
      'both notices done after their mails arrived',
    );
    assert.deepEqual(
      (await notices()).map((m) => m.state),
      ['done', 'done'],
    );
  });
});

describe('e-mail notices: dead letter', () => {
  test('a notice that never gets through is dead-lettered with its reason; the job is untouched', async () => {
    const sink = await startSmtpSink(AUTH);
    await sink.stop();
    const t = await startTestService(smtpEnv(sink, { MAIL_RETRY_BASE_SECONDS: '0.01' }));
    try {
      const key = (await t.createKey()).key;
      const url = await register(
        t,
        key,
        `filename=dead_list&notification_email=${encodeURIComponent(EMAIL)}`,
      );
      await upload(url, `voterbase_id\n${ROW_ID}\n`);
      assert.equal((await waitForResult(t, key, 'dead_list')).status, 'complete');
      const job = (await t.running.services.jobStore.findLatestByFilename(
        (
          await t.running.services.keys.authenticate(key)
        ).id,
        'dead_list',
      ))!;
      await until(
        async () =>
          (await t.running.services.queue.messagesForJob(job.id)).filter((m) => m.state === 'dead').length ===
          2,
        'both notices dead-lettered',
        30_000,
      );
      for (const m of (await t.running.services.queue.messagesForJob(job.id)).filter(
        (m) => m.type === 'send-notice',
      )) {
        assert.equal(m.attempts, m.maxAttempts);
        assert.match(String(m.lastError), /^SMTP send failed/);
      }
      assert.equal((await t.running.services.jobStore.getJob(job.id))?.state, 'complete');
    } finally {
      await t.stop();
    }
  });
});

describe('e-mail notices: embedded outbox (default)', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
  });
  after(async () => await t.stop());

  test('notices are written as .eml files to DATA_DIR/outbox', async () => {
    const key = (await t.createKey()).key;
    const url = await register(
      t,
      key,
      `filename=outbox_list&notification_email=${encodeURIComponent(EMAIL)}`,
    );
    await upload(url, `voterbase_id\n${ROW_ID}\n`);
    await waitForResult(t, key, 'outbox_list');
    const dir = join(t.dataDir, 'outbox');
    const emlFiles = async () =>
      (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.eml'));
    const deadline = Date.now() + 10_000;
    let names = await emlFiles();
    while (names.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      names = await emlFiles();
    }
    assert.deepEqual(names.map((n) => n.replace(/^job_[0-9A-Z]+\./, '')).sort(), [
      'complete.eml',
      'received.eml',
    ]);
    const complete = await simpleParser(
      await readFile(join(dir, names.find((n) => n.endsWith('.complete.eml'))!)),
    );
    assert.equal(complete.subject, 'List "outbox_list" is ready: 100.0% matched');
    assert.equal((complete.to as { text: string }).text, EMAIL);
  });
});
