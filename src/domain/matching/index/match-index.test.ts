import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyPerson, type NormalizedPerson, normalizeVoter, type VoterFields } from '../normalize/person.ts';
import { cellOf, keyDobFirst, keyPhone, keyZipFirst, keyZipLast } from './blocking-keys.ts';
import { hashPart } from './hashing.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';
import {
  CONTACT_EMAIL,
  CONTACT_PHONE,
  firstGroupsOf,
  forEachInitial,
  GENDER_CODE,
  initialOf,
  initialsOf,
  lowestInitial,
  soundOf,
  streetSound,
  TEXT_FIELDS,
} from './match-index-fields.ts';

const AS_OF = new Date('2025-06-01T00:00:00Z');

const voterFields = (fields: Partial<VoterFields>): VoterFields => ({
  first_name: '',
  middle_name: '',
  last_name: '',
  name_suffix: '',
  address1: '',
  address2: '',
  city: '',
  state: '',
  zip: '',
  latitude: '',
  longitude: '',
  dob: '',
  gender: '',
  email: '',
  landline_phone: '',
  wireless_phone: '',
  voip_phone: '',
  ...fields,
});

const RECORDS: Partial<VoterFields>[] = [
  /* 0 */ {
    first_name: 'Robert',
    middle_name: 'James',
    last_name: 'Smith',
    address1: '12 Oak St',
    city: 'Raleigh',
    state: 'NC',
    zip: '27601',
    latitude: '35.7800',
    longitude: '-78.6400',
    dob: '19700312',
    gender: 'M',
    wireless_phone: '9194471042',
    email: 'bob.smith@gmail.com',
  },
  /* 1 */ {
    first_name: 'Bob',
    last_name: 'Smith',
    name_suffix: 'Jr',
    address1: '12 Oak St',
    address2: 'Apt 2',
    city: 'Raleigh',
    state: 'NC',
    zip: '27601',
    latitude: '35.7900',
    longitude: '-78.6200',
    dob: '19951120',
    gender: 'M',
    landline_phone: '9194471099',
  },
  /* 2: a ZIP without coordinates does not move the centroid */ {
    first_name: 'Mary',
    last_name: 'Smith',
    address1: '14 Oak St',
    city: 'Raleigh',
    state: 'NC',
    zip: '27601',
    dob: '1972',
    gender: 'F',
    email: 'mary@example.org',
  },
  /* 3 */ {
    first_name: 'Mary',
    last_name: 'Jones',
    address1: '7 Pine Rd',
    city: 'Cary',
    state: 'NC',
    zip: '27511',
    latitude: '35.7900',
    longitude: '-78.7800',
    dob: '198510',
    gender: 'F',
  },
  /* 4: same coordinates as 0 */ {
    first_name: 'Zbigniew',
    last_name: 'Kowalczyk',
    address1: '500 Elm Ave',
    city: 'Durham',
    state: 'NC',
    zip: '27701',
    latitude: '35.7800',
    longitude: '-78.6400',
    gender: 'M',
  },
  /* 5: a surname only */ { last_name: 'Smith', zip: '27511', latitude: '35.7700', longitude: '-78.7900' },
  /* 6: nothing but a name */ { first_name: 'Robert', last_name: 'Jones' },
  /* 7: another state, no ZIP */ {
    first_name: 'Alice',
    last_name: 'Walker',
    address1: '3 Main St',
    city: 'Richmond',
    state: 'VA',
    latitude: '37.5400',
    longitude: '-77.4300',
    voip_phone: '8045551234',
  },
  /* 8: empty record */ {},
  /* 9 */ {
    first_name: 'Bill',
    last_name: 'Bob',
    zip: '27601',
    latitude: '35.7600',
    longitude: '-78.6600',
    dob: '19600101',
    gender: 'X',
  },
];

const PERSONS: NormalizedPerson[] = RECORDS.map((r) => normalizeVoter(voterFields(r), AS_OF));

