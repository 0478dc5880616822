import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JobSummary, SmartmatchJob } from '../client-jobs/job-types.ts';
import { SEND_NOTICE_JOB } from '../ports/job-catalog.ts';
import { jobNotice, jobNoticeMessage, NOTICE_MAX_ATTEMPTS } from './job-notices.ts';
import { renderNotice } from './notice.ts';
import { redactEmails } from './redact.ts';

const summary = { rows: 2000, matchedRows: 1234, outputRows: 2000, matchRate: 0.617 } as JobSummary;

function job(over: Partial<SmartmatchJob> = {}): SmartmatchJob {
  return {
    id: 'job_01ABCDEF',
    kind: 'smartmatch',
    keyId: 'key_01',
    filename: 'spring_list',
    state: 'complete',
    uploadExpiresAt: 0,
    uploadBlob: 'uploads/job_01ABCDEF/upl.csv',
    uploadBytes: 3 * 1024 * 1024,
    resultBlob: 'results/job_01ABCDEF/result.csv',
    resultName: 'spring_list.csv',
    error: null,
    summary,
    voterVersion: 'v1',
    createdAt: 0,
    updatedAt: 0,
    params: {
      webhook: 'https://hooks.example/secret-path?token=t0k3n',
      include: [],
      maxMatches: 1,
      format: 'csv',
      searchRadiusMiles: null,
      notificationEmail: 'ops@client.example',
      mbpOnboarding: false,
      digitalAudienceName: null,
      profileId: 'default',
    },
    ...over,
  };
}

const render = (j: SmartmatchJob, kind: 'received' | 'complete' | 'failed') =>
  renderNotice(jobNotice(j, kind, { publicUrl: 'https://lm.example' }));

describe('job notices', () => {
  test('received names the list and the job, and says what comes next', () => {
    const notice = render(job({ state: 'uploaded', summary: null }), 'received');
    assert.equal(notice.subject, 'List "spring_list" received');
    assert.match(notice.text, /List:\s+spring_list\n/);
    assert.match(notice.text, /Job:\s+job_01ABCDEF\n/);
    assert.match(notice.text, /Size:\s+3\.0 MiB\n/);
    assert.match(notice.text, /another e-mail when the result is ready/);
  });

  test('complete gives the match rate and row counts, and points to poll instead of a link', () => {
    const notice = render(job(), 'complete');
    assert.equal(notice.subject, 'List "spring_list" is ready: 61.7% matched');
    assert.match(notice.text, /Rows:\s+2,000\n/);
    assert.match(notice.text, /Matched rows:\s+1,234\n/);
    assert.match(notice.text, /Match rate:\s+61\.7%\n/);
    assert.match(notice.text, /GET https:\/\/lm\.example\/service\/smartmatch\/poll\?filename=spring_list/);
    assert.match(notice.html, /<td[^>]*>61\.7%<\/td>/);
  });

  test('complete names the rows the reader could not return and the first warnings, by line only', () => {
    const warnings = {
      total: 3,
      byKind: { row_too_long: 2, ragged_row: 1 },
      first: ['line 7: row is 2000000 bytes, more than the limit of 1048576 bytes; skipped'],
    };
    const notice = render(job({ summary: { ...summary, warnings } }), 'complete');
    assert.match(notice.text, /Rows not read \(too long\):\s+2\n/);
    assert.match(notice.text, /Warnings:\s+3\n/);
    assert.match(notice.text, /First warnings:\s+line 7: row is 2000000 bytes/);
    assert.doesNotMatch(render(job(), 'complete').text, /Warnings:/);
  });

  test('failed carries the client-safe reason', () => {
    const notice = render(
      job({ state: 'failed', summary: null, error: 'Validation Error: the file has no header row' }),
      'failed',
    );
    assert.equal(notice.subject, 'List "spring_list" could not be matched');
    assert.match(notice.text, /Reason:\s+Validation Error: the file has no header row\n/);
  });

  test('no notice carries storage keys, the webhook, or anything that grants access', () => {
    for (const kind of ['received', 'complete', 'failed'] as const) {
      const { text, html, subject } = render(job({ error: 'Internal Error: x' }), kind);
      for (const part of [text, html, subject]) {
        for (const secret of [
          'uploads/',
          'results/',
          'hooks.example',
          't0k3n',
          'key_01',
          'sig=',
          'expires=',
        ]) {
          assert.equal(part.includes(secret), false, `${kind} notice contains ${secret}`);
        }
      }
    }
  });

  test('HTML escapes every value', () => {
    const html = renderNotice({
      subject: '<s>',
      intro: ['a <b> & "c"'],
      facts: [['<l>', "it's"]],
      outro: [],
    }).html;
    assert.match(html, /a &lt;b&gt; &amp; &quot;c&quot;/);
    assert.match(html, /&lt;l&gt;.*it&#39;s/s);
    assert.equal(html.includes('<b>'), false);
  });

  test('a notice is queued only for jobs with a notification_email', () => {
    assert.deepEqual(jobNoticeMessage(job(), 'complete'), {
      type: SEND_NOTICE_JOB,
      payload: { v: 1, jobId: 'job_01ABCDEF', notice: 'complete' },
      maxAttempts: NOTICE_MAX_ATTEMPTS,
    });
    const without = job();
    without.params = { ...without.params, notificationEmail: null };
    assert.equal(jobNoticeMessage(without, 'received'), null);
  });
});

describe('redactEmails', () => {
  test('keeps the first character and the domain', () => {
    assert.equal(
      redactEmails('550 5.1.1 <jane.doe+lists@client.example>: Recipient address rejected'),
      '550 5.1.1 <j***@client.example>: Recipient address rejected',
    );
    assert.equal(
      redactEmails('no address here: smtp://mail.example:25'),
      'no address here: smtp://mail.example:25',
    );
  });
});
