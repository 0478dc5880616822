import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normalizeEmail,
  normalizeGender,
  normalizeLatLong,
  normalizePhone,
  normalizeStateCode,
  normalizeZip,
} from './contact.ts';

const HOSTILE = [
  '',
  ' ',
  '\t\n',
  '9'.repeat(10_000),
  'a@b.com'.repeat(2000),
  '😀',
  '919😀5551234',
  '\u0000\u0001\u001b',
  'Иван@пример.рф',
  '\ud800',
  'null',
  'undefined',
  'NaN',
  '-',
  '.',
  '@',
  '<>',
  'mailto:',
];

describe('normalizePhone', () => {
  it('keeps the ten digits of common U.S. formats', () => {
    for (const value of [
      '9195551234',
      '(919) 555-1234',
      '919.555.1234',
      '919 555 1234',
      '919/555-1234',
      '1-919-555-1234',
      '19195551234',
      '+1 (919) 555-1234',
      '+19195551234',
      ' 919-555-1234 ',
      '919-555-1234 x123',
      '919-555-1234 ext. 12',
      '919-555-1234 EXT 12',
      '(919)555-1234#5',
      '9195551234.0',
    ]) {
      assert.equal(normalizePhone(value), '9195551234', value);
    }
  });

  it('reads past a label before or after the number, and takes the first of two', () => {
    for (const value of [
      'Cell: 919-555-1234',
      'tel:+19195551234',
      'H 919 555 1234',
      '919.555.1234 (cell)',
      '919-555-1234 home',
      '(919) 555-1234 / (919) 555-9999',
      '919-555-1234; 919-555-9999',
      '919-555-1234, 919-555-9999',
    ]) {
      assert.equal(normalizePhone(value), '9195551234', value);
    }
    // A label run into the number, letters within it, or a longer number are none of these.
    for (const value of ['home919-555-1234', '919-555-12cell34', '919-555-1234-5678', '919-555-1234 5678'])
      assert.equal(normalizePhone(value), null, value);
  });

  it('rejects impossible NANP numbers', () => {
    for (const value of [
      '0195551234', // area code starting 0
      '1195551234', // … or 1 (as 10 digits)
      '9190551234', // exchange starting 0
      '9191551234', // … or 1
      '9115551234', // N11 area code
      '4115551234',
      '9195550100', // 555-01XX fiction
      '9195550199',
      '2222222222', // one digit repeated
      '9999999999',
    ]) {
      assert.equal(normalizePhone(value), null, value);
    }
    assert.equal(normalizePhone('9195550200'), '9195550200');
    assert.equal(normalizePhone('9195551212'), '9195551212');
  });

  it('rejects wrong digit counts, foreign numbers, vanity numbers', () => {
    for (const value of [
      '919555123',
      '919555123456',
      '29195551234', // 11 digits not starting with 1
      '+44 20 7946 0958',
      '+4420794609', // '+' and ten digits: a foreign number
      '+1 919 555 123',
      '1-800-FLOWERS',
      '919-555-1234-5678',
      '919.555.1234.5',
      '++19195551234',
      '1+9195551234',
      'x9195551234',
      '919,555,1234',
    ]) {
      assert.equal(normalizePhone(value), null, value);
    }
  });

  it('never throws on hostile input', () => {
    for (const value of HOSTILE)
      assert.equal(normalizePhone(value), null, JSON.stringify(value.slice(0, 20)));
  });
});

