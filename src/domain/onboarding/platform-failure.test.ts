import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlatformError } from '../ports/file-drop-audiences.ts';
import { decidePlatformFailure } from './platform-failure.ts';

const context = { attempt: 2, isFinalAttempt: false, backoffMs: (attempt: number) => attempt * 1000 };

test('fatal fails at once with the client-readable reason', () => {
  const error = new PlatformError('fatal', 'the political DSP refused the operator’s credentials (HTTP 401)');
  assert.deepEqual(decidePlatformFailure(error, context), { action: 'fail', reason: error.message });
});

test('throttle waits the longer of the backoff and Retry-After; retry waits the backoff', () => {
  const throttled = new PlatformError('throttle', 'rate limited', { status: 429, retryAfterMs: 30_000 });
  assert.deepEqual(decidePlatformFailure(throttled, context), {
    action: 'retry',
    delayMs: 30_000,
    reason: 'rate limited',
  });
  const briefly = new PlatformError('throttle', 'rate limited', { status: 429, retryAfterMs: 500 });
  assert.equal((decidePlatformFailure(briefly, context) as { delayMs: number }).delayMs, 2000);
  assert.deepEqual(decidePlatformFailure(new PlatformError('retry', 'HTTP 503'), context), {
    action: 'retry',
    delayMs: 2000,
    reason: 'HTTP 503',
  });
});

test('the last attempt fails with the reason; unknown errors keep their message to themselves', () => {
  const last = { ...context, isFinalAttempt: true };
  assert.deepEqual(decidePlatformFailure(new PlatformError('retry', 'down'), last), {
    action: 'fail',
    reason: 'down',
  });
  const internal = decidePlatformFailure(new Error('ENOENT /var/lib/listmatch/secret'), context);
  assert.equal(internal.action, 'retry');
  assert.doesNotMatch(internal.reason, /ENOENT|var/);
});
