import assert from 'node:assert/strict';
import { test } from 'node:test';
import { adAccountDigits, audienceStatusOf, graphVersionWarning } from './meta-social-audiences.ts';

test('readiness: usable, too small, unusable, flagged, or still processing', () => {
  const of = (operation: number, delivery: number, extra: Record<string, unknown> = {}) =>
    audienceStatusOf({
      operation_status: { code: operation },
      delivery_status: { code: delivery },
      ...extra,
    });
  assert.equal(of(200, 200).readiness, 'ready');
  assert.equal(of(200, 300).readiness, 'too_small');
  assert.equal(of(411, 300).readiness, 'too_small');
  assert.equal(of(200, 400).readiness, 'unusable');
  assert.equal(of(471, 200).readiness, 'flagged');
  for (const operation of [0, 300, 410, 441]) assert.equal(of(operation, 300).readiness, 'processing');
  assert.equal(audienceStatusOf({}).readiness, 'processing');
  const counted = of(200, 200, { approximate_count_lower_bound: 1000, approximate_count_upper_bound: 1200 });
  assert.deepEqual(counted.approximateCount, { lower: 1000, upper: 1200 });
  assert.equal(of(300, 300, { approximate_count_lower_bound: -1 }).approximateCount, null);
  const unusable = audienceStatusOf({
    operation_status: { code: 200 },
    delivery_status: { code: 400, description: 'This audience is unusable.' },
  });
  assert.match(unusable.reason!, /status 400: This audience is unusable/);
});

test('ad account ids: digits with or without act_; anything else is refused', () => {
  assert.equal(adAccountDigits('act_123'), '123');
  assert.equal(adAccountDigits(' 123 '), '123');
  for (const bad of ['', 'act_', 'abc', '12/34', 'act_act_1']) {
    assert.throws(() => adAccountDigits(bad), { name: 'PlatformError' }, bad);
  }
});

test('version warning: within 90 days of the expected end of life, or after it; unknown versions are not judged', () => {
  const day = 24 * 3600 * 1000;
  const released = Date.parse('2025-10-08');
  assert.equal(graphVersionWarning('v24.0', released + 30 * day), null);
  assert.match(
    graphVersionWarning('v24.0', released + 300 * day)!,
    /expected to stop working around 2026-10-08/,
  );
  assert.match(graphVersionWarning('v24.0', released + 400 * day)!, /reached its expected end of life/);
  assert.equal(graphVersionWarning('v99.0', released), null);
});
