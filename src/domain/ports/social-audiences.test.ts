import assert from 'node:assert/strict';
import { test } from 'node:test';
import { customerFileSourceOf, uploadSessionId } from './social-audiences.ts';

test('upload session ids are stable per job and audience, distinct otherwise, and safe integers', () => {
  const id = uploadSessionId('job_01', '2385');
  assert.equal(uploadSessionId('job_01', '2385'), id);
  assert.notEqual(uploadSessionId('job_02', '2385'), id);
  assert.notEqual(uploadSessionId('job_01', '2386'), id);
  for (let n = 0; n < 1000; n++) {
    const value = uploadSessionId(`job_${n}`, '1');
    assert.ok(Number.isSafeInteger(value) && value >= 1, String(value));
  }
});

test('Pattern #1 is partner-provided, Pattern #2 user-provided', () => {
  assert.equal(customerFileSourceOf(1), 'PARTNER_PROVIDED_ONLY');
  assert.equal(customerFileSourceOf(2), 'USER_PROVIDED_ONLY');
});
