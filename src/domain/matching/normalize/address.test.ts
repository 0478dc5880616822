import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalAddress,
  canonicalStreet,
  type ParsedAddress,
  parseAddress,
  sameStreetWrittenApart,
  withDirectionalsSpelled,
} from './address.ts';
import {
  DIRECTIONALS,
  NAME_WORDS,
  RANGELESS_UNITS,
  STANDARD_SUFFIXES,
  STREET_SUFFIX_ROWS,
  STREET_SUFFIXES,
  UNIT_DESIGNATOR_ROWS,
  UNIT_DESIGNATORS,
} from './usps-tables.ts';

const canon = (address1: string, address2?: string) => canonicalAddress(parseAddress(address1, address2));

/** The fields of a parse that are not '' (keeps expectations short). */
function fields(address1: string, address2?: string): Partial<ParsedAddress> {
  const parsed = parseAddress(address1, address2);
  return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v !== '')) as Partial<ParsedAddress>;
}

/** Every spelling must give the voter-file form's canonical address, and re-parsing that is stable. */
function assertSameAddress(expected: string, spellings: readonly (string | readonly [string, string])[]) {
  for (const spelling of spellings) {
    const [a1, a2] = typeof spelling === 'string' ? [spelling, undefined] : spelling;
    assert.equal(canon(a1, a2), expected, `${JSON.stringify(spelling)}`);
  }
  assert.equal(canon(expected), expected, 'canonical form re-parses to itself');
}

describe('parseAddress: voter-file forms', () => {
  it('reads number, name and suffix', () => {
    assert.deepEqual(fields('3425 MADISON CIR'), {
      houseNumber: '3425',
      streetName: 'MADISON',
      streetSuffix: 'CIR',
    });
  });

  it('reads a pre-directional and a unit', () => {
    assert.deepEqual(fields('12 N MAIN ST APT 4B'), {
      houseNumber: '12',
      preDirectional: 'N',
      streetName: 'MAIN',
      streetSuffix: 'ST',
      unitType: 'APT',
      unit: '4B',
    });
  });

  it('reads a PO box', () => {
    assert.deepEqual(fields('PO BOX 112'), { poBox: '112' });
  });

  it('reads a rural route with its box', () => {
    assert.deepEqual(fields('RR 2 BOX 14'), { ruralRoute: '2', poBox: '14' });
  });

  it('turns hyphens between name words into spaces', () => {
    assert.deepEqual(fields('4877 MT HERMON-ROCK CREEK RD'), {
      houseNumber: '4877',
      streetName: 'MT HERMON ROCK CREEK',
      streetSuffix: 'RD',
    });
  });

  it('reads a post-directional', () => {
    assert.deepEqual(fields('1600 PENNSYLVANIA AVE NW'), {
      houseNumber: '1600',
      streetName: 'PENNSYLVANIA',
      streetSuffix: 'AVE',
      postDirectional: 'NW',
    });
  });

  it('reads the unit from address2', () => {
    assert.deepEqual(fields('3425 MADISON CIR', 'APT 4'), {
      houseNumber: '3425',
      streetName: 'MADISON',
      streetSuffix: 'CIR',
      unitType: 'APT',
      unit: '4',
    });
  });
});

