import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { F, FIELD_COUNT, FIELDS, L, LEVEL_COUNTS, MAX_LEVELS, PRIOR_M } from './comparison-levels.ts';
import {
  at,
  buildModel,
  type CandidateEvidence,
  estimateFromPersons,
  type PersonEvidence,
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

const ALL_FIELDS = (1 << FIELD_COUNT) - 1;

/**
 * Synthetic sample persons, each with `candidates` candidates: a member (probability
 * `matchShare`) has its own voter among them (levels drawn from m) and the rest drawn from u;
 * a stranger has all of them drawn from u. A candidate's odds at even prior odds are then
 * (1 / candidates) × Π m/u, so its otherBits are Σ log2 u + log2(candidates).
 */
function synthesize(
  truth: Truth,
  persons: number,
  matchShare: number,
  candidates: number,
  seed: number,
  shape: (candidate: CandidateEvidence, own: boolean) => void = () => {},
): PersonEvidence[] {
  const random = prng(seed);
  const candidate = (side: 'm' | 'u'): CandidateEvidence => {
    const levels = new Array<number>(FIELD_COUNT).fill(0);
    let otherBits = Math.log2(candidates);
    for (const [field, dist] of Object.entries(truth)) {
      const level = draw(dist[side], random);
      levels[Number(field)] = level;
      otherBits += Math.log2(dist.u[level - 1]!);
    }
    const made = { levels, otherBits, teaches: ALL_FIELDS, identifies: ALL_FIELDS, personalBits: null };
    shape(made, side === 'm');
    return made;
  };
  return Array.from({ length: persons }, () => {
    const member = random() < matchShare;
    const list = Array.from({ length: candidates }, (_, i) => candidate(member && i === 0 ? 'm' : 'u'));
    return { rest: 0, candidates: list };
  });
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

describe('priorM and buildModel', () => {
  it('priorM lays PRIOR_M out at(field, level) = field * MAX_LEVELS + level, level 0 unused', () => {
    const m = priorM();
    assert.equal(m.length, FIELD_COUNT * MAX_LEVELS);
    assert.equal(at(F.dob, L.dob.typo), F.dob * MAX_LEVELS + L.dob.typo);
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
    assert.equal(model.weight[at(F.zip, L.zip.differ)], Math.log2(0.11 / 0.96));
    assert.ok(model.weight[at(F.zip, L.zip.differ)]! < 0);
    assert.equal(model.weight[at(F.suffix, L.binary.exact)], 0);
    assert.equal(model.weight[at(F.first, 0)], 0);
    assert.equal(buildModel(m, u, 0.5, 'prior').emIterations, 0);
  });
});

/**
 * m far from the priors (PRIOR_M), so that a fit that stays near them fails: per field, the
 * exact level lower or higher by 0.1-0.2 and some rarer level several times the prior's.
 */
const FIT_TRUTH: Truth = {
  [F.first]: {
    m: [0.7, 0.15, 0.03, 0.02, 0.02, 0.03, 0.05],
    u: [0.15, 0.02, 0.03, 0.01, 0.085, 0.005, 0.7],
  },
  [F.last]: { m: [0.7, 0.12, 0.02, 0.02, 0.14], u: [0.3, 0.03, 0.02, 0.05, 0.6] },
  [F.dob]: { m: [0.75, 0.01, 0.05, 0.11, 0.08], u: [0.01, 0.005, 0.02, 0.005, 0.96] },
  [F.zip]: { m: [0.7, 0.06, 0.24], u: [0.5, 0.01, 0.49] },
  [F.gender]: { m: [0.9, 0.1], u: [0.5, 0.5] },
};

/**
 * Each level of `truth` within a quarter of its distance from the prior, or 0.015 (a rare level
 * that weighs little either way, like a date that differs, is known only to about that).
 */
function assertLearnt(m: Float64Array, truth: Truth, fields = Object.keys(truth).map(Number)): void {
  const prior = priorM();
  for (const field of fields) {
    truth[field]!.m.forEach((expected, i) => {
      const got = m[at(field, i + 1)]!;
      const tolerance = Math.max(0.015, Math.abs(expected - prior[at(field, i + 1)]!) / 4);
      assert.ok(
        Math.abs(got - expected) <= tolerance,
        `field ${field} level ${i + 1}: m ${got} vs ${expected}`,
      );
    });
  }
}

describe('estimateFromPersons', () => {
  const share = (odds: number) => odds / (1 + odds);

  it('recovers m of each level and the list’s match rate from synthetic persons', () => {
    for (const matchShare of [0.7, 0.2]) {
      const fit = estimateFromPersons(synthesize(FIT_TRUTH, 12000, matchShare, 4, 42));
      assert.equal(fit.source, 'em');
      assert.ok(fit.iterations > 1);
      assert.ok(Math.abs(share(fit.matchOdds) - matchShare) < 0.03, `share ${share(fit.matchOdds)}`);
      assertLearnt(fit.m, FIT_TRUTH);
    }
  });

  it('recovers m of age from rows that give an age (or a birth year) instead of a date', () => {
    // A row compares one or the other, never both.
    const { [F.dob]: _, ...rest } = FIT_TRUTH;
    const truth: Truth = { ...rest, [F.age]: { m: [0.7, 0.2, 0.1], u: [0.05, 0.05, 0.9] } };
    const fit = estimateFromPersons(synthesize(truth, 12000, 0.7, 4, 11));
    assert.ok(Math.abs(share(fit.matchOdds) - 0.7) < 0.03, `share ${share(fit.matchOdds)}`);
    assertLearnt(fit.m, truth);
  });

  it('a household member beside the person does not teach that first names differ', () => {
    // Every person is a member, and its voter comes with a relative: same surname, another
    // first name (what EM over pairs put into its "match" class, saying a first name differs in
    // nearly half of all matches).
    const persons = synthesize(FIT_TRUTH, 3000, 1, 4, 5);
    let relatives = 0;
    for (const person of persons) {
      const own = person.candidates[0]!;
      if (own.levels[F.last] !== L.last.exact) continue;
      const relative = { ...own, levels: [...own.levels] };
      relative.levels[F.first] = L.first.differ;
      const u = FIT_TRUTH[F.first]!.u;
      relative.otherBits += Math.log2(u[L.first.differ - 1]! / u[own.levels[F.first]! - 1]!);
      person.candidates.push(relative);
      relatives++;
    }
    assert.ok(relatives > 1500, `${relatives} relatives`);
    const fit = estimateFromPersons(persons);
    const differ = fit.m[at(F.first, L.first.differ)]!;
    assert.ok(Math.abs(differ - 0.05) < 0.015, `m(first=differ) ${differ}, true 0.05, prior 0.02`);
  });

  it('counts the odds of the candidates not listed (rest): a person they make likely is a member', () => {
    // No candidate listed, but odds of a million among the others: members all, though no level says so.
    const persons = Array.from({ length: 300 }, () => ({ rest: 1e6, candidates: [] }));
    assert.ok(share(estimateFromPersons(persons).matchOdds) > 0.8);
    const strangers = Array.from({ length: 300 }, () => ({ rest: 1e-6, candidates: [] }));
    assert.ok(share(estimateFromPersons(strangers).matchOdds) < 0.1);
    // Odds past a double's range count as a sure member, never as NaN.
    const huge = estimateFromPersons([
      ...synthesize(FIT_TRUTH, 200, 0.5, 4, 2),
      { rest: Number.POSITIVE_INFINITY, candidates: [] },
      { rest: 1e308, candidates: synthesize(FIT_TRUTH, 1, 1, 4, 3)[0]!.candidates },
    ]);
    assert.ok(Number.isFinite(huge.matchOdds) && huge.m.every(Number.isFinite));
  });

  it('a field no candidate identifies the person without keeps its prior disagreement, and learns how it agrees', () => {
    // The birth date of true matches differs 30% of the time, but only namesakes could show it.
    const truth: Truth = {
      ...FIT_TRUTH,
      [F.dob]: { m: [0.21, 0, 0, 0.49, 0.3], u: FIT_TRUTH[F.dob]!.u },
    };
    const fit = estimateFromPersons(
      synthesize(truth, 4000, 0.7, 4, 3, (c) => {
        c.identifies &= ~(1 << F.dob);
      }),
    );
    const prior = priorM();
    const differ = L.dob.differ;
    assert.ok(Math.abs(fit.m[at(F.dob, differ)]! - prior[at(F.dob, differ)]!) < 1e-12);
    const exact = fit.m[at(F.dob, L.dob.exact)]!;
    const typo = fit.m[at(F.dob, L.dob.typo)]!;
    // The prior's split is 0.9 : 0.035.
    assert.ok(Math.abs(exact / (exact + typo) - 0.3) < 0.05, `exact ${exact}, typo ${typo}`);
  });

  it('a field no candidate teaches keeps its prior, and one few persons compare stays near it', () => {
    const fit = estimateFromPersons(
      synthesize(FIT_TRUTH, 6000, 0.7, 4, 8, (c, own) => {
        c.teaches &= ~(1 << F.last);
        // Gender compared for 1 in 100 candidates (1 in 100 of the persons' own voters).
        if (own ? c.otherBits % 1 < 0.99 : true) c.levels[F.gender] = 0;
      }),
    );
    const prior = priorM();
    for (let l = 1; l <= LEVEL_COUNTS[F.last]!; l++) {
      assert.ok(Math.abs(fit.m[at(F.last, l)]! - prior[at(F.last, l)]!) < 1e-12, `last level ${l}`);
    }
    const gender = fit.m[at(F.gender, 1)]!;
    assert.ok(
      Math.abs(gender - 0.97) < Math.abs(0.9 - 0.97) / 2,
      `m(gender=exact) ${gender}: the prior's 0.97 holds`,
    );
    // The other fields still learn (if only roughly: the surname's prior is wrong for this list).
    const first = fit.m[at(F.first, L.first.exact)]!;
    assert.ok(Math.abs(first - 0.7) < Math.abs(0.85 - 0.7) / 2, `m(first=exact) ${first}`);
  });

  it('fewer than 100 persons with candidates keep the prior m and still tell the match rate; none: even odds', () => {
    const few = estimateFromPersons([
      ...synthesize(FIT_TRUTH, 99, 0.9, 4, 1),
      ...Array.from({ length: 500 }, () => ({ rest: 0, candidates: [] })),
    ]);
    assert.equal(few.source, 'prior');
    assert.deepEqual(few.m, priorM());
    const enough = estimateFromPersons(synthesize(FIT_TRUTH, 150, 0.9, 4, 1));
    assert.equal(enough.source, 'em');
    assert.notDeepEqual(enough.m, priorM());
    assert.ok(enough.matchOdds > 1, `odds ${enough.matchOdds}`);
    const none = estimateFromPersons([]);
    assert.equal(none.source, 'prior');
    assert.equal(none.matchOdds, 1);
  });

  it('every field’s last level is its disagreement (what the fit learns only from identified candidates)', () => {
    for (const field of FIELDS) assert.ok(['differ', 'far'].includes(field.levels.at(-1)!), field.name);
  });
});
