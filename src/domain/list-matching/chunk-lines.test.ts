import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MatchOutcome } from '../matching/matcher.ts';
import type { VoterSnapshot } from '../voters/voter-snapshot.ts';
import { type ChunkOutcome, chunkOutcomeOf, outcomeOfLine, rowOfLine } from './chunk-lines.ts';

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

  it('carries what a shard’s selection passed over, to be weighed with the other shards’', () => {
    // Only `fields` is read: a voter's values in the output's columns.
    const shard = {
      fields: (voter: number, columns: readonly number[]) => columns.map((c) => `${voter}.${c}`),
    };
    const outcome: MatchOutcome = {
      candidates: [{ voter: 4, score: 70, method: 'name_dob', explain: 'dob=exact', odds: 3, order: 40 }],
      oddsSum: 5.5,
      oddsParts: [5.5],
      relative: 0,
      passed: [
        { voter: 8, score: 30, method: 'name_dob', explain: 'dob=year', odds: 1.5, order: 80 },
        { voter: 9, score: 20, method: 'name_other', odds: 1, order: 90, maxScore: 89, uncorroborated: true },
      ],
    };
    const line = chunkOutcomeOf(6, outcome, shard as unknown as VoterSnapshot, [0, 2]);
    const back = outcomeOfLine(JSON.parse(JSON.stringify(line)) as ChunkOutcome);
    assert.deepEqual(back.passed, [
      {
        voter: -1,
        score: 30,
        method: 'name_dob',
        explain: 'dob=year',
        values: ['8.0', '8.2'],
        order: 80,
        odds: 1.5,
      },
      {
        voter: -1,
        score: 20,
        method: 'name_other',
        values: ['9.0', '9.2'],
        order: 90,
        odds: 1,
        maxScore: 89,
        uncorroborated: true,
      },
    ]);
    assert.deepEqual(
      back.candidates.map((c) => [c.score, c.order, c.values]),
      [[70, 40, ['4.0', '4.2']]],
    );
    // An outcome that cannot be weighed carries none.
    const { oddsSum: _unweighed, ...plain } = outcome;
    assert.equal(chunkOutcomeOf(6, plain, shard as unknown as VoterSnapshot, [0]).n, undefined);
  });
});
