import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { F, FIELD_COUNT, L, LEVEL_COUNTS, MAX_LEVELS, PRIOR_M } from './comparison-levels.ts';
import {
  at,
  buildModel,
  estimateMatchOdds,
  estimateWithEm,
  PatternCounts,
  priorM,
} from './fellegi-sunter.ts';

/** mulberry32: a small seeded PRNG, so the synthetic lists are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A level (1-based) drawn from a distribution over the levels. */
function draw(p: readonly number[], random: () => number): number {
  let r = random();
  for (let i = 0; i < p.length; i++) {
    r -= p[i]!;
    if (r < 0) return i + 1;
  }
  return p.length;
}

/** Per field (by index): m and u over its levels; fields not listed are never compared. */
type Truth = Record<number, { m: readonly number[]; u: readonly number[] }>;

/** Synthetic candidate pairs: per row a true match with probability `matchShare`, plus `others` non-matches. */
function synthesize(
  truth: Truth,
  rows: number,
  matchShare: number,
  others: number,
  seed: number,
): PatternCounts {
  const random = prng(seed);
  const counts = new PatternCounts();
  const levels = new Uint8Array(FIELD_COUNT);
  const pair = (side: 'm' | 'u') => {
    levels.fill(0);
    for (const [field, dist] of Object.entries(truth)) levels[Number(field)] = draw(dist[side], random);
    counts.add(levels);
  };
  for (let r = 0; r < rows; r++) {
    if (random() < matchShare) pair('m');
    for (let i = 0; i < others; i++) pair('u');
  }
  counts.rows = rows;
  return counts;
}

/** A random-pair u for every field: agreement rare, mostly 'differ' (the voter file's u). */
function randomPairU(): Float64Array {
  const u = new Float64Array(FIELD_COUNT * MAX_LEVELS);
  for (let f = 0; f < FIELD_COUNT; f++) {
    const n = LEVEL_COUNTS[f]!;
    for (let l = 1; l < n; l++) u[at(f, l)] = 0.02;
    u[at(f, n)] = 1 - 0.02 * (n - 1);
  }
  return u;
}

// Close to the priors (EM mixes 500 prior pseudo-pairs into m), different from them still.
const TRUTH: Truth = {
  [F.first]: {
    m: [0.9, 0.04, 0.02, 0.01, 0.01, 0.005, 0.015],
    u: [0.15, 0.02, 0.03, 0.01, 0.085, 0.005, 0.7],
  },
  [F.last]: { m: [0.88, 0.05, 0.02, 0.02, 0.03], u: [0.3, 0.03, 0.02, 0.05, 0.6] },
  [F.dob]: {
    m: [0.65, 0.02, 0.03, 0.25, 0.03, 0.01, 0.01],
    u: [0.01, 0.005, 0.02, 0.1, 0.05, 0.005, 0.81],
  },
  [F.zip]: { m: [0.85, 0.15], u: [0.5, 0.5] },
  [F.gender]: { m: [0.98, 0.02], u: [0.5, 0.5] },
};

