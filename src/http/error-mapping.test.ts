import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError, errorCodes, STORAGE_FULL_MESSAGE } from '../domain/errors.ts';
import { errorAnswer, refusedRequestError } from './error-mapping.ts';

test("a full storage is the service's 500, never a client error", () => {
  const answer = errorAnswer(new AppError('STORAGE_FULL', STORAGE_FULL_MESSAGE), 'req_1');
  assert.equal(answer.status, 500);
  assert.equal(answer.error, "Internal Error: the service's storage is full");
});

test('every code maps to a status and a kind of the wire contract', () => {
  for (const code of errorCodes) {
    const { status, error } = errorAnswer(new AppError(code, 'x'), 'req_1');
    assert.ok(status >= 400 && status < 600, code);
    assert.match(error, /^(Authorization|Validation|Rate Limit|Internal) Error: x$/, code);
  }
});

test('framework errors take the kind of their status', () => {
  const kindOf = (statusCode: number) =>
    errorAnswer(Object.assign(new Error('m'), { statusCode }), 'req_1').error.split(':')[0];
  assert.deepEqual([400, 401, 403, 404, 408, 413, 415, 429, 500, 503].map(kindOf), [
    'Validation Error',
    'Authorization Error',
    'Authorization Error',
    'Validation Error',
    'Validation Error',
    'Validation Error',
    'Validation Error',
    'Rate Limit Error',
    'Internal Error',
    'Internal Error',
  ]);
});

test('errorAnswer: an AppError by its code, a framework 4xx by its status, anything else a 500 naming the request', () => {
  assert.deepEqual(
    errorAnswer(new AppError('VALIDATION_FAILED', 'max_matches must be an integer from 1 to 10'), 'req_1'),
    {
      status: 400,
      error: 'Validation Error: max_matches must be an integer from 1 to 10',
      code: 'VALIDATION_FAILED',
    },
  );
  assert.deepEqual(
    errorAnswer(new AppError('RATE_LIMITED', 'retry in 3 s', { retryAfterSeconds: 3 }), 'req_1'),
    {
      status: 429,
      error: 'Rate Limit Error: retry in 3 s',
      code: 'RATE_LIMITED',
    },
  );
  assert.deepEqual(errorAnswer(new AppError('STORAGE_FULL', STORAGE_FULL_MESSAGE), 'req_1'), {
    status: 500,
    error: "Internal Error: the service's storage is full",
    code: 'STORAGE_FULL',
  });
  const tooLarge = Object.assign(new Error('Request body is too large'), {
    statusCode: 413,
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
  });
  assert.deepEqual(errorAnswer(tooLarge, 'req_1'), {
    status: 413,
    error: 'Validation Error: Request body is too large',
    code: 'FST_ERR_CTP_BODY_TOO_LARGE',
  });
  assert.deepEqual(errorAnswer(Object.assign(new Error('no'), { statusCode: 401 }), 'req_1'), {
    status: 401,
    error: 'Authorization Error: no',
    code: 'BAD_REQUEST',
  });
  for (const unexpected of [
    new Error('ECONNREFUSED 10.0.0.5:5432'),
    Object.assign(new Error('x'), { statusCode: 502 }),
  ]) {
    assert.deepEqual(errorAnswer(unexpected, 'req_7'), {
      status: 500,
      error: 'Internal Error: the request failed; quote req_7 to the operator',
      code: 'INTERNAL',
    });
  }
  assert.equal(
    refusedRequestError('the request is not valid HTTP'),
    'Validation Error: the request is not valid HTTP',
  );
});
