import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryVoterSnapshot } from '../../voters/in-memory-voter-snapshot.ts';
import { CORE_VOTER_COLUMNS } from '../../voters/voter-columns.ts';
import { buildMatchIndex } from '../index/build-match-index.ts';
import { StringDictionary } from '../index/string-dictionary.ts';
import { type InputFields, normalizeInput } from '../normalize/person.ts';
import {
  comparePerson,
  distanceLevel,
  distanceMiles,
  initialsOfPerson,
  prepareAddress,
  prepareQuery,
  type Query,
  swappedNameId,
  withPlace,
} from './compare-person.ts';
import { explainLevels, F, FIELD_COUNT, L } from './comparison-levels.ts';

const AS_OF = new Date('2024-06-01T00:00:00Z');
const row = (fields: Record<string, string>) => CORE_VOTER_COLUMNS.map((column) => fields[column] ?? '');

// Record indexes are the comments; each voter exists for a group of checks below.
const VOTERS = new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, [
  row({
    first_name: 'John',
    middle_name: 'Ann',
    last_name: 'Smith',
    name_suffix: 'Jr',
    address1: '123 N Main St Apt 4',
    city: 'Raleigh',
    state: 'NC',
    zip: '27601',
    dob: '19800102',
    gender: 'M',
    wireless_phone: '9198675309',
    email: 'john@example.com',
    latitude: '35.78',
    longitude: '-78.64',
  }), // 0: everything
  row({ first_name: 'Margaret', last_name: 'Lopez' }), // 1: names only
  row({ first_name: 'Bartholomew', middle_name: 'A', last_name: 'Garcia Lopez' }), // 2
  row({ first_name: 'Phylippa', last_name: 'Phillipsburg' }), // 3: same sound, low Jaro-Winkler
  row({ first_name: 'Ksenia', last_name: 'Smith' }), // 4
  row({ first_name: 'Mary', city: 'Durham', state: 'NC', dob: '1980' }), // 5: no ZIP, year-only dob
  row({ first_name: 'Mary', state: 'NC' }), // 6: state only
  row({ first_name: 'Mary', latitude: '35', longitude: '-80' }), // 7: located, no address
  row({ first_name: 'Rosa Maria', last_name: 'Doe' }), // 8: a first and middle name filed as one
  row({ first_name: 'Ann', address1: '8673 South St', zip: '17602' }), // 9: a street named for a direction
  row({ first_name: 'Jo Ann', middle_name: 'M', last_name: 'Dale' }), // 10: two given names as the first
]);
const index = buildMatchIndex(VOTERS, AS_OF);

function query(fields: InputFields): Query {
  const { persons } = normalizeInput(fields, AS_OF);
  return prepareQuery(index, persons[0]!);
}

function levelsOf(q: Query, voter: number): Uint8Array {
  const levels = new Uint8Array(FIELD_COUNT);
  levels.fill(9); // comparePerson must reset every field
  comparePerson(index, q, voter, levels);
  return levels;
}

const level = (fields: InputFields, voter: number, field: number) => levelsOf(query(fields), voter)[field];

