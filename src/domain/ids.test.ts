import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.ts';

describe('newId', () => {
  it('gives ids of the ULID layout, all different, ordered within a millisecond (past a refill of the random bytes)', () => {
    const now = 1_700_000_000_000;
    const ids = Array.from({ length: 1000 }, () => newId('req', now));
    for (const id of ids) assert.match(id, /^req_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
    // The random part differs from id to id (not only the counter).
    assert.ok(new Set(ids.map((id) => id.slice(-14))).size > 990);
  });
});
