import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  splitCityCell,
  splitOneLineAddress,
  splitStateCell,
  splitUnpunctuatedAddress,
} from './one-line-address.ts';

/** The split as [street, city, state, zip], or null. */
const split = (value: string) => {
  const s = splitUnpunctuatedAddress(value);
  return s === null ? null : [s.street, s.city, s.state, s.zip];
};

describe('one-line addresses', () => {
  it('splitOneLineAddress', () => {
    assert.deepEqual(splitOneLineAddress('12 OAK ST APT 4, RALEIGH NC 27601'), {
      street: '12 OAK ST APT 4',
      city: 'RALEIGH',
      state: 'NC',
      zip: '27601',
    });
    assert.deepEqual(splitOneLineAddress('12 Oak St, Winston Salem, NC 27101-1234'), {
      street: '12 Oak St',
      city: 'Winston Salem',
      state: 'NC',
      zip: '27101-1234',
    });
    assert.deepEqual(splitOneLineAddress('12 OAK ST, RALEIGH'), {
      street: '12 OAK ST',
      city: 'RALEIGH',
      state: '',
      zip: '',
    });
    assert.deepEqual(splitOneLineAddress('12 OAK ST, 27601'), {
      street: '12 OAK ST',
      city: '',
      state: '',
      zip: '27601',
    });
    assert.deepEqual(splitOneLineAddress('12 OAK ST,'), {
      street: '12 OAK ST',
      city: '',
      state: '',
      zip: '',
    });
    // Two letters that are no state stay in the city.
    assert.deepEqual(splitOneLineAddress('12 OAK ST, RALEIGH XQ'), {
      street: '12 OAK ST',
      city: 'RALEIGH XQ',
      state: '',
      zip: '',
    });
  });

  it('splitOneLineAddress keeps a rural route’s box with the route, not as a city', () => {
    assert.deepEqual(splitOneLineAddress('R.R. 2, Box 10'), {
      street: 'R.R. 2 Box 10',
      city: '',
      state: '',
      zip: '',
    });
    assert.deepEqual(splitOneLineAddress('12 Oak St, Box Elder, SD 57719'), {
      street: '12 Oak St',
      city: 'Box Elder',
      state: 'SD',
      zip: '57719',
    });
  });

  it('splitOneLineAddress: a unit or a care-of before the street', () => {
    assert.deepEqual(splitOneLineAddress('Apt 4, 123 Main St, Springfield, IL 62704'), {
      street: 'Apt 4 123 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62704',
    });
    assert.deepEqual(splitOneLineAddress('c/o Jane Doe, 123 Main St, Springfield IL 62704'), {
      street: '123 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62704',
    });
    // A unit after the street stays where it is.
    assert.equal(splitOneLineAddress('123 Main St, Apt 4, Springfield, IL').street, '123 Main St Apt 4');
  });

  it('splitOneLineAddress: a state by its name, a country, the city before the first comma', () => {
    const place = (value: string) => {
      const s = splitOneLineAddress(value);
      return [s.street, s.city, s.state, s.zip];
    };
    assert.deepEqual(place('12 Oak St, Raleigh, North Carolina 27601'), [
      '12 Oak St',
      'Raleigh',
      'North Carolina',
      '27601',
    ]);
    assert.deepEqual(place('12 Oak St, Raleigh, NC, 27601, USA'), ['12 Oak St', 'Raleigh', 'NC', '27601']);
    assert.deepEqual(place('12 Oak St, Raleigh NC 27601 United States'), [
      '12 Oak St',
      'Raleigh',
      'NC',
      '27601',
    ]);
    assert.deepEqual(place('12 Oak St. Raleigh, NC 27601'), ['12 Oak St', 'Raleigh', 'NC', '27601']);
    // A suffix after the street's is the street's, not a city.
    assert.deepEqual(place("1720 Old St Mark's Church Rd, NC"), [
      "1720 Old St Mark's Church Rd",
      '',
      'NC',
      '',
    ]);
    assert.deepEqual(place('12 Main Street Extension, NC 27601'), [
      '12 Main Street Extension',
      '',
      'NC',
      '27601',
    ]);
    assert.deepEqual(place('12 OAK ST, NC'), ['12 OAK ST', '', 'NC', '']);
  });

  it('splitCityCell and splitStateCell', () => {
    assert.deepEqual(splitCityCell('Boise, ID 83702'), { city: 'Boise', state: 'ID', zip: '83702' });
    assert.deepEqual(splitCityCell('Kansas City, Kansas'), { city: 'Kansas City', state: 'Kansas', zip: '' });
    assert.deepEqual(splitCityCell('DE'), { city: 'DE', state: '', zip: '' });
    assert.deepEqual(splitCityCell('Raleigh, XQ'), { city: 'Raleigh XQ', state: '', zip: '' });
    assert.deepEqual(splitStateCell('NC 27601'), { state: 'NC', zip: '27601' });
    assert.deepEqual(splitStateCell('North Carolina, 27601-1234'), {
      state: 'North Carolina',
      zip: '27601-1234',
    });
    assert.equal(splitStateCell('XQ 27601'), null);
    assert.equal(splitStateCell('NC'), null);
  });

  it('splitOneLineAddress reads a dotted state abbreviation ("N.C.")', {}, () => {
    assert.deepEqual(splitOneLineAddress('PO Box 12, Raleigh, N.C. 27601'), {
      street: 'PO Box 12',
      city: 'Raleigh',
      state: 'NC',
      zip: '27601',
    });
  });
  it('splitUnpunctuatedAddress: the street ends at its suffix, a post-directional and a unit', () => {
    assert.deepEqual(split('8420 5th Ct Lot 29 Philadelphia PA 19144'), [
      '8420 5th Ct Lot 29',
      'Philadelphia',
      'PA',
      '19144',
    ]);
    assert.deepEqual(split('12 OAK ST RALEIGH NC 27601-1234'), ['12 OAK ST', 'RALEIGH', 'NC', '27601-1234']);
    assert.deepEqual(split('12 PARK AVE NEW YORK NY 10016'), ['12 PARK AVE', 'NEW YORK', 'NY', '10016']);
    assert.deepEqual(split('45 COURT ST BROOKLYN NY 11201'), ['45 COURT ST', 'BROOKLYN', 'NY', '11201']);
    assert.deepEqual(split('9 VALLEY VIEW DR SPRING HILL FL 34606'), [
      '9 VALLEY VIEW DR',
      'SPRING HILL',
      'FL',
      '34606',
    ]);
    assert.deepEqual(split('55 N MAIN ST SW SALT LAKE CITY UT 84101'), [
      '55 N MAIN ST SW',
      'SALT LAKE CITY',
      'UT',
      '84101',
    ]);
    assert.deepEqual(split('1 MAIN ST WEST PALM BEACH FL 33401'), [
      '1 MAIN ST',
      'WEST PALM BEACH',
      'FL',
      '33401',
    ]);
    assert.deepEqual(split('7 ELM ST # 4 DURHAM NC 27701'), ['7 ELM ST # 4', 'DURHAM', 'NC', '27701']);
    assert.deepEqual(split('7 ELM ST REAR DURHAM NC 27701'), ['7 ELM ST REAR', 'DURHAM', 'NC', '27701']);
    assert.deepEqual(split('PO BOX 12 RALEIGH NC 27601'), ['PO BOX 12', 'RALEIGH', 'NC', '27601']);
  });

  it('splitUnpunctuatedAddress: hostile and huge lines are refused or split, never thrown on', () => {
    for (const value of [
      '\u0000 ST NC 27601',
      '😀 😀 😀 😀 NC 27601',
      ' '.repeat(10_000),
      'ST '.repeat(50_000),
    ]) {
      assert.doesNotThrow(() => splitUnpunctuatedAddress(value));
    }
    const long = `1 ${'OAK '.repeat(20_000)}ST RALEIGH NC 27601`;
    assert.deepEqual(split(long)?.slice(1), ['RALEIGH', 'NC', '27601']);
  });

  it('splitUnpunctuatedAddress: without a suffix the city stays unknown; without a state and ZIP, no split', () => {
    assert.deepEqual(split('100 BROADWAY NEW YORK NY 10001'), ['100 BROADWAY NEW YORK', '', 'NY', '10001']);
    // Digits after the suffix are no city (a highway's number).
    assert.deepEqual(split('100 OLD HWY 64 W CARY NC 27511'), ['100 OLD HWY 64 W CARY', '', 'NC', '27511']);
    for (const value of [
      '12 ELM CT',
      '12 OAK ST RALEIGH NC',
      '12 OAK ST RALEIGH XQ 27601',
      'RALEIGH NC 27601',
      '',
    ]) {
      assert.equal(splitUnpunctuatedAddress(value), null, value);
    }
  });
});
