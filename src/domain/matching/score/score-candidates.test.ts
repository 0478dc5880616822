import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryVoterSnapshot } from '../../voters/in-memory-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS } from '../../voters/voter-columns.ts';
import { CandidateSet } from '../candidates/candidate-set.ts';
import { buildMatchIndex } from '../index/build-match-index.ts';
import { type InputFields, normalizeInput } from '../normalize/person.ts';
import { prepareQuery, type Query } from './compare-person.ts';
import { explainLevels, F, FIELD_COUNT, L } from './comparison-levels.ts';
import { at, buildModel, priorM } from './fellegi-sunter.ts';
import { householdOdds } from './household.ts';
import { estimateRandomPairU } from './random-pair-u.ts';
import { type ScoredCandidate, scoreCandidates } from './score-candidates.ts';

const AS_OF = new Date('2024-06-01T00:00:00Z');
const row = (fields: Record<string, string>) => CORE_VOTER_COLUMNS.map((column) => fields[column] ?? '');

const FIRSTS = ['JAMES', 'ROBERT', 'LINDA', 'KAREN', 'DAVID', 'SUSAN', 'PAUL', 'NANCY'];
const STREETS = ['OAK ST', 'MAPLE AVE', 'PINE RD', 'CEDAR LN'];
const rows: string[][] = [];
// 0-39: forty SMITHs in one ZIP.
for (let i = 0; i < 40; i++) {
  rows.push(
    row({
      first_name: FIRSTS[i % FIRSTS.length]!,
      last_name: 'SMITH',
      address1: `${100 + i} ${STREETS[i % STREETS.length]}`,
      city: 'RALEIGH',
      state: 'NC',
      zip: '27601',
      dob: `19${50 + i}0${1 + (i % 9)}1${i % 10}`,
      gender: i % 2 === 0 ? 'M' : 'F',
    }),
  );
}
const SHARED = {
  address1: '14 Elm St',
  city: 'RALEIGH',
  state: 'NC',
  zip: '27601',
  dob: '19700315',
  gender: 'M',
};
rows.push(row({ first_name: 'JOHN', last_name: 'ZBIGNIEWSKI', ...SHARED })); // 40: the only ZBIGNIEWSKI
rows.push(row({ first_name: 'JOHN', last_name: 'SMITH', ...SHARED })); // 41: the 41st SMITH, same household
// 42-44: three identical records (a duplicated voter): equal weights.
const TWIN = {
  first_name: 'MARY',
  last_name: 'JONES',
  address1: '9 Pine Rd',
  state: 'NC',
  zip: '27601',
  dob: '19850101',
};
for (let i = 0; i < 3; i++) rows.push(row(TWIN));
rows.push(row({ first_name: 'JONATHAN', last_name: 'SMYTHE', state: 'NC', zip: '27603', dob: '19700315' })); // 45

const index = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, rows), AS_OF);
const n = index.size;
const model = buildModel(priorM(), estimateRandomPairU(index), 0.8, 'prior');

function query(fields: InputFields): Query {
  return prepareQuery(index, normalizeInput(fields, AS_OF).persons[0]!);
}

/** Every voter as a candidate, in the given order (default: descending, the worst case for ties). */
function allCandidates(order: number[] = [...Array(n).keys()].reverse()): CandidateSet {
  return CandidateSet.of(order.map((voter) => [voter, 1] as const));
}

const isSorted = (best: ScoredCandidate[]) =>
  best.every(
    (c, i) =>
      i === 0 ||
      best[i - 1]!.weight > c.weight ||
      (best[i - 1]!.weight === c.weight && best[i - 1]!.voter < c.voter),
  );

/** A row of voter 41's (and, but for the surname, voter 40's) values. */
const JOHN_AT_ELM = {
  first_name: 'John',
  address1: '14 Elm St',
  zip: '27601',
  dob: '1970-03-15',
  gender: 'M',
};

