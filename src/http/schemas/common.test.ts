/**
 * Issue 35, finding 2: no parameter value may hold a character that can split or disguise a log
 * line or header once stored: C0, DEL, C1 (NEL U+0085 among them), the line and paragraph
 * separators, bidi overrides and isolates, zero-width characters, the BOM and the other Unicode
 * format characters. Every query parameter is built on `single`, so each gets the rule; the
 * refusal names the parameter, never its value.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeIssues, single } from './common.ts';
import { onboardingQuerySchema } from './onboarding.schema.ts';
import { pollQuerySchema, smartmatchQuerySchema } from './smartmatch.schema.ts';

const REFUSED: [name: string, char: string][] = [
  ['NUL', '\u0000'],
  ['TAB', '\t'],
  ['LF', '\n'],
  ['CR', '\r'],
  ['ESC', '\u001b'],
  ['DEL', '\u007f'],
  ['PAD (C1 first)', '\u0080'],
  ['NEL', '\u0085'],
  ['CSI (C1)', '\u009b'],
  ['APC (C1 last)', '\u009f'],
  ['soft hyphen', '\u00ad'],
  ['Arabic letter mark', '\u061c'],
  ['Mongolian vowel separator', '\u180e'],
  ['zero-width space', '\u200b'],
  ['zero-width non-joiner', '\u200c'],
  ['zero-width joiner', '\u200d'],
  ['left-to-right mark', '\u200e'],
  ['right-to-left mark', '\u200f'],
  ['line separator', '\u2028'],
  ['paragraph separator', '\u2029'],
  ['left-to-right embedding', '\u202a'],
  ['right-to-left embedding', '\u202b'],
  ['pop directional formatting', '\u202c'],
  ['left-to-right override', '\u202d'],
  ['right-to-left override', '\u202e'],
  ['word joiner', '\u2060'],
  ['invisible separator', '\u2063'],
  ['left-to-right isolate', '\u2066'],
  ['right-to-left isolate', '\u2067'],
  ['first strong isolate', '\u2068'],
  ['pop directional isolate', '\u2069'],
  ['BOM / zero-width no-break space', '\ufeff'],
  ['interlinear annotation anchor', '\ufff9'],
  ['language tag', '\u{e0001}'],
];

const SECRET = 'hooks.example.org/s3cr3t-path';

describe('single (every query parameter) refuses control and format characters', () => {
  for (const [name, char] of REFUSED) {
    it(`webhook with ${name} (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`, () => {
      for (const webhook of [
        `https://${SECRET}${char}`,
        `https://${SECRET}/a${char}b`,
        `https://hooks${char}.example.org/`,
      ]) {
        const result = smartmatchQuerySchema.safeParse({ filename: 'list_1', webhook });
        assert.equal(result.success, false, JSON.stringify(webhook));
        const error = describeIssues(result.error!);
        assert.equal(error, 'webhook must not contain control characters');
        assert.ok(!error.includes('s3cr3t'), 'the value is not echoed');
      }
    });
  }

  it('the same rule for every other parameter, registration, poll and onboarding', () => {
    for (const char of ['\u0085', '\u2028', '\u2029', '\u202e', '\u200b', '\ufeff']) {
      const smartmatch = smartmatchQuerySchema.safeParse({
        filename: `list${char}`,
        notification_email: `a@example.org${char}`,
        digital_audience_name: `aud${char}`,
        profile_id: `p${char}`,
        format: `csv${char}`,
      });
      assert.equal(
        describeIssues(smartmatch.error!),
        [
          'filename must not contain control characters',
          'format must not contain control characters',
          'notification_email must not contain control characters',
          'digital_audience_name must not contain control characters',
          'profile_id must not contain control characters',
        ].join('; '),
      );
      assert.equal(
        describeIssues(pollQuerySchema.safeParse({ filename: `list${char}` }).error!),
        'filename must not contain control characters',
      );
      const onboarding = onboardingQuerySchema.safeParse({
        platform: `social${char}`,
        audience: `aud${char}`,
        status_email: `a@example.org${char}`,
        social_adid: `act_1${char}`,
      });
      assert.equal(
        describeIssues(onboarding.error!),
        [
          'platform must not contain control characters',
          'audience must not contain control characters',
          'status_email must not contain control characters',
          'social_adid must not contain control characters',
        ].join('; '),
      );
    }
  });

  it('accepts ordinary text, non-ASCII letters and a space', () => {
    for (const value of [
      'https://hooks.example.org/x?y=1',
      'Zoë Smith',
      'München',
      '東京',
      'a b',
      '\u00a0',
    ]) {
      assert.equal(single('x').safeParse(value).success, true, JSON.stringify(value));
    }
  });
});
