import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cleanName,
  isNameParticle,
  normalizePersonName,
  normalizeSuffix,
  parseCoupleName,
  parseFullName,
  splitCombinedFirstNames,
  withoutAsides,
  withoutMailingWords,
} from './names.ts';

/** Inputs no function may throw on; every result must still be well-formed. */
const HOSTILE = [
  '',
  ' ',
  '\t\n\r ',
  'x'.repeat(10_000),
  'ab '.repeat(5000),
  ',,,,&&&///',
  '😀😀😀',
  'Jo😀hn 👨‍👩‍👧 Sm🏳️‍🌈ith',
  '\u0000\u0001\u0007\u001b[31mRED',
  '\u200b\u200d\ufeff',
  '12345',
  'John 3000',
  'Иван Петров',
  '李小龍 Bruce Lee',
  'José Ñúñez-Müller',
  '\ud800',
  '\udc00abc\ud83d',
  'Mr. Mrs. Dr.',
  'Jr., Sr., III',
  ', , ,',
  'AND AND AND',
  "'''",
];

const WELL_FORMED = /^(?:[A-Z]+(?: [A-Z]+)*)?$/;

describe('cleanName', () => {
  it('returns clean values unchanged and upper-cases plain mixed-case ones', () => {
    assert.equal(cleanName('JOHN SMITH'), 'JOHN SMITH');
    assert.equal(cleanName('John Smith'), 'JOHN SMITH');
    assert.equal(cleanName(''), '');
  });

  it('folds accents and special Latin letters to ASCII', () => {
    assert.equal(cleanName('José'), 'JOSE');
    assert.equal(cleanName('Ñúñez'), 'NUNEZ');
    assert.equal(cleanName('Jose\u0301'), 'JOSE'); // already decomposed
    assert.equal(cleanName('Straße'), 'STRASSE');
    assert.equal(cleanName('Æsir Øre Łukasz Œuvre Þór Đorđe'), 'AESIR ORE LUKASZ OEUVRE THOR DORDE');
    assert.equal(cleanName('Nguyễn Văn Thị'), 'NGUYEN VAN THI');
    assert.equal(cleanName('Ｊｏｈｎ ﬁsher'), 'JOHN FISHER'); // fullwidth, ligature
  });

  it('removes apostrophes without a space', () => {
    assert.equal(cleanName("O'Brien"), 'OBRIEN');
    assert.equal(cleanName('D’Angelo'), 'DANGELO');
    assert.equal(cleanName('Kaʻiulani'), 'KAIULANI');
    assert.equal(cleanName('O`Neil'), 'ONEIL');
  });

  it('turns punctuation into one space, trims and collapses', () => {
    assert.equal(cleanName('Mary-Ann'), 'MARY ANN');
    assert.equal(cleanName('  john ,  q.  '), 'JOHN Q');
    assert.equal(cleanName('SMITH\tJONES\nBROWN'), 'SMITH JONES BROWN');
    assert.equal(cleanName('JOHN+MARY|SUE'), 'JOHN MARY SUE');
    assert.equal(cleanName('(Jack)'), 'JACK');
    assert.equal(cleanName('Smith – Jones'), 'SMITH JONES');
  });

  it('drops digits, emoji, symbols, control characters and other scripts', () => {
    assert.equal(cleanName('Smith3'), 'SMITH');
    assert.equal(cleanName('Jo😀hn'), 'JOHN');
    assert.equal(cleanName('A\u0000B\u0007C'), 'ABC');
    assert.equal(cleanName('Smith™ ©'), 'SMITH');
    assert.equal(cleanName('Иван Smith'), 'SMITH');
    assert.equal(cleanName('12345'), '');
    assert.equal(cleanName('😀'), '');
  });

  it('reads a digit inside a word as the letter it looks like (a scanning or keying slip)', () => {
    assert.equal(cleanName('Car0l'), 'CAROL');
    assert.equal(cleanName('WIL5ON'), 'WILSON');
    assert.equal(cleanName('WH1TEN'), 'WHITEN');
    assert.equal(cleanName('MCKINN0N'), 'MCKINNON');
    // Not inside a word: dropped as before.
    assert.equal(cleanName('5TANWICK'), 'TANWICK');
    assert.equal(cleanName('SMITH 3'), 'SMITH');
    assert.equal(cleanName('AB12CD'), 'ABCD');
  });

  it('cuts input to 200 characters first', () => {
    assert.equal(cleanName('x'.repeat(10_000)).length, 200);
    assert.equal(cleanName('X'.repeat(10_000)), 'X'.repeat(200));
    assert.equal(cleanName(`${'x'.repeat(199)} SMITH`), 'X'.repeat(199));
  });

  it('never throws and always returns A-Z words with single spaces', () => {
    for (const value of HOSTILE) {
      const cleaned = cleanName(value);
      assert.match(cleaned, WELL_FORMED, JSON.stringify(value));
      assert.ok(cleaned.length <= 400, 'bounded');
    }
  });

  it('handles every BMP code point without throwing', () => {
    for (let cp = 0; cp < 0x10000; cp += 1) {
      assert.match(cleanName(`A${String.fromCharCode(cp)}B`), WELL_FORMED);
    }
  });
});