describe('scoreCandidates', () => {
  it('ranks the true voter first, despite a nickname and an abbreviated street', () => {
    const q = query({
      first_name: 'Jim',
      last_name: 'Smith',
      address1: '116 Oak Street',
      zip: '27601',
      dob: '1966-08-16',
    });
    // Voter 16: JAMES SMITH, 116 OAK ST, born 1966-08-16.
    assert.equal(rows[16]![CORE_VOTER_COLUMNS.indexOf('address1')], '116 OAK ST');
    const { best } = scoreCandidates(index, model, q, allCandidates(), 5);
    assert.equal(best[0]!.voter, 16);
    assert.equal(
      explainLevels(best[0]!.levels),
      'first=nickname last=exact dob=exact address=exact zip=exact',
    );
    assert.ok(best[0]!.weight > best[1]!.weight + 10, `${best[0]!.weight} vs ${best[1]!.weight}`);
  });

  it('keeps the best `keep`, sorted by weight then voter index, whatever the candidate order', () => {
    const q = query({ first_name: 'Mary', last_name: 'Jones', zip: '27601' });
    const all = scoreCandidates(index, model, q, allCandidates(), n).best;
    assert.equal(all.length, n);
    assert.ok(isSorted(all));
    assert.deepEqual(
      all.slice(0, 3).map((c) => c.voter),
      [42, 43, 44],
    );
    assert.equal(all[0]!.weight, all[2]!.weight);
    for (const keep of [1, 2, 3, 4, 10]) {
      for (const order of [
        [...Array(n).keys()],
        [...Array(n).keys()].reverse(),
        [44, 42, 43, 0, 45, 41, 40],
      ]) {
        const { best } = scoreCandidates(index, model, q, allCandidates(order), keep);
        const expected = all.filter((c) => order.includes(c.voter)).slice(0, keep);
        assert.deepEqual(
          best.map((c) => [c.voter, c.weight]),
          expected.map((c) => [c.voter, c.weight]),
          `keep ${keep}, order ${order.slice(0, 3)}…`,
        );
      }
    }
  });

  it('returns nothing for no candidates', () => {
    assert.deepEqual(scoreCandidates(index, model, query({ last_name: 'SMITH' }), new CandidateSet(), 3), {
      best: [],
      oddsSum: 0,
      relative: 0,
      oddsParts: [],
    });
  });

  it('odds = prior odds × 2^weight, and the odds sum is over all candidates, not only those kept', () => {
    const q = query({ first_name: 'John', last_name: 'Smith', zip: '27601', dob: '1970' });
    const all = scoreCandidates(index, model, q, allCandidates(), n);
    // With the likeliest relative outside the file (household.ts): one, however many candidates share the household.
    let sum = 0;
    let relative = 0;
    for (const c of all.best) {
      assert.ok(Math.abs(c.odds - (0.8 / n) * 2 ** c.weight) <= 1e-12 * c.odds);
      sum += c.odds;
      const household = householdOdds(c.levels, model.m, model.priorMatchOdds, model.relativeOdds);
      relative = Math.max(relative, c.odds / household);
    }
    assert.ok(relative > 0, 'the Smiths share a surname');
    assert.ok(Math.abs(all.relative - relative) <= 1e-9 * relative);
    sum += relative;
    assert.ok(Math.abs(all.oddsSum - sum) <= 1e-9 * sum);
    const one = scoreCandidates(index, model, q, allCandidates(), 1);
    assert.equal(one.best.length, 1);
    assert.ok(Math.abs(one.oddsSum - sum) <= 1e-9 * sum);
  });

  it('a non-exact agreement adds the model weight of its level', () => {
    const q = query({ first_name: 'Jon', last_name: 'Smythe', zip: '27601', dob: '1970-03-15' });
    const { best } = scoreCandidates(index, model, q, allCandidates([45]), 1);
    const c = best[0]!;
    assert.equal(explainLevels(c.levels), 'first=nickname last=exact dob=exact zip=differ');
    // SMYTHE is held by one voter: its exact weight is log2(m / (1/n)); so is the date, by the
    // voters born that day.
    const expected =
      model.weight[at(F.first, L.first.nickname)]! +
      Math.log2(model.m[at(F.last, L.last.exact)]! * n) +
      Math.log2((model.m[at(F.dob, L.dob.exact)]! * n) / index.dobCount(19700315)) +
      model.weight[at(F.zip, L.zip.differ)]!;
    assert.ok(Math.abs(c.weight - expected) < 1e-9, `${c.weight} vs ${expected}`);
  });

  it('an exact match on a rare surname weighs more than on a common one', () => {
    const shared = JOHN_AT_ELM;
    const rare = scoreCandidates(
      index,
      model,
      query({ ...shared, last_name: 'Zbigniewski' }),
      allCandidates(),
      1,
    );
    const common = scoreCandidates(
      index,
      model,
      query({ ...shared, last_name: 'Smith' }),
      allCandidates(),
      1,
    );
    assert.equal(rare.best[0]!.voter, 40);
    assert.equal(common.best[0]!.voter, 41);
    assert.equal(explainLevels(rare.best[0]!.levels), explainLevels(common.best[0]!.levels));
    // Same levels everywhere: the difference is the surname's frequency, 41 SMITHs against 1.
    const difference = rare.best[0]!.weight - common.best[0]!.weight;
    assert.ok(Math.abs(difference - Math.log2(41)) < 1e-9, String(difference));
  });

  it('a name written otherwise but exact (other spaces) weighs as common as the voter’s name', () => {
    const shared = JOHN_AT_ELM;
    const written = scoreCandidates(
      index,
      model,
      query({ ...shared, last_name: 'Smi Th' }),
      allCandidates(),
      2,
    );
    const plain = scoreCandidates(index, model, query({ ...shared, last_name: 'Smith' }), allCandidates(), 2);
    const of41 = (best: ScoredCandidate[]) => best.find((c) => c.voter === 41)!;
    assert.equal(explainLevels(of41(written.best).levels), explainLevels(of41(plain.best).levels));
    // SMI TH is no voter's spelling: without the voter's count it weighed as the average surname.
    assert.ok(Math.abs(of41(written.best).weight - of41(plain.best).weight) < 1e-9);
  });

  /**
   * The weight of agreeing on `common` (held by 18 of 20 voters) less that of agreeing on `rare`
   * (2 of 20), the names (each one voter's) and every other level the same: log2(9) when the
   * field weighs by its value's share of the file.
   */
  function shareDifference(column: 'state' | 'zip', common: string, rare: string): number {
    const people = Array.from({ length: 20 }, (_, i) =>
      row({ first_name: 'ANN', last_name: `DOE${i}`, state: 'NC', [column]: i < 18 ? common : rare }),
    );
    const shares = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, people), AS_OF);
    const shareModel = buildModel(priorM(), estimateRandomPairU(shares), 1, 'prior');
    const weightOf = (voter: number, value: string) => {
      const fields = { first_name: 'Ann', last_name: `Doe${voter}`, [column]: value };
      const q = prepareQuery(shares, normalizeInput(fields, AS_OF).persons[0]!);
      return scoreCandidates(shares, shareModel, q, CandidateSet.of([[voter, 1]]), 1).best[0]!.weight;
    };
    return weightOf(19, rare) - weightOf(0, common);
  }

  it('agreeing on a state or a ZIP weighs by its share of the file', () => {
    const state = shareDifference('state', 'NC', 'WY');
    assert.ok(Math.abs(state - Math.log2(9)) < 1e-9, String(state));
    const zip = shareDifference('zip', '27601', '27502');
    assert.ok(Math.abs(zip - Math.log2(9)) < 1e-9, String(zip));
  });

  it('term frequency of an exact address counts the households at that house and street', () => {
    const q = query({ first_name: 'John', last_name: 'Zbigniewski', address1: '14 Elm St', state: 'NC' });
    const { best } = scoreCandidates(index, model, q, allCandidates([40]), 1);
    const c = best[0]!;
    assert.equal(explainLevels(c.levels), 'first=exact last=exact address=exact state=exact');
    const expected =
      Math.log2(model.m[at(F.first, L.first.exact)]! / (2 / n)) + // two JOHNs
      Math.log2(model.m[at(F.last, L.last.exact)]! * n) + // one ZBIGNIEWSKI
      Math.log2(model.m[at(F.address, L.address.exact)]! / (2 / n)) + // two voters at 14 ELM ST
      Math.log2(model.m[at(F.state, L.binary.exact)]!); // every voter's state
    assert.ok(Math.abs(c.weight - expected) < 1e-9, `${c.weight} vs ${expected}`);
  });

  it('copies each kept candidate’s levels and sources', () => {
    const q = query({ first_name: 'Mary', last_name: 'Jones' });
    const { best } = scoreCandidates(
      index,
      model,
      q,
      CandidateSet.of([
        [42, 0b101],
        [0, 2],
      ]),
      2,
    );
    assert.equal(best[0]!.voter, 42);
    assert.equal(best[0]!.sources, 0b101);
    assert.equal(best[0]!.levels.length, FIELD_COUNT);
    assert.notEqual(best[0]!.levels, best[1]!.levels);
    assert.equal(best[1]!.levels[F.last], L.last.differ);
  });
});

