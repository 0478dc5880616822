import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRetryAfter, platformMessage } from './http-file-drop-audiences.ts';

test('platformMessage reads the common JSON error shapes and object storage XML', () => {
  assert.equal(platformMessage('{"error":{"code":"x","message":"Name taken"}}'), 'Name taken');
  assert.equal(platformMessage('{"error":"Bad token"}'), 'Bad token');
  assert.equal(platformMessage('{"message":"Nope"}'), 'Nope');
  assert.equal(platformMessage('{"errors":[{"message":"Too big","field":"file"}]}'), 'Too big');
  assert.equal(
    platformMessage(
      '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
    ),
    'Request has expired',
  );
  assert.equal(platformMessage('<html>Bad gateway</html>'), '');
  assert.equal(platformMessage('{"errors":[]}'), '');
});

test('parseRetryAfter takes seconds or an HTTP date', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter('soon', now), null);
});
