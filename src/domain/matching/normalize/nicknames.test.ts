import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  areNicknameEquivalent,
  formalNames,
  NICKNAME_PAIR_COUNT,
  NICKNAMES_BY_FORMAL,
  nameGroups,
  SPELLING_VARIANT_CLUSTERS,
} from './nicknames.ts';

/** Every name that appears anywhere in the table. */
function allNames(): string[] {
  const names = new Set<string>();
  for (const [formal, nicks] of NICKNAMES_BY_FORMAL) {
    names.add(formal);
    for (const nick of nicks) names.add(nick);
  }
  for (const cluster of SPELLING_VARIANT_CLUSTERS) for (const name of cluster) names.add(name);
  return [...names].sort();
}

const eq = (a: string, b: string): void => {
  assert.ok(areNicknameEquivalent(a, b), `${a} ~ ${b}`);
  assert.ok(areNicknameEquivalent(b, a), `${b} ~ ${a}`);
};
const ne = (a: string, b: string): void => {
  assert.ok(!areNicknameEquivalent(a, b), `${a} !~ ${b}`);
  assert.ok(!areNicknameEquivalent(b, a), `${b} !~ ${a}`);
};

test('the table holds at least 1,200 distinct nickname⇄formal pairs', () => {
  assert.ok(NICKNAME_PAIR_COUNT >= 1200, `only ${NICKNAME_PAIR_COUNT} pairs`);
  let written = 0;
  for (const nicks of NICKNAMES_BY_FORMAL.values()) written += nicks.length;
  assert.ok(NICKNAME_PAIR_COUNT <= written);
});

test('well-known nickname ⇄ formal pairs, both directions', () => {
  const pairs: [string, string][] = [
    ['BOB', 'ROBERT'],
    ['BILL', 'WILLIAM'],
    ['LIAM', 'WILLIAM'],
    ['PEGGY', 'MARGARET'],
    ['LIZ', 'ELIZABETH'],
    ['BETSY', 'ELIZABETH'],
    ['BESS', 'ELIZABETH'],
    ['TED', 'THEODORE'],
    ['TED', 'EDWARD'],
    ['JACK', 'JOHN'],
    ['HANK', 'HENRY'],
    ['CHUCK', 'CHARLES'],
    ['DICK', 'RICHARD'],
    ['SALLY', 'SARAH'],
    ['POLLY', 'MARY'],
    ['PATSY', 'PATRICIA'],
    ['ALEX', 'ALEXANDER'],
    ['ALEX', 'ALEXANDRA'],
    ['ALEX', 'ALEXIS'],
    ['CHRIS', 'CHRISTOPHER'],
    ['CHRIS', 'CHRISTINE'],
    ['CHRIS', 'CHRISTINA'],
    ['CHRIS', 'CHRISTIAN'],
    ['MATT', 'MATTHEW'],
    ['NICK', 'NICHOLAS'],
    ['KATIE', 'KATHERINE'],
    ['KATIE', 'CATHERINE'],
    ['ABBY', 'ABIGAIL'],
    ['MADDIE', 'MADELINE'],
    ['MADDIE', 'MADISON'],
    ['PAT', 'PATRICK'],
    ['PAT', 'PATRICIA'],
    ['TERRY', 'TERENCE'],
    ['TERRY', 'THERESA'],
    ['SAM', 'SAMUEL'],
    ['SAM', 'SAMANTHA'],
    ['JO', 'JOSEPHINE'],
    ['FRAN', 'FRANCES'],
    ['FRAN', 'FRANCIS'],
    ['GERRY', 'GERALD'],
    ['GERRY', 'GERALDINE'],
    ['PACO', 'FRANCISCO'],
    ['PEPE', 'JOSE'],
    ['LUPE', 'GUADALUPE'],
    ['CHUY', 'JESUS'],
    ['NACHO', 'IGNACIO'],
    ['MEMO', 'GUILLERMO'],
    ['LALO', 'EDUARDO'],
    ['TONY', 'ANTHONY'],
    ['JIM', 'JAMES'],
    ['JIMMY', 'JAMES'],
    ['DAVE', 'DAVID'],
    ['MIKE', 'MICHAEL'],
    ['STEVE', 'STEPHEN'],
    ['STEVE', 'STEVEN'],
    ['BECKY', 'REBECCA'],
    ['JENNY', 'JENNIFER'],
    ['CINDY', 'CYNTHIA'],
    ['DEBBIE', 'DEBRA'],
    ['TRISH', 'PATRICIA'],
  ];
  for (const [nick, formal] of pairs) eq(nick, formal);
});

test('nickname ⇄ nickname through a shared formal name', () => {
  eq('BOB', 'BOBBY');
  eq('BOB', 'ROBBIE');
  eq('PEGGY', 'MAGGIE');
  eq('MEG', 'PEGGY');
  eq('LIZ', 'BETSY');
  eq('BILLY', 'WILL');
  eq('JACK', 'JOHNNY');
  eq('KATHY', 'KATIE');
  eq('PACO', 'PANCHO');
});

test('spelling-variant clusters are one name', () => {
  eq('STEPHEN', 'STEVEN');
  eq('STEFAN', 'STEVEN');
  eq('KATHERINE', 'CATHERINE');
  eq('KATHRYN', 'CATHERINE');
  eq('JON', 'JOHN');
  eq('ANN', 'ANNE');
  eq('JEFFREY', 'GEOFFREY');
  eq('CATHY', 'KATHRYN');
  for (const cluster of SPELLING_VARIANT_CLUSTERS) {
    for (const a of cluster) for (const b of cluster) eq(a, b);
  }
});