describe('scoreCandidates on a very common first name', () => {
  // 300 MICHAELs: an exact MICHAEL says little, a MIKE ↔ MICHAEL nickname as such says more.
  const common: string[][] = [];
  for (let i = 0; i < 300; i++) {
    common.push(
      row({ first_name: 'MICHAEL', last_name: `L${i}`, state: 'NC', zip: '27601', dob: '19700101' }),
    );
  }
  common.push(row({ first_name: 'MIKE', last_name: 'JONES', state: 'NC', zip: '27601' })); // 300
  common.push(row({ first_name: 'MICHAEL', last_name: 'JONES', state: 'NC', zip: '27601' })); // 301
  const commonIndex = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, common), AS_OF);
  const commonModel = buildModel(priorM(), estimateRandomPairU(commonIndex), 0.8, 'prior');

  it('never weighs an exact agreement below a nickname one: the exact namesake ranks first', () => {
    const q = prepareQuery(
      commonIndex,
      normalizeInput({ first_name: 'Michael', last_name: 'Jones', zip: '27601' }, AS_OF).persons[0]!,
    );
    const { best } = scoreCandidates(
      commonIndex,
      commonModel,
      q,
      CandidateSet.of([
        [300, 1],
        [301, 1],
      ]),
      2,
    );
    assert.deepEqual(
      best.map((c) => [c.voter, explainLevels(c.levels)]),
      [
        [301, 'first=exact last=exact zip=exact'],
        [300, 'first=nickname last=exact zip=exact'],
      ],
    );
    assert.ok(best[0]!.weight >= best[1]!.weight);
  });
});

