import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { utcDayOf } from './lookup-rights.ts';

describe('utcDayOf', () => {
  it('gives the UTC day, also across midnight and back', () => {
    const midnight = Date.UTC(2026, 10, 30);
    assert.equal(utcDayOf(midnight - 1), '2026-11-29');
    assert.equal(utcDayOf(midnight), '2026-11-30');
    assert.equal(utcDayOf(midnight + 86_399_999), '2026-11-30');
    assert.equal(utcDayOf(midnight + 86_400_000), '2026-12-01');
    assert.equal(utcDayOf(midnight - 1), '2026-11-29');
    assert.equal(utcDayOf(0), '1970-01-01');
    assert.equal(utcDayOf(-1), '1969-12-31');
  });
});