describe('parseAddress: messy spellings give the voter-file canonical form', () => {
  it('suffix spelled out, lower case, trailing period', () => {
    assertSameAddress('3425 MADISON CIR', [
      '3425 Madison Circle',
      '3425 madison cir.',
      '  3425   MADISON    CIR  ',
      '3425 MADISON CIRC',
      '3425 Madison Cir,',
      '03425 MADISON CRCLE',
    ]);
  });

  it('directional, suffix and unit in every spelling, in address1 or address2', () => {
    assertSameAddress('12 N MAIN ST #4B', [
      '12 N MAIN ST APT 4B',
      '12 North Main Street, Apt. 4B',
      '12 N. Main St #4B',
      '12 N MAIN ST # 4B',
      '12 N MAIN ST APT #4B',
      '12 N MAIN ST APT#4B',
      '12 N MAIN ST APT4B',
      '12 N MAIN ST APARTMENT 4-B',
      '12 N MAIN ST UNIT 4 B',
      '12 N MAIN ST STE 4B',
      '12 N MAIN ST 4B',
      ['12 N MAIN ST', 'APT 4B'],
      ['12 N Main St.', '#4B'],
      ['12 N MAIN ST', 'UNIT 4B'],
      ['12 n main st', '4b'],
      ['APT 4B', '12 N MAIN ST'],
    ]);
  });

  it('PO box spellings', () => {
    assertSameAddress('PO BOX 112', [
      'P.O. Box 112',
      'P. O. Box 112',
      'Post Office Box 112',
      'P O BOX 112',
      'PO BX 112',
      'POB 112',
      'POBOX 112',
      'POBOX112',
      'BOX 112',
      'PO BOX #112',
      'PO BOX 0112',
      'PO DRAWER 112',
      ['', 'PO BOX 112'],
    ]);
  });

  it('rural route spellings', () => {
    assertSameAddress('RR 2 BOX 14', [
      'Rural Route 2 Box 14',
      'RURAL RTE 2 BOX 14',
      'RTE 2 BOX 14',
      'ROUTE 2, BOX 14',
      'R.R. 2 Box 14',
      'R R 2 BOX 14',
      'RR2 BX 14',
      'RR #2 BOX 14',
      'RFD 2 BOX 14',
      'RR 2 PO BOX 14',
      'BOX 14 RR 2',
      ['RR 2', 'BOX 14'],
    ]);
  });

  it('reads a highway contract route (a star route, as they were called) apart from a rural route', () => {
    assert.deepEqual(fields('HC 68 BOX 23A'), { ruralRoute: '68', routeType: 'HC', poBox: '23A' });
    assertSameAddress('HC 1 BOX 5', [
      'HCR 1 BOX 5',
      'H C 1 BOX 5',
      'HC1 BOX 5',
      'Highway Contract Route 1 Box 5',
      'STAR RTE 1 BOX 5',
      'BOX 5 HC 1',
      ['HC 1', 'BOX 5'],
    ]);
    assert.notEqual(canon('HC 1 BOX 5'), canon('RR 1 BOX 5'));
    // Streets that start with the same words.
    assert.deepEqual(fields('HIGHWAY 61 N'), { streetName: 'HWY 61', postDirectional: 'N' });
    assert.deepEqual(fields('STAR LN'), { streetName: 'STAR', streetSuffix: 'LN' });
    assert.deepEqual(fields('123 HC RD'), { houseNumber: '123', streetName: 'HC', streetSuffix: 'RD' });
    assert.equal(canon('STAR APARTMENTS', '12 OAK ST'), '12 OAK ST');
  });

  it('a rural route without a box', () => {
    assert.deepEqual(fields('RURAL ROUTE 3'), { ruralRoute: '3' });
    assert.equal(canon('RR 3'), 'RR 3');
  });

  it('house number suffix letter, with or without hyphen', () => {
    assertSameAddress('123A ELM ST', ['123-A ELM ST', '123A Elm Street']);
    assert.deepEqual(fields('123-A ELM ST'), {
      houseNumber: '123',
      houseSuffix: 'A',
      streetName: 'ELM',
      streetSuffix: 'ST',
    });
  });

  it('half house numbers, written or as the ½ character', () => {
    assertSameAddress('123 1/2 ELM ST', ['123½ Elm St', '123 ½ ELM ST', '123-1/2 ELM ST']);
    assert.deepEqual(fields('123 1/2 ELM ST'), {
      houseNumber: '123',
      houseSuffix: '1/2',
      streetName: 'ELM',
      streetSuffix: 'ST',
    });
  });

  it('post-directional spellings', () => {
    assertSameAddress('1600 PENNSYLVANIA AVE NW', [
      '1600 Pennsylvania Avenue Northwest',
      '1600 Pennsylvania Ave. N.W.',
      '1600 PENNSYLVANIA AV NW',
    ]);
  });

  it('accents, apostrophes and odd whitespace', () => {
    assertSameAddress('55 JOSE MARTI AVE', [
      '55 José Martí Avenue',
      '55\tJOSÉ\u00a0MARTÍ\nAVE',
      '55 Jose\u0301 Marti AVE',
    ]);
    assertSameAddress('9 OBRIEN ST', ["9 O'Brien St", '9 O’BRIEN STREET', '9 O`Brien St']);
  });

  it('full-width characters are folded', () => {
    assert.equal(canon('１２ ＭＡＩＮ ＳＴ'), '12 MAIN ST');
  });

  it('Mount, Fort and Saint in the name', () => {
    assertSameAddress('4877 MT HERMON ROCK CREEK RD', [
      '4877 Mount Hermon-Rock Creek Road',
      '4877 MNT HERMON ROCK CREEK RD',
    ]);
    assertSameAddress('7 FT WORTH HWY', ['7 Fort Worth Highway', '7 FT. WORTH HWY']);
    assertSameAddress('10 ST JAMES PL', ['10 Saint James Place', '10 St. James Pl.', '10 ST JAMES PLACE']);
  });
});

