import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyGraphError, DEFAULT_THROTTLE_WAIT_MS } from './meta-graph-errors.ts';

const classify = (
  code: number | null,
  options: { subcode?: number; status?: number; waitMs?: number } = {},
) =>
  classifyGraphError(
    options.status ?? 400,
    code === null
      ? null
      : {
          code,
          message: '(#x) platform text that may quote a value: jane@example.com',
          fbtrace_id: 'AbC123',
          ...(options.subcode === undefined ? {} : { error_subcode: options.subcode }),
        },
    { adAccountId: '42', waitMs: options.waitMs ?? null },
  );

test('1, 2 and 2650 are retried', () => {
  for (const code of [1, 2, 2650]) assert.equal(classify(code).kind, 'retry', String(code));
});

test('4, 17, 613, 80003 and 80004 are throttles that honour the announced wait, else one minute', () => {
  for (const code of [4, 17, 613, 80003, 80004]) {
    const error = classify(code, { waitMs: 90_000 });
    assert.equal(error.kind, 'throttle', String(code));
    assert.equal(error.waitMs, 90_000);
  }
  assert.equal(classify(613).waitMs, DEFAULT_THROTTLE_WAIT_MS);
  assert.equal(classify(null, { status: 429 }).kind, 'throttle');
});

test('fatal codes carry a client-readable reason', () => {
  const cases: [number, number | undefined, RegExp][] = [
    [190, undefined, /access token/],
    [10, undefined, /lacks permission for this on ad account act_42/],
    [200, undefined, /lacks permission/],
    [275, undefined, /lacks permission/],
    [299, undefined, /lacks permission/],
    [294, undefined, /lacks permission/],
    [2655, undefined, /act_42 has not accepted the social platform's custom audience terms/],
    [100, 33, /does not exist or the operator's system user has no access/],
    [100, 1713230, /flagged/],
    [100, undefined, /rejected a request parameter/],
    [368, undefined, /against its policies/],
    [1487301, undefined, /deleted or is not shared/],
    [105, undefined, /too large even after splitting/],
    [2635, undefined, /META_API_VERSION/],
  ];
  for (const [code, subcode, pattern] of cases) {
    const error = classify(code, subcode === undefined ? {} : { subcode });
    assert.equal(error.kind, 'fatal', String(code));
    assert.match(error.message, pattern);
    assert.equal(error.code, code);
    assert.equal(error.traceId, 'AbC123');
  }
});

test('the platform message is never copied into ours (it can quote request values)', () => {
  for (const code of [1, 613, 190, 100, 12345]) assert.ok(!classify(code).message.includes('jane'));
});

test('unlisted: a 5xx is retried, anything else fails', () => {
  assert.equal(classify(null, { status: 503 }).kind, 'retry');
  assert.equal(classify(12345, { status: 500 }).kind, 'retry');
  assert.equal(classify(12345).kind, 'fatal');
  assert.equal(classify(null, { status: 404 }).kind, 'fatal');
});
