import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAddress } from './address.ts';
import {
  addressParts,
  emptyPerson,
  type InputFields,
  type NormalizedPerson,
  normalizeInput,
  normalizeVoter,
  placeOf,
  placeOfNormalized,
  VOTER_FIELDS,
  type VoterFields,
} from './person.ts';

const AS_OF = new Date('2024-06-01T00:00:00Z');
const one = (fields: InputFields): NormalizedPerson => {
  const { persons } = normalizeInput(fields, AS_OF);
  assert.equal(persons.length, 1);
  return persons[0]!;
};
const names = (p: NormalizedPerson) => [p.first, p.middle, p.last, p.suffix];

describe('normalizeInput names', () => {
  it('cleans name components', () => {
    const p = one({ first_name: ' josé ', middle_name: 'q.', last_name: "o'brien", name_suffix: 'jr.' });
    assert.deepEqual(names(p), ['JOSE', 'Q', 'OBRIEN', 'JR']);
  });

  it('components win over full_name, which lends only the middle name of the same person', () => {
    const p = one({ first_name: 'John', last_name: 'Smith', full_name: 'Doe, Jane X' });
    assert.deepEqual(names(p), ['JOHN', '', 'SMITH', '']);
    const same = one({ first_name: 'John', last_name: 'Smith', full_name: 'John Q. Smith' });
    assert.deepEqual(names(same), ['JOHN', 'Q', 'SMITH', '']);
  });

  it('full_name fills the gaps ("SMITH, JOHN Q")', () => {
    assert.deepEqual(names(one({ full_name: 'SMITH, JOHN Q' })), ['JOHN', 'Q', 'SMITH', '']);
    assert.deepEqual(names(one({ last_name: 'Smithe', full_name: 'SMITH, JOHN Q' })), [
      'JOHN',
      'Q',
      'SMITHE',
      '',
    ]);
    assert.deepEqual(names(one({ first_name: 'Jon', full_name: 'Smith, John Q' })), [
      'JON',
      'Q',
      'SMITH',
      '',
    ]);
    assert.deepEqual(names(one({ full_name: 'Dr. John Q. Smith Jr.' })), ['JOHN', 'Q', 'SMITH', 'JR']);
  });

  it('first_name_combined "JOHN & MARY SMITH" gives two persons sharing the last name, address and contact data', () => {
    const { persons, problems } = normalizeInput(
      {
        first_name_combined: 'JOHN & MARY SMITH',
        middle_name: 'Q',
        address1: '12 Oak St',
        zip: '27601',
        dob: '1980-01-02',
        age: '44',
        gender: 'M',
        phone: '919-867-5309',
        email: 'smiths@example.com',
      },
      AS_OF,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      persons.map((p) => [p.first, p.last]),
      [
        ['JOHN', 'SMITH'],
        ['MARY', 'SMITH'],
      ],
    );
    for (const p of persons) {
      assert.equal(p.middle, '');
      assert.equal(p.dob, null);
      assert.equal(p.birthYears, null);
      assert.equal(p.gender, '');
      assert.deepEqual([p.house, p.street, p.zip], ['12', 'OAK ST', '27601']);
      assert.deepEqual(p.phones, ['9198675309']);
      assert.equal(p.email, 'smiths@example.com');
    }
  });

  it('a full_name of two people ("JOHN Q & MARY SMITH") gives two persons, each with its middle name', () => {
    const { persons, problems } = normalizeInput(
      { full_name: 'Smith, John Q & Mary', address1: '12 Oak St', zip: '27601', dob: '1980-01-02' },
      AS_OF,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      persons.map((p) => [p.first, p.middle, p.last, p.dob, p.street]),
      [
        ['JOHN', 'Q', 'SMITH', null, 'OAK ST'],
        ['MARY', '', 'SMITH', null, 'OAK ST'],
      ],
    );
    const jones = normalizeInput({ full_name: 'John & Mary Smith', last_name: 'Jones' }, AS_OF).persons;
    assert.deepEqual(
      jones.map((p) => [p.first, p.last]),
      [
        ['JOHN', 'JONES'],
        ['MARY', 'JONES'],
      ],
      'a last_name column wins',
    );
    assert.deepEqual(names(one({ full_name: 'John Smith & Mary Jones', first_name: 'Mary' })), [
      'MARY',
      '',
      'JONES',
      '',
    ]);
    // A couple's titles before one name are one person; name columns make it one person too.
    assert.deepEqual(names(one({ full_name: 'Mr & Mrs John Smith' })), ['JOHN', '', 'SMITH', '']);
    assert.deepEqual(names(one({ full_name: 'John & Mary Smith', first_name: 'John', last_name: 'Smith' })), [
      'JOHN',
      '',
      'SMITH',
      '',
    ]);
  });

  it('a whole name in one name cell with the other empty, and a surname written twice', () => {
    assert.deepEqual(names(one({ last_name: 'Smith, John Q' })), ['JOHN', 'Q', 'SMITH', '']);
    assert.deepEqual(names(one({ first_name: 'SMITH, JOHN' })), ['JOHN', '', 'SMITH', '']);
    assert.deepEqual(
      names(one({ last_name: 'Smith, Jr.' })),
      ['', '', 'SMITH', 'JR'],
      'a suffix, not a name',
    );
    assert.deepEqual(names(one({ last_name: 'Garcia Lopez' })), ['', '', 'GARCIA LOPEZ', ''], 'no comma');
    assert.deepEqual(names(one({ first_name: 'John Smith', last_name: 'Smith' })), ['JOHN', '', 'SMITH', '']);
    assert.deepEqual(names(one({ first_name: 'John', last_name: 'John Smith' })), ['JOHN', '', 'SMITH', '']);
    assert.deepEqual(names(one({ first_name: 'Mary Ann', last_name: 'Ann' })), ['MARY', '', 'ANN', '']);
  });

  it('a nickname beside a given name is left out; a surname’s aside stays, as a compound surname', () => {
    assert.deepEqual(names(one({ first_name: 'Robert (Bob)', last_name: 'Smith' })), [
      'ROBERT',
      '',
      'SMITH',
      '',
    ]);
    assert.deepEqual(names(one({ full_name: 'Smith, Robert "Bob" J' })), ['ROBERT', 'J', 'SMITH', '']);
    assert.deepEqual(names(one({ first_name: 'Mary', last_name: 'Smith (Jones)' })), [
      'MARY',
      '',
      'SMITH JONES',
      '',
    ]);
  });

  it('two first names in the first_name cell are a couple, as in first_name_combined', () => {
    for (const first_name of ['John & Mary', 'John and Mary', 'JOHN/MARY', 'John + Mary']) {
      assert.deepEqual(
        normalizeInput({ first_name, last_name: 'Smith' }, AS_OF).persons.map((p) => [p.first, p.last]),
        [
          ['JOHN', 'SMITH'],
          ['MARY', 'SMITH'],
        ],
        first_name,
      );
    }
    // A couple's titles before one first name, or a name with AND inside it, are one person.
    assert.deepEqual(names(one({ first_name: 'Mr. & Mrs. John', last_name: 'Smith' })), [
      'JOHN',
      '',
      'SMITH',
      '',
    ]);
    assert.deepEqual(names(one({ first_name: 'Andrea', last_name: 'Smith' })), ['ANDREA', '', 'SMITH', '']);
  });

  it('first_name_combined: a last_name column wins, a first_name column makes it one person', () => {
    const { persons } = normalizeInput({ first_name_combined: 'John and Mary', last_name: 'Jones' }, AS_OF);
    assert.deepEqual(
      persons.map((p) => [p.first, p.last]),
      [
        ['JOHN', 'JONES'],
        ['MARY', 'JONES'],
      ],
    );
    assert.deepEqual(names(one({ first_name_combined: 'JOHN & MARY SMITH', first_name: 'Bob' })), [
      'BOB',
      '',
      'SMITH',
      '',
    ]);
    assert.deepEqual(names(one({ first_name_combined: 'Mary', last_name: 'Smith' })), [
      'MARY',
      '',
      'SMITH',
      '',
    ]);
  });
});

