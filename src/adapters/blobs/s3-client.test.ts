import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { isNotFound, objectKeyOf, scrub, storageError } from './s3-client.ts';

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const ACCESS = 'AKIAIOSFODNN7EXAMPLE';

/** Shaped like an SDK service error: raw response attached, message quoting a presigned URL. */
function sdkError(status: number | undefined, name: string, message: string): Error {
  return Object.assign(new Error(message), {
    name,
    $fault: 'client',
    $metadata: status === undefined ? {} : { httpStatusCode: status, requestId: 'tx123' },
    $response: { headers: { authorization: `AWS4-HMAC-SHA256 Credential=${ACCESS}/…` }, body: 'raw' },
  });
}

test('scrub removes SigV4 signatures, credentials and the given secrets', () => {
  const url =
    `https://s3.example/b/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${ACCESS}%2F20260101%2Fus-east-1` +
    '&X-Amz-Signature=0123abcd&X-Amz-Security-Token=tok&x-id=GetObject';
  const safe = scrub(`GET ${url} failed; secret ${SECRET}`, [SECRET, ACCESS]);
  assert.ok(
    !safe.includes('0123abcd') && !safe.includes('tok&') && !safe.includes(ACCESS) && !safe.includes(SECRET),
  );
  assert.match(safe, /X-Amz-Signature=\[redacted\]/);
  assert.match(safe, /x-id=GetObject/);
});

test('storageError: 5xx, throttling and no answer are UNAVAILABLE; other refusals INTERNAL', () => {
  assert.equal(storageError('read', sdkError(503, 'ServiceUnavailable', 'busy'), []).code, 'UNAVAILABLE');
  assert.equal(storageError('read', sdkError(429, 'SlowDown', 'slow'), []).code, 'UNAVAILABLE');
  assert.equal(
    storageError('read', sdkError(undefined, 'Error', 'connect ECONNREFUSED'), []).code,
    'UNAVAILABLE',
  );
  assert.equal(storageError('read', sdkError(403, 'AccessDenied', 'denied'), []).code, 'INTERNAL');
  assert.equal(storageError('read', sdkError(404, 'NoSuchBucket', 'no bucket'), []).code, 'INTERNAL');
});

test('storageError keeps neither the SDK error object nor secrets, and says nothing internal to clients', () => {
  const error = storageError(
    'upload',
    sdkError(
      403,
      'SignatureDoesNotMatch',
      `signature of https://h/b/k?X-Amz-Signature=feed for ${ACCESS} wrong`,
    ),
    [SECRET, ACCESS],
    'uploads/job_1/upl_2.csv',
  );
  assert.equal(error.message, 'object storage refused the request');
  const everything = inspect(error, { depth: 10, showHidden: true });
  assert.ok(
    !everything.includes(ACCESS) && !everything.includes('feed') && !everything.includes('$response'),
  );
  assert.match(everything, /upload uploads\/job_1\/upl_2\.csv/);
  assert.match(everything, /SignatureDoesNotMatch/);
  assert.match(everything, /tx123/);
});

test('isNotFound: a missing key, not a missing bucket', () => {
  assert.equal(isNotFound(sdkError(404, 'NoSuchKey', '')), true);
  assert.equal(isNotFound(sdkError(404, 'NotFound', '')), true);
  assert.equal(isNotFound(sdkError(404, 'NoSuchBucket', '')), false);
  assert.equal(isNotFound(sdkError(403, 'AccessDenied', '')), false);
});

test('objectKeyOf prepends the key prefix', () => {
  assert.equal(objectKeyOf({ keyPrefix: 'lm/' }, 'uploads/a'), 'lm/uploads/a');
  assert.equal(objectKeyOf({}, 'uploads/a'), 'uploads/a');
});
