import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeIssues } from './common.ts';
import { onboardingQuerySchema } from './onboarding.schema.ts';

type Query = Record<string, unknown>;

function parse(query: Query): { data: unknown } | { error: string } {
  const result = onboardingQuerySchema.safeParse(query);
  return result.success ? { data: result.data } : { error: describeIssues(result.error) };
}

const show = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
};

const SOCIAL = {
  platform: 'social',
  audience: 'spring_2024',
  status_email: 'ops@example.org',
  social_adid: '1234567890',
};
const DSP = { platform: 'politicaldsp', audience: 'spring_2024', status_email: 'ops@example.org' };
const AUDIENCE = 'audience must be 1-50 letters, digits or underscores';

describe('onboardingQuerySchema accepts', () => {
  const accepted: [query: Query, data: Query][] = [
    [SOCIAL, SOCIAL],
    [DSP, DSP],
    [
      { ...SOCIAL, social_adid: 'act_1234567890' },
      { ...SOCIAL, social_adid: 'act_1234567890' },
    ],
    [
      { ...SOCIAL, owner_adid: '987654321' },
      { ...SOCIAL, owner_adid: '987654321' },
    ],
    [
      { ...DSP, social_adid: '1234567890' },
      { ...DSP, social_adid: '1234567890' },
    ],
    [{ ...SOCIAL, platform: 'Social' }, SOCIAL],
    [{ ...DSP, platform: ' POLITICALDSP ' }, DSP],
    [
      { ...SOCIAL, audience: 'A'.repeat(50) },
      { ...SOCIAL, audience: 'A'.repeat(50) },
    ],
    [
      { ...SOCIAL, audience: 'a' },
      { ...SOCIAL, audience: 'a' },
    ],
    [{ ...SOCIAL, filename: 'x', extra: 'ignored' }, SOCIAL],
  ];
  for (const [query, data] of accepted) {
    it(show(query), () => {
      assert.deepEqual(parse(query), { data });
    });
  }
});

describe('onboardingQuerySchema refuses', () => {
  const refused: [query: Query, error: string][] = [
    [{}, 'platform is required; audience is required; status_email is required'],
    [{ ...SOCIAL, platform: 'facebook' }, 'platform must be social or politicaldsp'],
    [{ ...SOCIAL, platform: '' }, 'platform must be social or politicaldsp'],
    // social requires social_adid
    [
      { platform: 'social', audience: 'a', status_email: 'ops@example.org' },
      'social_adid is required when platform is social',
    ],
    // owner_adid (Pattern #2) only for social
    [{ ...DSP, owner_adid: '987654321' }, 'owner_adid applies only to platform social'],
    // audience: 1-50 letters, digits or underscore
    [{ ...SOCIAL, audience: 'A'.repeat(51) }, AUDIENCE],
    [{ ...SOCIAL, audience: 'spring-2024' }, AUDIENCE],
    [{ ...SOCIAL, audience: 'spring 2024' }, AUDIENCE],
    [{ ...SOCIAL, audience: '' }, AUDIENCE],
    [{ ...SOCIAL, audience: 'élan' }, AUDIENCE],
    // e-mail
    [{ ...SOCIAL, status_email: 'nope' }, 'status_email must be a valid e-mail address'],
    [{ ...SOCIAL, status_email: '' }, 'status_email must be a valid e-mail address'],
    // ad accounts
    [
      { ...SOCIAL, social_adid: 'abc' },
      'social_adid must be an ad account id (digits, optionally prefixed act_)',
    ],
    [
      { ...SOCIAL, owner_adid: 'act_' },
      'owner_adid must be an ad account id (digits, optionally prefixed act_)',
    ],
    // repeated parameters
    [{ ...SOCIAL, audience: ['a', 'b'] }, 'audience must be given once'],
    [{ ...SOCIAL, platform: ['social', 'social'] }, 'platform must be given once'],
    [{ ...SOCIAL, status_email: ['a@b.example', 'a@b.example'] }, 'status_email must be given once'],
    [{ ...SOCIAL, social_adid: ['1', '2'] }, 'social_adid must be given once'],
    // several problems at once
    [
      { platform: 'social', audience: 'bad-name', status_email: 'x' },
      `${AUDIENCE}; status_email must be a valid e-mail address; social_adid is required when platform is social`,
    ],
  ];
  for (const [query, error] of refused) {
    it(show(query), () => {
      assert.deepEqual(parse(query), { error });
    });
  }

  it('lists the cross-field rule with a type problem of another field', () => {
    assert.deepEqual(parse({ platform: 'social', audience: ['a', 'b'], status_email: 'ops@example.org' }), {
      error: 'audience must be given once; social_adid is required when platform is social',
    });
  });
});