describe('placeholders of a missing value', () => {
  it('a list cell of N/A, NULL or #N/A is empty (N/A is no couple of N and A)', () => {
    const p = one({
      first_name: 'N/A',
      middle_name: 'NULL',
      last_name: 'Smith',
      address1: '#N/A',
      zip: 'unknown',
    });
    assert.deepEqual([p.first, p.middle, p.last, p.street, p.zip], ['', '', 'SMITH', '', '']);
    // A ZIP or phone a spreadsheet kept as text.
    assert.deepEqual(
      [
        one({ zip: '="02760"', phone: "'(919) 555-1234", last_name: 'Smith' }).zip,
        one({ zip: "'02760", last_name: 'Smith' }).zip,
      ],
      ['02760', '02760'],
    );
    // NULL is a surname too.
    assert.equal(one({ first_name: 'Sarah', last_name: 'Null' }).last, 'NULL');
    assert.deepEqual(normalizeInput({ last_name: 'Smith', zip: 'N/A' }, AS_OF).problems, []);
  });

  it('a voter file’s NULL middle name, suffix, unit or city is empty', () => {
    const voter = normalizeVoter(
      {
        ...Object.fromEntries(VOTER_FIELDS.map((f) => [f, ''])),
        first_name: 'JOHN',
        middle_name: 'NULL',
        last_name: 'SMITH',
        name_suffix: 'NULL',
        address1: '12 OAK ST',
        address2: 'NULL',
        city: '#N/A',
      } as VoterFields,
      AS_OF,
    );
    assert.deepEqual(
      [voter.first, voter.middle, voter.suffix, voter.street, voter.unit, voter.city],
      ['JOHN', '', '', 'OAK ST', '', ''],
    );
  });
});