function build(persons: readonly NormalizedPerson[] = PERSONS): MatchIndex {
  const builder = new MatchIndexBuilder();
  persons.forEach((person, i) => {
    builder.add(i, person);
  });
  return builder.finish();
}

const bit = (letter: string) => 1 << (letter.charCodeAt(0) - 65);

describe('MatchIndexBuilder / MatchIndex', () => {
  const index = build();
  const data = index.data;
  /** One field of every voter, in voter order. */
  const column = (name: 'first' | 'zip' | 'dob' | 'gender' | 'contact') =>
    Array.from({ length: data.size }, (_, voter) => data.fields[name](voter));

  it('builds without postings, when asked, the same fields, dictionaries and map cells', () => {
    const builder = new MatchIndexBuilder({ postings: false });
    PERSONS.forEach((person, i) => {
      builder.add(i, person);
    });
    const bare = builder.finish().data;
    assert.ok(data.postings.size > 0);
    assert.equal(bare.postings.size, 0);
    assert.equal(bare.postings.count(keyPhone('9194471042')), 0);
    for (const field of TEXT_FIELDS) {
      assert.deepEqual(bare.dictionaries[field].values, data.dictionaries[field].values, field);
      for (let voter = 0; voter < data.size; voter++)
        assert.equal(bare.fields.id(field, voter), data.fields.id(field, voter), field);
    }
    for (let voter = 0; voter < data.size; voter++) {
      assert.equal(bare.fields.dob(voter), data.fields.dob(voter));
      assert.equal(bare.fields.zip(voter), data.fields.zip(voter));
      assert.equal(bare.fields.lat(voter), data.fields.lat(voter));
    }
    assert.deepEqual(bare.cellIds, data.cellIds);
    assert.deepEqual(bare.cellCounts, data.cellCounts);
  });

  it('normalizes the fixture as the tests expect', () => {
    assert.equal(PERSONS[0]!.first, 'ROBERT');
    assert.equal(PERSONS[0]!.street, 'OAK ST');
    assert.equal(PERSONS[1]!.unit, '2');
    assert.equal(PERSONS[1]!.suffix, 'JR');
    assert.equal(PERSONS[9]!.gender, '');
    assert.ok(Number.isNaN(PERSONS[2]!.lat));
    assert.equal(index.size, RECORDS.length);
  });

  it('dictionaries: id 0 is the empty value, ids in first-seen order, counts per record', () => {
    for (const field of TEXT_FIELDS) {
      const dict = data.dictionaries[field];
      assert.equal(dict.value(0), '', field);
      assert.equal(dict.idOf(''), 0, field);
      assert.equal(dict.counts.length, dict.size, field);
      let total = 0;
      for (let id = 0; id < dict.size; id++) {
        total += dict.count(id);
        assert.equal(dict.idOf(dict.value(id)), id, `${field} ${id}`);
      }
      assert.equal(total, RECORDS.length, `${field}: one id per record`);
      // Each record's id holds its value.
      PERSONS.forEach((person, voter) => {
        assert.equal(dict.value(data.fields.id(field, voter)), person[field], `${field} of voter ${voter}`);
      });
    }
    const first = data.dictionaries.first;
    assert.deepEqual(first.values, ['', 'ROBERT', 'BOB', 'MARY', 'ZBIGNIEW', 'ALICE', 'BILL']);
    assert.deepEqual(Array.from(first.counts), [2, 2, 1, 2, 1, 1, 1]);
    assert.deepEqual(column('first'), [1, 2, 3, 3, 4, 0, 1, 5, 0, 6]);
    const last = data.dictionaries.last;
    assert.deepEqual(last.values, ['', 'SMITH', 'JONES', 'KOWALCZYK', 'WALKER', 'BOB']);
    assert.deepEqual(Array.from(last.counts), [1, 4, 2, 1, 1, 1]);
    assert.equal(last.idOf('NOBODY'), -1);
    assert.equal(last.count(-1), 0);
    assert.equal(last.count(last.size), 0);
    assert.equal(last.value(99), '');
    assert.equal(data.dictionaries.state.count(data.dictionaries.state.idOf('NC')), 5);
    assert.equal(data.dictionaries.street.count(data.dictionaries.street.idOf('OAK ST')), 3);
    assert.equal(data.dictionaries.unit.count(0), 9);
  });

  it('zip, dob, gender and contact of each voter', () => {
    assert.deepEqual(column('zip'), [27601, 27601, 27601, 27511, 27701, 27511, 0, 0, 0, 27601]);
    assert.deepEqual(column('dob'), [19700312, 19951120, 19720000, 19851000, 0, 0, 0, 0, 0, 19600101]);
    const { M, F } = GENDER_CODE;
    assert.deepEqual(column('gender'), [M, M, F, F, M, 0, 0, 0, 0, 0]);
    assert.deepEqual(column('contact'), [
      CONTACT_PHONE | CONTACT_EMAIL,
      CONTACT_PHONE,
      CONTACT_EMAIL,
      0,
      0,
      0,
      0,
      CONTACT_PHONE,
      0,
      0,
    ]);
    assert.equal(data.fields.size, RECORDS.length);
    assert.equal(data.fields.bytes.byteLength, RECORDS.length * data.fields.stride);
  });

  it('coordinates: Float32 per voter, NaN when unknown', () => {
    assert.equal(data.fields.lat(0), Math.fround(35.78));
    assert.equal(data.fields.lon(0), Math.fround(-78.64));
    for (const voter of [2, 6, 8]) {
      assert.ok(
        Number.isNaN(data.fields.lat(voter)) && Number.isNaN(data.fields.lon(voter)),
        `voter ${voter}`,
      );
    }
  });

  it('ZIP centroid is the mean of the coordinates of the ZIP’s voters that have some', () => {
    const c27601 = index.zipCentroid(27601);
    assert.ok(c27601 !== null);
    // Voters 0, 1 and 9 (voter 2 has no coordinates).
    assert.equal(c27601[0], Math.fround((35.78 + 35.79 + 35.76) / 3));
    assert.equal(c27601[1], Math.fround((-78.64 + -78.62 + -78.66) / 3));
    assert.deepEqual(index.zipCentroid(27511), [
      Math.fround((35.79 + 35.77) / 2),
      Math.fround((-78.78 + -78.79) / 2),
    ]);
    assert.deepEqual(index.zipCentroid(27701), [Math.fround(35.78), Math.fround(-78.64)]);
    assert.equal(index.zipCentroid(27612), null);
    assert.equal(index.zipCentroid(0), null, 'no centroid for "no ZIP"');
    assert.deepEqual(Array.from(data.zipIds), [27511, 27601, 27701]);
  });

  it('hasZip: the ZIPs some voter lives in, whether or not located', () => {
    for (const zip of [27511, 27601, 27701]) assert.equal(index.hasZip(zip), true, `${zip}`);
    for (const zip of [27612, 0, -1, 100_000]) assert.equal(index.hasZip(zip), false, `${zip}`);
  });

  it('countInSteps: the same ZIP and birth-date counts as the first row asking, a step at a time', async () => {
    // Many voters (each record repeated), counted 7 at a time.
    const persons = Array.from({ length: 50 }, (_, i) => PERSONS[i % PERSONS.length]!);
    const atOnce = build(persons);
    const stepped = build(persons);
    let pauses = 0;
    await stepped.countInSteps(async () => {
      pauses++;
    }, 7);
    assert.equal(pauses, Math.ceil(50 / 7) - 1, 'a pause between steps');
    for (const zip of [27511, 27601, 27701, 27612, 0])
      assert.equal(stepped.zipCount(zip), atOnce.zipCount(zip), `ZIP ${zip}`);
    assert.equal(stepped.zipCount(27601), persons.filter((p) => p.zip === '27601').length);
    for (const dob of [19700312, 19951120, 19600101, 19990101])
      assert.equal(stepped.dobCount(dob), atOnce.dobCount(dob), `born ${dob}`);
    assert.ok(stepped.dobCount(19700312) > 1, 'a date many share');
    // Counted already: nothing to do (no pause).
    await stepped.countInSteps(async () => {
      pauses++;
    }, 7);
    assert.equal(pauses, Math.ceil(50 / 7) - 1);
  });

  it('cellCount counts the voters with coordinates in each map cell', () => {
    assert.equal(index.cellCount(cellOf(35.78, -78.64)), 2, 'voters 0 and 4');
    assert.equal(index.cellCount(cellOf(35.7801, -78.6399)), 2, 'same cell');
    assert.equal(index.cellCount(cellOf(37.54, -77.43)), 1);
    assert.equal(index.cellCount(cellOf(40, -100)), 0);
    let total = 0;
    for (const count of data.cellCounts) total += count;
    assert.equal(total, 7, 'voters with coordinates');
    for (let i = 1; i < data.cellIds.length; i++) assert.ok(data.cellIds[i - 1]! < data.cellIds[i]!);
    for (let i = 0; i < data.cellIds.length; i++)
      assert.equal(index.cellCount(data.cellIds[i]!), data.cellCounts[i]);
  });

  it('lists voters under their blocking keys', () => {
    const postings = data.postings;
    const voters = (hash: number) => {
      const found: number[] = [];
      const [start, end] = postings.range(hash);
      for (let i = start; i < end; i++) found.push(postings.voterAt(i));
      return found.sort((a, b) => a - b);
    };
    assert.deepEqual(voters(keyZipLast(27601, soundOf('SMITH'))), [0, 1, 2]);
    // BOB is filed under ROBERT's group.
    assert.deepEqual(voters(keyZipFirst(27601, hashPart('ROBERT'))), [0, 1]);
    // BOB's dob under both initials B and R; ROBERT's only under R.
    assert.deepEqual(voters(keyDobFirst(19951120, initialOf('B'))), [1]);
    assert.deepEqual(voters(keyDobFirst(19951120, initialOf('R'))), [1]);
    assert.deepEqual(voters(keyDobFirst(19700312, initialOf('B'))), []);
    assert.deepEqual(voters(keyPhone('9194471099')), [1]);
  });

  it('derived name features', () => {
    const first = data.dictionaries.first;
    const bob = first.idOf('BOB');
    // What the builder files a first name under (blocking) …
    assert.equal(initialsOf('BOB'), bit('B') | bit('R'));
    assert.equal(initialOf('BOB'), 2);
    assert.deepEqual(firstGroupsOf('BOB'), firstGroupsOf('ROBERT'));
    assert.deepEqual(firstGroupsOf(''), []);
    assert.equal(streetSound('OAK ST'), hashPart('OAK'));
    assert.equal(streetSound(''), 0);
    // … and the sounds the scorer reads per dictionary id.
    assert.equal(index.firstSound(bob), soundOf('BOB'));
    assert.equal(index.firstSound(0), 0);
    assert.equal(index.lastSound(data.dictionaries.last.idOf('SMITH')), soundOf('SMITH'));
    assert.equal(index.lastSound(0), 0);
    // Stored at build for every name (a matching thread computes none).
    for (const [id, name] of data.dictionaries.first.values.entries())
      assert.equal(index.firstSound(id), soundOf(name));
    for (const [id, name] of data.dictionaries.last.values.entries())
      assert.equal(index.lastSound(id), soundOf(name));
  });

  it('throws when voters are added out of order', () => {
    const builder = new MatchIndexBuilder();
    assert.throws(() => builder.add(1, PERSONS[0]!), RangeError);
    builder.add(0, PERSONS[0]!);
    assert.throws(() => builder.add(0, PERSONS[1]!), /expected 1/);
    assert.throws(() => builder.add(2, PERSONS[1]!), RangeError);
    builder.add(1, PERSONS[1]!);
    assert.equal(builder.finish().size, 2);
  });

  it('an empty builder gives an empty index', () => {
    const empty = new MatchIndexBuilder().finish();
    assert.equal(empty.size, 0);
    assert.equal(empty.data.postings.size, 0);
    assert.equal(empty.cellCount(0), 0);
    assert.equal(empty.zipCentroid(27601), null);
    assert.deepEqual(empty.data.dictionaries.first.values, ['']);
  });

  it('keeps every column when more voters than the initial capacity are added', () => {
    const builder = new MatchIndexBuilder();
    const count = (1 << 16) + 10;
    for (let i = 0; i < count; i++) {
      const person = emptyPerson();
      person.last = i % 2 === 0 ? 'SMITH' : 'JONES';
      person.zip = String(10000 + (i % 90000));
      person.dob = { year: 1900 + (i % 100), month: 1, day: 1 };
      person.gender = i % 3 === 0 ? 'F' : 'M';
      person.lat = 35 + (i % 7) / 100;
      person.lon = -78;
      builder.add(i, person);
    }
    const big = builder.finish();
    assert.equal(big.size, count);
    for (const voter of [0, 1, 65535, 65536, count - 1]) {
      const fields = big.data.fields;
      assert.equal(fields.zip(voter), 10000 + (voter % 90000), `zip of ${voter}`);
      assert.equal(fields.dob(voter), (1900 + (voter % 100)) * 10000 + 101);
      assert.equal(fields.gender(voter), voter % 3 === 0 ? GENDER_CODE.F : GENDER_CODE.M);
      assert.equal(fields.lat(voter), Math.fround(35 + (voter % 7) / 100));
      assert.equal(fields.last(voter), voter % 2 === 0 ? 1 : 2);
    }
    assert.equal(big.data.fields.size, count);
  });
});