describe('comparePerson first name', () => {
  it('exact', () => assert.equal(level({ first_name: 'john' }, 0, F.first), L.first.exact));
  it('nickname: PEGGY vs MARGARET', () =>
    assert.equal(level({ first_name: 'Peggy' }, 1, F.first), L.first.nickname));
  it('typo: one edit', () => {
    assert.equal(level({ first_name: 'JAHN' }, 0, F.first), L.first.typo);
    assert.equal(level({ first_name: 'BARTHOLOMEX' }, 2, F.first), L.first.typo);
  });
  it('initial: J vs JOHN, and a different initial differs', () => {
    assert.equal(level({ first_name: 'J' }, 0, F.first), L.first.initial);
    assert.equal(level({ first_name: 'K' }, 0, F.first), L.first.differ);
  });
  it('similar: same sound with a low Jaro-Winkler, or Jaro-Winkler >= 0.8', () => {
    assert.equal(level({ first_name: 'Filipa' }, 3, F.first), L.first.similar);
    assert.equal(level({ first_name: 'Xenia' }, 4, F.first), L.first.similar);
  });
  it('differ', () => assert.equal(level({ first_name: 'Mary' }, 0, F.first), L.first.differ));
  it('middle: the row gives the voter’s middle name as its first, or the voter’s first as its middle', () => {
    assert.equal(level({ first_name: 'Ann' }, 0, F.first), L.first.middle);
    assert.equal(level({ first_name: 'Annie' }, 0, F.first), L.first.middle, 'a nickname of the middle name');
    assert.equal(level({ first_name: 'Alan', middle_name: 'Bartholomew' }, 2, F.first), L.first.middle);
    assert.equal(level({ first_name: 'Alan', middle_name: 'Bartholomew' }, 2, F.middle), L.middle.initial);
    assert.equal(level({ first_name: 'Ann', middle_name: 'J' }, 0, F.middle), L.middle.initial, 'crosswise');
  });
  it('exact when only a space differs (ROSAMARIA for ROSA MARIA)', () => {
    assert.equal(level({ first_name: 'Rosamaria' }, 8, F.first), L.first.exact);
  });
  it('exact, with the middle name, when one side writes first and middle names as one first name', () => {
    const both = (fields: InputFields, voter: number) => {
      const levels = levelsOf(query(fields), voter);
      return [levels[F.first], levels[F.middle]];
    };
    assert.deepEqual(both({ first_name: 'John Ann' }, 0), [L.first.exact, L.middle.exact]);
    assert.deepEqual(both({ first_name: 'Rosa', middle_name: 'Maria' }, 8), [L.first.exact, L.middle.exact]);
    // Another second word is not the middle name; with a middle name of its own the row's first is
    // compared as written.
    assert.notEqual(both({ first_name: 'John Anne' }, 0)[0], L.first.exact);
    assert.notEqual(both({ first_name: 'Rosa', middle_name: 'Marta' }, 8)[0], L.first.exact);
    assert.notEqual(both({ first_name: 'John Ann', middle_name: 'Q' }, 0)[0], L.first.exact);
  });

  it('exact when the same given names are split otherwise between first and middle', () => {
    const both = (fields: InputFields, voter: number) => {
      const levels = levelsOf(query(fields), voter);
      return [levels[F.first], levels[F.middle]];
    };
    // DALE, JO ANN M reads as JO with the middle name ANN M.
    assert.deepEqual(both({ full_name: 'Dale, Jo Ann M' }, 10), [L.first.exact, L.middle.exact]);
    assert.deepEqual(both({ full_name: 'Jo Ann M Dale' }, 10), [L.first.exact, L.middle.exact]);
    assert.deepEqual(both({ first_name: 'Jo', middle_name: 'Ann Marie' }, 10), [
      L.first.exact,
      L.middle.initial,
    ]);
    assert.notEqual(both({ first_name: 'Jo', middle_name: 'Anne M' }, 10)[0], L.first.exact);
    assert.notEqual(both({ first_name: 'Jo', middle_name: 'M Ann' }, 10)[0], L.first.exact);
  });

  it('differ when the other given names disagree crosswise: someone sharing one name', () => {
    assert.equal(level({ first_name: 'Jim', middle_name: 'John' }, 0, F.first), L.first.differ);
    assert.equal(level({ first_name: 'Ann', middle_name: 'Mark' }, 0, F.first), L.first.differ);
    assert.equal(level({ first_name: 'A' }, 2, F.first), L.first.differ, 'a middle initial is no name');
  });
});

describe('comparePerson first name: two established names spelled alike', () => {
  // Five voters each make LISA and LINDA names the file knows; LISSA is no one's.
  const names = ['LISA', 'LINDA', 'JOANNE', 'AMY', 'MAY'];
  const voters = names.flatMap((first) =>
    Array.from({ length: 5 }, (_, i) => row({ first_name: first, last_name: `KOWALSKI${i}` })),
  );
  voters.push(row({ first_name: 'JUANA', last_name: 'KOWALSKI' }));
  const named = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, voters), AS_OF);
  const firstLevel = (first: string, voter: number) => {
    const { persons } = normalizeInput({ first_name: first }, AS_OF);
    const levels = new Uint8Array(FIELD_COUNT);
    comparePerson(named, prepareQuery(named, persons[0]!), voter, levels);
    return levels[F.first];
  };

  it('differ when both names are held by many voters and do not sound alike (LISA, LINDA)', () => {
    assert.equal(firstLevel('LINDA', 0), L.first.differ);
    assert.equal(firstLevel('LISA', 5), L.first.differ);
  });
  it('similar when the row’s name is no established one (a misspelling)', () => {
    assert.equal(firstLevel('LIDNA', 0), L.first.similar);
  });
  it('typo when a three-letter name is one keystroke off and the row’s is no established one', () => {
    // AMY is voters 15-19, MAY 20-24.
    assert.equal(firstLevel('AQY', 15), L.first.typo, 'a letter substituted');
    assert.equal(firstLevel('MAY', 15), L.first.differ, 'MAY is a name of its own: a sister’s, a twin’s');
    assert.equal(firstLevel('AYM', 15), L.first.typo, 'two letters swapped');
    assert.equal(firstLevel('ABC', 15), L.first.differ, 'two keystrokes off');
  });
  it('similar when they sound alike, however many voters hold them (JOANNE, JUANA)', () => {
    assert.equal(firstLevel('JOANNE', 25), L.first.similar);
  });
});