describe('normalizeInput address', () => {
  it('parses address1 and address2 into house, street and unit', () => {
    const p = one({
      address1: '123 North Main Street',
      address2: 'Apt 4',
      city: 'raleigh',
      state: 'nc',
      zip: '27601-1234',
    });
    assert.deepEqual(
      [p.house, p.street, p.unit, p.city, p.state, p.zip],
      ['123', 'N MAIN ST', '4', 'RALEIGH', 'NC', '27601'],
    );
  });

  it('a one-line address with empty city and ZIP fills city, state and ZIP', () => {
    const p = one({ address1: '12 OAK ST APT 4, RALEIGH NC 27601' });
    assert.deepEqual(
      [p.house, p.street, p.unit, p.city, p.state, p.zip],
      ['12', 'OAK ST', '4', 'RALEIGH', 'NC', '27601'],
    );
  });

  it('a one-line address keeps the state and ZIP columns, and is not split when a city is given', () => {
    assert.equal(one({ address1: '12 Oak St, Raleigh NC 27601', state: 'SC' }).state, 'SC');
    const withZip = one({ address1: '12 Oak St, Raleigh NC', zip: '27603' });
    assert.deepEqual(
      [withZip.house, withZip.city, withZip.state, withZip.zip],
      ['12', 'RALEIGH', 'NC', '27603'],
    );
    const withCity = one({ address1: '12 Oak St, Apt 4', city: 'Cary' });
    assert.deepEqual([withCity.house, withCity.unit, withCity.city], ['12', '4', 'CARY']);
  });

  it('the state and ZIP written in the city cell, or the ZIP in the state cell', () => {
    const place = (fields: InputFields) => {
      const p = one(fields);
      return [p.city, p.state, p.zip];
    };
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Raleigh, NC 27601' }), ['RALEIGH', 'NC', '27601']);
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Raleigh NC' }), ['RALEIGH', 'NC', '']);
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Washington, D.C.' }), ['WASHINGTON', 'DC', '']);
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Raleigh, North Carolina' }), [
      'RALEIGH',
      'NC',
      '',
    ]);
    // The cells win over what the city cell adds.
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Raleigh NC', state: 'SC', zip: '29201' }), [
      'RALEIGH',
      'SC',
      '29201',
    ]);
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Raleigh', state: 'NC 27601' }), [
      'RALEIGH',
      'NC',
      '27601',
    ]);
    // A state's name is a city's own unless a comma sets it apart.
    assert.deepEqual(place({ address1: '12 Oak St', city: 'Port Washington' }), ['PORT WASHINGTON', '', '']);
    assert.deepEqual(place({ address1: '12 Oak St', city: 'New York' }), ['NEW YORK', '', '']);
  });

  it('an address cell of several lines reads as one line with commas', () => {
    const p = one({ address1: '12 Oak St Apt 4\nRaleigh, NC 27601' });
    assert.deepEqual(
      [p.house, p.street, p.unit, p.city, p.state, p.zip],
      ['12', 'OAK ST', '4', 'RALEIGH', 'NC', '27601'],
    );
  });

  it('a whole address in address1 without commas gives its city, state and ZIP', {}, () => {
    const p = one({ address1: '8420 5th Ct Lot 29 Philadelphia PA 19144' });
    assert.deepEqual(
      [p.house, p.street, p.unit, p.city, p.state, p.zip],
      ['8420', '5TH CT', '29', 'PHILADELPHIA', 'PA', '19144'],
    );
    // A street alone is the street as written, whatever it ends with (CT is also a state).
    const q = one({ address1: '12 Elm Ct', city: 'Durham', zip: '27701' });
    assert.deepEqual([q.street, q.city, q.state], ['ELM CT', 'DURHAM', '']);
    // A whole address beside a city cell: the cell's city stands.
    const r = one({ address1: '12 Elm St Durham NC 27701', city: 'Durham' });
    assert.deepEqual([r.street, r.city, r.state, r.zip], ['ELM ST', 'DURHAM', 'NC', '27701']);
  });

  it('a comma before the unit is not a city ("123 Main St, Apt 4" without city or ZIP)', {}, () => {
    const p = one({ address1: '123 Main St, Apt 4', state: 'NC' });
    assert.deepEqual([p.house, p.street, p.unit, p.city, p.state], ['123', 'MAIN ST', '4', '', 'NC']);
  });
});

