import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEY } from '../index/blocking-keys.ts';
import { F, FIELD_COUNT, L } from '../score/comparison-levels.ts';
import { POSSIBLE_MAX_SCORE } from '../score/household.ts';
import type { ScoredCandidate } from '../score/score-candidates.ts';
import { isCorroborated, methodOf, type PassedMatch, selectMatches } from './select-matches.ts';

type Levels = Partial<Record<keyof typeof F, number>>;

function levels(values: Levels): Uint8Array {
  const lv = new Uint8Array(FIELD_COUNT);
  for (const [field, level] of Object.entries(values)) lv[F[field as keyof typeof F]] = level;
  return lv;
}

function candidate(voter: number, odds: number, values: Levels, sources = 0): ScoredCandidate {
  return {
    voter,
    weight: Math.log2(odds),
    odds,
    levels: levels(values),
    sources,
  };
}

/** Name and dob agree: corroborated, method name_dob. */
const NAME_DOB: Levels = { first: L.first.exact, last: L.last.exact, dob: L.dob.exact };
const NAMES_ONLY: Levels = { first: L.first.exact, last: L.last.exact };

/** Candidates sorted best first, with the odds sum over them plus `others` for unkept candidates. */
function scored(candidates: ScoredCandidate[], others = 0) {
  return { best: candidates, oddsSum: candidates.reduce((sum, c) => sum + c.odds, others) };
}

describe('selectMatches', () => {
  it('score = 100 · odds / (1 + Σ odds), over all candidates', () => {
    const { matches, ambiguous } = selectMatches(
      scored([candidate(7, 30, NAME_DOB), candidate(3, 1, NAME_DOB)], 4),
      0,
      5,
    );
    assert.equal(ambiguous, false);
    assert.deepEqual(
      matches.map((m) => [m.voter, m.score]),
      [
        [7, (100 * 30) / 36],
        [3, 100 / 36],
      ],
    );
    assert.equal(matches[0]!.method, 'name_dob');
    assert.equal(matches[0]!.explain, 'first=exact last=exact dob=exact');
  });

  it('stops at the threshold (a score equal to it is kept)', () => {
    // Scores: 60, 20, 10 (Σ odds 9 → 1 + Σ = 10).
    const input = scored([candidate(1, 6, NAME_DOB), candidate(2, 2, NAME_DOB), candidate(3, 1, NAME_DOB)]);
    assert.deepEqual(
      selectMatches(input, 20, 5).matches.map((m) => m.voter),
      [1, 2],
    );
    assert.deepEqual(
      selectMatches(input, 20.0001, 5).matches.map((m) => m.voter),
      [1],
    );
    assert.deepEqual(selectMatches(input, 61, 5).matches, []);
  });

  it('returns at most maxMatches', () => {
    const input = scored([
      candidate(1, 60, NAME_DOB),
      candidate(2, 20, NAME_DOB),
      candidate(3, 10, NAME_DOB),
    ]);
    assert.deepEqual(
      selectMatches(input, 0, 2).matches.map((m) => m.voter),
      [1, 2],
    );
    assert.deepEqual(
      selectMatches(input, 0, 1).matches.map((m) => m.voter),
      [1],
    );
  });

  it('skips an uncorroborated candidate and keeps looking', () => {
    const input = scored([candidate(1, 60, NAMES_ONLY), candidate(2, 50, NAME_DOB)]);
    assert.deepEqual(
      selectMatches(input, 0, 1).matches.map((m) => m.voter),
      [2],
    );
  });

  it('flags the best match ambiguous when the best two odds are within 2×', () => {
    let result = selectMatches(scored([candidate(1, 10, NAME_DOB), candidate(2, 5, NAME_DOB)]), 0, 2);
    assert.equal(result.ambiguous, true);
    assert.equal(result.matches[0]!.explain, 'first=exact last=exact dob=exact ambiguous');
    assert.equal(result.matches[1]!.explain, 'first=exact last=exact dob=exact');

    result = selectMatches(scored([candidate(1, 10, NAME_DOB), candidate(2, 4.99, NAME_DOB)]), 0, 2);
    assert.equal(result.ambiguous, false);
    assert.ok(!result.matches[0]!.explain.includes('ambiguous'));

    result = selectMatches(scored([candidate(1, 10, NAME_DOB)]), 0, 2);
    assert.equal(result.ambiguous, false);
    assert.deepEqual(selectMatches(scored([]), 0, 2), { matches: [], ambiguous: false, oddsSum: 0 });
  });

  it('reports ambiguity even when the second candidate is not returned', () => {
    const result = selectMatches(scored([candidate(1, 10, NAME_DOB), candidate(2, 9, NAMES_ONLY)]), 0, 2);
    assert.equal(result.ambiguous, true);
    assert.deepEqual(
      result.matches.map((m) => [m.voter, m.explain]),
      [[1, 'first=exact last=exact dob=exact ambiguous']],
    );
  });

  it('tells what it passed over when asked: uncorroborated, past maxMatches or under the threshold, best first', () => {
    // Scores 60, 20, 10, 5 (Σ odds 19 → 1 + Σ = 20).
    const input = scored([
      candidate(1, 12, NAMES_ONLY),
      candidate(2, 4, NAME_DOB),
      candidate(3, 2, NAME_DOB),
      candidate(4, 1, NAME_DOB),
    ]);
    const passed: PassedMatch[] = [];
    const { matches } = selectMatches(input, 10, 1, false, passed);
    assert.deepEqual(
      matches.map((m) => m.voter),
      [2],
    );
    assert.deepEqual(
      passed.map((m) => [m.voter, m.score, m.corroborated, m.explain]),
      [
        [1, 60, false, 'first=exact last=exact'],
        [3, 10, true, 'first=exact last=exact dob=exact'],
        [4, 5, true, 'first=exact last=exact dob=exact'],
      ],
    );
    // Asking changes nothing selected; a rank-only selection counts every one as corroborated.
    assert.deepEqual(selectMatches(input, 10, 1).matches, matches);
    const ranked: PassedMatch[] = [];
    selectMatches(input, 90, 2, true, ranked);
    assert.deepEqual(
      ranked.map((m) => [m.voter, m.corroborated]),
      [
        [3, true],
        [4, true],
      ],
    );
  });

  it('rankOnly ignores the threshold and corroboration, still takes the top k', () => {
    const input = scored([
      candidate(1, 1, NAMES_ONLY),
      candidate(2, 0.5, { last: L.last.exact }),
      candidate(3, 0.1, {}),
    ]);
    assert.deepEqual(selectMatches(input, 90, 5).matches, []);
    const { matches } = selectMatches(input, 90, 2, true);
    assert.deepEqual(
      matches.map((m) => [m.voter, m.method]),
      [
        [1, 'name_other'],
        [2, 'name_other'],
      ],
    );
    assert.ok(matches[0]!.score < 90);
  });
});

