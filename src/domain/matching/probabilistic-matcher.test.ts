import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryVoterSnapshot } from '../voters/in-memory-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS } from '../voters/voter-columns.ts';
import { CandidateSet } from './candidates/candidate-set.ts';
import { DEFAULT_CANDIDATE_OPTIONS, generateCandidates } from './candidates/generate-candidates.ts';
import { buildMatchIndex } from './index/build-match-index.ts';
import type { ListFit, MatchInput, MatchOptions } from './matcher.ts';
import { emptyPerson, normalizeInput } from './normalize/person.ts';
import {
  createProbabilisticMatcher,
  inThreadRunner,
  randomPairU,
  samplePersonEvidence,
  swapProbability,
} from './probabilistic-matcher.ts';
import { prepareQuery } from './score/compare-person.ts';
import { F, FIELD_COUNT, L } from './score/comparison-levels.ts';
import { at, buildModel, estimateFromPersons, priorM } from './score/fellegi-sunter.ts';
import { scoreCandidates } from './score/score-candidates.ts';
import { isCorroborated } from './select/select-matches.ts';

const COLUMNS = [...CORE_VOTER_COLUMNS, 'party'];
type Voter = Partial<Record<(typeof COLUMNS)[number], string>>;

const VOTERS: Voter[] = [
  {
    voterbase_id: 'NC-1',
    state: 'NC',
    voter_id: '000123',
    first_name: 'MARGARET',
    middle_name: 'ANN',
    last_name: 'OBRIEN',
    address1: '12 OAK ST',
    city: 'RALEIGH',
    zip: '27601',
    latitude: '35.7800',
    longitude: '-78.6400',
    dob: '19700312',
    gender: 'F',
    email: 'peggy.obrien@gmail.com',
    wireless_phone: '9194471042',
  },
  {
    voterbase_id: 'NC-2',
    state: 'NC',
    first_name: 'JOHN',
    last_name: 'OBRIEN',
    address1: '12 OAK ST',
    city: 'RALEIGH',
    zip: '27601',
    latitude: '35.7800',
    longitude: '-78.6400',
    dob: '19680101',
    gender: 'M',
  },
  {
    voterbase_id: 'NC-3',
    state: 'NC',
    first_name: 'ZBIGNIEW',
    last_name: 'KOWALCZYK',
    address1: '500 ELM AVE APT 3',
    city: 'DURHAM',
    zip: '27701',
    latitude: '35.9900',
    longitude: '-78.9000',
    dob: '19551120',
    gender: 'M',
    landline_phone: '9194471099',
  },
  {
    voterbase_id: 'NC-4',
    state: 'NC',
    first_name: 'MARY',
    last_name: 'SMITH',
    address1: '7 PINE RD',
    city: 'CARY',
    zip: '27511',
    dob: '19900704',
    gender: 'F',
  },
  {
    voterbase_id: 'NC-5',
    state: 'NC',
    first_name: 'MARY',
    last_name: 'SMITH',
    address1: '9 MAPLE DR',
    city: 'CARY',
    zip: '27511',
    dob: '19851010',
    gender: 'F',
  },
];

const OPTIONS: MatchOptions = {
  maxMatches: 1,
  searchRadiusMiles: null,
  asOf: new Date('2026-01-01T00:00:00Z'),
};

function setup() {
  const rows = VOTERS.map((v) => COLUMNS.map((c) => v[c] ?? ''));
  const voters = new InMemoryVoterSnapshot(COLUMNS, rows);
  return { voters, index: buildMatchIndex(voters) };
}

const input = (row: number, fields: MatchInput['fields']): MatchInput => ({ row, fields });
const id = (voter: number) => VOTERS[voter]!.voterbase_id;

