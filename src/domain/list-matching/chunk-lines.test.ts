import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ChunkOutcome, outcomeOfLine, rowOfLine } from './chunk-lines.ts';

describe('chunk lines', () => {
  it('reads the row number from the start of an output line, as JSON.stringify writes it', () => {
    const line: ChunkOutcome = { r: 1234, c: [[91.5, 'name_zip', 'first=exact', ['NC-1', 'NC']]] };
    assert.equal(rowOfLine(JSON.stringify(line)), 1234);
    assert.equal(rowOfLine('{"r":7}'), 7);
    for (const other of ['', '{"c":[],"r":1}', '{"r":}', '{"r":12', 'r:1']) {
      assert.ok(Number.isNaN(rowOfLine(other)), other);
    }
  });

  it('turns an output line back into the outcome, candidates with their values', () => {
    const outcome = outcomeOfLine({
      r: 3,
      c: [
        [88, 'name_dob', '', ['NC-9', 'DEM', 'NC']],
        [40, 'name_zip', 'last=exact', ['NC-2', '', 'NC']],
      ],
      p: ['invalid_phone'],
      b: 1,
    });
    assert.deepEqual(outcome, {
      candidates: [
        { voter: -1, score: 88, method: 'name_dob', values: ['NC-9', 'DEM', 'NC'] },
        { voter: -1, score: 40, method: 'name_zip', explain: 'last=exact', values: ['NC-2', '', 'NC'] },
      ],
      problems: ['invalid_phone'],
      bestCount: 1,
    });
    assert.deepEqual(outcomeOfLine({ r: 4, c: [], u: 'no_candidates' }), {
      candidates: [],
      unmatchedReason: 'no_candidates',
    });
  });
});
