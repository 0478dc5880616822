import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  computeMetrics,
  type EvaluatedRow,
  expectedCalibrationError,
  f1Score,
  MetricsAccumulator,
  NO_ERRORS_TAG,
  type RankedCandidate,
} from './metrics.ts';
import { parseTruthEntry, truthLayout } from './truth.ts';

const c = (voterbaseId: string, score = 100, method = 'voterbase_id'): RankedCandidate => ({
  voterbaseId,
  score,
  method,
});
const row = (
  truth: string,
  candidates: RankedCandidate[],
  pattern = 'p',
  errors: string[] = [],
): EvaluatedRow => ({
  truth: { voterbaseIds: truth === '' ? [] : truth.split('|'), pattern, errors },
  candidates,
});
const close = (actual: number | null, expected: number, message?: string) => {
  assert.ok(actual !== null, message ?? 'expected a number, got null');
  assert.ok(Math.abs(actual - expected) < 1e-12, `${message ?? ''} expected ${expected}, got ${actual}`);
};

describe('precision and recall', () => {
  test('perfect: every member found, every non-member left alone', () => {
    const m = computeMetrics([row('A', [c('A')]), row('B', [c('B')]), row('', [])], 1);
    assert.equal(m.overall.rows, 3);
    assert.equal(m.overall.members, 2);
    assert.equal(m.overall.nonMembers, 1);
    assert.equal(m.overall.predictions, 2);
    assert.equal(m.overall.correct, 2);
    assert.equal(m.overall.precision, 1);
    assert.equal(m.overall.recall, 1);
    assert.equal(m.overall.f1, 1);
    close(m.overall.matchRate, 2 / 3);
  });

  test('all wrong: precision 0, recall 0, F1 0 (not NaN)', () => {
    const m = computeMetrics([row('A', [c('X')]), row('B', [c('Y')])], 1);
    assert.equal(m.overall.predictions, 2);
    assert.equal(m.overall.correct, 0);
    assert.equal(m.overall.wrongVoter, 2);
    assert.equal(m.overall.precision, 0);
    assert.equal(m.overall.recall, 0);
    assert.equal(m.overall.f1, 0);
  });

  test('a non-member that gets a match costs precision, not recall', () => {
    const m = computeMetrics([row('A', [c('A')]), row('', [c('Z')]), row('', [])], 1);
    assert.equal(m.overall.nonMemberPredicted, 1);
    assert.equal(m.overall.wrongVoter, 0);
    assert.equal(m.overall.precision, 0.5);
    assert.equal(m.overall.recall, 1);
    close(m.overall.f1, (2 * 0.5 * 1) / 1.5);
  });

  test('mixed case with exact fractions: P = 2/3, R = 2/4', () => {
    const m = computeMetrics(
      [row('A', [c('A')]), row('B', [c('B')]), row('C', [c('X')]), row('D', []), row('', [])],
      1,
    );
    close(m.overall.precision, 2 / 3);
    close(m.overall.recall, 2 / 4);
    close(m.overall.f1, (2 * (2 / 3) * 0.5) / (2 / 3 + 0.5));
    close(m.overall.matchRate, 3 / 5);
  });

  test('couple rows: either true voter counts as correct, and the row is one member', () => {
    const m = computeMetrics([row('A|B', [c('B')]), row('C|D', [c('C')]), row('E|F', [c('X')])], 1);
    assert.equal(m.overall.members, 3);
    assert.equal(m.overall.correct, 2);
    close(m.overall.precision, 2 / 3);
    close(m.overall.recall, 2 / 3);
  });

  test('ties at rank 1: only the rank-1 candidate counts; the tie is reported and recall@2 sees it', () => {
    const m = computeMetrics([row('A', [c('X', 90), c('A', 90)]), row('B', [c('B', 90), c('Y', 80)])], 2);
    assert.equal(m.overall.correct, 1);
    assert.equal(m.overall.tiedAtRank1, 1);
    assert.deepEqual(m.overall.recallAtK, [0.5, 1]);
  });

  test('zero predictions: precision and F1 are null (n/a), never NaN; recall is 0', () => {
    const m = computeMetrics([row('A', []), row('', [])], 1);
    assert.equal(m.overall.predictions, 0);
    assert.equal(m.overall.precision, null);
    assert.equal(m.overall.f1, null);
    assert.equal(m.overall.recall, 0);
    assert.equal(m.expectedCalibrationError, null);
    assert.ok(m.thresholdCurve.every((p) => p.precision === null));
    assert.deepEqual(m.byMethod, []);
  });

  test('no members: recall is null; no rows at all: everything null or empty', () => {
    const m = computeMetrics([row('', [c('Z')])], 1);
    assert.equal(m.overall.recall, null);
    assert.equal(m.overall.precision, 0);
    assert.equal(m.overall.f1, null);
    const empty = computeMetrics([], 3);
    assert.equal(empty.overall.rows, 0);
    assert.equal(empty.overall.matchRate, null);
    assert.deepEqual(empty.overall.recallAtK, [null, null, null]);
    assert.deepEqual(empty.byPattern, []);
  });

  test('f1Score', () => {
    assert.equal(f1Score(null, 1), null);
    assert.equal(f1Score(0, 0), 0);
    close(f1Score(0.5, 1), 2 / 3);
  });
});