describe('normalizeEmail', () => {
  it('a provider mistyped by one keystroke, only when asked (a list row, not the voter file)', () => {
    assert.equal(normalizeEmail('Jane.Doe@GMIAL.com', { fixProviderTypo: true }), 'janedoe@gmail.com');
    assert.equal(normalizeEmail('jdoe+news@hotmial.com', { fixProviderTypo: true }), 'jdoe@hotmail.com');
    assert.equal(normalizeEmail('jane.doe@gmial.com'), 'jane.doe@gmial.com');
    assert.equal(normalizeEmail('jane.doe@ymail.com', { fixProviderTypo: true }), 'jane.doe@ymail.com');
  });

  it('lower-cases and strips wrappers and spaces', () => {
    assert.equal(normalizeEmail('John.Smith@Example.COM'), 'john.smith@example.com');
    assert.equal(normalizeEmail('  <john@example.com>  '), 'john@example.com');
    assert.equal(normalizeEmail('mailto:john@example.com'), 'john@example.com');
    assert.equal(normalizeEmail('MAILTO:John@Example.com'), 'john@example.com');
    assert.equal(normalizeEmail('John Smith <john@example.com>'), 'john@example.com');
    assert.equal(normalizeEmail('john @ example.com'), 'john@example.com');
    assert.equal(normalizeEmail('john@example.com.'), 'john@example.com');
    assert.equal(normalizeEmail('a@b.co'), 'a@b.co');
    assert.equal(normalizeEmail("o'brien_x-y=z@sub.example.org"), "o'brien_x-y=z@sub.example.org");
    assert.equal(normalizeEmail('user@mail.xn--p1ai'), 'user@mail.xn--p1ai');
  });

  it('gmail: dots and +tag dropped, googlemail.com → gmail.com', () => {
    assert.equal(normalizeEmail('John.Smith@Gmail.com'), 'johnsmith@gmail.com');
    assert.equal(normalizeEmail('j.o.h.n+news@googlemail.com'), 'john@gmail.com');
    assert.equal(normalizeEmail('+tag@gmail.com'), null);
  });

  it('drops +tag only for providers that support it', () => {
    assert.equal(normalizeEmail('john+x@outlook.com'), 'john@outlook.com');
    assert.equal(normalizeEmail('john+x@hotmail.com'), 'john@hotmail.com');
    assert.equal(normalizeEmail('john+x@icloud.com'), 'john@icloud.com');
    assert.equal(normalizeEmail('john+x@proton.me'), 'john@proton.me');
    assert.equal(normalizeEmail('john.smith+x@fastmail.com'), 'john.smith@fastmail.com');
    // Others keep it; yahoo's '-' aliases too; only gmail loses dots.
    assert.equal(normalizeEmail('john+x@example.com'), 'john+x@example.com');
    assert.equal(normalizeEmail('john+x@yahoo.com'), 'john+x@yahoo.com');
    assert.equal(normalizeEmail('john-x@yahoo.com'), 'john-x@yahoo.com');
    assert.equal(normalizeEmail('john.smith@outlook.com'), 'john.smith@outlook.com');
  });

  it('the first of several addresses in one cell, a trailing separator cut', () => {
    for (const value of [
      'john@example.com; mary@example.com',
      'john@example.com, mary@example.com',
      'john@example.com mary@example.com',
      'John Smith <john@example.com>, Mary Smith <mary@example.com>',
      'john@example.com,',
      'mailto:john@example.com;',
    ]) {
      assert.equal(normalizeEmail(value), 'john@example.com', value);
    }
    // A separator inside the one address is no list: the address is invalid.
    assert.equal(normalizeEmail('john,smith@example.com'), null);
  });

  it('rejects implausible addresses', () => {
    for (const value of [
      'john',
      'john@',
      '@example.com',
      'john@example',
      'john@@example.com',
      'john@x@example.com',
      `${'a'.repeat(65)}@example.com`,
      `john@${'a'.repeat(64)}.com`,
      `john@${'abcdefghi.'.repeat(25)}com`,
      'john..smith@example.com',
      '.john@example.com',
      'john.@example.com',
      'john@-example.com',
      'john@example-.com',
      'john@example..com',
      'john@example.c',
      'john@example.c0m',
      'john@1.2.3.4',
      'john@[1.2.3.4]',
      '"john smith"@example.com',
      'josé@example.com',
      'john@exämple.com',
      'john(comment)@example.com',
      '<john@example.com',
      'john@example.com>',
    ]) {
      assert.equal(normalizeEmail(value), null, value);
    }
  });

  it('never throws on hostile input', () => {
    for (const value of HOSTILE)
      assert.equal(normalizeEmail(value), null, JSON.stringify(value.slice(0, 20)));
  });
});