describe('possible household members', () => {
  const TWIN: Levels = {
    first: L.first.differ,
    last: L.last.exact,
    dob: L.dob.exact,
    address: L.address.exact,
    zip: L.zip.exact,
  };

  it('are weighed, not dropped: their score stays in the possible band and sm.explain says so', () => {
    const { matches } = selectMatches(scored([candidate(4, 1e9, TWIN)]), 50, 1);
    assert.equal(matches.length, 1);
    assert.equal(matches[0]!.score, POSSIBLE_MAX_SCORE);
    assert.equal(matches[0]!.maxScore, POSSIBLE_MAX_SCORE);
    assert.match(matches[0]!.explain, / possible$/);
    // A profile threshold above the band excludes them.
    assert.deepEqual(selectMatches(scored([candidate(4, 1e9, TWIN)]), 90, 1).matches, []);
  });

  it('rank by score with the others, and count against them by their odds', () => {
    const { matches } = selectMatches(scored([candidate(5, 1e6, NAME_DOB), candidate(4, 1e5, TWIN)]), 0, 2);
    assert.deepEqual(
      matches.map((m) => m.voter),
      [5, 4],
    );
    assert.equal(matches[0]!.score, (100 * 1e6) / (1 + 1.1e6));
  });

  it('the relative outside the file takes its share of the posterior (odds ÷ household)', () => {
    const spouse = candidate(4, 1e6, { ...TWIN, dob: L.dob.differ });
    const relative = 1e6 / 0.25;
    const { matches } = selectMatches({ best: [spouse], oddsSum: 1e6 + relative, relative }, 0, 1);
    assert.ok(Math.abs(matches[0]!.score - 20) < 1e-3, String(matches[0]!.score));
  });
});