describe('comparePerson first name: a man’s and a woman’s name that read alike', () => {
  const people = [
    ...Array.from({ length: 6 }, () => row({ first_name: 'Michael', gender: 'M' })),
    ...Array.from({ length: 6 }, () => row({ first_name: 'Michelle', gender: 'F' })),
    ...Array.from({ length: 3 }, () => row({ first_name: 'Mikhael', gender: 'M' })),
  ];
  const gendered = buildMatchIndex(new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, people), AS_OF);
  const first = (name: string, voter: number) => {
    const q = prepareQuery(gendered, normalizeInput({ first_name: name }, AS_OF).persons[0]!);
    const levels = new Uint8Array(FIELD_COUNT);
    comparePerson(gendered, q, voter, levels);
    return levels[F.first];
  };
  it('differ when the voter file files nearly all of each under the other gender', () => {
    assert.equal(first('Michelle', 0), L.first.differ);
    assert.equal(first('Michael', 6), L.first.differ);
  });
  it('a name too rare to say (under 5 voters) is compared as before', () => {
    assert.equal(first('Mikhael', 0), L.first.typo);
    assert.equal(first('Michael', 12), L.first.typo);
  });
});

describe('comparePerson last name', () => {
  it('exact', () => assert.equal(level({ last_name: 'SMITH' }, 0, F.last), L.last.exact));
  it('typo', () => assert.equal(level({ last_name: 'Smyth' }, 0, F.last), L.last.typo));
  it('exact when only the spaces between its parts differ (GARCIALOPEZ for GARCIA LOPEZ)', () => {
    assert.equal(level({ last_name: 'GarciaLopez' }, 2, F.last), L.last.exact);
    assert.equal(level({ last_name: 'Garcia Lopez' }, 2, F.last), L.last.exact);
    assert.notEqual(level({ last_name: 'Garcia Lopes' }, 2, F.last), L.last.exact);
  });
  it('part of a compound surname, either way round', () => {
    assert.equal(level({ last_name: 'Lopez' }, 2, F.last), L.last.part);
    assert.equal(level({ last_name: 'Garcia Lopez' }, 1, F.last), L.last.part);
  });
  it('similar by sound', () => assert.equal(level({ last_name: 'Filipsberg' }, 3, F.last), L.last.similar));
  it('differ', () => assert.equal(level({ last_name: 'Schmidt' }, 0, F.last), L.last.differ));
  it('similar: a surname no voter has, two keystrokes from the voter’s with its initial', () => {
    assert.equal(level({ last_name: 'SNITC' }, 0, F.last), L.last.similar);
    assert.equal(level({ last_name: 'SMIT' }, 0, F.last), L.last.typo);
    // Another initial, or three keystrokes: another surname.
    assert.equal(level({ last_name: 'QMITC' }, 0, F.last), L.last.differ);
    assert.equal(level({ last_name: 'SNOTC' }, 0, F.last), L.last.differ);
  });
  it('typo: a scanner’s RN for M or VV for W, two edits apart', () => {
    assert.equal(level({ last_name: 'SRNITH' }, 0, F.last), L.last.typo);
    assert.equal(level({ first_name: 'RNARY' }, 5, F.first), L.first.typo);
    assert.equal(level({ first_name: 'RNAY' }, 5, F.first), L.first.differ);
  });
});