describe('parseAddress: street-name rules', () => {
  it('ST at the start is Saint, at the end Street', () => {
    assert.deepEqual(fields('10 ST JAMES PL'), {
      houseNumber: '10',
      streetName: 'ST JAMES',
      streetSuffix: 'PL',
    });
    assert.deepEqual(fields('10 ST JAMES ST'), {
      houseNumber: '10',
      streetName: 'ST JAMES',
      streetSuffix: 'ST',
    });
    assert.deepEqual(fields('10 SAINT JAMES'), { houseNumber: '10', streetName: 'ST JAMES' });
  });

  it('MLK is Martin Luther King, as the voter file spells it out', () => {
    const spelledOut = fields('12 MARTIN LUTHER KING JR BLVD');
    assert.deepEqual(fields('12 MLK JR BLVD'), spelledOut);
    assert.deepEqual(spelledOut, {
      houseNumber: '12',
      streetName: 'MARTIN LUTHER KING JR',
      streetSuffix: 'BLVD',
    });
  });

  it('a suffix word is never the only name word', () => {
    assert.deepEqual(fields('100 PARK'), { houseNumber: '100', streetName: 'PARK' });
    assert.deepEqual(fields('100 PARK AVE'), { houseNumber: '100', streetName: 'PARK', streetSuffix: 'AVE' });
  });

  it('a leading AVENUE is part of the name', () => {
    assert.deepEqual(fields('100 AVENUE C'), { houseNumber: '100', streetName: 'AVE C' });
    assert.equal(canon('100 AVE C'), canon('100 Avenue C'));
    assert.deepEqual(fields('100 AVENUE OF THE AMERICAS'), {
      houseNumber: '100',
      streetName: 'AVE OF THE AMERICAS',
    });
  });

  it('a directional is a pre-directional only when a name word follows', () => {
    assert.deepEqual(fields('100 N ST'), { houseNumber: '100', streetName: 'N', streetSuffix: 'ST' });
    assert.deepEqual(fields('100 NORTH ST'), fields('100 N ST'));
    assert.deepEqual(fields('100 N MAIN'), { houseNumber: '100', preDirectional: 'N', streetName: 'MAIN' });
    assert.deepEqual(fields('100 N ST NW'), {
      houseNumber: '100',
      streetName: 'N',
      streetSuffix: 'ST',
      postDirectional: 'NW',
    });
    assert.deepEqual(fields('100 SOUTHWEST OAK DR'), {
      houseNumber: '100',
      preDirectional: 'SW',
      streetName: 'OAK',
      streetSuffix: 'DR',
    });
  });

  it('ordinal words become digits; digit ordinals stay', () => {
    assertSameAddress('100 1ST ST', ['100 First Street', '100 FIRST ST']);
    assertSameAddress('100 21ST AVE', ['100 Twenty-First Avenue', '100 TWENTY FIRST AVE']);
    assertSameAddress('100 5TH AVE', ['100 Fifth Ave']);
    assertSameAddress('100 2ND ST', ['100 2D ST', '100 SECOND ST']);
    assert.deepEqual(fields('5TH AVE'), { streetName: '5TH', streetSuffix: 'AVE' });
  });

  it('spelled-out numbers one to ten only as the first token before a street', () => {
    assertSameAddress('1 MAIN ST', ['One Main Street', 'ONE MAIN ST']);
    assert.equal(canon('TEN OAKS DR'), '10 OAKS DR');
    assert.deepEqual(fields('ONE WAY'), { streetName: 'ONE', streetSuffix: 'WAY' });
    assert.deepEqual(fields('12 ONE MILE RD'), {
      houseNumber: '12',
      streetName: 'ONE MILE',
      streetSuffix: 'RD',
    });
  });

  it('a suffix word followed by another name word is part of the name', () => {
    assert.deepEqual(fields('100 TIMBER CREEK WOODS'), {
      houseNumber: '100',
      streetName: 'TIMBER CREEK WOODS',
    });
    assert.deepEqual(fields('100 PARK AVE SOUTH'), {
      houseNumber: '100',
      streetName: 'PARK',
      streetSuffix: 'AVE',
      postDirectional: 'S',
    });
  });
});

