import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OnboardingJob } from '../client-jobs/job-types.ts';
import { renderNotice } from './notice.ts';
import { type OnboardingCounts, onboardingNotice, onboardingNoticeKinds } from './onboarding-notices.ts';

function job(over: Partial<OnboardingJob['params']> = {}, error: string | null = null): OnboardingJob {
  return {
    id: 'job_01ONBOARD',
    kind: 'onboarding',
    keyId: 'key_01',
    filename: null,
    state: 'processing',
    uploadExpiresAt: 0,
    uploadBlob: 'uploads/job_01ONBOARD/upl.csv',
    uploadBytes: 1024,
    resultBlob: null,
    resultName: null,
    error,
    summary: null,
    voterVersion: null,
    createdAt: 0,
    updatedAt: 0,
    params: {
      platform: 'social',
      audience: 'gotv_2026',
      statusEmail: 'ops@client.example',
      socialAdid: '1234567890',
      ownerAdid: null,
      ...over,
    },
  };
}

const counts: OnboardingCounts = { rows: 10_000, usable: 9_500, unknownIds: 450, malformed: 50, sent: 9_500 };

describe('onboarding status notices', () => {
  test('each kind names the audience and platform; counts appear where given', () => {
    for (const kind of onboardingNoticeKinds) {
      const model = onboardingNotice(job({}), kind, { counts });
      const { subject, text } = renderNotice(model);
      assert.match(subject, /"gotv_2026"/, kind);
      assert.match(text, /Audience:\s+gotv_2026/, kind);
      assert.match(text, /the social platform/, kind);
      if (kind !== 'received') {
        assert.match(text, /Rows in the file:\s+10,000/, kind);
        assert.match(text, /Ids not in the voter file:\s+450/, kind);
        assert.match(text, /Unreadable values:\s+50/, kind);
        assert.match(text, /Rows sent to the platform:\s+9,500/, kind);
      }
    }
  });

  test('zero counts of unknown and unreadable ids are left out', () => {
    const { text } = renderNotice(
      onboardingNotice(job({}), 'uploaded', { counts: { ...counts, unknownIds: 0, malformed: 0 } }),
    );
    assert.doesNotMatch(text, /Ids not in the voter file|Unreadable values/);
  });

  test('shared names the ad account; ready gives the size range; failed the reason', () => {
    assert.match(renderNotice(onboardingNotice(job({}), 'shared')).text, /shared with ad account 1234567890/);
    assert.match(
      renderNotice(onboardingNotice(job({}), 'ready', { approximateSize: { lower: 8000, upper: 9000 } }))
        .text,
      /Approximate size:\s+8,000 to 9,000/,
    );
    const failed = renderNotice(
      onboardingNotice(
        job({}, 'Validation Error: the header names an unknown identifier "PHONE2"'),
        'failed',
      ),
    );
    assert.match(failed.subject, /could not be built/);
    assert.match(failed.text, /Reason:\s+Validation Error: the header names an unknown identifier "PHONE2"/);
  });

  test('the political DSP e-mails the client itself: awaiting says so', () => {
    const { text } = renderNotice(
      onboardingNotice(job({ platform: 'politicaldsp', socialAdid: null }), 'awaiting'),
    );
    assert.match(text, /the political DSP/);
    assert.match(text, /e-mails you itself when it is ready/);
  });

  test('a hostile audience name is escaped in the HTML body', () => {
    const { html } = renderNotice(onboardingNotice(job({ audience: '<script>x</script>' }), 'received'));
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /&lt;script&gt;/);
  });
});