describe('normalizeZip', () => {
  it('a ZIP a spreadsheet wrote as a number with a zero fraction', () => {
    assert.equal(normalizeZip('27601.0'), '27601');
    assert.equal(normalizeZip('2138.00'), '02138');
    assert.equal(normalizeZip('2760.1'), null);
    assert.equal(normalizeZip('27601.'), null);
  });

  it('five digits, ZIP+4 forms, restored leading zeros', () => {
    const cases: [string, string][] = [
      ['02138', '02138'],
      [' 02138 ', '02138'],
      ['02138-1234', '02138'],
      ['02138 1234', '02138'],
      ['021381234', '02138'],
      ['2138', '02138'],
      ['501', '00501'],
      ['2138-1234', '02138'],
      ['21381234', '02138'],
      ['27601', '27601'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeZip(input), expected, input);
  });

  it('a state code before the ZIP, as on an envelope', () => {
    assert.equal(normalizeZip('NC 27601'), '27601');
    assert.equal(normalizeZip('nc, 27601-1234'), '27601');
    assert.equal(normalizeZip('XX 27601'), null, 'no state');
    assert.equal(normalizeZip('NC27601'), null);
  });

  it('rejects zeros, letters, wrong lengths', () => {
    for (const value of [
      '00000',
      '00012',
      '12',
      '123456',
      '1234567890',
      'ABCDE',
      'K1A 0B6',
      '02138-12',
      '02138-',
      '-02138',
      '02138--1234',
      '2.138',
      ...HOSTILE,
    ]) {
      assert.equal(normalizeZip(value), null, JSON.stringify(value.slice(0, 20)));
    }
  });
});

describe('normalizeStateCode', () => {
  it('codes in any case and punctuation, full names, DC and territories', () => {
    const cases: [string, string][] = [
      ['NC', 'NC'],
      ['nc', 'NC'],
      [' NC ', 'NC'],
      ['N.C.', 'NC'],
      ['North Carolina', 'NC'],
      ['NORTH  CAROLINA', 'NC'],
      ['DC', 'DC'],
      ['D.C.', 'DC'],
      ['District of Columbia', 'DC'],
      ['Washington, D.C.', 'DC'],
      ['Washington', 'WA'],
      ['West Virginia', 'WV'],
      ['PR', 'PR'],
      ['Puerto Rico', 'PR'],
      ['GU', 'GU'],
      ['U.S. Virgin Islands', 'VI'],
      ['American Samoa', 'AS'],
      ['Northern Mariana Islands', 'MP'],
      ['wy', 'WY'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeStateCode(input), expected, input);
  });

  it('all 56 codes round-trip', () => {
    const list = [
      'AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ',
      'NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC PR GU VI AS MP',
    ]
      .join(' ')
      .split(' ');
    assert.equal(list.length, 56);
    for (const code of list) assert.equal(normalizeStateCode(code), code);
  });

  it('traditional abbreviations (GPO, AP) and two-word names with the direction abbreviated', () => {
    for (const [value, code] of [
      ['Calif.', 'CA'],
      ['Mass', 'MA'],
      ['Penna.', 'PA'],
      ['N. Dak.', 'ND'],
      ['N Carolina', 'NC'],
      ['W. Va.', 'WV'],
      ['Wash.', 'WA'],
      ['Wash. D.C.', 'DC'],
      ['Ga.', 'GA'],
    ] as const)
      assert.equal(normalizeStateCode(value), code, value);
  });

  it('unknown → null', () => {
    for (const value of [
      'XX',
      'AA',
      'AE',
      'AP',
      'Califor',
      'N C',
      'constructor',
      'toString',
      '__proto__',
      ...HOSTILE,
    ]) {
      assert.equal(normalizeStateCode(value), null, JSON.stringify(value.slice(0, 20)));
    }
  });
});

describe('normalizeGender', () => {
  it('F/M words, any case and padding; anything else empty', () => {
    for (const value of ['F', 'f', 'Female', 'FEMALE', 'W', 'woman', ' f '])
      assert.equal(normalizeGender(value), 'F');
    for (const value of ['M', 'm', 'Male', 'MAN', ' M ']) assert.equal(normalizeGender(value), 'M');
    for (const value of ['U', 'X', 'N', 'other', 'FM', 'women', ...HOSTILE]) {
      assert.equal(normalizeGender(value), '', JSON.stringify(value.slice(0, 20)));
    }
  });
});

describe('normalizeLatLong', () => {
  it('plain decimals in range', () => {
    assert.deepEqual(normalizeLatLong('35.7796', '-78.6382'), [35.7796, -78.6382]);
    assert.deepEqual(normalizeLatLong(' 35.7 ', ' -78 '), [35.7, -78]);
    assert.deepEqual(normalizeLatLong('+90', '-180'), [90, -180]);
    assert.deepEqual(normalizeLatLong('.5', '5.'), [0.5, 5]);
    assert.deepEqual(normalizeLatLong('0', '1'), [0, 1]);
  });

  it('parses exactly as Number() does, short and long decimals', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let i = 0; i < 20_000; i++) {
      const whole = next() % 90;
      let fraction = '';
      const places = next() % 19;
      for (let k = 0; k < places; k++) fraction += String(next() % 10);
      const lat = `${next() % 2 === 0 ? '-' : ''}${whole}${places > 0 ? `.${fraction}` : ''}`;
      const lon = `${next() % 180}.${fraction}`;
      const expected = Number(lat) === 0 && Number(lon) === 0 ? null : [Number(lat), Number(lon)];
      assert.deepEqual(normalizeLatLong(lat, lon), expected, `${lat},${lon}`);
    }
  });

  it('given the wrong way round where only the other reading is a point: swapped', () => {
    assert.deepEqual(normalizeLatLong('-111.94', '33.49'), [33.49, -111.94]);
    // Both readings are points: as given (the matcher looks where the voter file has voters).
    assert.deepEqual(normalizeLatLong('-78.64', '35.78'), [-78.64, 35.78]);
  });

  it('missing, not a decimal, out of range, or (0,0) → null', () => {
    const cases: [string, string][] = [
      ['', '-78'],
      ['35', ''],
      ['0', '0'],
      ['0.0', '-0.000'],
      ['90.0001', '95'],
      ['-181', '35'],
      ['0', '180.5'],
      ['1e1', '2'],
      ['0x10', '2'],
      ['NaN', '1'],
      ['Infinity', '1'],
      ['35,7', '1'],
      ['35.7.1', '1'],
      ['- 35', '1'],
      ['35°', '1'],
    ];
    for (const [lat, lon] of cases) assert.equal(normalizeLatLong(lat, lon), null, `${lat},${lon}`);
    for (const value of HOSTILE) assert.equal(normalizeLatLong(value, value), null);
  });
});