describe('comparePerson middle name and suffix', () => {
  it('middle exact (full names), initial (one side an initial, or two equal initials)', () => {
    assert.equal(level({ middle_name: 'Ann' }, 0, F.middle), L.middle.exact);
    assert.equal(level({ middle_name: 'A' }, 0, F.middle), L.middle.initial);
    assert.equal(level({ middle_name: 'Alice' }, 2, F.middle), L.middle.initial);
    assert.equal(level({ middle_name: 'A' }, 2, F.middle), L.middle.initial);
  });
  it('middle differs for two different full names with the same initial, or other initials', () => {
    assert.equal(level({ middle_name: 'Alice' }, 0, F.middle), L.middle.differ);
    assert.equal(level({ middle_name: 'B' }, 0, F.middle), L.middle.differ);
  });
  it('suffix exact / differ', () => {
    assert.equal(level({ name_suffix: 'JR' }, 0, F.suffix), L.binary.exact);
    assert.equal(level({ name_suffix: 'Sr' }, 0, F.suffix), L.binary.differ);
  });
});

describe('comparePerson date of birth', () => {
  const dob = (value: string, voter = 0) => level({ dob: value }, voter, F.dob);
  const age = (value: string, voter = 0) => level({ age: value }, voter, F.age);
  const yearOf = (value: string, voter = 0) => level({ dob: value }, voter, F.age);
  it('exact', () => assert.equal(dob('1980-01-02'), L.dob.exact));
  it('swapped month and day', () => assert.equal(dob('1980-02-01'), L.dob.swapped));
  it('month: same year and month, one side without a day', () => assert.equal(dob('1980-01'), L.dob.month));
  it('differ: the same year, another month and day (both full dates), not age', () => {
    assert.equal(dob('1980-07-04'), L.dob.differ);
    assert.equal(level({ dob: '1980-07-04' }, 0, F.age), 0);
  });
  it('a year-only date on either side is compared as age: year, near (a year off), differ', () => {
    assert.equal(yearOf('1980'), L.age.year);
    assert.equal(dob('1980'), 0, 'not dob');
    assert.equal(yearOf('1980-07-04', 5), L.age.year, 'voter 5 has 1980 only');
    assert.equal(yearOf('1981-07-04', 5), L.age.near);
    assert.equal(yearOf('1982-07-04', 5), L.age.differ);
  });
  it('age: year / near / differ from the years an age allows (birthYears)', () => {
    // As of 2024-06-01, 44 allows 1979-1980, 43 allows 1980-1981, 45 allows 1978-1979.
    assert.equal(age('44'), L.age.year);
    assert.equal(age('43'), L.age.year);
    assert.equal(age('45'), L.age.near);
    assert.equal(age('42'), L.age.near);
    assert.equal(age('46'), L.age.differ);
    assert.equal(age('44', 5), L.age.year);
    assert.equal(level({ age: '44' }, 0, F.dob), 0, 'not dob');
  });
  it('typo: a full date a year apart to the day (a year off is age’s near, for a birth year)', () => {
    assert.equal(dob('1981-01-02'), L.dob.typo);
    assert.equal(dob('1979-01-02'), L.dob.typo, '1980 → 1979: two digits, but a year apart to the day');
    assert.equal(dob('1981-01-03'), L.dob.differ);
    assert.equal(dob('1978-01-02'), L.dob.differ, 'two years apart');
  });
  it('typo: a digit substituted or two neighbours swapped, also in an impossible date', () => {
    assert.equal(dob('1980-01-03'), L.dob.typo);
    assert.equal(dob('1980-01-20'), L.dob.typo, '02 → 20');
    assert.equal(dob('1908-01-02'), L.dob.typo, '1980 → 1908');
    assert.equal(dob('19800192'), L.dob.typo, 'no month 01, day 92: the digits of 1980-01-02 but one');
  });
  it('differ', () => {
    assert.equal(dob('1975-05-05'), L.dob.differ);
    assert.equal(dob('1980-01-25'), L.dob.differ);
    assert.equal(dob('19800199'), L.dob.differ, 'an impossible date two digits off');
  });
  it('not compared when the voter has no dob', () => assert.equal(dob('1980-01-02', 1), 0));
});