describe('isCorroborated', () => {
  const yes = (values: Levels, why: string) => assert.equal(isCorroborated(levels(values)), true, why);
  const no = (values: Levels, why: string) => assert.equal(isCorroborated(levels(values)), false, why);

  it('dob or age agreement at any level but differ', () => {
    for (const level of [L.dob.exact, L.dob.swapped, L.dob.month, L.dob.typo])
      yes({ ...NAMES_ONLY, dob: level }, `dob level ${level}`);
    no({ ...NAMES_ONLY, dob: L.dob.differ }, 'dob differ');
    yes({ ...NAMES_ONLY, age: L.age.year }, 'age year');
    yes({ ...NAMES_ONLY, age: L.age.near }, 'age near');
    no({ ...NAMES_ONLY, age: L.age.differ }, 'age differ');
  });

  it('phone or e-mail exact', () => {
    yes({ ...NAMES_ONLY, phone: L.binary.exact }, 'phone');
    yes({ ...NAMES_ONLY, email: L.binary.exact }, 'email');
    no({ ...NAMES_ONLY, phone: L.binary.differ, email: L.binary.differ }, 'phone and email differ');
  });

  it('address exact, unit or typo; not street or differ', () => {
    yes({ ...NAMES_ONLY, address: L.address.exact }, 'address exact');
    yes({ ...NAMES_ONLY, address: L.address.unit }, 'address unit');
    no(
      { ...NAMES_ONLY, last: L.last.differ, address: L.address.unit },
      'another unit of the building under another surname: a neighbour',
    );
    yes(
      { ...NAMES_ONLY, last: L.last.differ, address: L.address.unit, dob: L.dob.exact },
      'with a date of birth that agrees',
    );
    yes({ ...NAMES_ONLY, address: L.address.typo }, 'address typo');
    no({ ...NAMES_ONLY, address: L.address.street }, 'address street');
    no({ ...NAMES_ONLY, address: L.address.differ }, 'address differ');
  });

  it('ZIP exact without an address, or under the same name with another address (a move within the ZIP)', () => {
    yes({ ...NAMES_ONLY, zip: L.zip.exact }, 'zip without address');
    yes(
      { ...NAMES_ONLY, zip: L.zip.exact, address: L.address.differ },
      'the same name at another address of the ZIP: the score weighs mover against namesake',
    );
    no(
      { ...NAMES_ONLY, last: L.last.similar, zip: L.zip.exact, address: L.address.differ },
      'a surname that only sounds alike at another address',
    );
    no(
      { ...NAMES_ONLY, zip: L.zip.transposed, address: L.address.differ },
      'another address, the ZIP mistyped',
    );
    yes(
      { ...NAMES_ONLY, zip: L.zip.exact, address: L.address.street },
      'the same name on the same street and ZIP, another house number',
    );
    no(
      { ...NAMES_ONLY, last: L.last.differ, zip: L.zip.exact, address: L.address.street },
      'the same first name on the same street is a neighbour',
    );
    no({ ...NAMES_ONLY, address: L.address.street }, 'the same street in another ZIP');
    no({ ...NAMES_ONLY, zip: L.zip.differ }, 'zip differ');
  });

  it('a ZIP with two neighbouring digits swapped only under the same name', () => {
    yes({ ...NAMES_ONLY, zip: L.zip.transposed }, 'the same name, the ZIP mistyped');
    yes({ ...NAMES_ONLY, first: L.first.nickname, zip: L.zip.transposed }, 'a nickname');
    no({ ...NAMES_ONLY, last: L.last.differ, zip: L.zip.transposed }, 'another surname');
    no({ ...NAMES_ONLY, last: L.last.similar, zip: L.zip.transposed }, 'a surname that sounds alike');
    no({ ...NAMES_ONLY, first: L.first.differ, zip: L.zip.transposed }, 'another first name');
    yes(
      { ...NAMES_ONLY, zip: L.zip.transposed, address: L.address.street },
      'the same street, the house number and the ZIP mistyped',
    );
    no(
      { ...NAMES_ONLY, last: L.last.differ, zip: L.zip.transposed, address: L.address.street },
      'the same first name on that street is a neighbour',
    );
    no({ ...NAMES_ONLY, zip: L.zip.transposed, address: L.address.differ }, 'another street');
  });

  it('a ZIP alone does not carry a surname that only sounds alike; a typo of it, or a date, does', () => {
    const soundAlike = { ...NAMES_ONLY, last: L.last.similar };
    no({ ...soundAlike, zip: L.zip.exact }, 'sound-alike surname in the same ZIP: another family');
    yes({ ...NAMES_ONLY, last: L.last.typo, zip: L.zip.exact }, 'a typo of the surname in the same ZIP');
    yes({ ...NAMES_ONLY, first: L.first.similar, zip: L.zip.exact }, 'a sound-alike first name in the ZIP');
    yes({ ...soundAlike, zip: L.zip.exact, dob: L.dob.exact }, 'with a date of birth');
    yes({ ...soundAlike, zip: L.zip.exact, distance: L.distance.near }, 'within half a mile');
    yes({ ...soundAlike, distance: L.distance.close }, 'close by, without a ZIP');
  });

  it('city or state alone are not enough', () => {
    no({ ...NAMES_ONLY, city: L.binary.exact }, 'city');
    no({ ...NAMES_ONLY, state: L.binary.exact }, 'state');
    no({ ...NAMES_ONLY, gender: L.binary.exact, middle: L.middle.exact, suffix: L.binary.exact }, 'names');
  });

  it('distance near or close, not radius or far, and not against a differing address', () => {
    yes({ ...NAMES_ONLY, distance: L.distance.near }, 'near');
    yes({ ...NAMES_ONLY, distance: L.distance.close }, 'close');
    no({ ...NAMES_ONLY, distance: L.distance.radius }, 'radius');
    no({ ...NAMES_ONLY, distance: L.distance.far }, 'far');
    no({ ...NAMES_ONLY, distance: L.distance.near, address: L.address.differ }, 'near, address differs');
  });

  it('names only, or nothing, are not', () => {
    no(NAMES_ONLY, 'names');
    no({}, 'nothing');
  });
});