describe('scoreCandidates: a first name’s birth-year cohort', () => {
  // Two files alike but for when the other forty ALMAs were born: all in the candidate's year, or
  // over forty years. The name is as common in both, so only the cohort can tell them apart.
  const fileWith = (otherYears: (i: number) => number) => {
    const voters = [
      row({ first_name: 'ALMA', last_name: 'QUINTERO', state: 'NC', zip: '27601', dob: '19600101' }),
    ];
    for (let i = 0; i < 40; i++) {
      voters.push(
        row({ first_name: 'ALMA', last_name: `DOE${i}`, state: 'NC', dob: `${otherYears(i)}0601` }),
      );
      voters.push(row({ first_name: `NAME${i}`, last_name: `ROE${i}`, state: 'NC', dob: `${1930 + i}0601` }));
    }
    return buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, voters), AS_OF);
  };
  const weightOfFirst = (file: ReturnType<typeof buildMatchIndex>, u: Float64Array) => {
    const { persons } = normalizeInput(
      { first_name: 'ALMA', last_name: 'QUINTERO', age: '64', state: 'NC' },
      AS_OF,
    );
    const candidates = new CandidateSet();
    candidates.add(0, 1);
    const fitted = buildModel(priorM(), u, 1, 'prior');
    return scoreCandidates(file, fitted, prepareQuery(file, persons[0]!), candidates, 1).best[0]!.weight;
  };

  it('a name shared by the voters of one year makes the year weigh less by its concentration', () => {
    const spread = fileWith((i) => 1930 + i);
    const together = fileWith(() => 1960);
    const alma = (file: ReturnType<typeof buildMatchIndex>) =>
      file.firstNameCohort(file.data.dictionaries.first.idOf('ALMA'));
    assert.ok(alma(together) > 3 * alma(spread), `${alma(together)} vs ${alma(spread)}`);
    // One u for both (a file's u of a date agreement follows its own years).
    const u = estimateRandomPairU(spread);
    const lost = weightOfFirst(spread, u) - weightOfFirst(together, u);
    assert.ok(Math.abs(lost - Math.log2(alma(together) / alma(spread))) < 1e-6, `weight lost ${lost}`);
  });
});