describe('normalizeSuffix', () => {
  it('maps spellings to JR, SR, II, III, IV, V', () => {
    const cases: [string, string][] = [
      ['JR', 'JR'],
      ['Jr.', 'JR'],
      ['J.R.', 'JR'],
      ['junior', 'JR'],
      ['SR', 'SR'],
      ['Senior', 'SR'],
      ['II', 'II'],
      ['2nd', 'II'],
      ['III', 'III'],
      ['3RD', 'III'],
      [' iv ', 'IV'],
      ['4th', 'IV'],
      ['V', 'V'],
      ['5th', 'V'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeSuffix(input), expected, input);
  });

  it('a bare digit in a suffix field is the generational number', () => {
    assert.equal(normalizeSuffix('2'), 'II');
    assert.equal(normalizeSuffix('3'), 'III');
    assert.equal(normalizeSuffix('1'), '');
  });

  it('anything else is no suffix', () => {
    for (const value of ['', 'ESQ', 'MD', 'PHD', 'I', 'JRX', 'SMITH', 'JR III', ...HOSTILE]) {
      assert.equal(normalizeSuffix(value), '', JSON.stringify(value));
    }
  });
});

describe('normalizePersonName', () => {
  it('cleans every field', () => {
    assert.deepEqual(normalizePersonName('José', 'q.', "o'brien", 'jr.'), {
      first: 'JOSE',
      middle: 'Q',
      last: 'OBRIEN',
      suffix: 'JR',
    });
  });

  it('moves a suffix from the end of last or first into suffix', () => {
    assert.deepEqual(normalizePersonName('JOHN', '', 'SMITH JR', ''), {
      first: 'JOHN',
      middle: '',
      last: 'SMITH',
      suffix: 'JR',
    });
    assert.equal(normalizePersonName('JOHN', '', 'Smith, Jr.', '').suffix, 'JR');
    assert.deepEqual(normalizePersonName('John', '', 'Smith 3rd', ''), {
      first: 'JOHN',
      middle: '',
      last: 'SMITH',
      suffix: 'III',
    });
    assert.deepEqual(normalizePersonName('JOHN JR', '', 'SMITH', ''), {
      first: 'JOHN',
      middle: '',
      last: 'SMITH',
      suffix: 'JR',
    });
    // The suffix field wins over one found in a name.
    assert.equal(normalizePersonName('JOHN', '', 'SMITH JR', 'SR').suffix, 'SR');
    // A lone suffix word is the whole name, not a suffix.
    assert.deepEqual(normalizePersonName('', '', 'JR', ''), {
      first: '',
      middle: '',
      last: 'JR',
      suffix: '',
    });
  });

  it("reads a trailing V as suffix in last but as a middle initial in first ('JOHN V')", () => {
    assert.equal(normalizePersonName('JOHN', '', 'SMITH V', '').suffix, 'V');
    assert.deepEqual(normalizePersonName('JOHN V', '', 'SMITH', ''), {
      first: 'JOHN',
      middle: 'V',
      last: 'SMITH',
      suffix: '',
    });
  });

  it('splits an initial off first when middle is empty; compound first names stay whole', () => {
    assert.deepEqual(normalizePersonName('JOHN Q', '', 'SMITH', ''), {
      first: 'JOHN',
      middle: 'Q',
      last: 'SMITH',
      suffix: '',
    });
    assert.deepEqual(normalizePersonName('J. Robert', '', 'Smith', ''), {
      first: 'J',
      middle: 'ROBERT',
      last: 'SMITH',
      suffix: '',
    });
    assert.equal(normalizePersonName('MARY ANN', '', 'SMITH', '').first, 'MARY ANN');
    // Middle already given: first is kept as sent.
    assert.deepEqual(normalizePersonName('JOHN Q', 'QUINCY', 'ADAMS', ''), {
      first: 'JOHN Q',
      middle: 'QUINCY',
      last: 'ADAMS',
      suffix: '',
    });
  });

  it('strips titles from first', () => {
    assert.equal(normalizePersonName('Mr. John', '', 'Smith', '').first, 'JOHN');
    assert.equal(normalizePersonName('REV DR MARTIN', '', 'KING', '').first, 'MARTIN');
    assert.equal(normalizePersonName('Mrs', '', 'Smith', '').first, '');
    assert.equal(normalizePersonName('MRS. J', '', 'Smith', '').first, 'J');
    assert.equal(normalizePersonName('Sgt. John', '', 'Smith', '').first, 'JOHN');
    assert.equal(normalizePersonName('CAPT', '', 'Smith', '').first, '');
  });

  it('treats NMN/NMI middle names as none and joins MC prefixes', () => {
    assert.equal(normalizePersonName('JOHN', 'NMN', 'SMITH', '').middle, '');
    assert.equal(normalizePersonName('JOHN', '', 'Mc Donald', '').last, 'MCDONALD');
    assert.equal(normalizePersonName('JOHN', '', 'MCDONALD', '').last, 'MCDONALD');
  });

  it('keeps particle surnames whole', () => {
    assert.equal(normalizePersonName('MARIA', '', 'de la Cruz', '').last, 'DE LA CRUZ');
  });

  it('never throws on hostile fields', () => {
    for (const value of HOSTILE) {
      const name = normalizePersonName(value, value, value, value);
      for (const part of [name.first, name.middle, name.last]) assert.match(part, WELL_FORMED);
      assert.match(name.suffix, /^(|JR|SR|II|III|IV|V)$/);
    }
  });
});

describe('parseFullName', () => {
  const parse = (value: string) => {
    const p = parseFullName(value);
    return [p.first, p.middle, p.last, p.suffix];
  };

  it('parses natural order with titles and suffixes', () => {
    assert.deepEqual(parse('John Q. Smith Jr.'), ['JOHN', 'Q', 'SMITH', 'JR']);
    assert.deepEqual(parse("Dr. Mary Ann O'Neil"), ['MARY', 'ANN', 'ONEIL', '']);
    assert.deepEqual(parse('John Smith 3rd'), ['JOHN', '', 'SMITH', 'III']);
    assert.deepEqual(parse('John Smith III, Esq.'), ['JOHN', '', 'SMITH', 'III']);
    assert.deepEqual(parse('Jane Doe MD'), ['JANE', '', 'DOE', '']);
    assert.deepEqual(parse('John Smith V'), ['JOHN', '', 'SMITH', 'V']);
    // An initial before the last word ends the given names; two words after a middle name are a surname.
    assert.deepEqual(parse('Jo Ann M Smith'), ['JO', 'ANN M', 'SMITH', '']);
    // A middle initial last: a listing's LAST FIRST M without its comma.
    assert.deepEqual(parse('SMITH JOHN A'), ['JOHN', 'A', 'SMITH', '']);
    assert.deepEqual(parse('DE LA CRUZ JUAN A'), ['JUAN', 'A', 'DE LA CRUZ', '']);
    assert.deepEqual(parse('SMITH-JONES MARY A'), ['MARY', 'A', 'SMITH JONES', '']);
    assert.deepEqual(parse('Juan Carlos Garcia Lopez'), ['JUAN', 'CARLOS', 'GARCIA LOPEZ', '']);
    assert.deepEqual(parse('Capt. John Smith'), ['JOHN', '', 'SMITH', '']);
    assert.deepEqual(parse('LT COL JANE A DOE'), ['JANE', 'A', 'DOE', '']);
    assert.deepEqual(parse('Smith, Sgt John'), ['JOHN', '', 'SMITH', '']);
  });

  it('parses LAST, FIRST MIDDLE', () => {
    assert.deepEqual(parse('SMITH, JOHN Q'), ['JOHN', 'Q', 'SMITH', '']);
    assert.deepEqual(parse('Smith Jr, John'), ['JOHN', '', 'SMITH', 'JR']);
    assert.deepEqual(parse('Smith, John, Jr.'), ['JOHN', '', 'SMITH', 'JR']);
    assert.deepEqual(parse('SMITH, JOHN Q III'), ['JOHN', 'Q', 'SMITH', 'III']);
    // After the comma a V is a middle initial.
    assert.deepEqual(parse('SMITH, JOHN V'), ['JOHN', 'V', 'SMITH', '']);
    assert.deepEqual(parse('De La Cruz, Maria'), ['MARIA', '', 'DE LA CRUZ', '']);
    assert.deepEqual(parse('Smith, Mr. John'), ['JOHN', '', 'SMITH', '']);
  });

  it('a comma before a suffix does not make LAST, FIRST', () => {
    assert.deepEqual(parse('John Smith, Jr.'), ['JOHN', '', 'SMITH', 'JR']);
    assert.deepEqual(parse('John Smith, MD'), ['JOHN', '', 'SMITH', '']);
  });

  it('starts the surname at a particle', () => {
    assert.deepEqual(parse('Maria de la Cruz'), ['MARIA', '', 'DE LA CRUZ', '']);
    assert.deepEqual(parse('Juan Carlos de la Cruz'), ['JUAN', 'CARLOS', 'DE LA CRUZ', '']);
    assert.deepEqual(parse('Ludwig van Beethoven'), ['LUDWIG', '', 'VAN BEETHOVEN', '']);
    assert.deepEqual(parse('Maria Dos Santos'), ['MARIA', '', 'DOS SANTOS', '']);
  });

  it('keeps two surnames together from four words on', () => {
    assert.deepEqual(parse('Juan Carlos Garcia Lopez'), ['JUAN', 'CARLOS', 'GARCIA LOPEZ', '']);
    assert.deepEqual(parse('Juan Carlos Alberto Garcia Lopez'), [
      'JUAN',
      'CARLOS ALBERTO',
      'GARCIA LOPEZ',
      '',
    ]);
    assert.deepEqual(parse('Ana Garcia-Lopez'), ['ANA', '', 'GARCIA LOPEZ', '']);
    assert.deepEqual(parse('Ana Maria Garcia-Lopez Jr.'), ['ANA', 'MARIA', 'GARCIA LOPEZ', 'JR']);
    assert.deepEqual(parse('Mary-Kate Olsen Smith'), ['MARY', 'KATE', 'OLSEN SMITH', '']);
    // Documented limit: three words are first-middle-last.
    assert.deepEqual(parse('Juan Garcia Lopez'), ['JUAN', 'GARCIA', 'LOPEZ', '']);
  });

  it('a single word is the last name; MC is joined', () => {
    assert.deepEqual(parse('Smith'), ['', '', 'SMITH', '']);
    assert.deepEqual(parse('Dr. Smith'), ['', '', 'SMITH', '']);
    assert.deepEqual(parse('John Mc Donald'), ['JOHN', '', 'MCDONALD', '']);
  });

  it('empty or junk → empty name', () => {
    for (const value of ['', '   ', ',', ' , , ', '12345', '😀', 'Mr.', 'Jr.,']) {
      const p = parseFullName(value);
      assert.equal(p.first + p.middle + p.last, '', JSON.stringify(value));
    }
  });

  it('never throws on hostile input', () => {
    for (const value of HOSTILE) {
      const name = parseFullName(value);
      for (const part of [name.first, name.middle, name.last]) assert.match(part, WELL_FORMED);
      assert.ok(name.first.length + name.middle.length + name.last.length <= 400);
    }
  });
});

describe('splitCombinedFirstNames', () => {
  it('splits on &, and, /, +, comma', () => {
    for (const value of [
      'JOHN & MARY',
      'John and Mary',
      'JOHN/MARY',
      'JOHN + MARY',
      'JOHN, MARY',
      'john;mary',
    ]) {
      assert.deepEqual(splitCombinedFirstNames(value), { firsts: ['JOHN', 'MARY'], last: '' }, value);
    }
  });

  it('returns a shared trailing surname separately', () => {
    assert.deepEqual(splitCombinedFirstNames('JOHN & MARY SMITH'), {
      firsts: ['JOHN', 'MARY'],
      last: 'SMITH',
    });
    assert.deepEqual(splitCombinedFirstNames('John Smith and Mary Smith'), {
      firsts: ['JOHN', 'MARY'],
      last: 'SMITH',
    });
    assert.deepEqual(splitCombinedFirstNames('John & Maria de la Cruz'), {
      firsts: ['JOHN', 'MARIA'],
      last: 'DE LA CRUZ',
    });
    // Documented limit: a compound name after the '&' reads as name + surname.
    assert.deepEqual(splitCombinedFirstNames('JOHN & MARY ANN'), { firsts: ['JOHN', 'MARY'], last: 'ANN' });
    // A compound first name first is kept.
    assert.deepEqual(splitCombinedFirstNames('MARY ANN & JOHN'), { firsts: ['MARY ANN', 'JOHN'], last: '' });
  });

  it('one name, more than two, titles, empty', () => {
    assert.deepEqual(splitCombinedFirstNames('John'), { firsts: ['JOHN'], last: '' });
    assert.deepEqual(splitCombinedFirstNames('A & B & C'), { firsts: ['A', 'B'], last: '' });
    assert.deepEqual(splitCombinedFirstNames('John, Mary & Sue Smith'), {
      firsts: ['JOHN', 'MARY'],
      last: 'SMITH',
    });
    assert.deepEqual(splitCombinedFirstNames('Mr. John & Mrs. Mary'), { firsts: ['JOHN', 'MARY'], last: '' });
    assert.deepEqual(splitCombinedFirstNames('ANDREW & ANDREA'), { firsts: ['ANDREW', 'ANDREA'], last: '' });
    assert.deepEqual(splitCombinedFirstNames(''), { firsts: [], last: '' });
    assert.deepEqual(splitCombinedFirstNames(' & / + '), { firsts: [], last: '' });
  });

  it('never throws on hostile input', () => {
    for (const value of HOSTILE) {
      const { firsts, last } = splitCombinedFirstNames(value);
      assert.ok(firsts.length <= 2);
      for (const first of firsts) assert.match(first, /^[A-Z]+(?: [A-Z]+)*$/);
      assert.match(last, WELL_FORMED);
    }
  });
});

describe('parseCoupleName', () => {
  const people = (value: string) => parseCoupleName(value)?.map((p) => [p.first, p.middle, p.last]) ?? null;

  it('a hyphenated surname after two given names is both people’s', () => {
    assert.deepEqual(people('John & Jane Smith-Jones'), [
      ['JOHN', '', 'SMITH JONES'],
      ['JANE', '', 'SMITH JONES'],
    ]);
  });

  it('two people written in one full name, in the orders mailing lists use', () => {
    const smiths = [
      ['JOHN', '', 'SMITH'],
      ['MARY', '', 'SMITH'],
    ];
    for (const value of [
      'John & Mary Smith',
      'JOHN AND MARY SMITH',
      'Smith, John & Mary',
      'John + Mary Smith',
    ])
      assert.deepEqual(people(value), smiths, value);
    assert.deepEqual(people('Mr John Smith & Mrs Mary Smith'), smiths);
    assert.deepEqual(people('SMITH, JOHN Q AND MARY ANN'), [
      ['JOHN', 'Q', 'SMITH'],
      ['MARY', 'ANN', 'SMITH'],
    ]);
    // After the comma every word is a given name: CARLOS is no surname here.
    assert.deepEqual(people('SMITH, GLORIA AND JUAN CARLOS'), [
      ['GLORIA', '', 'SMITH'],
      ['JUAN', 'CARLOS', 'SMITH'],
    ]);
    assert.deepEqual(people('John Smith & Mary Jones'), [
      ['JOHN', '', 'SMITH'],
      ['MARY', '', 'JONES'],
    ]);
    assert.deepEqual(people('John & Mary De La Cruz'), [
      ['JOHN', '', 'DE LA CRUZ'],
      ['MARY', '', 'DE LA CRUZ'],
    ]);
  });

  it('one person: a couple’s titles before one name, no joining word, no surname', () => {
    for (const value of [
      'MR & MRS JOHN SMITH',
      'Mr. and Mrs. John Smith',
      'Sandra Anderson',
      'ANDERSON, ANDREW',
      'John & Mary',
      'AND',
      '',
    ])
      assert.equal(parseCoupleName(value), null, value);
  });

  it('never throws on hostile input', () => {
    for (const value of HOSTILE) {
      const result = parseCoupleName(value);
      assert.ok(result === null || result.length === 2);
    }
  });
});

describe('withoutMailingWords', () => {
  it('a mailing list’s forms around a name', () => {
    for (const [value, name] of [
      ['The Smith Family', 'Smith'],
      ['SMITH HOUSEHOLD', 'SMITH'],
      ['John Smith & Family', 'John Smith'],
      ['JOHN SMITH ET AL', 'JOHN SMITH'],
      ['John Smith, et ux.', 'John Smith'],
      ['Estate of John Smith', 'John Smith'],
      ['The Honorable John Smith', 'John Smith'],
      ['Current Resident', ''],
      ['OCCUPANT', ''],
    ] as const)
      assert.equal(withoutMailingWords(value), name, value);
  });

  it('names as they are', () => {
    for (const value of ['John Smith', 'Family', 'Mary Estate', 'Alice Resident Smith', 'The', ...HOSTILE])
      assert.equal(withoutMailingWords(value), value, JSON.stringify(value.slice(0, 20)));
  });

  it('a couple’s titles joined by AND before one name', () => {
    for (const value of ['MR AND MRS JOHN SMITH', 'Dr. and Mrs. John Smith'])
      assert.deepEqual(parseFullName(value), { first: 'JOHN', middle: '', last: 'SMITH', suffix: '' }, value);
    assert.deepEqual(parseFullName('Mr and Mrs Smith'), { first: '', middle: '', last: 'SMITH', suffix: '' });
  });
});

describe('withoutAsides', () => {
  it('drops a nickname or maiden name written beside the name', () => {
    assert.equal(withoutAsides('Robert (Bob)'), 'Robert');
    assert.equal(withoutAsides('Robert "Bob" Smith'), 'Robert Smith');
    assert.equal(withoutAsides("Robert 'Bob' Smith"), 'Robert Smith');
    assert.equal(withoutAsides('Robert [Bob]'), 'Robert');
    assert.equal(withoutAsides('Mary Smith (nee Jones'), 'Mary Smith', 'an aside left open');
  });

  it('keeps apostrophes inside names, and a cell that is nothing but an aside', () => {
    assert.equal(withoutAsides("O'Brien"), "O'Brien");
    assert.equal(withoutAsides("D'Angelo Smith"), "D'Angelo Smith");
    assert.equal(withoutAsides('(Bob)'), '(Bob)');
  });
});

describe('isNameParticle', () => {
  it('knows the particles and nothing else', () => {
    for (const word of ['DE', 'LA', 'DEL', 'VAN', 'VON', 'DI', 'DA', 'LE'])
      assert.ok(isNameParticle(word), word);
    for (const word of ['MC', 'SMITH', '', 'de']) assert.ok(!isNameParticle(word), word);
  });
});