describe('priorM and buildModel', () => {
  it('priorM lays PRIOR_M out at(field, level) = field * MAX_LEVELS + level, level 0 unused', () => {
    const m = priorM();
    assert.equal(m.length, FIELD_COUNT * MAX_LEVELS);
    assert.equal(at(F.dob, L.dob.year), F.dob * MAX_LEVELS + L.dob.year);
    for (let f = 0; f < FIELD_COUNT; f++) {
      assert.equal(m[at(f, 0)], 0);
      let sum = 0;
      for (let l = 1; l <= LEVEL_COUNTS[f]!; l++) {
        assert.equal(m[at(f, l)], PRIOR_M[f]![l]);
        sum += m[at(f, l)]!;
      }
      assert.ok(Math.abs(sum - 1) < 1e-9, `prior m of field ${f} sums to ${sum}`);
      for (let l = LEVEL_COUNTS[f]! + 1; l < MAX_LEVELS; l++) assert.equal(m[at(f, l)], 0);
    }
    // A fresh array each time: callers may modify it.
    m[at(F.first, 1)] = 0.1;
    assert.equal(priorM()[at(F.first, 1)], PRIOR_M[F.first]![1]);
  });

  it('buildModel: weight = log2(m/u), 0 where m or u is 0', () => {
    const m = priorM();
    const u = randomPairU();
    u[at(F.suffix, L.binary.exact)] = 0;
    const model = buildModel(m, u, 0.7, 'em', 12);
    assert.equal(model.m, m);
    assert.equal(model.u, u);
    assert.equal(model.priorMatchOdds, 0.7);
    assert.equal(model.source, 'em');
    assert.equal(model.emIterations, 12);
    assert.equal(model.weight[at(F.first, L.first.exact)], Math.log2(0.85 / 0.02));
    assert.equal(model.weight[at(F.zip, L.binary.differ)], Math.log2(0.12 / 0.98));
    assert.ok(model.weight[at(F.zip, L.binary.differ)]! < 0);
    assert.equal(model.weight[at(F.suffix, L.binary.exact)], 0);
    assert.equal(model.weight[at(F.first, 0)], 0);
    assert.equal(buildModel(m, u, 0.5, 'prior').emIterations, 0);
  });
});

describe('PatternCounts', () => {
  it('counts pairs by distinct pattern and copies the levels it keeps', () => {
    const counts = new PatternCounts();
    const levels = new Uint8Array(FIELD_COUNT);
    levels[F.first] = 1;
    counts.add(levels);
    counts.add(levels);
    levels[F.first] = 6;
    counts.add(levels);
    assert.equal(counts.pairs, 3);
    assert.equal(counts.patterns.size, 2);
    const counted = [...counts.patterns.values()].map((p) => [p.levels[F.first], p.count]);
    assert.deepEqual(counted, [
      [1, 2],
      [6, 1],
    ]);
  });
});

