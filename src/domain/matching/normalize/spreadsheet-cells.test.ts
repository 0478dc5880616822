import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPlaceholder, withoutTextGuard } from './spreadsheet-cells.ts';

describe('isPlaceholder', () => {
  it('the words and spreadsheet errors written for a missing value, in any case and padding', () => {
    for (const raw of [
      'NULL',
      'null',
      ' n/a ',
      'N/A',
      '#N/A',
      'None',
      'UNKNOWN',
      'undefined',
      '#VALUE!',
      '#REF!',
      '#NAME?',
      '#DIV/0!',
    ])
      assert.ok(isPlaceholder(raw), raw);
  });

  it('in a name, NULL and NONE are names', () => {
    assert.ok(!isPlaceholder('NULL', true));
    assert.ok(!isPlaceholder('None', true));
    assert.ok(isPlaceholder('N/A', true));
  });

  it('names and values are not', () => {
    for (const raw of ['Nan', 'NA', 'Nell', 'Una', 'NULLMAN', '', 'N', '#4', 'NONE OF THE ABOVE AT ALL'])
      assert.ok(!isPlaceholder(raw), raw);
  });
});

describe('withoutTextGuard', () => {
  it('a value kept as text by a formula or an apostrophe', () => {
    assert.equal(withoutTextGuard('="02760"'), '02760');
    assert.equal(withoutTextGuard("'02760"), '02760');
    assert.equal(withoutTextGuard("'(919) 555-1234"), '(919) 555-1234');
  });

  it('anything else as it is', () => {
    for (const value of ["'Connor", "O'BRIEN", '=SUM(A1)', '="', '02760', ''])
      assert.equal(withoutTextGuard(value), value);
  });
});
