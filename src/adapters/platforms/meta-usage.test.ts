import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pacingDelayMs, parseGraphUsage, parseRetryAfter } from './meta-usage.ts';

const headers = (values: Record<string, string>) => new Headers(values);

test('usage: the highest percentage of the three headers, and the longest announced wait', () => {
  const usage = parseGraphUsage(
    headers({
      'x-app-usage': JSON.stringify({ call_count: 28, total_time: 25, total_cputime: 25 }),
      'x-ad-account-usage': JSON.stringify({ acc_id_util_pct: 9.67, reset_time_duration: 40 }),
      'x-business-use-case-usage': JSON.stringify({
        '123': [
          { type: 'custom_audience', call_count: 96, total_time: 10, estimated_time_to_regain_access: 0 },
        ],
        '456': [{ type: 'ads_management', call_count: 3, estimated_time_to_regain_access: 2 }],
      }),
    }),
  );
  assert.deepEqual(usage, { maxPct: 96, regainMs: 120_000 });
});

test('usage: the ad account reset time counts in seconds', () => {
  const usage = parseGraphUsage(
    headers({ 'x-ad-account-usage': JSON.stringify({ acc_id_util_pct: 100, reset_time_duration: 300 }) }),
  );
  assert.deepEqual(usage, { maxPct: 100, regainMs: 300_000 });
});

test('usage: absent or malformed headers are no information, not an error', () => {
  assert.deepEqual(parseGraphUsage(headers({})), { maxPct: 0, regainMs: 0 });
  assert.deepEqual(
    parseGraphUsage(
      headers({
        'x-app-usage': '{not json',
        'x-ad-account-usage': '"text"',
        'x-business-use-case-usage': JSON.stringify({ a: 'x', b: [null, { call_count: '90' }] }),
      }),
    ),
    { maxPct: 0, regainMs: 0 },
  );
});

test('Retry-After: seconds or an HTTP date', () => {
  assert.equal(parseRetryAfter('30'), 30_000);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter('soon'), null);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
});

test('pacing: nothing below the start, quadratic growth to the maximum at 100 %', () => {
  const options = { startPct: 50, maxDelayMs: 30_000 };
  assert.equal(pacingDelayMs(0, options), 0);
  assert.equal(pacingDelayMs(50, options), 0);
  assert.equal(pacingDelayMs(75, options), 7_500);
  assert.equal(pacingDelayMs(100, options), 30_000);
  assert.equal(pacingDelayMs(140, options), 30_000);
  assert.ok(pacingDelayMs(90, options) > pacingDelayMs(80, options));
});