describe('parseAddress: highways and county roads', () => {
  it('HIGHWAY and HWY', () => {
    assertSameAddress('100 HWY 10', ['100 HIGHWAY 10', '100 Hwy. 10', '100 HIWAY 10']);
    assert.deepEqual(fields('100 HWY 10'), { houseNumber: '100', streetName: 'HWY 10' });
    assertSameAddress('100 HWY 10 N #3', ['100 Highway 10 North Apt 3']);
  });

  it('U.S. highways keep their class', () => {
    assertSameAddress('100 US HWY 10', [
      '100 US HIGHWAY 10',
      '100 U.S. Hwy 10',
      '100 U S HIGHWAY 10',
      '100 US 10',
    ]);
    assert.notEqual(canon('100 US HWY 10'), canon('100 HWY 10'));
  });

  it('state routes', () => {
    assertSameAddress('100 SR 9', [
      '100 STATE ROUTE 9',
      '100 State Rte 9',
      '100 STATE ROAD 9',
      '100 ST RT 9',
      '100 SR 9',
    ]);
  });

  it('county roads, including Wisconsin lettered ones and grid numbers', () => {
    assertSameAddress('100 CR 5', ['100 COUNTY ROAD 5', '100 County Rd. 5', '100 CO RD 5', '100 CNTY RD 5']);
    assertSameAddress('N1234 CR K', [
      'N1234 COUNTY ROAD K',
      'N1234 County Hwy K',
      'N1234 CTH K',
      'N 1234 COUNTY RD K',
    ]);
    assert.deepEqual(fields('N1234 COUNTY ROAD K'), { houseNumber: 'N1234', streetName: 'CR K' });
    assert.deepEqual(fields('W156N8480 PILGRIM RD'), {
      houseNumber: 'W156N8480',
      streetName: 'PILGRIM',
      streetSuffix: 'RD',
    });
  });

  it('a numbered road after a name word is a route name, not suffix + unit', () => {
    assert.deepEqual(fields('100 OLD HWY 10'), { houseNumber: '100', streetName: 'OLD HWY 10' });
    assert.deepEqual(fields('100 RANCH ROAD 620'), { houseNumber: '100', streetName: 'RANCH RD 620' });
    assert.deepEqual(fields('100 FM 1960 RD'), {
      houseNumber: '100',
      streetName: 'FM 1960',
      streetSuffix: 'RD',
    });
    assert.equal(canon('100 FARM TO MARKET ROAD 1960'), '100 FM 1960');
    assert.equal(canon('100 I-95'), '100 I 95');
  });

  it('RTE n without a box is a route, not a rural route', () => {
    assert.deepEqual(fields('RTE 9'), { streetName: 'RTE 9' });
    assert.deepEqual(fields('12 ROUTE 9'), { houseNumber: '12', streetName: 'RTE 9' });
  });

  it('US and SH alone stay words unless a route number follows', () => {
    assert.deepEqual(fields('100 SH 6'), { houseNumber: '100', streetName: 'SR 6' });
    assert.equal(canon('100 US ST'), '100 US ST');
  });
});