describe('recall@k', () => {
  test('counts a member once at the first rank that holds a true voter, up to maxK', () => {
    const m = computeMetrics(
      [
        row('A', [c('A'), c('X'), c('Y')]),
        row('B', [c('X'), c('B'), c('Y')]),
        row('C', [c('X'), c('Y'), c('C')]),
        row('D', [c('X'), c('Y'), c('Z')]),
        row('E|F', [c('X'), c('F'), c('E')]),
        row('', [c('X'), c('Y')]),
      ],
      3,
    );
    assert.equal(m.overall.members, 5);
    assert.deepEqual(m.overall.recallAtK, [1 / 5, 3 / 5, 4 / 5]);
    assert.equal(m.overall.recallAtK[0], m.overall.recall);
  });

  test('candidates deeper than maxK are ignored', () => {
    const m = computeMetrics([row('A', [c('X'), c('A')])], 1);
    assert.deepEqual(m.overall.recallAtK, [0]);
  });
});

describe('groups', () => {
  test('per pattern, per method, per error tag', () => {
    const m = computeMetrics(
      [
        row('A', [c('A', 100, 'voter_id')], 'ids'),
        row('B', [c('X', 100, 'voter_id')], 'ids', ['typo']),
        row('C', [c('C', 80, 'name_dob')], 'name_dob', ['typo', 'nickname']),
        row('D', [], 'name_dob', ['nickname', 'nickname']),
        row('', [c('Q', 70, 'name_dob')], 'name_dob', ['near_twin']),
      ],
      1,
    );
    assert.deepEqual(
      m.byPattern.map((p) => [p.pattern, p.rows, p.members, p.predictions, p.correct]),
      [
        ['ids', 2, 2, 2, 1],
        ['name_dob', 3, 2, 2, 1],
      ],
    );
    assert.deepEqual(
      m.byMethod.map((x) => [x.method, x.predictions, x.correct, x.precision, x.share]),
      [
        ['name_dob', 2, 1, 0.5, 0.5],
        ['voter_id', 2, 1, 0.5, 0.5],
      ],
    );
    const tags = Object.fromEntries(m.byErrorTag.map((t) => [t.tag, t]));
    assert.deepEqual(Object.keys(tags), [NO_ERRORS_TAG, 'near_twin', 'nickname', 'typo']);
    assert.equal(tags[NO_ERRORS_TAG]!.rows, 1);
    assert.equal(tags['typo']!.precision, 0.5);
    assert.equal(tags['typo']!.recall, 0.5);
    // A tag repeated on one row counts the row once.
    assert.equal(tags['nickname']!.rows, 2);
    assert.equal(tags['nickname']!.precision, 1);
    assert.equal(tags['nickname']!.recall, 0.5);
    assert.equal(tags['near_twin']!.precision, 0);
    assert.equal(tags['near_twin']!.recall, null);
  });
});

describe('calibration', () => {
  test('bands 0-9 … 90-100, fraction correct and mean score per band, and the ECE', () => {
    const m = computeMetrics(
      [
        row('A', [c('A', 95)]),
        row('B', [c('B', 100)]),
        row('C', [c('X', 91)]),
        row('D', [c('D', 55)]),
        row('E', [c('X', 59)]),
        row('', [c('X', 9.6)]),
        row('', [c('X', 10)]),
      ],
      1,
    );
    const bands = m.calibration;
    assert.equal(bands.length, 10);
    assert.deepEqual(
      bands.map((b) => `${b.from}-${b.to}`),
      ['0-9', '10-19', '20-29', '30-39', '40-49', '50-59', '60-69', '70-79', '80-89', '90-100'],
    );
    const top = bands[9]!;
    assert.equal(top.count, 3);
    assert.equal(top.correct, 2);
    close(top.fractionCorrect, 2 / 3);
    close(top.meanScore, (95 + 100 + 91) / 3);
    assert.equal(bands[5]!.count, 2);
    assert.equal(bands[5]!.fractionCorrect, 0.5);
    assert.equal(bands[0]!.count, 1, '9.6 is in band 0-9 (scores are floored into bands)');
    assert.equal(bands[1]!.count, 1);
    assert.equal(bands[3]!.fractionCorrect, null);
    assert.equal(bands[3]!.meanScore, null);
    const expected =
      (3 / 7) * Math.abs(2 / 3 - (95 + 100 + 91) / 300) +
      (2 / 7) * Math.abs(0.5 - (55 + 59) / 200) +
      (1 / 7) * Math.abs(0 - 0.096) +
      (1 / 7) * Math.abs(0 - 0.1);
    close(m.expectedCalibrationError, expected);
    close(expectedCalibrationError(bands, 7), expected);
  });

  test('a perfectly calibrated set has ECE 0', () => {
    const rows = [
      ...Array.from({ length: 10 }, (_, i) => row(`A${i}`, [c(i < 5 ? `A${i}` : 'X', 50)])),
      ...Array.from({ length: 4 }, (_, i) => row(`B${i}`, [c(`B${i}`, 100)])),
    ];
    close(computeMetrics(rows, 1).expectedCalibrationError, 0);
  });

  test('scores outside 0-100 are clamped', () => {
    const m = computeMetrics([row('A', [c('A', 140)]), row('B', [c('X', -5)])], 1);
    assert.equal(m.calibration[9]!.count, 1);
    assert.equal(m.calibration[9]!.meanScore, 100);
    assert.equal(m.calibration[0]!.count, 1);
  });
});

