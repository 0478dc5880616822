import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KEY } from '../index/blocking-keys.ts';
import { F, FIELD_COUNT, L } from '../score/comparison-levels.ts';
import type { ScoredCandidate } from '../score/score-candidates.ts';
import {
  isAnotherHouseholdMember,
  isAnotherPerson,
  isCorroborated,
  methodOf,
  selectMatches,
} from './select-matches.ts';

type Levels = Partial<Record<keyof typeof F, number>>;

function levels(values: Levels): Uint8Array {
  const lv = new Uint8Array(FIELD_COUNT);
  for (const [field, level] of Object.entries(values)) lv[F[field as keyof typeof F]] = level;
  return lv;
}

function candidate(voter: number, odds: number, values: Levels, sources = 0): ScoredCandidate {
  return { voter, weight: Math.log2(odds), odds, levels: levels(values), sources };
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

describe('isAnotherHouseholdMember', () => {
  const HOUSEHOLD: Levels = {
    first: L.first.differ,
    last: L.last.exact,
    dob: L.dob.differ,
    address: L.address.exact,
    zip: L.zip.exact,
    phone: L.binary.exact,
    email: L.binary.exact,
  };

  it('is never accepted, however much the shared surname, address, phone and e-mail add up to', () => {
    assert.equal(isAnotherHouseholdMember(levels(HOUSEHOLD)), true);
    const { matches } = selectMatches(
      scored([candidate(4, 1e9, HOUSEHOLD), candidate(5, 1e6, NAME_DOB)]),
      50,
      1,
    );
    assert.deepEqual(
      matches.map((m) => [m.voter, m.score]),
      [[5, Math.min(99, (100 * 1e6) / (1 + 1e6))]],
      'the household member is not taken, nor counted against the other',
    );
    const { matches: lone } = selectMatches(scored([candidate(4, 1e9, HOUSEHOLD)]), 50, 1);
    assert.deepEqual(lone, []);
  });

  it('another first name is another person unless only the birth year agrees (a re-keyed record)', () => {
    const member = (values: Levels) => isAnotherHouseholdMember(levels({ ...HOUSEHOLD, ...values }));
    assert.equal(member({ dob: 0 }), true, 'no date: a spouse or a sibling');
    assert.equal(member({ dob: L.dob.exact }), true, 'the same date to the day: a twin');
    assert.equal(member({ dob: L.dob.month }), false, 'the same birth month: the first name replaced');
    assert.equal(member({ age: L.age.year }), false, 'an age');
    assert.equal(member({ age: L.age.near }), false, 'an age a year off');
    assert.equal(member({ age: L.age.differ }), true, 'an age far off');
    for (const first of [
      L.first.nickname,
      L.first.typo,
      L.first.similar,
      L.first.initial,
      L.first.middle,
      0,
    ]) {
      assert.equal(member({ first, dob: 0 }), false, `first name level ${first} is the same person's`);
    }
  });

  it('JR and SR are father and son unless a full date says it is one person', () => {
    const suffix = (values: Levels) =>
      isAnotherHouseholdMember(
        levels({ ...NAMES_ONLY, suffix: L.suffix.differ, address: L.address.exact, ...values }),
      );
    assert.equal(suffix({}), true, 'no date');
    assert.equal(suffix({ dob: L.dob.differ }), true);
    assert.equal(suffix({ age: L.age.year }), true, 'nor an age');
    assert.equal(suffix({ dob: L.dob.exact }), false, 'the same date: a suffix mistyped');
    assert.equal(isAnotherHouseholdMember(levels({ ...NAMES_ONLY, suffix: L.suffix.exact })), false);
  });
});

describe('isAnotherPerson', () => {
  const MAN: Levels = { first: L.first.exact, last: L.last.differ, dob: L.dob.exact, state: L.binary.exact };
  it('a man under another surname is another man; a woman may have married', () => {
    assert.equal(isAnotherPerson(levels(MAN), true), true);
    assert.equal(isAnotherPerson(levels(MAN), false), false, 'a woman, or gender unknown');
    assert.equal(isAnotherPerson(levels({ ...MAN, phone: L.binary.exact }), true), false, 'his own phone');
    assert.equal(isAnotherPerson(levels({ ...MAN, email: L.binary.exact }), true), false, 'his own e-mail');
    assert.equal(isAnotherPerson(levels({ ...MAN, last: L.last.typo }), true), false);
  });

  it('nothing of the name agrees: both names differ and no middle name agrees', () => {
    const STRANGER: Levels = {
      first: L.first.differ,
      last: L.last.differ,
      age: L.age.year,
      address: L.address.exact,
    };
    assert.equal(isAnotherPerson(levels(STRANGER), false), true);
    assert.equal(isAnotherPerson(levels({ ...STRANGER, middle: L.middle.differ }), false), true);
    assert.equal(
      isAnotherPerson(levels({ ...STRANGER, phone: L.binary.exact }), false),
      true,
      'a household’s phone',
    );
    // A middle name that agrees keeps a record re-keyed with two other names.
    assert.equal(isAnotherPerson(levels({ ...STRANGER, middle: L.middle.initial }), false), false);
    assert.equal(isAnotherPerson(levels({ ...STRANGER, last: L.last.typo }), false), false);
  });

  it('a man at the row’s address, born the same day, is the row’s man with his surname mis-entered', () => {
    const HOME = { ...MAN, address: L.address.exact, zip: L.zip.exact };
    assert.equal(isAnotherPerson(levels(HOME), true), false);
    assert.equal(isAnotherPerson(levels({ ...HOME, dob: L.dob.typo }), true), false);
    // The address or the full date alone is not enough.
    assert.equal(isAnotherPerson(levels({ ...HOME, dob: L.dob.month }), true), true);
    assert.equal(isAnotherPerson(levels({ ...HOME, address: L.address.street }), true), true);
    const { dob: _, ...withoutDate } = HOME;
    assert.equal(isAnotherPerson(levels({ ...withoutDate, age: L.age.year }), true), true);
  });

  it('is what selection drops', () => {
    const { matches } = selectMatches(scored([candidate(4, 1e9, MAN)]), 50, 1, false, (voter) => voter === 4);
    assert.deepEqual(matches, []);
    const { matches: woman } = selectMatches(scored([candidate(4, 1e9, MAN)]), 50, 1, false, () => false);
    assert.equal(woman.length, 1);
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

  it('ZIP exact only when no address was compared', () => {
    yes({ ...NAMES_ONLY, zip: L.zip.exact }, 'zip without address');
    no({ ...NAMES_ONLY, zip: L.zip.exact, address: L.address.differ }, 'zip with a differing address');
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