describe('parseAddress: house numbers', () => {
  it('Queens hyphenated numbers join their digits', () => {
    assertSameAddress('1234 45TH AVE', ['12-34 45TH AVE', '12-34 45th Avenue', '1234 FORTY FIFTH AVE']);
    assert.deepEqual(fields('12-34 45TH AVE'), {
      houseNumber: '1234',
      streetName: '45TH',
      streetSuffix: 'AVE',
    });
  });

  it('a letter D after the number is a suffix, not an old-style ordinal', () => {
    assert.deepEqual(fields('123D ELM ST'), {
      houseNumber: '123',
      houseSuffix: 'D',
      streetName: 'ELM',
      streetSuffix: 'ST',
    });
    assert.equal(parseAddress('1 ELM ST APT 2D').unit, '2D');
    assert.equal(parseAddress('1 ELM ST', '2D').unit, '2D');
  });

  it('a house number written against the street’s first word is read apart from it', () => {
    assertSameAddress('1377 2ND ST', ['1377SECOND ST', '1377 SECOND ST']);
    assert.deepEqual(fields('88OAK AVE'), { houseNumber: '88', streetName: 'OAK', streetSuffix: 'AVE' });
    assert.deepEqual(fields('APT 4', '12ELM ST'), {
      houseNumber: '12',
      streetName: 'ELM',
      streetSuffix: 'ST',
      unitType: 'APT',
      unit: '4',
    });
    // A house letter and an ordinal street stay as they were.
    assert.equal(parseAddress('123AB ELM ST').houseSuffix, 'AB');
    assert.equal(parseAddress('100TH ST').streetName, '100TH');
  });

  it('leading zeros are dropped', () => {
    assert.equal(parseAddress('007 ELM ST').houseNumber, '7');
    assert.equal(parseAddress('0 ELM ST').houseNumber, '0');
  });

  it('no house number', () => {
    assert.deepEqual(fields('MAIN ST'), { streetName: 'MAIN', streetSuffix: 'ST' });
  });

  it('numbers only', () => {
    assert.deepEqual(fields('12345'), { houseNumber: '12345' });
    assert.equal(canon('12345'), '12345');
    assert.doesNotThrow(() => parseAddress('1 2 3 4 5 6 7 8 9 10'));
  });
});

