import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryVoterSnapshot } from '../voters/in-memory-voter-snapshot.ts';
import { createDeterministicMatcher } from './deterministic-matcher.ts';
import type { MatchInput, MatchOptions, MatchOutcome } from './matcher.ts';

const COLUMNS = ['voterbase_id', 'state', 'voter_id', 'smartvan_id', 'exact_track', 'first_name'];
// Record indexes:           0           1         2            3             4              5
const VOTERS = new InMemoryVoterSnapshot(COLUMNS, [
  ['TX-000000001', 'TX', '00012345', '555', 'ET0001', 'Ada'], // 0
  ['TX-000000002', 'TX', '777', '556', 'ET0002', 'Bo'], // 1
  ['OH-000000003', 'OH', '12345', '555', 'ET0003', 'Cy'], // 2
  ['TX-000000004', 'TX', '0', '', '', 'Di'], // 3
  ['TX-000000005', 'TX', '', '', 'ET0005', 'Ed'], // 4
  ['TX-000000006', 'TX', '', '', 'ET0005', 'Flo'], // 5: shares exact_track with record 4
]);

const OPTIONS: MatchOptions = {
  maxMatches: 1,
  searchRadiusMiles: null,
  asOf: new Date('2024-06-01T00:00:00Z'),
};
const matcher = createDeterministicMatcher(VOTERS);

function matchOne(fields: MatchInput['fields'], maxMatches = 1): MatchOutcome {
  const outcomes = matcher.matchBatch([{ row: 1, fields }], { ...OPTIONS, maxMatches });
  assert.ok(Array.isArray(outcomes));
  assert.equal(outcomes.length, 1);
  return outcomes[0]!;
}

const hit = (voter: number, method: string) => ({ voter, score: 100, method });

describe('deterministic matcher strategies', () => {
  it('is named deterministic', () => {
    assert.equal(matcher.name, 'deterministic');
  });

  it('matches on voterbase_id, ignoring case and surrounding space', () => {
    assert.deepEqual(matchOne({ voterbase_id: 'TX-000000002' }), { candidates: [hit(1, 'voterbase_id')] });
    assert.deepEqual(matchOne({ voterbase_id: ' tx-000000002 ' }), { candidates: [hit(1, 'voterbase_id')] });
  });

  it('matches on voter_id with state', () => {
    assert.deepEqual(matchOne({ voter_id: '777', state: 'TX' }), { candidates: [hit(1, 'voter_id')] });
    assert.deepEqual(matchOne({ voter_id: '12345', state: 'OH' }), { candidates: [hit(2, 'voter_id')] });
  });

  it('matches on smartvan_id with state', () => {
    assert.deepEqual(matchOne({ smartvan_id: '555', state: 'OH' }), { candidates: [hit(2, 'smartvan_id')] });
    assert.deepEqual(matchOne({ smartvan_id: '555', state: 'tx' }), { candidates: [hit(0, 'smartvan_id')] });
  });

  it('matches on exact_track', () => {
    assert.deepEqual(matchOne({ exact_track: 'et0003' }), { candidates: [hit(2, 'exact_track')] });
  });

  it('uses state to tell voter ids of different states apart', () => {
    assert.deepEqual(matchOne({ voter_id: '12345', state: 'TX' }), { candidates: [hit(0, 'voter_id')] });
    assert.deepEqual(matchOne({ voter_id: '12345', state: 'CA' }), {
      candidates: [],
      unmatchedReason: 'id_not_found',
    });
  });
});

describe('deterministic matcher voter_id leading zeros', () => {
  it('matches when the file drops the zeros the voter file has', () => {
    assert.deepEqual(matchOne({ voter_id: '12345', state: 'TX' }), { candidates: [hit(0, 'voter_id')] });
  });

  it('matches when the file adds zeros the voter file does not have', () => {
    assert.deepEqual(matchOne({ voter_id: '000777', state: 'TX' }), { candidates: [hit(1, 'voter_id')] });
    assert.deepEqual(matchOne({ voter_id: '0012345', state: 'OH' }), { candidates: [hit(2, 'voter_id')] });
  });

  it('reads the state by its name, and an id a spreadsheet kept as text (="000777", \'000777)', () => {
    assert.deepEqual(matchOne({ voter_id: '777', state: 'Texas' }), { candidates: [hit(1, 'voter_id')] });
    assert.deepEqual(matchOne({ voter_id: '="000777"', state: 'TX' }), { candidates: [hit(1, 'voter_id')] });
    assert.deepEqual(matchOne({ voter_id: "'000777", state: 'TX' }), { candidates: [hit(1, 'voter_id')] });
  });

  it('treats an all-zero id as 0', () => {
    assert.deepEqual(matchOne({ voter_id: '000', state: 'TX' }), { candidates: [hit(3, 'voter_id')] });
  });

  it('does not strip zeros from smartvan_id', () => {
    assert.deepEqual(matchOne({ smartvan_id: '0555', state: 'OH' }), {
      candidates: [],
      unmatchedReason: 'id_not_found',
    });
  });
});

