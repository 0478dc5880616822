import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  birthYearsFromAge,
  dateTypoVariants,
  invalidDateDigits,
  isDigitTypo,
  packDate,
  parseDob,
  plausibleDobFrom,
} from './dates.ts';

const AS_OF = new Date(Date.UTC(2026, 5, 15)); // 2026-06-15

const HOSTILE = [
  '',
  ' ',
  '\t',
  '1'.repeat(10_000),
  '😀',
  '1980😀0101',
  '\u0000\u0001',
  'NaN',
  'null',
  '-',
  '//',
  '--',
  '1980-01-01-01',
  '١٩٨٠٠١٠١', // Arabic-Indic digits
  '１９８０', // fullwidth digits
];

const date = (year: number, month: number, day: number) => ({ year, month, day });

describe('parseDob', () => {
  it('YYYYMMDD, with 00 for an unknown month or day', () => {
    assert.deepEqual(parseDob('19800115', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob('19800100', AS_OF), date(1980, 1, 0));
    assert.deepEqual(parseDob('19800000', AS_OF), date(1980, 0, 0));
    assert.equal(parseDob('19800015', AS_OF), null, 'a day without a month');
  });

  it('YYYYMM and YYYY', () => {
    assert.deepEqual(parseDob('198001', AS_OF), date(1980, 1, 0));
    assert.deepEqual(parseDob('198000', AS_OF), date(1980, 0, 0));
    assert.deepEqual(parseDob('1980', AS_OF), date(1980, 0, 0));
  });

  it('ISO forms, also with a time part', () => {
    assert.deepEqual(parseDob('1980-01-15', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob('1980/1/5', AS_OF), date(1980, 1, 5));
    assert.deepEqual(parseDob('1980-01', AS_OF), date(1980, 1, 0));
    assert.deepEqual(parseDob('1980-01-15T00:00:00Z', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob('1980-01-15 00:00:00', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob(' 1980-01-15 ', AS_OF), date(1980, 1, 15));
  });

  it('U.S. month-first forms', () => {
    assert.deepEqual(parseDob('01/15/1980', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob('1/5/1980', AS_OF), date(1980, 1, 5));
    assert.deepEqual(parseDob('12-31-1980', AS_OF), date(1980, 12, 31));
    assert.deepEqual(parseDob('2.29.1980', AS_OF), date(1980, 2, 29));
  });

  it('reads a two-digit year as the latest century that leaves the person of voting age', () => {
    assert.deepEqual(parseDob('01/15/80', AS_OF), date(1980, 1, 15));
    assert.deepEqual(parseDob('1/5/59', AS_OF), date(1959, 1, 5));
    // 2009 leaves a 17-year-old on 2026-06-15; 2010 a 16-year-old, so 1910.
    assert.deepEqual(parseDob('3/4/09', AS_OF), date(2009, 3, 4));
    assert.deepEqual(parseDob('3/4/10', AS_OF), date(1910, 3, 4));
    assert.deepEqual(parseDob('12-JUL-26', AS_OF), date(1926, 7, 12));
    // Without separators six digits are YYYYMM, and two digits are no date.
    for (const value of ['800115', '80', '1/5/8', '1/5/198'])
      assert.equal(parseDob(value, AS_OF), null, value);
  });

  it('MMDDYYYY where the digits are no YYYYMMDD (a spreadsheet’s 07/12/1959 without slashes)', () => {
    assert.deepEqual(parseDob('07121959', AS_OF), date(1959, 7, 12));
    assert.deepEqual(parseDob(' 12311980 ', AS_OF), date(1980, 12, 31));
    // A year-first reading always wins: no month starts 18, 19 or 20.
    assert.deepEqual(parseDob('19591207', AS_OF), date(1959, 12, 7));
    for (const value of ['13121959', '00121959', '07001959', '02301980', '07122030'])
      assert.equal(parseDob(value, AS_OF), null, value);
  });

  it('numbers a spreadsheet or data frame wrote back with a zero fraction, and a time after a U.S. date', () => {
    assert.deepEqual(parseDob('19590712.0', AS_OF), date(1959, 7, 12));
    assert.deepEqual(parseDob('19590712.00', AS_OF), date(1959, 7, 12));
    assert.deepEqual(parseDob('1959.0', AS_OF), date(1959, 0, 0));
    assert.deepEqual(parseDob('7/12/1959 0:00', AS_OF), date(1959, 7, 12));
    assert.deepEqual(parseDob('07/12/1959 00:00:00', AS_OF), date(1959, 7, 12));
    assert.deepEqual(parseDob('12/31/1980 12:00 AM', AS_OF), date(1980, 12, 31));
    for (const value of [
      '19590712.5',
      '1980.5',
      '.0',
      '0.0',
      '7/12/1959 noon',
      '7/12/1959 0:0',
      '7/12/1959 12:00 XM',
    ])
      assert.equal(parseDob(value, AS_OF), null, value);
  });

  it('dates with the month’s name, day or month first', () => {
    for (const value of [
      '12-JUL-1959',
      '12-Jul-59',
      '12 July 1959',
      '12/jul/1959',
      'Jul 12, 1959',
      'July 12 1959',
      'JUL. 12, 1959',
      '12JUL1959',
      '12jul59',
      'Jul 12th, 1959',
      'Sunday, July 12, 1959',
      'Sun Jul 12 1959',
      '12-JUL-1959 00:00:00',
      'Jul 12, 1959 3:15 PM',
    ])
      assert.deepEqual(parseDob(value, AS_OF), date(1959, 7, 12), value);
    assert.deepEqual(parseDob('July 1st 1959', AS_OF), date(1959, 7, 1));
    assert.deepEqual(parseDob('July 22nd 1959', AS_OF), date(1959, 7, 22));
    assert.deepEqual(parseDob('JUL1959', AS_OF), date(1959, 7, 0));
    assert.deepEqual(parseDob('Sept 3 1980', AS_OF), date(1980, 9, 3));
    assert.deepEqual(parseDob('JUL 1959', AS_OF), date(1959, 7, 0));
    for (const value of [
      'Jul',
      '12 Jul',
      '1959 JUL',
      'Foo 12 1959',
      'Juli 12 1959',
      '30 FEB 1980',
      '0 JUL 1980',
      '12 JUL 1980 1',
      'JUL 123 1980',
      '12 JUL 2059',
      'July 11st 1959',
      'JUL121959',
      '1959JUL12',
      '12JUL1959X',
      '12 JUL 1959 Sun',
      'Sunday',
    ])
      assert.equal(parseDob(value, AS_OF), null, value);
  });

  it('00 for an unknown month or day in every form, and a month with its year', () => {
    assert.deepEqual(parseDob('1980-00-00', AS_OF), date(1980, 0, 0));
    assert.deepEqual(parseDob('1980-07-00', AS_OF), date(1980, 7, 0));
    assert.deepEqual(parseDob('00/00/1980', AS_OF), date(1980, 0, 0));
    assert.deepEqual(parseDob('07/00/1980', AS_OF), date(1980, 7, 0));
    assert.deepEqual(parseDob('7/1980', AS_OF), date(1980, 7, 0));
    assert.deepEqual(parseDob('07/1980', AS_OF), date(1980, 7, 0));
    for (const value of ['00/1980', '13/1980', '7/80', '00/00/80', '1980-00'])
      assert.equal(parseDob(value, AS_OF), null, value);
  });

  it('reads day first where only that reading is a date; month first where both are', () => {
    assert.deepEqual(parseDob('13/01/1980', AS_OF), date(1980, 1, 13));
    assert.deepEqual(parseDob('31.01.1980', AS_OF), date(1980, 1, 31));
    assert.deepEqual(parseDob('31-1-80', AS_OF), date(1980, 1, 31));
    assert.deepEqual(parseDob('05/12/1980', AS_OF), date(1980, 5, 12));
  });

  it('refuses impossible dates (leap years right)', () => {
    for (const value of [
      '19800230',
      '19810229',
      '20100229',
      '19801301',
      '19800132',
      '02/30/1980',
      '13/13/1980',
      '31/02/1980',
      '1980-13-01',
      '1980-00-10',
      '00/10/1980',
      '1980-04-31',
    ]) {
      assert.equal(parseDob(value, AS_OF), null, value);
    }
    assert.deepEqual(parseDob('20000229', AS_OF), date(2000, 2, 29));
    assert.deepEqual(parseDob('19960229', AS_OF), date(1996, 2, 29));
  });

  it('reads dates back to 1880 (placeholders too: compare-person weighs them), refuses older ones and those after asOf', () => {
    // 120 on 2026-06-15: born 1905 or 1906; older dates are read, and plausibleDobFrom marks them.
    assert.deepEqual(parseDob('19041231', AS_OF), date(1904, 12, 31));
    assert.deepEqual(parseDob('19050101', AS_OF), date(1905, 1, 1));
    for (const placeholder of ['19000101', '1900-01-01', '01/01/1900'])
      assert.deepEqual(parseDob(placeholder, AS_OF), date(1900, 1, 1), placeholder);
    assert.deepEqual(parseDob('1900', AS_OF), date(1900, 0, 0));
    assert.equal(plausibleDobFrom(AS_OF), 19050000);
    for (const tooOld of ['18000101', '18791231', '1800'])
      assert.equal(parseDob(tooOld, AS_OF), null, tooOld);
    assert.deepEqual(parseDob('20260615', AS_OF), date(2026, 6, 15));
    assert.equal(parseDob('20260616', AS_OF), null);
    assert.deepEqual(parseDob('202606', AS_OF), date(2026, 6, 0));
    assert.equal(parseDob('202607', AS_OF), null);
    assert.deepEqual(parseDob('2026', AS_OF), date(2026, 0, 0));
    assert.equal(parseDob('2027', AS_OF), null);
    assert.equal(parseDob('99991231', AS_OF), null);
  });

  it('refuses malformed input and never throws', () => {
    for (const value of [
      '1980-01-15x',
      '1980 01 15',
      '1980-01/15',
      '19800115 ',
      '0115 1980',
      '1980-1-1-1',
      '123',
      '12345',
      '1234567',
      '123456789',
      '01/15/1980/',
      '/01/15/1980',
      '1980--01',
      '+1980',
      '-1980',
      '1980.5',
      ...HOSTILE,
    ]) {
      const parsed = parseDob(value, AS_OF);
      // '19800115 ' is trimmed and fine; everything else here is refused.
      if (value === '19800115 ') assert.deepEqual(parsed, date(1980, 1, 15));
      else assert.equal(parsed, null, JSON.stringify(value.slice(0, 20)));
    }
  });
});

describe('birthYearsFromAge', () => {
  it('gives the two possible birth years', () => {
    assert.deepEqual(birthYearsFromAge('45', AS_OF), [1980, 1981]);
    assert.deepEqual(birthYearsFromAge(' 45 ', AS_OF), [1980, 1981]);
    assert.deepEqual(birthYearsFromAge('45.0', AS_OF), [1980, 1981]);
    assert.deepEqual(birthYearsFromAge('045', AS_OF), [1980, 1981]);
    assert.deepEqual(birthYearsFromAge('17', AS_OF), [2008, 2009]);
    assert.deepEqual(birthYearsFromAge('120', AS_OF), [1905, 1906]);
  });

  it('reads an age written with its unit', () => {
    for (const value of ['45 yrs', '45yrs', '45 years', '45 Years Old', '45y', '45 yr.'])
      assert.deepEqual(birthYearsFromAge(value, AS_OF), [1980, 1981], value);
  });

  it('refuses non-integers and ages out of 17..120', () => {
    for (const value of [
      '45.5',
      '45.',
      '-3',
      '+45',
      '999',
      '16',
      '121',
      '0',
      '1e2',
      '85+',
      '45 yrs 3 mo',
      'yrs',
      '4 5',
      '0045',
      ...HOSTILE,
    ]) {
      assert.equal(birthYearsFromAge(value, AS_OF), null, JSON.stringify(value.slice(0, 20)));
    }
  });
});

describe('packDate', () => {
  it('packs as yyyymmdd with zeros for unknown parts', () => {
    assert.equal(packDate(date(1980, 1, 15)), 19800115);
    assert.equal(packDate(date(1980, 1, 0)), 19800100);
    assert.equal(packDate(date(1980, 0, 0)), 19800000);
    assert.equal(packDate(parseDob('12/31/1999', AS_OF)!), 19991231);
  });
});

describe('impossible dates from a digit typo', () => {
  const asOf = new Date('2026-01-01T00:00:00Z');

  it('keeps the digits of a year-first full date that is not a date, and nothing else', () => {
    assert.equal(invalidDateDigits('19399222'), '19399222');
    assert.equal(invalidDateDigits(' 1961-13-04 '), '19611304');
    assert.equal(invalidDateDigits('1961/02/30'), '19610230');
    for (const value of [
      '',
      'never',
      '3/15/70',
      '1961-2-30',
      '00000000',
      '99999999',
      '1961-02-3x',
      '196102301',
    ]) {
      assert.equal(invalidDateDigits(value), null, value);
    }
  });

  it('tells one substituted digit or two swapped neighbours from anything else', () => {
    assert.equal(isDigitTypo(19610412, 19610422), true);
    assert.equal(isDigitTypo(19610412, 19160412), true, 'swapped neighbours');
    assert.equal(isDigitTypo(19610412, 19610412), false, 'the same');
    assert.equal(isDigitTypo(19610412, 19620422), false, 'two substitutions');
    assert.equal(isDigitTypo(19610412, 14610912), false, 'a swap of non-neighbours');
    assert.equal(isDigitTypo(1961041, 19610412), false);
  });

  it('lists the real dates one typo away, which include the one typed', () => {
    const variants = dateTypoVariants('19399222', asOf);
    assert.ok(variants.includes(19390222), '9 for 0 in the month');
    assert.ok(variants.includes(19391222), '9 for 1 in the month');
    assert.ok(variants.every((d) => isDigitTypo(19399222, d)));
    assert.ok(variants.every((d) => parseDob(String(d), asOf) !== null));
    assert.deepEqual(
      variants,
      [...variants].sort((a, b) => a - b),
    );
    assert.ok(variants.length < 40, String(variants.length));
    assert.deepEqual(dateTypoVariants('20261399', asOf), [], 'none is a date before asOf');
  });
});
