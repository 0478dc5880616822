import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeIssues } from './common.ts';
import { pollQuerySchema, smartmatchQuerySchema } from './smartmatch.schema.ts';

type Query = Record<string, unknown>;

function parseSmartmatch(query: Query): { data: unknown } | { error: string } {
  const result = smartmatchQuerySchema.safeParse(query);
  return result.success ? { data: result.data } : { error: describeIssues(result.error) };
}

function parsePoll(query: Query): { data: unknown } | { error: string } {
  const result = pollQuerySchema.safeParse(query);
  return result.success ? { data: result.data } : { error: describeIssues(result.error) };
}

const show = (value: unknown) => {
  const text = JSON.stringify(value);
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
};

const FILENAME_CHARS = 'filename may hold only letters, digits, _, . and -, and must not start with . or -';
const MAX_MATCHES = 'max_matches must be an integer from 1 to 10';
const SEARCH_RADIUS = 'search_radius must be a positive number of miles';
const F = { filename: 'list_1' };

describe('smartmatchQuerySchema accepts', () => {
  const accepted: [query: Query, data: Query][] = [
    // filename shapes of real clients (clients.md 4)
    [{ filename: 'tmc_1a2b3c4d-5.csv' }, { filename: 'tmc_1a2b3c4d-5.csv' }],
    [{ filename: 'ripple_1234567890123' }, { filename: 'ripple_1234567890123' }],
    [{ filename: 'Plain_List_2024' }, { filename: 'Plain_List_2024' }],
    [{ filename: 'a' }, { filename: 'a' }],
    [{ filename: '_x' }, { filename: '_x' }],
    [{ filename: 'x'.repeat(45) }, { filename: 'x'.repeat(45) }],
    [{ filename: 'v1.2-final.csv' }, { filename: 'v1.2-final.csv' }],
    // booleans as Python, JavaScript and form clients send them (clients.md 3)
    [
      { ...F, include_email: 'True' },
      { ...F, include_email: true },
    ],
    [
      { ...F, include_email: 'False' },
      { ...F, include_email: false },
    ],
    [
      { ...F, include_landline: 'true' },
      { ...F, include_landline: true },
    ],
    [
      { ...F, include_landline: 'false' },
      { ...F, include_landline: false },
    ],
    [
      { ...F, include_wireless: '1' },
      { ...F, include_wireless: true },
    ],
    [
      { ...F, include_wireless: '0' },
      { ...F, include_wireless: false },
    ],
    [
      { ...F, include_voip: 'TRUE' },
      { ...F, include_voip: true },
    ],
    [
      { ...F, mbp_onboarding: 'False' },
      { ...F, mbp_onboarding: false },
    ],
    [
      { ...F, mbp_onboarding: '0' },
      { ...F, mbp_onboarding: false },
    ],
    // max_matches 1..10
    [
      { ...F, max_matches: '1' },
      { ...F, max_matches: 1 },
    ],
    [
      { ...F, max_matches: '5' },
      { ...F, max_matches: 5 },
    ],
    [
      { ...F, max_matches: '10' },
      { ...F, max_matches: 10 },
    ],
    // format
    [
      { ...F, format: 'csv' },
      { ...F, format: 'csv' },
    ],
    [
      { ...F, format: 'zip' },
      { ...F, format: 'zip' },
    ],
    [
      { ...F, format: 'gzip' },
      { ...F, format: 'gzip' },
    ],
    [
      { ...F, format: 'GZIP' },
      { ...F, format: 'gzip' },
    ],
    // search_radius: positive integer or float
    [
      { ...F, search_radius: '1.5' },
      { ...F, search_radius: 1.5 },
    ],
    [
      { ...F, search_radius: '10' },
      { ...F, search_radius: 10 },
    ],
    [
      { ...F, search_radius: '0.25' },
      { ...F, search_radius: 0.25 },
    ],
    [
      { ...F, search_radius: '.5' },
      { ...F, search_radius: 0.5 },
    ],
    [
      { ...F, search_radius: '500' },
      { ...F, search_radius: 500 },
    ],
    // e-mail, webhook, audience name, profile
    [
      { ...F, notification_email: 'ops@example.org' },
      { ...F, notification_email: 'ops@example.org' },
    ],
    [
      { ...F, webhook: 'https://hooks.example.org/lm?x=1' },
      { ...F, webhook: 'https://hooks.example.org/lm?x=1' },
    ],
    [
      { ...F, webhook: 'http://10.0.0.5:3000/done' },
      { ...F, webhook: 'http://10.0.0.5:3000/done' },
    ],
    [
      { ...F, mbp_onboarding: 'true', digital_audience_name: 'A'.repeat(35) },
      { ...F, mbp_onboarding: true, digital_audience_name: 'A'.repeat(35) },
    ],
    [
      { ...F, digital_audience_name: 'aud_1' },
      { ...F, digital_audience_name: 'aud_1' },
    ],
    [
      { ...F, profile_id: 'vip.2024-A_1' },
      { ...F, profile_id: 'vip.2024-A_1' },
    ],
    // unknown parameters are ignored, not errors (clients.md 2)
    [{ ...F, api_key: 'lm_x', foo: ['a', 'b'], callback: 'x' }, { ...F }],
  ];
  for (const [query, data] of accepted) {
    it(show(query), () => {
      assert.deepEqual(parseSmartmatch(query), { data });
    });
  }

  it('parses a full query of the Python client', () => {
    assert.deepEqual(
      parseSmartmatch({
        filename: 'tmc_0f8e7d6c-b.csv',
        webhook: 'https://example.org/hook',
        include_email: 'True',
        include_landline: 'False',
        include_wireless: 'True',
        include_voip: 'False',
        max_matches: '3',
        format: 'zip',
        search_radius: '2.5',
        notification_email: 'me@example.org',
        mbp_onboarding: 'True',
        digital_audience_name: 'spring_push',
        profile_id: 'default',
      }),
      {
        data: {
          filename: 'tmc_0f8e7d6c-b.csv',
          webhook: 'https://example.org/hook',
          include_email: true,
          include_landline: false,
          include_wireless: true,
          include_voip: false,
          max_matches: 3,
          format: 'zip',
          search_radius: 2.5,
          notification_email: 'me@example.org',
          mbp_onboarding: true,
          digital_audience_name: 'spring_push',
          profile_id: 'default',
        },
      },
    );
  });
});