describe('deterministic matcher unmatched reasons', () => {
  it('reports id_without_valid_state for voter_id or smartvan_id without a usable state', () => {
    const noState = { candidates: [], unmatchedReason: 'id_without_valid_state' };
    assert.deepEqual(matchOne({ voter_id: '777' }), noState);
    assert.deepEqual(matchOne({ voter_id: '777', state: '' }), noState);
    assert.deepEqual(matchOne({ voter_id: '777', state: 'T1' }), noState);
    assert.deepEqual(matchOne({ smartvan_id: '555' }), noState);
  });

  it('reports id_not_found for ids that are not in the voter file', () => {
    const notFound = { candidates: [], unmatchedReason: 'id_not_found' };
    assert.deepEqual(matchOne({ voterbase_id: 'TX-999999999' }), notFound);
    assert.deepEqual(matchOne({ voter_id: '999', state: 'TX' }), notFound);
    assert.deepEqual(matchOne({ smartvan_id: '999', state: 'TX' }), notFound);
    assert.deepEqual(matchOne({ exact_track: 'ET9999' }), notFound);
  });

  it('reports no_id_values for rows without any id value', () => {
    const noIds = { candidates: [], unmatchedReason: 'no_id_values' };
    assert.deepEqual(matchOne({}), noIds);
    assert.deepEqual(matchOne({ state: 'TX', first_name: 'Ada', last_name: 'Lovelace' }), noIds);
    assert.deepEqual(matchOne({ voterbase_id: '   ', exact_track: '' }), noIds);
  });

  it('does not look anything up for a voter_id without state', () => {
    const voters = new InMemoryVoterSnapshot(COLUMNS, []);
    const outcomes = createDeterministicMatcher(voters).matchBatch(
      [{ row: 1, fields: { voter_id: '777' } }],
      OPTIONS,
    );
    assert.deepEqual(outcomes, [{ candidates: [], unmatchedReason: 'id_without_valid_state' }]);
    assert.deepEqual(voters.lookups, []);
  });
});

describe('deterministic matcher several ids on one row', () => {
  it('returns both people, in strategy priority order, when two ids point at two people', () => {
    // exact_track (last strategy) → record 2; voterbase_id (first strategy) → record 1.
    assert.deepEqual(matchOne({ exact_track: 'ET0003', voterbase_id: 'TX-000000002' }, 2), {
      candidates: [hit(1, 'voterbase_id'), hit(2, 'exact_track')],
    });
  });

  it('orders all four strategies voterbase_id, voter_id, smartvan_id, exact_track', () => {
    const fields = {
      voterbase_id: 'TX-000000004',
      voter_id: '777',
      smartvan_id: '555',
      exact_track: 'ET0003',
      state: 'TX',
    };
    assert.deepEqual(matchOne(fields, 10), {
      candidates: [hit(3, 'voterbase_id'), hit(1, 'voter_id'), hit(0, 'smartvan_id'), hit(2, 'exact_track')],
    });
  });

  it('returns every id match, the higher-priority ones first, whatever max_matches (the list’s merge stage cuts)', () => {
    const fields = { voterbase_id: 'TX-000000004', voter_id: '777', smartvan_id: '555', state: 'TX' };
    const all = { candidates: [hit(3, 'voterbase_id'), hit(1, 'voter_id'), hit(0, 'smartvan_id')] };
    assert.deepEqual(matchOne(fields, 1), all);
    assert.deepEqual(matchOne(fields, 2), all);
  });

  it('counts the same person found by two ids once, under the first strategy', () => {
    assert.deepEqual(
      matchOne({ voterbase_id: 'TX-000000002', voter_id: '777', state: 'TX', exact_track: 'ET0002' }, 5),
      {
        candidates: [hit(1, 'voterbase_id')],
      },
    );
  });

  it('returns every record of an id shared by several records, lowest index first, capped', () => {
    assert.deepEqual(matchOne({ exact_track: 'ET0005' }, 5), {
      candidates: [hit(4, 'exact_track'), hit(5, 'exact_track')],
    });
    assert.deepEqual(matchOne({ exact_track: 'ET0005' }, 1), {
      candidates: [hit(4, 'exact_track'), hit(5, 'exact_track')],
    });
  });

  it('matches on the other ids when voter_id lacks a state', () => {
    assert.deepEqual(matchOne({ voter_id: '777', exact_track: 'ET0003' }), {
      candidates: [hit(2, 'exact_track')],
    });
  });

  it('prefers id_without_valid_state over id_not_found when neither id matched', () => {
    assert.deepEqual(matchOne({ voterbase_id: 'TX-999999999', voter_id: '777' }), {
      candidates: [],
      unmatchedReason: 'id_without_valid_state',
    });
  });
});

describe('deterministic matcher batches', () => {
  it('answers one outcome per row, in order', () => {
    const rows: MatchInput[] = [
      { row: 1, fields: { exact_track: 'ET0001' } },
      { row: 2, fields: {} },
      { row: 3, fields: { voterbase_id: 'OH-000000003' } },
    ];
    assert.deepEqual(matcher.matchBatch(rows, OPTIONS), [
      { candidates: [hit(0, 'exact_track')] },
      { candidates: [], unmatchedReason: 'no_id_values' },
      { candidates: [hit(2, 'voterbase_id')] },
    ]);
  });

  it('answers an empty batch with no outcomes', () => {
    assert.deepEqual(matcher.matchBatch([], OPTIONS), []);
  });
});
