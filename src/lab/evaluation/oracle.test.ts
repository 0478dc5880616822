import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OracleAccumulator, oracleVerdict, profilesAtPrecision } from './oracle.ts';

const c = (voterbaseId: string, explain: string) => ({ voterbaseId, explain });

describe('oracleVerdict', () => {
  it('identifiable when every other voter agrees worse on some field', () => {
    const verdict = oracleVerdict(
      ['V'],
      [
        c('W', 'first=exact last=exact address=differ zip=exact'),
        c('V', 'first=nickname last=exact address=exact zip=exact'),
      ],
    );
    assert.equal(verdict, 'identifiable');
  });
  it('ambiguous when another voter agrees at least as well everywhere (a tie included)', () => {
    assert.equal(
      oracleVerdict(
        ['V'],
        [
          c('V', 'first=exact last=exact age=year state=exact'),
          c('W', 'first=exact last=exact age=year state=exact'),
        ],
      ),
      'ambiguous',
    );
    assert.equal(
      oracleVerdict(
        ['V'],
        [c('V', 'first=typo last=exact dob=exact'), c('W', 'first=exact last=exact dob=exact')],
      ),
      'ambiguous',
    );
  });
  it('a field the other voter lacks ranks between agreement and disagreement', () => {
    assert.equal(
      oracleVerdict(['V'], [c('V', 'first=exact last=exact dob=exact'), c('W', 'first=exact last=exact')]),
      'identifiable',
    );
    assert.equal(
      oracleVerdict(['V'], [c('V', 'first=exact last=exact dob=differ'), c('W', 'first=exact last=exact')]),
      'ambiguous',
    );
  });
  it('names read swapped rank below names as written, and the true voter counts under its best reading', () => {
    assert.equal(
      oracleVerdict(
        ['V'],
        [
          c('W', 'first=exact last=exact zip=exact names=swapped'),
          c('V', 'first=exact last=exact zip=exact'),
        ],
      ),
      'identifiable',
    );
    assert.equal(
      oracleVerdict(
        ['V'],
        [
          c('V', 'first=differ last=differ zip=exact'),
          c('W', 'first=exact last=differ zip=exact'),
          c('V', 'first=exact last=exact zip=exact names=swapped'),
        ],
      ),
      'identifiable',
    );
  });
  it('not found when the true voter is not a candidate; a couple row counts either voter', () => {
    assert.equal(oracleVerdict(['V'], [c('W', 'first=exact')]), 'not_found');
    assert.equal(oracleVerdict(['V', 'M'], [c('M', 'first=exact last=exact address=exact')]), 'identifiable');
  });
});

describe('OracleAccumulator', () => {
  it('counts members per tag and pattern; the ceiling leaves out the ambiguous and the not found', () => {
    const oracle = new OracleAccumulator();
    const truth = (ids: string[], errors: string[]) => ({ voterbaseIds: ids, pattern: 'name_dob', errors });
    oracle.add(truth(['V'], []), [c('V', 'first=exact last=exact dob=exact')]);
    oracle.add(truth(['V'], ['typo_first']), [
      c('V', 'first=typo dob=exact'),
      c('W', 'first=exact dob=exact'),
    ]);
    oracle.add(truth(['V'], ['typo_first']), []);
    oracle.add(truth([], ['near_twin']), [c('W', 'first=exact')]);
    const result = oracle.result();
    assert.deepEqual(result.overall, {
      members: 3,
      ambiguous: 1,
      notFound: 1,
      ceiling: 1 / 3,
      ceilingAtPrecision: 1 / 3,
    });
    assert.deepEqual(
      result.byErrorTag.map((t) => [t.tag, t.members, t.ceiling]),
      [
        ['(none)', 1, 1],
        ['typo_first', 2, 0],
      ],
    );
    assert.deepEqual(
      result.byPattern.map((p) => [p.pattern, p.members]),
      [['name_dob', 3]],
    );
  });

  it('leaves out of the ceiling at precision the members that look like the list’s non-members', () => {
    const oracle = new OracleAccumulator();
    const truth = (ids: string[], errors: string[]) => ({ voterbaseIds: ids, pattern: 'name_zip', errors });
    // Name and city only: as many near-twins as members show that profile.
    for (let i = 0; i < 3; i++) {
      oracle.add(truth([`C${i}`], ['city_state_instead_of_zip']), [
        c(`C${i}`, 'first=exact last=exact city=exact'),
      ]);
      oracle.add(truth([], ['near_twin']), [c(`T${i}`, 'first=exact last=exact city=exact')]);
    }
    // Name and ZIP: no non-member shows it.
    for (let i = 0; i < 5; i++) {
      oracle.add(truth([`Z${i}`], []), [c(`Z${i}`, 'first=exact last=exact zip=exact')]);
    }
    const result = oracle.result();
    assert.equal(result.overall.ceiling, 1);
    assert.equal(result.overall.ceilingAtPrecision, 5 / 8);
    assert.deepEqual(
      result.byErrorTag.map((t) => [t.tag, t.ceiling, t.ceilingAtPrecision]),
      [
        ['(none)', 1, 1],
        ['city_state_instead_of_zip', 1, 0],
      ],
    );
  });
});

describe('profilesAtPrecision', () => {
  it('takes the profiles whose rows are right at least as often as the precision asks', () => {
    const classes = new Map([
      ['a', { members: 995, nonMembers: 5 }],
      ['b', { members: 10, nonMembers: 0 }],
      ['c', { members: 50, nonMembers: 5 }],
      ['d', { members: 0, nonMembers: 7 }],
    ]);
    assert.deepEqual([...profilesAtPrecision(classes, 0.995)].sort(), ['a', 'b']);
    assert.deepEqual([...profilesAtPrecision(classes, 0.9)].sort(), ['a', 'b', 'c']);
    assert.deepEqual([...profilesAtPrecision(new Map([['d', { members: 0, nonMembers: 1 }]]))], []);
  });
});