describe('normalizeInput dates, contact data and coordinates', () => {
  it('reads dob, age as birth years (only without a dob), gender, phone, e-mail, coordinates', () => {
    const p = one({
      dob: '01/02/1980',
      gender: 'female',
      phone: '(919) 867-5309',
      email: ' Mary.Smith@Example.com ',
      latitude: '35.7796',
      longitude: '-78.6382',
    });
    assert.deepEqual(p.dob, { year: 1980, month: 1, day: 2 });
    assert.equal(p.birthYears, null);
    assert.equal(p.gender, 'F');
    assert.deepEqual(p.phones, ['9198675309']);
    assert.equal(p.email, 'mary.smith@example.com');
    assert.deepEqual([p.lat, p.lon], [35.7796, -78.6382]);
    assert.deepEqual(one({ age: '44' }).birthYears, [1979, 1980]);
    assert.equal(one({ dob: '1980-01-02', age: '44' }).birthYears, null);
  });

  it('an invalid dob falls back to the age', () => {
    const { persons, problems } = normalizeInput({ dob: 'garbage', age: '44' }, AS_OF);
    assert.deepEqual(problems, ['invalid_dob']);
    assert.deepEqual(persons[0]!.birthYears, [1979, 1980]);
  });

  it('an age in the date’s column, or a date in the age’s, when the other column is empty', () => {
    const age = normalizeInput({ dob: '44' }, AS_OF);
    assert.deepEqual([age.persons[0]!.birthYears, age.problems], [[1979, 1980], []]);
    const date = normalizeInput({ age: '01/02/1980' }, AS_OF);
    assert.deepEqual([date.persons[0]!.dob, date.problems], [{ year: 1980, month: 1, day: 2 }, []]);
    // With both columns given, each is read as what it is.
    assert.deepEqual(normalizeInput({ dob: '44', age: '44' }, AS_OF).problems, ['invalid_dob']);
    assert.deepEqual(
      normalizeInput({ dob: '1980-01-02', age: '01/02/1980' }, AS_OF).persons[0]!.birthYears,
      null,
    );
    assert.deepEqual(normalizeInput({ dob: '12' }, AS_OF).problems, ['invalid_dob']);
  });

  it('a placeholder date (1900-01-01) is read as written (it agrees only to the day), a date before 1880 is none', () => {
    const placeholder = normalizeInput({ dob: '1900-01-01', age: '44' }, AS_OF);
    assert.deepEqual(placeholder.problems, []);
    assert.deepEqual(placeholder.persons[0]!.dob, { year: 1900, month: 1, day: 1 });
    const ancient = normalizeInput({ dob: '1800-01-01', age: '44' }, AS_OF);
    assert.deepEqual(ancient.problems, ['invalid_dob']);
    assert.deepEqual(ancient.persons[0]!.dobTypos, [], 'its neighbours one typo away are not searched');
    assert.deepEqual(ancient.persons[0]!.birthYears, [1979, 1980], 'the age still counts');
    // A mistyped recent date is searched by its neighbours.
    assert.ok(normalizeInput({ dob: '1980-13-01' }, AS_OF).persons[0]!.dobTypos.length > 0);
  });

  it('reports each unusable value and leaves it out', () => {
    const cases: [InputFields, string][] = [
      [{ phone: '123' }, 'invalid_phone'],
      [{ email: 'not-an-email' }, 'invalid_email'],
      [{ dob: '13/45/1990' }, 'invalid_dob'],
      [{ age: 'old' }, 'invalid_age'],
      [{ age: '200' }, 'invalid_age'],
      [{ zip: '123456' }, 'invalid_zip'],
      [{ state: 'ZZ' }, 'invalid_state'],
      [{ latitude: '999', longitude: '-78' }, 'invalid_coordinates'],
      [{ latitude: '35.5' }, 'invalid_coordinates'],
      [{ first_name: '12345' }, 'invalid_first_name'],
      [{ last_name: '999' }, 'invalid_last_name'],
    ];
    for (const [fields, problem] of cases) {
      const { persons, problems } = normalizeInput(fields, AS_OF);
      assert.deepEqual(problems, [problem], JSON.stringify(fields));
      const p = persons[0]!;
      assert.deepEqual(
        { ...p, lat: 0, lon: 0 },
        { ...emptyPerson(), lat: 0, lon: 0 },
        `${JSON.stringify(fields)} leaves nothing behind`,
      );
      assert.ok(Number.isNaN(p.lat) && Number.isNaN(p.lon));
    }
  });

  it('a name with digits among letters is cleaned, not reported', () => {
    const { persons, problems } = normalizeInput({ first_name: 'John3', last_name: 'Smith' }, AS_OF);
    assert.deepEqual(problems, []);
    assert.deepEqual(names(persons[0]!), ['JOHN', '', 'SMITH', '']);
  });

  it('empty and blank cells are not given, and not problems', () => {
    assert.deepEqual(normalizeInput({}, AS_OF), { persons: [emptyPerson()], problems: [] });
    const { persons, problems } = normalizeInput(
      { first_name: '  ', phone: ' ', email: '', zip: '\t', latitude: ' ', longitude: '' },
      AS_OF,
    );
    assert.deepEqual(problems, []);
    assert.equal(persons[0]!.first, '');
  });
});