describe('parseAddress: units', () => {
  it("'#' is kept as the unit type; the canonical form ignores the type", () => {
    assert.deepEqual(fields('12 ELM ST #4'), {
      houseNumber: '12',
      streetName: 'ELM',
      streetSuffix: 'ST',
      unitType: '#',
      unit: '4',
    });
    assert.equal(canon('12 ELM ST #4'), canon('12 ELM ST UNIT 4'));
  });

  it('designators are standardized, numbers lose hyphens and leading zeros', () => {
    assert.equal(parseAddress('1 ELM ST SUITE 200').unitType, 'STE');
    assert.equal(parseAddress('1 ELM ST BUILDING 5').unitType, 'BLDG');
    assert.equal(parseAddress('1 ELM ST ROOM 12').unitType, 'RM');
    assert.equal(parseAddress('1 ELM ST TRAILER 9').unitType, 'TRLR');
    assert.equal(parseAddress('1 ELM ST SPACE 9').unitType, 'SPC');
    assert.equal(parseAddress('1 ELM ST APT 04').unit, '4');
    assert.equal(parseAddress('1 ELM ST APT A-1').unit, 'A1');
  });

  it('floors written either way round', () => {
    assertSameAddress('1 ELM ST #2', [
      '1 ELM ST FL 2',
      '1 ELM ST 2ND FLOOR',
      '1 ELM ST FLOOR 2',
      ['1 ELM ST', '2ND FL'],
    ]);
  });

  it('a designator without a number', () => {
    assert.deepEqual(fields('1 ELM ST APT'), {
      houseNumber: '1',
      streetName: 'ELM',
      streetSuffix: 'ST',
      unitType: 'APT',
    });
    assert.equal(canon('1 ELM ST APT'), '1 ELM ST');
  });

  it('rangeless designators are their own unit', () => {
    assert.equal(canon('1 ELM ST REAR'), '1 ELM ST #REAR');
    assert.equal(canon('1 ELM ST', 'REAR'), '1 ELM ST #REAR');
    assert.equal(canon('1 ELM ST BSMT'), '1 ELM ST #BSMT');
  });

  it('unit words inside street names are not units', () => {
    assert.deepEqual(fields('100 W LAKE FRONT DR'), {
      houseNumber: '100',
      preDirectional: 'W',
      streetName: 'LAKE FRONT',
      streetSuffix: 'DR',
    });
    assert.deepEqual(fields('100 PARKING LOT RD'), {
      houseNumber: '100',
      streetName: 'PARKING LOT',
      streetSuffix: 'RD',
    });
    assert.deepEqual(fields('100 STE GENEVIEVE AVE STE 200'), {
      houseNumber: '100',
      streetName: 'STE GENEVIEVE',
      streetSuffix: 'AVE',
      unitType: 'STE',
      unit: '200',
    });
    assert.equal(canon('5 MAIN ST LOT 12'), '5 MAIN ST #12');
  });

  it('a unit written before the street', () => {
    for (const spelling of [
      'APT 4 123 MAIN ST',
      'Apt. 4 - 123 Main St',
      '#4 123 Main St',
      'APT # 4 123 MAIN ST',
      'APT4 123 MAIN ST',
    ])
      assert.equal(canon(spelling), '123 MAIN ST #4', spelling);
    assert.equal(canon('UNIT 4B 9 OAK AVE'), '9 OAK AVE #4B');
    // Not a unit and a house number: no street after them, or no number.
    assert.equal(parseAddress('APT 4 123').houseNumber, '');
    assert.equal(parseAddress('LOT RD 123').houseNumber, '');
  });

  it('who the mail is for, before the street, is passed over', () => {
    assert.equal(canon('C/O JOHN SMITH 123 MAIN ST'), '123 MAIN ST');
    assert.equal(canon('Attn: Billing 123 Main St'), '123 MAIN ST');
    assert.equal(parseAddress('C/O JOHN SMITH').houseNumber, '');
  });

  it('a unit in address1 wins over address2', () => {
    assert.equal(parseAddress('1 ELM ST APT 3', 'APT 9').unit, '3');
  });

  it('two designators keep both', () => {
    assert.deepEqual(
      {
        unitType: parseAddress('1 ELM ST BLDG 5 APT 3').unitType,
        unit: parseAddress('1 ELM ST BLDG 5 APT 3').unit,
      },
      { unitType: 'BLDG', unit: '5 APT 3' },
    );
  });
});

describe('parseAddress: address2', () => {
  it('a name or unit in address1 and the street in address2', () => {
    assert.equal(canon('ACME CORP', '100 MAIN ST'), '100 MAIN ST');
    assert.equal(canon('#4B', '12 N MAIN ST'), '12 N MAIN ST #4B');
  });

  it('street plus PO box prefers the street, in either order', () => {
    assert.equal(canon('100 MAIN ST', 'PO BOX 5'), '100 MAIN ST');
    assert.equal(canon('PO BOX 5', '100 MAIN ST'), '100 MAIN ST');
    assert.equal(parseAddress('100 MAIN ST', 'PO BOX 5').poBox, '5');
  });

  it('non-unit text in address2 is ignored once there is a street', () => {
    assert.equal(canon('100 MAIN ST', 'C/O JANE DOE'), '100 MAIN ST');
  });

  it('undefined, empty and missing address2 are the same', () => {
    assert.deepEqual(parseAddress('1 ELM ST', ''), parseAddress('1 ELM ST'));
    assert.deepEqual(parseAddress('1 ELM ST', undefined), parseAddress('1 ELM ST'));
  });
});