describe('threshold curve and histogram', () => {
  const rows: EvaluatedRow[] = [];
  for (let i = 0; i < 200; i++) {
    const score = (i * 37) % 101;
    const member = i % 5 !== 0;
    const correct = member && (i * 13) % 100 < score;
    rows.push(row(member ? `V${i}` : '', i % 7 === 0 ? [] : [c(correct ? `V${i}` : `W${i}`, score + 0.4)]));
  }
  const m = computeMetrics(rows, 1);

  test('one point per threshold 0..100; at 0 it equals the overall figures', () => {
    assert.deepEqual(
      m.thresholdCurve.map((p) => p.threshold),
      Array.from({ length: 101 }, (_, t) => t),
    );
    const first = m.thresholdCurve[0]!;
    assert.equal(first.predictions, m.overall.predictions);
    assert.equal(first.correct, m.overall.correct);
    assert.equal(first.precision, m.overall.precision);
    assert.equal(first.recall, m.overall.recall);
  });

  test('accepted predictions, correct predictions and recall never increase with the threshold', () => {
    for (let t = 1; t <= 100; t++) {
      const [a, b] = [m.thresholdCurve[t - 1]!, m.thresholdCurve[t]!];
      assert.ok(b.predictions <= a.predictions);
      assert.ok(b.correct <= a.correct);
      assert.ok((b.recall ?? 0) <= (a.recall ?? 0));
      assert.ok(b.correct <= b.predictions);
    }
  });

  test('a prediction is kept at t exactly when its score ≥ t', () => {
    const small = computeMetrics([row('A', [c('A', 79.6)]), row('B', [c('X', 80)])], 1);
    const at = (t: number) => small.thresholdCurve[t]!;
    assert.equal(at(79).predictions, 2);
    assert.equal(at(80).predictions, 1);
    assert.equal(at(80).precision, 0);
    assert.equal(at(81).predictions, 0);
    assert.equal(at(81).precision, null);
    assert.equal(at(81).recall, 0);
  });

  test('histogram bins of 5 hold every prediction, split into correct and incorrect', () => {
    assert.equal(m.scoreHistogram.length, 20);
    assert.deepEqual([m.scoreHistogram[0]!.from, m.scoreHistogram[0]!.to], [0, 4]);
    assert.deepEqual([m.scoreHistogram[19]!.from, m.scoreHistogram[19]!.to], [95, 100]);
    const correct = m.scoreHistogram.reduce((s, b) => s + b.correct, 0);
    const all = m.scoreHistogram.reduce((s, b) => s + b.correct + b.incorrect, 0);
    assert.equal(correct, m.overall.correct);
    assert.equal(all, m.overall.predictions);
  });
});

describe('accumulator and truth parsing', () => {
  test('maxK must be a positive integer', () => {
    assert.throws(() => new MetricsAccumulator(0), RangeError);
  });

  test('truth rows: couples split on |, errors on ;, missing pattern is "all"', () => {
    assert.deepEqual(parseTruthEntry('NC-1|NC-2', 'name_dob', 'typo;nickname'), {
      voterbaseIds: ['NC-1', 'NC-2'],
      pattern: 'name_dob',
      errors: ['typo', 'nickname'],
    });
    assert.deepEqual(parseTruthEntry('', undefined, undefined), {
      voterbaseIds: [],
      pattern: 'all',
      errors: [],
    });
    assert.deepEqual(parseTruthEntry(' NC-1 ', '', ''), {
      voterbaseIds: ['NC-1'],
      pattern: 'all',
      errors: [],
    });
  });

  test('truth header: case-insensitive; pattern and errors optional; the two ids required', () => {
    assert.deepEqual(truthLayout(['MatchBack_ID', 'voterbase_id']), {
      matchbackId: 0,
      voterbaseId: 1,
      pattern: -1,
      errors: -1,
    });
    assert.throws(() => truthLayout(['matchback_id', 'pattern']), /no voterbase_id column/);
  });
});
