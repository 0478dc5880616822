import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorCodes, STORAGE_FULL_MESSAGE } from '../domain/errors.ts';
import { mapErrorCode } from './error-mapping.ts';

test("a full storage is the service's 500, never a client error", () => {
  const mapped = mapErrorCode('STORAGE_FULL');
  assert.deepEqual(mapped, { status: 500, kind: 'Internal Error' });
  assert.equal(`${mapped.kind}: ${STORAGE_FULL_MESSAGE}`, "Internal Error: the service's storage is full");
});

test('every code maps to a status and a kind of the wire contract', () => {
  for (const code of errorCodes) {
    const { status, kind } = mapErrorCode(code);
    assert.ok(status >= 400 && status < 600, code);
    assert.match(kind, /^(Authorization|Validation|Rate Limit|Internal) Error$/, code);
  }
});