describe('comparePerson address', () => {
  const address = (value: string, voter = 0) => level({ address1: value }, voter, F.address);
  it('exact, also when one side has no unit', () => {
    assert.equal(address('123 North Main Street Apt 4'), L.address.exact);
    assert.equal(address('123 N Main St'), L.address.exact);
  });
  it('unit: a different unit', () => assert.equal(address('123 N Main St Apt 5'), L.address.unit));
  it('typo: street misspelled', () => assert.equal(address('123 N Mian St'), L.address.typo));
  it('typo: the same street written apart (spaces moved, its suffix mistyped into a unit)', () => {
    assert.equal(address('123 N MainSt'), L.address.typo);
    assert.equal(address('123 N Ma In St'), L.address.typo);
    assert.equal(address('123 N Main Sx Apt 4'), L.address.typo);
  });
  it('typo: a street named for a direction, its name misspelled (stored as S ST)', () => {
    assert.equal(address('8673 Suth St', 9), L.address.typo);
    assert.equal(address('8673 Lsouth St', 9), L.address.typo);
    assert.equal(address('8673 South Hd', 9), L.address.typo);
    assert.equal(address('8673 North St', 9), L.address.differ);
    assert.equal(address('8675 Suth St', 9), L.address.street);
  });
  it('street: same street, other house', () => assert.equal(address('125 N Main St'), L.address.street));
  it('street: the same street mistyped, other house', () =>
    assert.equal(address('125 N Mian St'), L.address.street));
  it('differ', () => {
    assert.equal(address('123 Elm Ave'), L.address.differ);
    assert.equal(address('9 Elm Ave'), L.address.differ);
  });
  it('not compared when the voter has no address', () => assert.equal(address('123 N Main St', 1), 0));
});

describe('comparePerson ZIP, city and state precedence', () => {
  it('ZIP when both sides have one; then neither city nor state', () => {
    const lv = levelsOf(query({ zip: '27601', city: 'Durham', state: 'SC' }), 0);
    assert.equal(lv[F.zip], L.zip.exact);
    assert.equal(lv[F.city], 0);
    assert.equal(lv[F.state], 0);
    assert.equal(level({ zip: '27603' }, 0, F.zip), L.zip.differ);
  });
  it('transposed: the ZIPs two neighbouring digits swapped, nothing else', () => {
    // Voter 0's ZIP is 27601.
    for (const zip of ['72601', '26701', '27061', '27610'])
      assert.equal(level({ zip }, 0, F.zip), L.zip.transposed, zip);
    for (const zip of ['27602', '72610', '10672', '27106', '27601'])
      assert.notEqual(level({ zip }, 0, F.zip), L.zip.transposed, zip);
  });
  it('not transposed when some voter lives in the row’s ZIP: it may be the person’s', () => {
    const two = buildMatchIndex(
      new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, [
        row({ first_name: 'ANN', last_name: 'LEE', zip: '27601' }),
        row({ first_name: 'BO', last_name: 'LEE', zip: '27610' }),
      ]),
      AS_OF,
    );
    const q = prepareQuery(
      two,
      normalizeInput({ first_name: 'Ann', last_name: 'Lee', zip: '27610' }, AS_OF).persons[0]!,
    );
    assert.deepEqual(q.zipTypos, [], 'the file has 27610');
    const levels = new Uint8Array(FIELD_COUNT);
    comparePerson(two, q, 0, levels);
    assert.equal(levels[F.zip], L.zip.differ);
  });
  it('city when a side lacks the ZIP; then not the state', () => {
    let lv = levelsOf(query({ city: 'Raleigh', state: 'SC' }), 0);
    assert.deepEqual([lv[F.zip], lv[F.city], lv[F.state]], [0, L.binary.exact, 0]);
    lv = levelsOf(query({ zip: '27601', city: 'Raleigh', state: 'NC' }), 5); // voter 5 has no ZIP
    assert.deepEqual([lv[F.zip], lv[F.city], lv[F.state]], [0, L.binary.differ, 0]);
  });
  it('state only without ZIP and city', () => {
    let lv = levelsOf(query({ state: 'NC' }), 0);
    assert.deepEqual([lv[F.zip], lv[F.city], lv[F.state]], [0, 0, L.binary.exact]);
    lv = levelsOf(query({ zip: '27601', city: 'Raleigh', state: 'SC' }), 6); // voter 6: state only
    assert.deepEqual([lv[F.zip], lv[F.city], lv[F.state]], [0, 0, L.binary.differ]);
  });
});

