import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { F, FIELD_COUNT, L } from './comparison-levels.ts';
import { priorM } from './fellegi-sunter.ts';
import {
  householdOdds,
  isPossibleHouseholdMember,
  personalBits,
  possibleOddsOf,
  sharesHousehold,
} from './household.ts';

type Levels = Partial<Record<keyof typeof F, number>>;

function levels(values: Levels): Uint8Array {
  const lv = new Uint8Array(FIELD_COUNT);
  for (const [field, level] of Object.entries(values)) lv[F[field as keyof typeof F]] = level;
  return lv;
}

const m = priorM();
/** A list of 70% voters whose non-members are one in ten a voter's relative. */
const odds = (values: Levels) => householdOdds(levels(values), m, 0.7 / 0.3, 0.1 / 0.9);
const maxScore = (values: Levels) => {
  const k = odds(values);
  return (100 * k) / (1 + k);
};

const HOME: Levels = { last: L.last.exact, address: L.address.exact, zip: L.zip.exact };

describe('the household alternative', () => {
  it('applies to a row naming someone who shares the surname, the address, a phone or an e-mail', () => {
    assert.equal(sharesHousehold(levels({ first: L.first.exact, last: L.last.exact })), true);
    assert.equal(sharesHousehold(levels({ first: L.first.differ, email: L.binary.exact })), true);
    assert.equal(
      sharesHousehold(levels({ first: L.first.exact, last: L.last.differ, zip: L.zip.exact })),
      false,
    );
    // Without a first name the row says nothing of which member it means.
    assert.equal(sharesHousehold(levels({ phone: L.binary.exact })), false);
    assert.equal(odds({ phone: L.binary.exact }), Number.POSITIVE_INFINITY);
  });

  it('barely touches the person: the same first name and date of birth', () => {
    assert.ok(maxScore({ ...HOME, first: L.first.exact, dob: L.dob.exact }) > 99.9);
    assert.ok(maxScore({ ...HOME, first: L.first.nickname, age: L.age.year }) > 99);
  });

  it('puts a twin (another first name, the same date) between a spouse and the person', () => {
    const twin = maxScore({ ...HOME, first: L.first.differ, dob: L.dob.exact });
    const spouse = maxScore({ ...HOME, first: L.first.differ, dob: L.dob.differ });
    const spouseSameYear = maxScore({ ...HOME, first: L.first.differ, age: L.age.year });
    assert.ok(spouse < 5, `spouse ${spouse}`);
    assert.ok(spouseSameYear < twin, `${spouseSameYear} < ${twin}`);
    assert.ok(twin > 50, `twin ${twin}`);
    assert.equal(
      isPossibleHouseholdMember(levels({ ...HOME, first: L.first.differ, dob: L.dob.exact })),
      true,
    );
    assert.equal(
      isPossibleHouseholdMember(levels({ ...HOME, first: L.first.differ, age: L.age.year })),
      false,
    );
  });

  it('keeps a father or son (JR against SR) below the default threshold even with every name alike', () => {
    const jr = { ...HOME, first: L.first.exact, middle: L.middle.exact, suffix: L.suffix.differ };
    assert.ok(maxScore(jr) < 50, String(maxScore(jr)));
    assert.ok(maxScore({ ...jr, dob: L.dob.differ }) < 5);
    // The same date of birth says it is one man with his suffix written otherwise.
    assert.ok(maxScore({ ...jr, dob: L.dob.exact }) > 90);
  });

  it('weighs by the list: where relatives are rare, another first name at the same address is the person', () => {
    const renamed: Levels = { ...HOME, first: L.first.differ, age: L.age.year };
    const common = householdOdds(levels(renamed), m, 1, 1 / 3);
    const rare = householdOdds(levels(renamed), m, 1, 0.015);
    assert.ok(rare > 20 * common, `${rare} vs ${common}`);
    assert.ok(personalBits(levels(renamed), m) < 0);
  });

  it('learns from the list how often the possible band is the voter', () => {
    const share = (odds: number) => odds / (1 + odds);
    // 1,000 voters at a household and full date, 2% of first names replaced: about 20 expected.
    assert.ok(share(possibleOddsOf(1000, 20, 0.02)) > 0.9, 'the band holds what renamed voters explain');
    assert.ok(share(possibleOddsOf(1000, 30, 0.02)) > 0.6, 'two thirds of it');
    // Far more than renamed voters explain (twins): the band's foot, even odds, not below.
    assert.equal(share(possibleOddsOf(1000, 200, 0.02)), 0.5);
    // A list with no such rows says nothing: about even.
    assert.equal(share(possibleOddsOf(0, 0, 0.02)), 0.5);
  });
});