describe('normalizeInput hostile values', () => {
  const COLUMNS = [
    'first_name',
    'middle_name',
    'last_name',
    'name_suffix',
    'full_name',
    'first_name_combined',
    'address1',
    'address2',
    'city',
    'state',
    'zip',
    'dob',
    'age',
    'gender',
    'phone',
    'email',
    'latitude',
    'longitude',
  ];
  const HOSTILE = [
    'x'.repeat(10_000),
    '1'.repeat(10_000),
    `${'A '.repeat(5_000)}`,
    '😀'.repeat(5_000),
    'Jöhn 😀 Smíth',
    'JO\u0000HN',
    '\u0000'.repeat(100),
    '\u0007\u001b[31mRED\r\n\t',
    '\uD800 lone surrogate \uDFFF',
    ', , , ,',
    `12 OAK ST,${'A '.repeat(4_000)} NC 27601`,
    '💩 & 💩 & 💩',
    '-1e308',
    'NaN',
    '__proto__',
  ];

  function assertSane(person: NormalizedPerson, what: string): void {
    for (const [key, value] of Object.entries(person)) {
      if (typeof value !== 'string') continue;
      assert.ok(value.length <= 500, `${what}: ${key} has ${value.length} chars`);
      const control = [...value].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127);
      assert.ok(!control, `${what}: ${key} has a control character`);
      assert.ok(value === value.trim(), `${what}: ${key} is not trimmed`);
    }
    for (const phone of person.phones) assert.match(phone, /^\d{10}$/);
    assert.ok(person.email === '' || person.email.includes('@'));
    assert.ok(Number.isNaN(person.lat) || (person.lat >= -90 && person.lat <= 90));
    assert.ok(Number.isNaN(person.lon) || (person.lon >= -180 && person.lon <= 180));
    assert.ok(
      person.dob === null || (person.dob.year > 1800 && person.dob.month <= 12 && person.dob.day <= 31),
    );
    assert.ok(['', 'F', 'M'].includes(person.gender));
    assert.match(person.state, /^([A-Z]{2})?$/);
    assert.match(person.zip, /^(\d{5})?$/);
  }

  // A catastrophic regex on these values would hang rather than slow down: the test's timeout
  // catches that (speed itself is measured in the benchmarks, not here).
  it('never throw and give sane output, one column at a time and all at once', { timeout: 30_000 }, () => {
    for (const value of HOSTILE) {
      const all = normalizeInput(Object.fromEntries(COLUMNS.map((c) => [c, value])), AS_OF);
      assert.ok(all.persons.length >= 1 && all.persons.length <= 2);
      for (const p of all.persons) assertSane(p, `all columns ${JSON.stringify(value.slice(0, 12))}`);
      assert.ok(all.problems.every((problem) => typeof problem === 'string'));
      for (const column of COLUMNS) {
        const { persons } = normalizeInput({ [column]: value }, AS_OF);
        for (const p of persons) assertSane(p, `${column} ${JSON.stringify(value.slice(0, 12))}`);
      }
    }
  });

  it('drops control characters and emoji from names', () => {
    assert.deepEqual(names(one({ first_name: 'JO\u0000HN', last_name: 'SMI\u0007TH 😀' })), [
      'JOHN',
      '',
      'SMITH',
      '',
    ]);
    assert.deepEqual(names(one({ first_name: '😀', last_name: '\u0000' })), ['', '', '', '']);
  });
});