describe('probabilistic matcher', () => {
  it('matches by ids first, and still explains how the row compares', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const [outcome] = await matcher.matchBatch(
      [input(1, { voter_id: '123', state: 'NC', first_name: 'Peggy', last_name: "O'Brien" })],
      OPTIONS,
    );
    assert.equal(outcome!.candidates.length, 1);
    const best = outcome!.candidates[0]!;
    assert.equal(id(best.voter), 'NC-1');
    assert.equal(best.score, 100);
    assert.equal(best.method, 'voter_id');
    assert.equal(best.explain, 'voter_id=exact first=nickname last=exact state=exact');
  });

  it('reports an id whose record disagrees with the row’s names instead of trusting it', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const [outcome] = await matcher.matchBatch(
      [input(1, { voterbase_id: 'NC-3', first_name: 'MARY', last_name: 'SMITH' })],
      OPTIONS,
    );
    const best = outcome!.candidates[0]!;
    assert.equal(id(best.voter), 'NC-3');
    assert.ok(best.score < 50, `score ${best.score}`);
    assert.match(best.explain!, /name_mismatch$/);
    assert.deepEqual(outcome!.problems, ['id_name_mismatch']);
  });

  it('finds a person by name and address, by name and dob, by phone and by e-mail', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const outcomes = await matcher.matchBatch(
      [
        input(1, {
          first_name: 'zbigniew',
          last_name: 'kowalczyk',
          address1: '500 Elm Avenue #3',
          zip: '27701',
        }),
        input(2, { first_name: 'Peggy', last_name: 'OBrien', dob: '19700312', state: 'NC' }),
        input(3, { phone: '(919) 447-1099' }),
        input(4, { email: 'PeggyOBrien+news@gmail.com' }),
      ],
      OPTIONS,
    );
    const found = outcomes.map((o) =>
      o.candidates[0] ? [id(o.candidates[0].voter), o.candidates[0].method] : null,
    );
    assert.deepEqual(found, [
      ['NC-3', 'name_address'],
      ['NC-1', 'name_dob'],
      ['NC-3', 'phone'],
      ['NC-1', 'email'],
    ]);
    for (const o of outcomes) assert.ok(o.candidates[0]!.score >= 50 && o.candidates[0]!.score <= 100);
  });

  it('finds a person by name and a date one digit typo off, even an impossible one (dob=typo)', async () => {
    const { voters, index } = setup();
    // Five voters cannot make such a date's weight reach the default threshold: every candidate.
    const matcher = createProbabilisticMatcher(voters, index, { thresholdScore: 0 });
    const outcomes = await matcher.matchBatch(
      [
        // 1955-11-20 typed 1955-91-20 (no such month) and 1955-11-02 (swapped neighbours).
        input(1, { first_name: 'Zbigniew', last_name: 'Kowalczyk', dob: '19559120' }),
        input(2, { first_name: 'Zbigniew', last_name: 'Kowalczyk', dob: '1955-11-02', zip: '27701' }),
        // Impossible, and no typo of any voter's date: not searched by date, nothing found.
        input(3, { first_name: 'Zbigniew', last_name: 'Kowalczyk', dob: '18009999' }),
      ],
      OPTIONS,
    );
    assert.equal(id(outcomes[0]!.candidates[0]!.voter), 'NC-3');
    assert.match(outcomes[0]!.candidates[0]!.explain!, /dob=typo/);
    assert.deepEqual(outcomes[0]!.problems, ['invalid_dob']);
    assert.equal(id(outcomes[1]!.candidates[0]!.voter), 'NC-3');
    assert.match(outcomes[1]!.candidates[0]!.explain!, /dob=typo/);
    assert.equal(outcomes[2]!.candidates.length, 0);
    assert.equal(outcomes[2]!.unmatchedReason, 'name_only');
  });

  it('finds a person whose first and last names were entered the wrong way round (names=swapped)', async () => {
    const { voters, index } = setup();
    // Five voters give name and address agreement odds of about 36 (97); the swap's probability
    // (1 in 85, times 9: each name is in the file once, as the other kind) leaves a score of about
    // 78 — still below the names as written. On a real file the odds are millions.
    const matcher = createProbabilisticMatcher(voters, index, { thresholdScore: 20 });
    const [swapped, straight] = await matcher.matchBatch(
      [
        input(1, {
          first_name: 'Kowalczyk',
          last_name: 'Zbigniew',
          address1: '500 Elm Ave Apt 3',
          zip: '27701',
        }),
        input(2, {
          first_name: 'Zbigniew',
          last_name: 'Kowalczyk',
          address1: '500 Elm Ave Apt 3',
          zip: '27701',
        }),
      ],
      OPTIONS,
    );
    assert.equal(id(swapped!.candidates[0]!.voter), 'NC-3');
    assert.match(swapped!.candidates[0]!.explain!, /^first=exact last=exact .* names=swapped$/);
    assert.ok(
      swapped!.candidates[0]!.score < straight!.candidates[0]!.score,
      'a swap is weaker evidence than the names as written',
    );
    assert.doesNotMatch(straight!.candidates[0]!.explain!, /swapped/);
  });

  it('leaves a swapped reading to the merge for a row of several shards (MatchInput.swap)', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index, { thresholdScore: 20 });
    const fields = {
      first_name: 'Kowalczyk',
      last_name: 'Zbigniew',
      address1: '500 Elm Ave Apt 3',
      zip: '27701',
    };
    const [eager, later, only, both] = await matcher.matchBatch(
      [
        input(1, fields),
        { ...input(1, fields), swap: 'later' },
        { ...input(1, fields), swap: 'only' },
        { ...input(1, fields), swap: 'both' },
      ],
      OPTIONS,
    );
    // Alone, the names are searched swapped here, as one voter file does.
    assert.match(eager!.candidates[0]!.explain!, /names=swapped$/);
    // `later`: only the names as written, and whether they may be swapped.
    assert.equal(later!.candidates.length, 0);
    assert.equal(later!.maySwap, true);
    assert.equal(later!.swapped, undefined);
    // `only`: the swapped reading, the same candidates as one voter file gives, with its weighing.
    assert.deepEqual(only!.candidates, eager!.candidates);
    assert.ok(only!.oddsScale! > 0 && only!.oddsScale! < 1, `scale ${only!.oddsScale}`);
    assert.ok(only!.oddsParts!.length > 0 && only!.relative! >= 0);
    // `both`: the names as written, with the swapped reading beside them.
    assert.equal(both!.candidates.length, 0);
    assert.equal(both!.maySwap, true);
    assert.deepEqual(both!.swapped, only);
  });

  it('weighs a swap by how the voter file uses each name (swapProbability)', () => {
    const people = (first: string, last: string, count: number) =>
      Array.from({ length: count }, () => ({ first_name: first, last_name: last }));
    const rows = [
      ...people('RONALD', 'SMITH', 40),
      ...people('MARY', 'HERRERA', 40),
      ...people('JAMES', 'THOMAS', 20),
      ...people('THOMAS', 'JAMES', 20),
    ].map((v, i) =>
      COLUMNS.map((c) => (c === 'voterbase_id' ? `NC-${i}` : ((v as Record<string, string>)[c] ?? ''))),
    );
    const index = buildMatchIndex(new InMemoryVoterSnapshot(COLUMNS, rows));
    const person = (first: string, last: string) => ({ ...emptyPerson(), first, last });
    const prior = 0.01 / 0.85 / (1 + 0.01 / 0.85);
    // HERRERA is only a surname and RONALD only a first name here, 40 times each: the odds of a
    // swap are the prior's times 81 × 81, a probability of 0.987.
    assert.ok(swapProbability(index, person('HERRERA', 'RONALD')) > 0.98);
    // As written, the same names are almost surely not swapped.
    assert.ok(swapProbability(index, person('RONALD', 'HERRERA')) < prior / 1000);
    // Names the file uses both ways, or not at all (a typo), keep about the prior.
    assert.ok(Math.abs(swapProbability(index, person('THOMAS', 'JAMES')) - prior) < 1e-12);
    assert.ok(Math.abs(swapProbability(index, person('XQZ', 'QZX')) - prior) < 1e-12);
  });

  it('tells a household apart by first name, and flags two equally good namesakes as ambiguous', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index, { thresholdScore: 0 });
    const [john, mary] = await matcher.matchBatch(
      [
        input(1, { first_name: 'JOHN', last_name: 'OBRIEN', address1: '12 OAK ST', zip: '27601' }),
        input(2, { first_name: 'MARY', last_name: 'SMITH', zip: '27511' }),
      ],
      { ...OPTIONS, maxMatches: 2 },
    );
    assert.equal(id(john!.candidates[0]!.voter), 'NC-2');
    // Two of the file's few voters live at 12 OAK ST, so the address weighs little here (the row
    // gives no state, and is searched and weighed as in every state of the file), and a relative
    // of theirs outside the file (a JOHN without his suffix) keeps a share of the row.
    assert.ok(
      john!.candidates[0]!.score > 80,
      `${john!.candidates[0]!.score} ${john!.candidates[0]!.explain}`,
    );
    assert.equal(mary!.candidates.length, 2);
    assert.match(mary!.candidates[0]!.explain!, /ambiguous$/);
    assert.ok(mary!.candidates[0]!.score < 60, 'two namesakes split the probability');
    // Ties break by record order, so the output is deterministic.
    assert.deepEqual(
      mary!.candidates.map((c) => id(c.voter)),
      ['NC-4', 'NC-5'],
    );
  });

  it('gives a couple row (first_name_combined) one match per person', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const [outcome] = await matcher.matchBatch(
      [
        input(1, {
          first_name_combined: 'John & Margaret',
          last_name: 'OBrien',
          address1: '12 Oak St',
          zip: '27601',
        }),
      ],
      OPTIONS,
    );
    assert.deepEqual(outcome!.candidates.map((c) => id(c.voter)).sort(), ['NC-1', 'NC-2']);
    // Both are best matches of their own (the delivery keeps both in `_best`).
    assert.equal(outcome!.bestCount, 2);
  });

  it('gives a couple written in full_name one match per person', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const [outcome] = await matcher.matchBatch(
      [input(1, { full_name: 'OBrien, John & Margaret', address1: '12 Oak St', zip: '27601' })],
      OPTIONS,
    );
    assert.deepEqual(outcome!.candidates.map((c) => id(c.voter)).sort(), ['NC-1', 'NC-2']);
    assert.equal(outcome!.bestCount, 2);
  });

  it('puts each person’s own best match of a couple row first, also with max_matches > 1', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const couple = {
      first_name_combined: 'John & Margaret',
      last_name: 'OBrien',
      address1: '12 Oak St',
      zip: '27601',
    };
    const [pair, single] = await matcher.matchBatch(
      [
        input(1, couple),
        input(2, { first_name: 'Margaret', last_name: 'OBrien', address1: '12 Oak St', zip: '27601' }),
      ],
      { ...OPTIONS, maxMatches: 3 },
    );
    assert.equal(pair!.bestCount, 2);
    assert.deepEqual(
      pair!.candidates
        .slice(0, 2)
        .map((c) => id(c.voter))
        .sort(),
      ['NC-1', 'NC-2'],
    );
    const scores = pair!.candidates.slice(0, 2).map((c) => c.score);
    assert.ok(scores[0]! >= scores[1]!, 'the two best matches are ordered best first');
    assert.equal(single!.bestCount, undefined, 'one person: only rank 1 is a best match');
  });

  it('never matches on a name alone', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const [outcome] = await matcher.matchBatch(
      [input(1, { first_name: 'ZBIGNIEW', last_name: 'KOWALCZYK', state: 'NC' })],
      OPTIONS,
    );
    assert.equal(outcome!.candidates.length, 0);
    assert.equal(outcome!.unmatchedReason, 'name_only');
  });

  it('answers hostile and empty rows with N and a counted reason, never a crash', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const outcomes = await matcher.matchBatch(
      [
        input(1, {}),
        input(2, { first_name: 'x'.repeat(100_000), last_name: '\u0000\u0007💥', zip: '27601' }),
        input(3, {
          phone: '12345',
          email: 'not an email',
          dob: '20261399',
          latitude: '91',
          longitude: 'abc',
        }),
        input(4, { first_name: '12345', last_name: '67890' }),
        input(5, { voterbase_id: 'NC-999' }),
      ],
      OPTIONS,
    );
    assert.deepEqual(
      outcomes.map((o) => [o.candidates.length, o.unmatchedReason]),
      [
        [0, 'empty_row'],
        [0, 'no_candidates'],
        [0, 'invalid_dob'],
        [0, 'invalid_first_name'],
        [0, 'id_not_found'],
      ],
    );
    assert.deepEqual(outcomes[2]!.problems, [
      'invalid_dob',
      'invalid_phone',
      'invalid_email',
      'invalid_coordinates',
    ]);
  });

  it('gives the same outcomes for the same rows, batch after batch', async () => {
    const { voters, index } = setup();
    const matcher = createProbabilisticMatcher(voters, index);
    const rows = [
      input(1, { first_name: 'MARY', last_name: 'SMITH', address1: '9 MAPLE DR', zip: '27511' }),
      input(2, { first_name: 'JOHN', last_name: 'OBRIEN', dob: '19680101', state: 'NC' }),
    ];
    const first = await matcher.matchBatch(rows, OPTIONS);
    const again = await matcher.matchBatch(rows, OPTIONS);
    assert.deepEqual(again, first);
    assert.equal(matcher.model()!.source, 'prior', 'two rows are too few to estimate m from');
  });

  it('fits one model per job even when the next batch arrives before the first is matched', async () => {
    const { voters, index } = setup();
    const local = inThreadRunner(index);
    const samples: number[] = [];
    const runner = {
      run: local.run,
      sampleEvidence: async (
        rows: readonly MatchInput[],
        job: Parameters<typeof local.sampleEvidence>[1],
      ) => {
        samples.push(rows.length);
        await new Promise((resolve) => setTimeout(resolve, 10));
        return local.sampleEvidence(rows, job);
      },
    };
    const matcher = createProbabilisticMatcher(voters, index, {}, runner);
    const first = [input(1, { first_name: 'JOHN', last_name: 'OBRIEN', zip: '27601' })];
    const second = [
      input(2, { first_name: 'MARY', last_name: 'SMITH', zip: '27511' }),
      input(3, { first_name: 'MARY', last_name: 'SMITH', zip: '27511' }),
    ];
    await Promise.all([matcher.matchBatch(first, OPTIONS), matcher.matchBatch(second, OPTIONS)]);
    assert.deepEqual(samples, [1], 'only the first batch is sampled');
  });

  it('gives the fit each candidate’s odds as scoring computes them (samplePersonEvidence)', () => {
    const { index } = setup();
    const rows = [
      input(1, { first_name: 'MARY', last_name: 'SMITH', zip: '27511', dob: '19900704' }),
      input(2, { first_name: 'MARGARET', last_name: 'OBRIEN', address1: '12 OAK ST', zip: '27601' }),
      input(3, { first_name: 'ZBIGNIEW', last_name: 'KOWALCZYK', dob: '19551120', state: 'NC' }),
    ];
    // A model away from the prior, so that m's part of each weight is not the prior's.
    const m = priorM();
    m[at(F.last, L.last.exact)] = 0.7;
    const model = buildModel(m, randomPairU(index), 1, 'em');
    const job = { model, options: OPTIONS, candidates: DEFAULT_CANDIDATE_OPTIONS, thresholdScore: 50 };
    const evidence = samplePersonEvidence(index, rows, job);
    assert.equal(evidence.length, 3);
    let compared = 0;
    rows.forEach((row, i) => {
      const q = prepareQuery(index, normalizeInput(row.fields, OPTIONS.asOf).persons[0]!);
      const candidates = new CandidateSet();
      generateCandidates(index, q, job.candidates, candidates);
      const scored = scoreCandidates(index, model, q, candidates, 5);
      const own = scored.best.filter((c) => isCorroborated(c.levels));
      const person = evidence[i]!;
      assert.equal(person.candidates.length, own.length);
      person.candidates.forEach((candidate, j) => {
        let bits = -candidate.otherBits;
        for (let f = 0; f < FIELD_COUNT; f++) {
          const level = candidate.levels[f]!;
          if (level !== 0) bits += Math.log2(m[at(f, level)]!);
        }
        assert.ok(Math.abs(bits - Math.log2(own[j]!.odds)) < 1e-9, `row ${i} candidate ${j}`);
        compared++;
      });
      const listed = scored.best.reduce((sum, c) => sum + c.odds, 0);
      const rest = scored.oddsSum - scored.relative - listed;
      assert.ok(Math.abs(person.rest - Math.max(0, rest)) <= 1e-12 * scored.oddsSum);
    });
    assert.ok(compared >= 3, `${compared} candidates compared`);
  });

  it('leaves out of the fit a namesake that selection would not accept (the match rate is not a prospect list’s namesakes)', () => {
    const { index } = setup();
    const job = {
      model: buildModel(priorM(), randomPairU(index), 1, 'prior'),
      options: OPTIONS,
      candidates: DEFAULT_CANDIDATE_OPTIONS,
      thresholdScore: 50,
    };
    const rows = [
      input(1, { first_name: 'ZBIGNIEW', last_name: 'KOWALCZYK', dob: '19551120', state: 'NC' }),
      // The same rare name and state, born 30 years later: the name finds the voter, nothing
      // corroborates him.
      input(2, { first_name: 'ZBIGNIEW', last_name: 'KOWALCZYK', dob: '19850310', state: 'NC' }),
    ];
    const [voter, namesake] = samplePersonEvidence(index, rows, job);
    assert.equal(voter!.candidates.length, 1, 'the voter is the candidate of his own row');
    assert.deepEqual(namesake!.candidates, [], 'the namesake row has no candidate the fit weighs');
    assert.ok(
      namesake!.rest < 1e-6,
      `the namesake's odds are not counted as unlisted ones (${namesake!.rest})`,
    );
    const fitted = estimateFromPersons([voter!, namesake!]);
    assert.ok(fitted.matchOdds < 1.2, `one of two rows is a member, fitted odds ${fitted.matchOdds}`);
  });

  it('learns from the list how many strangers hold its persons’ phones, and weighs a lone phone by it', async () => {
    const { voters, index } = setup();
    // NC-1 MARGARET OBRIEN holds 9194471042, NC-3 ZBIGNIEW KOWALCZYK 9194471099.
    const listOf = (names: [string, string][]) =>
      Array.from({ length: 120 }, (_, i) => {
        const [first, last] = names[i % 2]!;
        return input(i, {
          first_name: first,
          last_name: last,
          phone: i % 2 === 0 ? '9194471042' : '9194471099',
        });
      });
    const fitOn = async (sample: MatchInput[]) => {
      const matcher = createProbabilisticMatcher(voters, index);
      await matcher.prepare(sample, OPTIONS);
      return matcher.listFit?.() ?? assert.fail('the matcher learned nothing');
    };
    const ownNumbers = await fitOn(
      listOf([
        ['MARGARET', 'OBRIEN'],
        ['ZBIGNIEW', 'KOWALCZYK'],
      ]),
    );
    const strangersNumbers = await fitOn(
      listOf([
        ['PETER', 'QUINCE'],
        ['WENDY', 'DARLING'],
      ]),
    );
    const prior = randomPairU(index)[at(F.phone, L.binary.exact)]! * index.size;
    // 120 persons tell; the prior's strangers per person count as 50 more.
    assert.equal(ownNumbers.chance?.phone, (0 + 50 * prior) / 170);
    assert.equal(strangersNumbers.chance?.phone, (120 + 50 * prior) / 170);
    assert.equal(ownNumbers.chance?.email, null, 'no person gave an e-mail');
    // The same fit but for what it learnt of chance: a lone phone weighs by it alone.
    const loneScore = async (chance: ListFit['chance']) => {
      const matcher = createProbabilisticMatcher(voters, index, {
        listFit: { ...ownNumbers, chance },
        thresholdScore: 1,
      });
      const [outcome] = await matcher.matchBatch([input(500, { phone: '919-447-1042' })], OPTIONS);
      assert.equal(id(outcome!.candidates[0]!.voter), 'NC-1');
      return outcome!.candidates[0]!.score;
    };
    const trusted = await loneScore(ownNumbers.chance);
    const doubted = await loneScore(strangersNumbers.chance);
    assert.ok(trusted >= 95, `a number nobody else was found holding: ${trusted}`);
    assert.ok(doubted < 90, `a list whose every number a stranger holds: ${doubted} (against ${trusted})`);
    // A fit without it (made before it was learnt) weighs by the file's own u, as before.
    assert.equal(await loneScore(null), await loneScore(undefined));
  });

  it('uses a list fit of its own layout of levels, and fits again on one of another or none', async () => {
    const { voters, index } = setup();
    const fitted = createProbabilisticMatcher(voters, index);
    await fitted.prepare([input(1, { first_name: 'JOHN', last_name: 'OBRIEN', zip: '27601' })], OPTIONS);
    const fit = fitted.listFit?.() ?? assert.fail('the matcher learned nothing from its sample');
    assert.notEqual(createProbabilisticMatcher(voters, index, { listFit: fit }).model(), null);
    const { layout: _, ...unnamed } = fit;
    for (const listFit of [{ ...fit, layout: 'another' }, unnamed]) {
      assert.equal(createProbabilisticMatcher(voters, index, { listFit }).model(), null, 'same m length');
    }
  });
});