describe('comparePerson phone and e-mail', () => {
  it('exact when the voter is in the set, differ when not', () => {
    const q = query({ phone: '919-867-5309', email: 'john@example.com' });
    q.phoneVoters = new Set([0]);
    q.emailVoters = new Set([0]);
    let lv = levelsOf(q, 0);
    assert.equal(lv[F.phone], L.binary.exact);
    assert.equal(lv[F.email], L.binary.exact);
    q.phoneVoters = new Set([3]);
    q.emailVoters = new Set();
    lv = levelsOf(q, 0);
    assert.equal(lv[F.phone], L.binary.differ);
    assert.equal(lv[F.email], L.binary.differ);
  });
  it('not compared when the voter has none, or the input has none', () => {
    const q = query({ phone: '919-867-5309', email: 'john@example.com' });
    q.phoneVoters = new Set([1]);
    q.emailVoters = new Set([1]);
    let lv = levelsOf(q, 1); // voter 1 has no phone or e-mail: its contact flags are 0
    assert.equal(lv[F.phone], 0);
    assert.equal(lv[F.email], 0);
    q.phoneVoters = null;
    q.emailVoters = null;
    lv = levelsOf(q, 0);
    assert.equal(lv[F.phone], 0);
    assert.equal(lv[F.email], 0);
  });
});

describe('comparePerson distance', () => {
  function located(
    lat: string,
    fields: InputFields = {},
    source: 'coordinates' | 'address' | 'zip' = 'coordinates',
  ) {
    const q = query({ ...fields, latitude: lat, longitude: '-80' });
    q.location = { lat: q.person.lat, lon: q.person.lon, source };
    q.radiusMiles = 5;
    return q;
  }
  it('levels near / close / radius / far from input coordinates', () => {
    assert.equal(levelsOf(located('35.001'), 7)[F.distance], L.distance.near); // ~0.07 mi
    assert.equal(levelsOf(located('35.005'), 7)[F.distance], L.distance.close); // ~0.35 mi
    assert.equal(levelsOf(located('35.05'), 7)[F.distance], L.distance.radius); // ~3.5 mi
    assert.equal(levelsOf(located('35.2'), 7)[F.distance], L.distance.far); // ~14 mi
  });
  it('only for input coordinates, not a location derived from the address or ZIP', () => {
    assert.equal(levelsOf(located('35.001', {}, 'address'), 7)[F.distance], 0);
    assert.equal(levelsOf(located('35.001', {}, 'zip'), 7)[F.distance], 0);
  });
  it('only when the address is not compared', () => {
    const q = located('35.78', { address1: '123 N Main St' });
    q.location = { lat: 35.78, lon: -78.64, source: 'coordinates' };
    const lv = levelsOf(q, 0);
    assert.equal(lv[F.address], L.address.exact);
    assert.equal(lv[F.distance], 0);
    // Voter 7 has no address, so the same query is compared by distance.
    assert.notEqual(levelsOf(located('35.001', { address1: '123 N Main St' }), 7)[F.distance], 0);
  });
  it('not compared when the voter has no coordinates', () => {
    assert.equal(levelsOf(located('35.001'), 1)[F.distance], 0);
  });
  it('distanceLevel thresholds: 0.1 mile, 0.5 mile, the radius', () => {
    assert.equal(distanceLevel(0, 3), L.distance.near);
    assert.equal(distanceLevel(0.1, 3), L.distance.near);
    assert.equal(distanceLevel(0.1001, 3), L.distance.close);
    assert.equal(distanceLevel(0.5, 3), L.distance.close);
    assert.equal(distanceLevel(0.5001, 3), L.distance.radius);
    assert.equal(distanceLevel(3, 3), L.distance.radius);
    assert.equal(distanceLevel(3.0001, 3), L.distance.far);
    assert.equal(distanceLevel(0.7, 0.6), L.distance.far);
  });
  it('distanceMiles: one degree of latitude is about 69.1 miles, symmetric, 0 for one point', () => {
    assert.ok(Math.abs(distanceMiles(35, -80, 36, -80) - 69.09) < 0.05);
    assert.ok(Math.abs(distanceMiles(0, 0, 0, 1) - 69.09) < 0.05); // a degree of longitude at the equator
    assert.ok(distanceMiles(60, 0, 60, 1) < 35); // half that at 60°N
    assert.equal(distanceMiles(35.5, -79.5, 35.5, -79.5), 0);
    assert.equal(distanceMiles(35, -80, 36, -79), distanceMiles(36, -79, 35, -80));
    // Raleigh to Charlotte, about 130 miles great-circle.
    const rc = distanceMiles(35.7796, -78.6382, 35.2271, -80.8431);
    assert.ok(rc > 125 && rc < 135, String(rc));
  });
});

