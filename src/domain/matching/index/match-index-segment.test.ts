import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateVoterRows, VOTER_COLUMNS } from '../../../lab/synthetic/synthetic-voters.ts';
import { packDate } from '../normalize/dates.ts';
import { normalizeVoter } from '../normalize/person.ts';
import {
  CELL_KEY_WORDS,
  cellOf,
  keyCellFirst,
  keyCellLast,
  keyCityFirst,
  keyCityLast,
  keyDobFirst,
  keyDobLast,
  keyEmail,
  keyEmailCheck,
  keyFirstYear,
  keyHouseStreet,
  keyHouseZip,
  keyLastYear,
  keyPhone,
  keyPhoneCheck,
  keyStateName,
  keyZipFirst,
  keyZipLast,
  mayHoldCellKey,
  valueKey,
  zipNumber,
} from './blocking-keys.ts';
import { MatchIndexBuilder } from './match-index.ts';
import {
  firstGroupsOf,
  forEachInitial,
  initialOf,
  initialsOf,
  soundOf,
  streetSound,
} from './match-index-fields.ts';

const AS_OF = new Date('2026-01-01T00:00:00Z');

describe('MatchIndexSegmentBuilder', () => {
  it('files every voter under each key the query side computes for it with blocking-keys.ts', () => {
    const rows = [...generateVoterRows({ rows: 400, seed: 5 })];
    const builder = new MatchIndexBuilder();
    const persons = rows.map((row) =>
      normalizeVoter(Object.fromEntries(VOTER_COLUMNS.map((c, i) => [c, row[i] ?? ''])) as never, AS_OF),
    );
    for (const [voter, person] of persons.entries()) builder.add(voter, person);
    const index = builder.finish();
    const postings = index.data.postings;
    // A cell key is also held by its cell's filter (a radius search skips the keys it lacks).
    const inFilter = (cell: number, hash: number) => {
      const at = index.cellIndex(cell);
      return at >= 0 && mayHoldCellKey(index.data.cellKeyFilters, at * CELL_KEY_WORDS, hash);
    };
    const lists = (hash: number, voter: number) => {
      const [start, end] = postings.range(hash);
      for (let i = start; i < end; i++) if (postings.voterAt(i) === voter) return true;
      return false;
    };
    const kinds = new Set<string>();
    persons.forEach((p, voter) => {
      const expect = (kind: string, hash: number) => {
        kinds.add(kind);
        assert.ok(lists(hash, voter), `voter ${voter} is not filed under its ${kind} key`);
      };
      const last = soundOf(p.last);
      const groups = firstGroupsOf(p.first);
      const zip = zipNumber(p.zip);
      const [city, state, house] = [valueKey(p.city), valueKey(p.state), valueKey(p.house)];
      const dob = p.dob === null ? 0 : packDate(p.dob);
      if (p.last !== '' && zip !== 0) expect('zipLast', keyZipLast(zip, last));
      if (p.last !== '' && p.city !== '' && p.state !== '')
        expect('cityLast', keyCityLast(city, state, last));
      if (p.last !== '' && p.dob !== null) {
        forEachInitial(initialsOf(p.first), (i) => expect('lastYear', keyLastYear(last, i, p.dob!.year)));
        // Also under the middle name's initial (a row may give the name the person goes by).
        if (p.middle.length > 1) expect('lastYear', keyLastYear(last, initialOf(p.middle), p.dob.year));
        if (p.dob.day !== 0) expect('dobLast', keyDobLast(dob, last));
      }
      for (const group of groups) {
        if (zip !== 0) expect('zipFirst', keyZipFirst(zip, group));
        if (p.city !== '' && p.state !== '') expect('cityFirst', keyCityFirst(city, state, group));
        if (p.last !== '' && p.state !== '') expect('stateName', keyStateName(state, last, group));
        if (p.dob !== null && initialOf(p.last) !== 0)
          expect('firstYear', keyFirstYear(group, initialOf(p.last), p.dob.year));
      }
      if (p.first !== '' && p.dob !== null && p.dob.day !== 0)
        forEachInitial(initialsOf(p.first), (i) => expect('dobFirst', keyDobFirst(dob, i)));
      if (p.house !== '') {
        if (zip !== 0) expect('houseZip', keyHouseZip(house, zip));
        expect('houseStreet', keyHouseStreet(house, streetSound(p.street), state));
      }
      for (const phone of p.phones) {
        expect('phone', keyPhone(phone));
        expect('phoneCheck', keyPhoneCheck(phone));
      }
      if (p.email !== '') {
        expect('email', keyEmail(p.email));
        expect('emailCheck', keyEmailCheck(p.email));
      }
      if (!Number.isNaN(p.lat)) {
        const cell = cellOf(p.lat, p.lon);
        if (p.last !== '') expect('cellLast', keyCellLast(cell, last));
        for (const group of groups) expect('cellFirst', keyCellFirst(cell, group));
        if (p.last !== '') assert.ok(inFilter(cell, keyCellLast(cell, last)), `voter ${voter}: cell filter`);
        for (const group of groups) assert.ok(inFilter(cell, keyCellFirst(cell, group)));
      }
    });
    assert.equal(kinds.size, 17, `every kind of key was checked (${[...kinds].join(', ')})`);
  });
});