describe('name helpers', () => {
  it('firstGroupsOf: a nickname shares its formal name’s groups', () => {
    assert.deepEqual(firstGroupsOf('BOB'), firstGroupsOf('ROBERT'));
    assert.ok(firstGroupsOf('ROBERT').length > 0);
    assert.notDeepEqual(firstGroupsOf('MARY'), firstGroupsOf('ROBERT'));
    assert.deepEqual(firstGroupsOf(''), []);
    // Outside the nickname table: one group by sound, so same-sounding spellings share it.
    assert.equal(firstGroupsOf('ZBIGNIEW').length, 1);
    assert.notDeepEqual(firstGroupsOf('ZBIGNIEW'), firstGroupsOf('XAVIERA'));
  });

  it('initialsOf: own initial plus the formal names’', () => {
    const bob = initialsOf('BOB');
    assert.ok(bob & bit('B'));
    assert.ok(bob & bit('R'));
    assert.equal(initialsOf('ROBERT'), bit('R'));
    assert.equal(initialsOf(''), 0);
    assert.equal(initialOf('A'), 1);
    assert.equal(initialOf('ZED'), 26);
    assert.equal(initialOf(''), 0);
    assert.equal(initialOf("'X"), 0);
  });

  it('lowestInitial and forEachInitial read initials 1-26 from a mask', () => {
    assert.equal(lowestInitial(bit('A')), 1);
    assert.equal(lowestInitial(bit('Z')), 26);
    assert.equal(lowestInitial(bit('R') | bit('B')), 2);
    const seen: number[] = [];
    forEachInitial(bit('B') | bit('R') | bit('Z') | bit('A'), (initial) => seen.push(initial));
    assert.deepEqual(seen, [1, 2, 18, 26]);
    forEachInitial(0, () => assert.fail('no initials in 0'));
    const fromBob: number[] = [];
    forEachInitial(initialsOf('BOB'), (initial) => fromBob.push(initial));
    assert.deepEqual(fromBob, [initialOf('B'), initialOf('R')]);
  });
});