describe('canonicalStreet', () => {
  it('is the street without number and unit', () => {
    assert.equal(canonicalStreet(parseAddress('12 North Main Street Apt 4B')), 'N MAIN ST');
    assert.equal(canonicalStreet(parseAddress('1600 Pennsylvania Avenue NW')), 'PENNSYLVANIA AVE NW');
    assert.equal(
      canonicalStreet(parseAddress('12 ELM ST')),
      canonicalStreet(parseAddress('14 Elm Street #2')),
    );
  });

  it('is empty for PO boxes', () => {
    assert.equal(canonicalStreet(parseAddress('PO BOX 5')), '');
  });
});

describe('parseAddress: garbage and hostile input never throws', () => {
  const empty = canonicalAddress(parseAddress(''));
  const inputs: readonly string[] = [
    '',
    ' ',
    '!!!',
    '.,;:-/#',
    '####',
    '----',
    '1/2/3/4',
    '-12',
    '😀',
    '😀😀 123 Main 😀',
    '\u0000\u0001\u0007\u001b[31m',
    '\ud800',
    'PO BOX',
    'RR',
    'APT',
    '#',
    'ST',
    'N',
    'N S E W',
    'COUNTY ROAD',
    '١٢٣ شارع',
    '中文地址 123',
    'x'.repeat(10_000),
    '1 '.repeat(5_000),
    'APT '.repeat(3_000),
    `${'#'.repeat(50_000)}${'9'.repeat(50_000)}`,
    '123 MAIN ST '.repeat(10_000),
  ];

  for (const input of inputs) {
    const shown = JSON.stringify(input.slice(0, 24));
    it(`handles ${input.length > 24 ? `${shown}… (${input.length} chars)` : shown}`, () => {
      const parsed = parseAddress(input, input);
      for (const value of Object.values(parsed)) assert.equal(typeof value, 'string');
      assert.equal(typeof canonicalAddress(parsed), 'string');
      assert.equal(typeof canonicalStreet(parsed), 'string');
    });
  }

  it('empty and punctuation-only inputs give an empty address', () => {
    assert.equal(empty, '');
    assert.equal(canon('!!!'), '');
    assert.equal(canon(' , . '), '');
  });

  it('non-string input (from untyped callers) gives an empty address', () => {
    assert.equal(canon(null as unknown as string, 42 as unknown as string), '');
  });

  it('emoji and control characters separate words', () => {
    assert.equal(canon('😀😀 123 Main 😀'), '123 MAIN');
    assert.equal(canon('\u0000\u0007123\tMAIN\nST'), '123 MAIN ST');
  });

  it('a 100k-character line is cut short, not read to the end', () => {
    const parsed = parseAddress('123 MAIN ST '.repeat(10_000));
    assert.equal(parsed.houseNumber, '123');
    assert.ok(parsed.streetName.length < 1000);
  });
});