describe('methodOf', () => {
  const method = (values: Levels, sources = 0) => methodOf(candidate(0, 1, values, sources));
  const EVERYTHING: Levels = {
    ...NAMES_ONLY,
    address: L.address.exact,
    dob: L.dob.exact,
    email: L.binary.exact,
    phone: L.binary.exact,
    zip: L.zip.exact,
    city: L.binary.exact,
    distance: L.distance.near,
  };

  it('follows name_address > name_dob > email > phone > name_zip > name_city > name_proximity > name_other', () => {
    const order: [keyof typeof F, string][] = [
      ['address', 'name_address'],
      ['dob', 'name_dob'],
      ['email', 'email'],
      ['phone', 'phone'],
      ['zip', 'name_zip'],
      ['city', 'name_city'],
      ['distance', 'name_proximity'],
    ];
    const values: Levels = { ...EVERYTHING };
    for (const [field, expected] of order) {
      assert.equal(method(values), expected, `with ${Object.keys(values).join(',')}`);
      delete values[field];
    }
    assert.equal(method(values), 'name_other');
  });

  it('counts only agreeing levels', () => {
    assert.equal(method({ ...NAMES_ONLY, address: L.address.unit }), 'name_address');
    assert.equal(method({ ...NAMES_ONLY, address: L.address.typo }), 'name_address');
    assert.equal(method({ ...NAMES_ONLY, address: L.address.street, age: L.age.year }), 'name_dob');
    assert.equal(method({ ...NAMES_ONLY, age: L.age.near }), 'name_dob');
    assert.equal(method({ ...NAMES_ONLY, age: L.age.differ, zip: L.zip.exact }), 'name_zip');
    assert.equal(method({ ...NAMES_ONLY, dob: L.dob.differ, zip: L.zip.exact }), 'name_zip');
    assert.equal(method({ ...NAMES_ONLY, email: L.binary.differ, phone: L.binary.differ }), 'name_other');
    assert.equal(method({ ...NAMES_ONLY, zip: L.zip.differ, city: L.binary.exact }), 'name_city');
  });

  it('name_proximity for any distance level or a candidate found by map cell + surname', () => {
    assert.equal(method({ ...NAMES_ONLY, distance: L.distance.far }), 'name_proximity');
    assert.equal(method(NAMES_ONLY, 1 << KEY.cellLast), 'name_proximity');
    assert.equal(method(NAMES_ONLY, 1 << KEY.zipLast), 'name_other');
  });
});