test('no absurd transitive links', () => {
  ne('ALEXANDER', 'ALEXANDRA');
  ne('ALEXANDER', 'ALEXIS');
  ne('CHRISTOPHER', 'CHRISTINA');
  ne('CHRISTOPHER', 'CHRISTIAN');
  ne('CHRISTINA', 'CHRISTINE');
  ne('JOHN', 'JANE');
  ne('JOHN', 'JONATHAN');
  eq('JON', 'JONATHAN');
  ne('PATRICK', 'PATRICIA');
  ne('SAMUEL', 'SAMANTHA');
  ne('TERENCE', 'THERESA');
  ne('FRANCIS', 'FRANCES');
  ne('ROBERT', 'ROBERTA');
  eq('BOBBIE', 'BARBARA');
  eq('BOBBIE', 'ROBERT');
  ne('BOB', 'BARBARA');
  eq('TED', 'THEO');
  ne('NED', 'THEO');
  ne('EDWARD', 'THEODORE');
  ne('BOB', 'BILL');
});

test('every name is upper-case A–Z only; no formal name is its own nickname or variant', () => {
  for (const name of allNames()) assert.match(name, /^[A-Z]+$/);
  for (const [formal, nicks] of NICKNAMES_BY_FORMAL) {
    assert.ok(!nicks.includes(formal), `${formal} lists itself`);
    for (const nick of nicks) eq(nick, formal);
  }
});

test('unknown names: [] and false', () => {
  for (const unknown of ['', 'ZZYZX', 'BOB ', 'bob', 'XAVIERQ']) {
    assert.deepEqual(nameGroups(unknown), []);
    assert.deepEqual(formalNames(unknown), []);
    assert.ok(!areNicknameEquivalent(unknown, 'ROBERT'));
    assert.ok(!areNicknameEquivalent('ROBERT', unknown));
  }
  assert.ok(!areNicknameEquivalent('ZZYZX', 'QWERTY'));
  assert.ok(!areNicknameEquivalent('', ''));
  assert.ok(areNicknameEquivalent('ZZYZX', 'ZZYZX'), 'the same name is trivially equivalent');
});

test('symmetric over the whole table; equivalent exactly when groups (and formal names) intersect', () => {
  const names = allNames();
  const groups = names.map((n) => new Set(nameGroups(n)));
  const formals = names.map((n) => new Set(formalNames(n)));
  for (let i = 0; i < names.length; i++) {
    const a = names[i]!;
    assert.ok(groups[i]!.size > 0, a);
    assert.ok(areNicknameEquivalent(a, a));
    for (let j = i + 1; j < names.length; j++) {
      const b = names[j]!;
      const ab = areNicknameEquivalent(a, b);
      assert.equal(ab, areNicknameEquivalent(b, a), `${a}/${b} asymmetric`);
      const shareGroup = nameGroups(b).some((g) => groups[i]!.has(g));
      assert.equal(ab, shareGroup, `${a}/${b} vs groups`);
      const shareFormal = formalNames(b).some((f) => formals[i]!.has(f));
      assert.equal(ab, shareFormal, `${a}/${b} vs formal names`);
    }
  }
});

test('nameGroups: sorted, frozen, same instance on repeated calls', () => {
  for (const name of ['BOB', 'ROBERT', 'ALEX', 'CHRIS', 'STEVEN', 'ZZYZX']) {
    const g = nameGroups(name);
    assert.equal(nameGroups(name), g);
    assert.ok(Object.isFrozen(g));
    assert.deepEqual(
      g,
      [...g].sort((x, y) => x - y),
    );
  }
  assert.equal(nameGroups('ROBERT').length, 1);
  assert.ok(nameGroups('ALEX').length >= 3);
  assert.deepEqual(nameGroups('STEVEN'), nameGroups('STEPHEN'));
});

test('formalNames: the formal names a name can stand for, canonical spelling per cluster', () => {
  assert.deepEqual(formalNames('BOB'), ['ROBERT']);
  assert.deepEqual(formalNames('ROBERT'), ['ROBERT']);
  assert.deepEqual(formalNames('PEGGY'), ['MARGARET']);
  assert.deepEqual(formalNames('STEVE'), ['STEPHEN']);
  assert.deepEqual(formalNames('STEVEN'), ['STEPHEN']);
  assert.deepEqual(formalNames('PAT'), ['PATRICIA', 'PATRICK']);
  for (const f of ['ALEXANDER', 'ALEXANDRA', 'ALEXIS']) assert.ok(formalNames('ALEX').includes(f), f);
  assert.equal(formalNames('BOB'), formalNames('BOB'));
  assert.ok(Object.isFrozen(formalNames('BOB')));
});

test('written abbreviations stand for their formal name, and through it for its nicknames', () => {
  for (const [abbreviation, formal] of [
    ['WM', 'WILLIAM'],
    ['JAS', 'JAMES'],
    ['THOS', 'THOMAS'],
    ['JNO', 'JOHN'],
    ['ROBT', 'ROBERT'],
    ['CHAS', 'CHARLES'],
    ['ELIZ', 'ELIZABETH'],
  ] as const)
    eq(abbreviation, formal);
  eq('WM', 'BILL');
  ne('WM', 'JAS');
});