describe('usps-tables', () => {
  it('has the Pub 28 C1 suffixes', () => {
    assert.ok(STREET_SUFFIX_ROWS.length >= 200, `${STREET_SUFFIX_ROWS.length} rows`);
    assert.ok(STREET_SUFFIXES.size >= 500, `${STREET_SUFFIXES.size} spellings`);
  });

  it('each Pub 28 standard suffix abbreviation maps to itself', () => {
    for (const standard of STANDARD_SUFFIXES) assert.equal(STREET_SUFFIXES.get(standard), standard, standard);
  });

  it('each primary name and variant maps to its standard (unless it is itself a standard)', () => {
    for (const [primary, standard, variants] of STREET_SUFFIX_ROWS) {
      for (const spelling of [primary, ...variants.split(' ').filter((v) => v !== '')]) {
        const expected = STANDARD_SUFFIXES.has(spelling) ? spelling : standard;
        assert.equal(STREET_SUFFIXES.get(spelling), expected, spelling);
      }
    }
    assert.equal(STREET_SUFFIXES.get('AVNUE'), 'AVE');
    assert.equal(STREET_SUFFIXES.get('MDW'), 'MDW');
  });

  it('every suffix spelling is read as the suffix after a name word', () => {
    for (const [spelling, standard] of STREET_SUFFIXES) {
      // TRLR is also a unit designator (Pub 28 C2), and in an address that reading wins.
      if (spelling === 'TRLR' || spelling === 'TRLRS') continue;
      assert.equal(parseAddress(`100 MAPLE ${spelling}`).streetSuffix, standard, spelling);
    }
  });

  it('directionals and unit designators map to standard abbreviations that map to themselves', () => {
    for (const value of DIRECTIONALS.values()) assert.equal(DIRECTIONALS.get(value), value);
    for (const [, standard] of UNIT_DESIGNATOR_ROWS) assert.equal(UNIT_DESIGNATORS.get(standard), standard);
    assert.equal(UNIT_DESIGNATORS.get('APARTMENT'), 'APT');
    assert.equal(UNIT_DESIGNATORS.get('#'), '#');
    assert.ok(RANGELESS_UNITS.has('REAR') && !RANGELESS_UNITS.has('APT'));
  });

  it('name words are upper-case and standardize to something stable', () => {
    for (const [word, standard] of NAME_WORDS) {
      assert.match(word, /^[A-Z]+$/);
      assert.equal(NAME_WORDS.get(standard) ?? standard, standard, word);
    }
  });
});

describe('withDirectionalsSpelled', () => {
  it('spells out the abbreviated directional words of a standardized street', () => {
    assert.equal(withDirectionalsSpelled('S ST'), 'SOUTH ST');
    assert.equal(withDirectionalsSpelled('N MAIN ST NW'), 'NORTH MAIN ST NORTHWEST');
    assert.equal(withDirectionalsSpelled('MAIN ST'), null);
  });
});

describe('sameStreetWrittenApart', () => {
  const street = (address: string) => canonicalStreet(parseAddress(address));
  const same = (a: string, b: string) => sameStreetWrittenApart(street(a), street(b));
  it('spaces moved, or up to two edits once they are gone', () => {
    assert.equal(same('1 PINE LANDINGDR', '1 PINE LANDING DR'), true);
    assert.equal(same('1 HA VEN RD', '1 HAVEN RD'), true);
    assert.equal(same('1 WHSPERING GLENCT', '1 WHISPERING GLEN CT'), true);
  });
  it('a street named for a direction, stored abbreviated, against the same street written apart', () => {
    assert.equal(street('102 EAST RD'), 'E RD');
    assert.equal(same('102 EASTRD', '102 EAST RD'), true);
    assert.equal(same('102 EAST RD', '102 EASTRD'), true);
    assert.equal(same('7464 S NOR TH DR', '7464 S NORTH DR'), true);
    assert.equal(same('1 NORTHWESTBLVD', '1 NORTHWEST BLVD'), true);
    assert.equal(same('102 EASTRD', '102 WEST RD'), false);
    assert.equal(same('7464 S NOR TH DR', '7464 S SOUTH DR'), false);
  });
  it('a word that names the street in both: a route word mistyped, a suffix read as a unit', () => {
    assert.equal(same('9748 COUNTY ROAP 214', '9748 COUNTY ROAD 214'), true);
    assert.equal(same('639 1ST BLD', '639 1ST BLVD'), true);
  });
  it('suffixes, directionals and route classes are not a street’s name', () => {
    assert.equal(same('1 OAK ST', '1 ELM ST'), false);
    assert.equal(same('1 N OAK AVE', '1 N ELM AVE'), false);
    assert.equal(same('1 COUNTY ROAD 12', '1 COUNTY ROAD 45'), false);
    assert.equal(same('1 HIGHWAY 12', '1 HIGHWAY 45'), false);
    assert.equal(sameStreetWrittenApart('', 'OAK ST'), false);
  });
});