describe('normalizeVoter', () => {
  const VOTER: VoterFields = {
    first_name: 'Margaret',
    middle_name: 'Ann',
    last_name: 'Smith',
    name_suffix: 'Jr',
    address1: '123 North Main Street',
    address2: 'Apt 4',
    city: 'Raleigh',
    state: 'nc',
    zip: '27601-1234',
    latitude: '35.78',
    longitude: '-78.64',
    dob: '19800102',
    gender: 'F',
    email: 'Peggy@Example.COM',
    landline_phone: '(919) 867-5309',
    wireless_phone: '9198675309',
    voip_phone: '919.555.2368',
  };

  it('normalizes a clean voter record', () => {
    assert.deepEqual(normalizeVoter(VOTER, AS_OF), {
      first: 'MARGARET',
      middle: 'ANN',
      last: 'SMITH',
      suffix: 'JR',
      house: '123',
      street: 'N MAIN ST',
      unit: '4',
      city: 'RALEIGH',
      state: 'NC',
      zip: '27601',
      dob: { year: 1980, month: 1, day: 2 },
      dobTypos: [],
      birthYears: null,
      gender: 'F',
      // Wireless first, duplicates once.
      phones: ['9198675309', '9195552368'],
      email: 'peggy@example.com',
      lat: 35.78,
      lon: -78.64,
    });
  });

  it('empty and invalid columns give empty values', () => {
    const empty = Object.fromEntries(Object.keys(VOTER).map((k) => [k, ''])) as unknown as VoterFields;
    const p = normalizeVoter(empty, AS_OF);
    assert.deepEqual({ ...p, lat: 0, lon: 0 }, { ...emptyPerson(), lat: 0, lon: 0 });
    const bad = normalizeVoter(
      { ...VOTER, zip: 'ABCDE', state: 'XX', dob: 'never', email: 'x', latitude: '' },
      AS_OF,
    );
    assert.deepEqual([bad.zip, bad.state, bad.dob, bad.email], ['', '', null, '']);
    assert.ok(Number.isNaN(bad.lat) && Number.isNaN(bad.lon));
  });

  it('matches normalizeInput for the same values', () => {
    const input = one({
      first_name: VOTER.first_name,
      middle_name: VOTER.middle_name,
      last_name: VOTER.last_name,
      name_suffix: VOTER.name_suffix,
      address1: VOTER.address1,
      address2: VOTER.address2,
      city: VOTER.city,
      state: VOTER.state,
      zip: VOTER.zip,
      dob: VOTER.dob,
      gender: VOTER.gender,
      email: VOTER.email,
      latitude: VOTER.latitude,
      longitude: VOTER.longitude,
    });
    assert.deepEqual({ ...input, phones: [] }, { ...normalizeVoter(VOTER, AS_OF), phones: [] });
  });
});