describe('smartmatchQuerySchema refuses', () => {
  const refused: [query: Query, error: string][] = [
    // filename
    [{}, 'filename is required'],
    [{ filename: '' }, `filename is required; ${FILENAME_CHARS}`],
    [{ filename: 'x'.repeat(46) }, 'filename must be at most 45 characters'],
    [{ filename: 'a/b' }, FILENAME_CHARS],
    [{ filename: 'my list' }, FILENAME_CHARS],
    [{ filename: 'a..b' }, 'filename must not contain ..'],
    [{ filename: '..' }, `${FILENAME_CHARS}; filename must not contain ..`],
    [{ filename: '../etc' }, `${FILENAME_CHARS}; filename must not contain ..`],
    [{ filename: '.hidden' }, FILENAME_CHARS],
    [{ filename: '-rf' }, FILENAME_CHARS],
    [{ filename: 'a\\b' }, FILENAME_CHARS],
    [{ filename: 'list\n' }, 'filename must not contain control characters'],
    [{ filename: 'liste_é' }, FILENAME_CHARS],
    [{ filename: 'a%2Fb' }, FILENAME_CHARS],
    // booleans: only the six spellings (any case)
    [{ ...F, include_email: 'yes' }, 'include_email must be true or false (True/False, true/false, 1/0)'],
    [
      { ...F, include_landline: 'no' },
      'include_landline must be true or false (True/False, true/false, 1/0)',
    ],
    [{ ...F, include_wireless: '2' }, 'include_wireless must be true or false (True/False, true/false, 1/0)'],
    [{ ...F, include_voip: '' }, 'include_voip must be true or false (True/False, true/false, 1/0)'],
    [{ ...F, mbp_onboarding: 'on' }, 'mbp_onboarding must be true or false (True/False, true/false, 1/0)'],
    // max_matches: integers 1..10 only
    [{ ...F, max_matches: '0' }, MAX_MATCHES],
    [{ ...F, max_matches: '11' }, MAX_MATCHES],
    [{ ...F, max_matches: '1.5' }, MAX_MATCHES],
    [{ ...F, max_matches: 'abc' }, MAX_MATCHES],
    [{ ...F, max_matches: '-1' }, MAX_MATCHES],
    [{ ...F, max_matches: '' }, MAX_MATCHES],
    [{ ...F, max_matches: '1e1' }, MAX_MATCHES],
    [{ ...F, max_matches: '1000' }, MAX_MATCHES],
    // format
    [{ ...F, format: 'xlsx' }, 'format must be one of csv, zip, gzip'],
    [{ ...F, format: '' }, 'format must be one of csv, zip, gzip'],
    // search_radius: positive
    [{ ...F, search_radius: '0' }, SEARCH_RADIUS],
    [{ ...F, search_radius: '0.0' }, SEARCH_RADIUS],
    [{ ...F, search_radius: '-1' }, SEARCH_RADIUS],
    [{ ...F, search_radius: 'far' }, SEARCH_RADIUS],
    [{ ...F, search_radius: '' }, SEARCH_RADIUS],
    [{ ...F, search_radius: '1e3' }, SEARCH_RADIUS],
    [{ ...F, search_radius: '501' }, 'search_radius must be at most 500 miles'],
    // e-mail
    [{ ...F, notification_email: 'not-an-email' }, 'notification_email must be a valid e-mail address'],
    [{ ...F, notification_email: 'a@' }, 'notification_email must be a valid e-mail address'],
    [{ ...F, notification_email: '@example.org' }, 'notification_email must be a valid e-mail address'],
    [{ ...F, notification_email: 'a b@example.org' }, 'notification_email must be a valid e-mail address'],
    // webhook
    [{ ...F, webhook: 'ftp://example.org/x' }, 'webhook must be a valid http or https URL'],
    [{ ...F, webhook: 'javascript:alert(1)' }, 'webhook must be a valid http or https URL'],
    [{ ...F, webhook: 'not a url' }, 'webhook must be a valid http or https URL'],
    // control characters (a %0D%0A in the query arrives decoded): never stored
    [
      { ...F, webhook: 'https://hooks.example.org/x\r\nX-Injected: 1' },
      'webhook must not contain control characters',
    ],
    [{ ...F, webhook: 'https://hooks.example.org/x\n' }, 'webhook must not contain control characters'],
    [{ ...F, webhook: 'https://hooks.example.org/\u0000' }, 'webhook must not contain control characters'],
    [{ ...F, webhook: 'https://hooks.example.org/\u007f' }, 'webhook must not contain control characters'],
    [
      { ...F, notification_email: 'a@example.org\r\nBcc: b@example.org' },
      'notification_email must not contain control characters',
    ],
    // digital audience name
    [{ ...F, mbp_onboarding: 'True' }, 'digital_audience_name is required when mbp_onboarding is true'],
    [{ ...F, mbp_onboarding: '1' }, 'digital_audience_name is required when mbp_onboarding is true'],
    [
      { ...F, mbp_onboarding: 'true', digital_audience_name: 'A'.repeat(36) },
      'digital_audience_name must be 1-35 letters, digits or underscores',
    ],
    [
      { ...F, digital_audience_name: 'spring-push' },
      'digital_audience_name must be 1-35 letters, digits or underscores',
    ],
    [
      { ...F, digital_audience_name: '' },
      'digital_audience_name must be 1-35 letters, digits or underscores',
    ],
    // profile_id
    [{ ...F, profile_id: 'a b' }, 'profile_id must be 1-64 letters, digits, _, . or -'],
    [{ ...F, profile_id: 'p'.repeat(65) }, 'profile_id must be 1-64 letters, digits, _, . or -'],
    // a repeated parameter arrives as an array
    [{ filename: ['a', 'b'] }, 'filename must be given once'],
    [{ ...F, max_matches: ['1', '2'] }, 'max_matches must be given once'],
    [{ ...F, include_email: ['true', 'true'] }, 'include_email must be given once'],
    [{ ...F, format: ['csv', 'zip'] }, 'format must be given once'],
    [{ ...F, search_radius: ['1', '2'] }, 'search_radius must be given once'],
    [{ ...F, webhook: ['https://a.example', 'https://b.example'] }, 'webhook must be given once'],
    [{ ...F, notification_email: ['a@b.example', 'c@d.example'] }, 'notification_email must be given once'],
    [{ ...F, digital_audience_name: ['a', 'b'] }, 'digital_audience_name must be given once'],
    [{ ...F, profile_id: ['a', 'b'] }, 'profile_id must be given once'],
    // every problem at once, in field order
    [
      { filename: 'a/b', max_matches: '0', search_radius: '-1', mbp_onboarding: 'true' },
      `${FILENAME_CHARS}; ${MAX_MATCHES}; ${SEARCH_RADIUS}; digital_audience_name is required when mbp_onboarding is true`,
    ],
  ];
  for (const [query, error] of refused) {
    it(show(query), () => {
      assert.deepEqual(parseSmartmatch(query), { error });
    });
  }

  const crossField: [query: Query, error: string][] = [
    [
      { ...F, format: 'pdf', mbp_onboarding: 'true' },
      'format must be one of csv, zip, gzip; digital_audience_name is required when mbp_onboarding is true',
    ],
    [
      { mbp_onboarding: 'true' },
      'filename is required; digital_audience_name is required when mbp_onboarding is true',
    ],
    [
      { filename: ['a', 'b'], mbp_onboarding: 'true' },
      'filename must be given once; digital_audience_name is required when mbp_onboarding is true',
    ],
  ];
  for (const [query, error] of crossField) {
    it(`lists the cross-field rule with other problems: ${show(query)}`, () => {
      assert.deepEqual(parseSmartmatch(query), { error });
    });
  }
});

describe('pollQuerySchema', () => {
  const cases: [query: Query, expected: { data: unknown } | { error: string }][] = [
    [{ filename: 'tmc_1a2b3c4d-5.csv' }, { data: { filename: 'tmc_1a2b3c4d-5.csv' } }],
    [{ filename: 'ripple_1234567890123' }, { data: { filename: 'ripple_1234567890123' } }],
    [{ filename: 'list_1', max_matches: '99', t: '1' }, { data: { filename: 'list_1' } }],
    [{}, { error: 'filename is required' }],
    [{ filename: '' }, { error: `filename is required; ${FILENAME_CHARS}` }],
    [{ filename: 'x'.repeat(46) }, { error: 'filename must be at most 45 characters' }],
    [{ filename: 'a/b' }, { error: FILENAME_CHARS }],
    [{ filename: '.x' }, { error: FILENAME_CHARS }],
    [{ filename: 'a..b' }, { error: 'filename must not contain ..' }],
    [{ filename: ['a', 'a'] }, { error: 'filename must be given once' }],
  ];
  for (const [query, expected] of cases) {
    it(show(query), () => {
      assert.deepEqual(parsePoll(query), expected);
    });
  }
});