describe('comparePerson missing values', () => {
  it('every field is 0 when the input gives nothing', () => {
    assert.deepEqual([...levelsOf(query({}), 0)], new Array(FIELD_COUNT).fill(0));
  });
  it('a field the voter lacks is 0, the others are compared', () => {
    const q = query({
      first_name: 'Margaret',
      middle_name: 'Ann',
      last_name: 'Lopez',
      name_suffix: 'Jr',
      dob: '1980-01-02',
      gender: 'F',
      address1: '123 N Main St',
      zip: '27601',
      city: 'Raleigh',
      state: 'NC',
    });
    const lv = levelsOf(q, 1);
    assert.equal(explainLevels(lv), 'first=exact last=exact');
  });
  it('a full comparison explains every compared field', () => {
    const q = query({
      first_name: 'Johnny',
      middle_name: 'A',
      last_name: 'Smith',
      name_suffix: 'Jr',
      dob: '1980-01-02',
      gender: 'M',
      address1: '123 N Main St Apt 4',
      zip: '27601',
      phone: '9198675309',
    });
    q.phoneVoters = new Set([0]);
    assert.equal(
      explainLevels(levelsOf(q, 0)),
      'first=nickname last=exact middle=initial suffix=exact dob=exact gender=exact address=exact zip=exact phone=exact',
    );
  });
});

describe('comparePerson remembers a query’s name and street levels', () => {
  it('gives each of two interleaved queries its own levels', () => {
    const smith = query({
      first_name: 'Jon',
      last_name: 'Smyth',
      address1: '123 N Main Street',
      zip: '27601',
    });
    const lopez = query({ first_name: 'Margaret', last_name: 'Lopes', address1: '9 Oak St', zip: '27601' });
    const fresh = (fields: InputFields, voter: number) => Array.from(levelsOf(query(fields), voter));
    // Each query compared again after the other wrote its own levels for the same names.
    for (let round = 0; round < 2; round++) {
      for (const voter of [0, 1, 2, 4]) {
        assert.deepEqual(
          Array.from(levelsOf(smith, voter)),
          fresh(
            { first_name: 'Jon', last_name: 'Smyth', address1: '123 N Main Street', zip: '27601' },
            voter,
          ),
        );
        assert.deepEqual(
          Array.from(levelsOf(lopez, voter)),
          fresh({ first_name: 'Margaret', last_name: 'Lopes', address1: '9 Oak St', zip: '27601' }, voter),
        );
      }
    }
    assert.equal(levelsOf(smith, 0)[F.last], L.last.typo);
    assert.equal(levelsOf(lopez, 1)[F.last], L.last.typo);
    assert.notEqual(smith.generation, lopez.generation);
  });
});