describe('estimateWithEm', () => {
  it('recovers m of each level and the matches per row from synthetic pairs', () => {
    const counts = synthesize(TRUTH, 3000, 0.8, 4, 42);
    const model = estimateWithEm(counts, randomPairU());
    assert.equal(model.source, 'em');
    assert.ok(model.emIterations > 0);
    for (const [field, { m }] of Object.entries(TRUTH)) {
      m.forEach((expected, i) => {
        const got = model.m[at(Number(field), i + 1)]!;
        assert.ok(Math.abs(got - expected) <= 0.05, `field ${field} level ${i + 1}: m ${got} vs ${expected}`);
      });
    }
    assert.equal(model.priorMatchOdds, 1, 'even odds: the rows’ match rate is estimated apart');
    // Scoring uses the voter file's u, not the pair-space u EM estimated alongside.
    assert.deepEqual(model.u, randomPairU());
    assert.equal(model.weight[at(F.first, 1)], Math.log2(model.m[at(F.first, 1)]! / 0.02));
  });

  it('one true match per row', () => {
    const model = estimateWithEm(synthesize(TRUTH, 3000, 1, 4, 7), randomPairU());
    assert.equal(model.source, 'em');
    assert.ok(Math.abs(model.m[at(F.first, 1)]! - 0.9) <= 0.05);
  });

  it('fewer than 2000 pairs (or no rows) keep the prior', () => {
    const u = randomPairU();
    const few = synthesize(TRUTH, 390, 0.8, 4, 1); // about 1,900 pairs
    assert.ok(few.pairs < 2000);
    const model = estimateWithEm(few, u);
    assert.equal(model.source, 'prior');
    assert.deepEqual(model.m, priorM());
    assert.equal(model.u, u);
    assert.equal(model.priorMatchOdds, 1);

    const noRows = synthesize(TRUTH, 3000, 0.8, 4, 1);
    noRows.rows = 0;
    assert.equal(estimateWithEm(noRows, u).source, 'prior');
  });

  it('a field whose EM m inverts (exact < differ) falls back to its prior, the others keep EM', () => {
    // Gender of true matches agrees only 20% of the time (a badly coded column).
    const truth: Truth = { ...TRUTH, [F.gender]: { m: [0.2, 0.8], u: [0.5, 0.5] } };
    const model = estimateWithEm(synthesize(truth, 3000, 0.8, 4, 3), randomPairU());
    assert.equal(model.source, 'em');
    const prior = priorM();
    assert.equal(model.m[at(F.gender, 1)], prior[at(F.gender, 1)]);
    assert.equal(model.m[at(F.gender, 2)], prior[at(F.gender, 2)]);
    // The identified fields are still estimated (not the prior).
    assert.notEqual(model.m[at(F.first, 1)], prior[at(F.first, 1)]);
    assert.ok(Math.abs(model.m[at(F.first, 1)]! - 0.9) <= 0.05);
    // Fields no pair compared keep their prior too (no data, only the pseudo-pairs).
    assert.ok(Math.abs(model.m[at(F.address, 1)]! - prior[at(F.address, 1)]!) < 1e-12);
  });

  it('a field whose "match" class disagrees nearly as often as it agrees keeps its prior (households)', () => {
    // First names of the "match" class agree exactly 50% of the time and differ 45%: what EM
    // finds when spouses and children, sharing surname and address, fill the class.
    const truth: Truth = {
      ...TRUTH,
      [F.first]: {
        m: [0.5, 0.02, 0.01, 0.01, 0.01, 0.005, 0.445],
        u: [0.15, 0.02, 0.03, 0.01, 0.085, 0.005, 0.7],
      },
    };
    const model = estimateWithEm(synthesize(truth, 3000, 0.8, 4, 5), randomPairU());
    assert.equal(model.source, 'em');
    const prior = priorM();
    assert.equal(model.m[at(F.first, L.first.differ)], prior[at(F.first, L.first.differ)]);
    assert.equal(model.m[at(F.first, L.first.exact)], prior[at(F.first, L.first.exact)]);
    assert.notEqual(model.m[at(F.last, L.last.exact)], prior[at(F.last, L.last.exact)]);
  });

  it('is deterministic', () => {
    const a = estimateWithEm(synthesize(TRUTH, 3000, 0.8, 4, 9), randomPairU());
    const b = estimateWithEm(synthesize(TRUTH, 3000, 0.8, 4, 9), randomPairU());
    assert.deepEqual(a, b);
  });
});

describe('estimateMatchOdds', () => {
  // Rows whose likelihood ratio says plainly which they are: members far above 1, strangers far below.
  const rows = (members: number, strangers: number) => [
    ...Array.from({ length: members }, (_, i) => 1e4 * (1 + (i % 7))),
    ...Array.from({ length: strangers }, (_, i) => 1e-4 * (1 + (i % 5))),
  ];

  it('a list of 20% voters: prior odds near 0.25 (the 50 pseudo-rows at even odds pull a little up)', () => {
    const odds = estimateMatchOdds(rows(1000, 4000));
    const share = odds / (1 + odds);
    assert.ok(Math.abs(share - 0.2) < 0.01, `share ${share}`);
  });

  it('a list mostly of voters never raises the odds above even', () => {
    assert.equal(estimateMatchOdds(rows(4000, 1000)), 1);
  });

  it('no rows, or a few, say little: even odds, or near them', () => {
    assert.equal(estimateMatchOdds([]), 1);
    const odds = estimateMatchOdds(rows(0, 10));
    assert.ok(odds > 0.5 && odds < 1, `odds ${odds}`);
  });

  it('uncertain rows count by their posterior: a list of ratio-1 rows is at even odds', () => {
    assert.ok(Math.abs(estimateMatchOdds(Array.from({ length: 1000 }, () => 1)) - 1) < 1e-3);
  });

  it('an infinite ratio (a row sure to be a member) counts as one member', () => {
    const odds = estimateMatchOdds([...rows(0, 950), Number.POSITIVE_INFINITY]);
    assert.ok(Number.isFinite(odds) && odds > 0 && odds < 0.1, `odds ${odds}`);
  });
});
