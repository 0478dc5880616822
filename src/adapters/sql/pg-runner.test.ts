import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { numberedPlaceholders } from './pg-runner.ts';

describe('numberedPlaceholders', () => {
  it('numbers the ? placeholders in order', () => {
    assert.equal(
      numberedPlaceholders('UPDATE jobs SET state = ?, updated_at = ? WHERE id = ? AND state IN (?, ?)'),
      'UPDATE jobs SET state = $1, updated_at = $2 WHERE id = $3 AND state IN ($4, $5)',
    );
    assert.equal(numberedPlaceholders('SELECT 1'), 'SELECT 1');
  });

  it('leaves a ? in a string literal, a quoted identifier or a comment alone', () => {
    assert.equal(
      numberedPlaceholders(
        `SELECT 'why?', 'it''s ?', "odd?col" FROM t -- really?\nWHERE a = ? /* b = ? */ AND c = ?`,
      ),
      `SELECT 'why?', 'it''s ?', "odd?col" FROM t -- really?\nWHERE a = $1 /* b = ? */ AND c = $2`,
    );
  });

  it('keeps an unterminated literal as text', () => {
    assert.equal(numberedPlaceholders("SELECT ? || 'open ?"), "SELECT $1 || 'open ?");
  });
});