describe('addressParts', () => {
  const parts = (address1: string, address2?: string) => addressParts(parseAddress(address1, address2));

  it('a street address: house with suffix, street, unit', () => {
    assert.deepEqual(parts('123A N Main St', 'Apt 4'), { house: '123A', street: 'N MAIN ST', unit: '4' });
  });

  it('a PO box: street "PO BOX", house the box number', () => {
    assert.deepEqual(parts('PO Box 123'), { house: '123', street: 'PO BOX', unit: '' });
    assert.deepEqual(parts('P.O. Box 0012'), { house: '12', street: 'PO BOX', unit: '' });
  });

  it('a rural route: street "RR n", house the box number', () => {
    assert.deepEqual(parts('RR 2 Box 45'), { house: '45', street: 'RR 2', unit: '' });
    assert.deepEqual(parts('Rural Route 2 Box 45'), { house: '45', street: 'RR 2', unit: '' });
    assert.deepEqual(parts('RR 3'), { house: '', street: 'RR 3', unit: '' });
  });

  it('a street and a PO box in one address give the street (the residence)', {}, () => {
    assert.deepEqual(parts('123 Main St', 'PO Box 45'), { house: '123', street: 'MAIN ST', unit: '' });
  });
});

describe('placeOf (what routes a row among voter shards)', () => {
  // Values of every kind the routing reads, well-formed, odd and broken.
  const VALUES: Record<string, string[]> = {
    state: ['NC', 'north carolina', ' nc ', 'XX', '', 'N.C.', 'Virginia'],
    zip: ['27601', '27601-1234', '2760', '', 'ABCDE', ' 23220 '],
    address1: [
      '12 Oak St',
      '12 Oak St, Raleigh NC 27601',
      '9 Pine Rd, Apt 4, Richmond, VA 23220',
      '',
      'PO Box 5, Durham, N.C.',
    ],
    city: ['Raleigh', '', 'Richmond'],
    dob: ['1961-04-12', '19399222', '13/45/1990', '', '04/12/1961', '1961', 'x'],
    age: ['45', 'abc', '', '130'],
    phone: ['(919) 834-2211', '555', '', '+1 804 786 4100'],
    email: ['Peggy@Example.com', 'bad', '', ' a.b@c.org '],
    first_name_combined: ['', '', '', 'John & Mary', 'Robert'],
    first_name: ['Margaret', '', 'Bob', 'John & Mary'],
    last_name: ['Smith', '', 'Jones'],
    full_name: ['', 'Margaret Smith', 'JONES, ROBERT', 'John & Mary Smith'],
  };
  const columns = Object.keys(VALUES);

  it('gives what the whole normalization gives, for every mix of values', () => {
    let rows = 0;
    for (let i = 0; i < 3000; i++) {
      const fields: InputFields = {};
      columns.forEach((column, k) => {
        const values = VALUES[column]!;
        // A different stride per column, so that the rows mix the values in many ways.
        const value = values[(i * (2 * k + 3) + Math.floor(i / (k + 1))) % values.length]!;
        if (value !== '' || i % 2 === 0) fields[column] = value;
      });
      assert.deepEqual(
        placeOf(fields, AS_OF),
        placeOfNormalized(normalizeInput(fields, AS_OF)),
        JSON.stringify(fields),
      );
      rows++;
    }
    assert.equal(rows, 3000);
  });

  it('reads the state and ZIP of a one-line address, the dates and the contact data', () => {
    assert.deepEqual(
      placeOf(
        { address1: '12 Oak St, Raleigh NC 27601', dob: '19399222', phone: '919-834-2211', email: 'A@B.com' },
        AS_OF,
      ),
      {
        state: 'NC',
        zip: '27601',
        phones: ['9198342211'],
        emails: ['a@b.com'],
        dated: true,
        addressedWithoutState: false,
      },
    );
    assert.deepEqual(placeOf({ first_name: 'Ann', state: 'XX', age: 'old' }, AS_OF), {
      state: '',
      zip: '',
      phones: [],
      emails: [],
      dated: false,
      addressedWithoutState: false,
    });
    // An address without a state is searched in every state: the row can find a voter anywhere.
    assert.equal(placeOf({ first_name: 'Ann', address1: '12 Oak St' }, AS_OF).addressedWithoutState, true);
    assert.equal(
      placeOf({ first_name: 'Ann', city: 'Raleigh', state: 'NC' }, AS_OF).addressedWithoutState,
      false,
    );
  });
});