describe("a person's values looked up once over a sharded file's dictionaries", () => {
  // Shards' dictionaries of one field share this thread's values (StringDictionary.fromSharedValues).
  const shard = (values: string[]) =>
    StringDictionary.fromSharedValues('memo-test-last', values, new Uint32Array(values.length).fill(1));
  const person = normalizeInput({ first_name: 'Jones', last_name: 'Smith' }, new Date('2026-01-01'))
    .persons[0]!;

  it('gives each shard its own id of the value, and -1 where it has none', () => {
    const a = shard(['', 'BROWN', 'JONES']);
    const b = shard(['', 'JONES']);
    const c = shard(['', 'BROWN']);
    assert.equal(swappedNameId(a, person, 'firstAsLast'), 2);
    assert.equal(swappedNameId(b, person, 'firstAsLast'), 1);
    assert.equal(swappedNameId(c, person, 'firstAsLast'), -1);
    assert.equal(
      swappedNameId(a, person, 'firstAsLast'),
      2,
      'the remembered number, in the first shard again',
    );
  });

  it('looks again for a value no shard had once a shard opened since holds it', () => {
    const later = normalizeInput({ first_name: 'Zellweger', last_name: 'Smith' }, new Date('2026-01-01'))
      .persons[0]!;
    const before = shard(['', 'BROWN']);
    assert.equal(swappedNameId(before, later, 'firstAsLast'), -1);
    const opened = shard(['', 'ZELLWEGER']);
    assert.equal(swappedNameId(opened, later, 'firstAsLast'), 1);
    assert.equal(swappedNameId(before, later, 'firstAsLast'), -1);
  });

  it('a copy of the person with other names (its names swapped) looks its own up', () => {
    const a = shard(['', 'BROWN', 'JONES', 'SMITH']);
    assert.equal(swappedNameId(a, person, 'firstAsLast'), 2);
    const swapped = { ...person, first: person.last, last: person.first };
    assert.equal(
      swappedNameId(a, swapped, 'firstAsLast'),
      3,
      "SMITH's number, not JONES's kept by the person",
    );
    assert.equal(swappedNameId(a, person, 'firstAsLast'), 2);
  });

  it("a copy's query prepares its own first name's groups and street", () => {
    const written = normalizeInput(
      { first_name: 'William', last_name: 'Smith', address1: '123 N Main St', zip: '27601' },
      AS_OF,
    ).persons[0]!;
    const margaret = normalizeInput(
      { first_name: 'Margaret', last_name: 'Smith', address1: '123 South St', zip: '27601' },
      AS_OF,
    ).persons[0]!;
    const first = prepareQuery(index, written);
    const other = prepareQuery(index, { ...written, first: margaret.first, street: margaret.street });
    const fresh = prepareQuery(index, margaret);
    assert.notDeepEqual(other.firstGroups, first.firstGroups);
    assert.deepEqual(other.firstGroups, fresh.firstGroups);
    assert.ok(first.houseStreetKeys.length > 0);
    assert.notDeepEqual(other.houseStreetKeys, first.houseStreetKeys);
    assert.deepEqual(other.houseStreetKeys, fresh.houseStreetKeys);
    assert.deepEqual(prepareQuery(index, written).firstGroups, first.firstGroups, 'the same person again');
  });

  it("looks a whole file's own values up as they are", () => {
    const whole = StringDictionary.fromValues(['', 'JONES'], new Uint32Array([0, 1]));
    assert.equal(whole.sharesValues, false);
    assert.equal(swappedNameId(whole, person, 'firstAsLast'), 1);
  });
});

describe('a person prepared once for every index it is searched in', () => {
  it('prepares its address anew in another index; a copy with its place keeps what was prepared', () => {
    const other = buildMatchIndex(
      new InMemoryVoterSnapshot(CORE_VOTER_COLUMNS, [
        row({ first_name: 'Ann', last_name: 'Lee', address1: '9 Elm St', state: 'VA', zip: '22001' }),
        row({ first_name: 'John', last_name: 'Smith', address1: '123 N Main St', state: 'NC', zip: '27601' }),
      ]),
      AS_OF,
    );
    const person = normalizeInput(
      { first_name: 'John', last_name: 'Smith', address1: '123 N Main St', state: 'NC', zip: '27601' },
      AS_OF,
    ).persons[0]!;
    const here = prepareAddress(index, person);
    const there = prepareAddress(other, person);
    // Each index's own ids: the house and street are the first values of `index`, the second's of `other`.
    assert.deepEqual(
      [here.houseId, here.streetId],
      [index.data.dictionaries.house.idOf('123'), index.data.dictionaries.street.idOf(person.street)],
    );
    assert.deepEqual(
      [there.houseId, there.streetId],
      [other.data.dictionaries.house.idOf('123'), other.data.dictionaries.street.idOf(person.street)],
    );
    assert.notEqual(there.streetId, here.streetId);
    // Back in the first index: its own ids again, and the state's keys alike in both.
    assert.deepEqual(prepareAddress(index, person), here);
    assert.deepEqual(there.stateKeys, here.stateKeys);
    assert.deepEqual(there.houseStreetKeys, here.houseStreetKeys);
    const placed = withPlace(person, { location: null, addressVoters: 3 });
    assert.equal(placed.place?.addressVoters, 3);
    assert.equal(person.place, undefined, 'the person itself is not changed');
    assert.equal(prepareAddress(index, placed), prepareAddress(index, person), 'prepared once');
    assert.deepEqual(prepareQuery(other, placed).houseStreetKeys, there.houseStreetKeys);
    assert.equal(initialsOfPerson(placed), initialsOfPerson(person));
  });
});
