import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CleanOptions, cleanDateOfBirth, cleanIdentifier } from './clean-identifier.ts';
import type { IdentifierKey } from './identifier-keys.ts';
import {
  digestIdentifier,
  PLATFORM_RENDERINGS,
  type PlatformRendering,
  renderCell,
  renderIdentifier,
} from './platform-rendering.ts';

/**
 * Every test vector of docs/platforms.md (sections 6.1, 6.2, 6.3). Expected values and digests
 * are copied from the document, never computed by the code under test.
 */

const { meta, google, thetradedesk: ttd, liveramp } = PLATFORM_RENDERINGS;
const AS_OF = new Date('2026-11-21T00:00:00Z');

/** The platform's plaintext for a raw value: clean, then render ('' when unusable). */
function plain(
  rendering: PlatformRendering,
  key: IdentifierKey,
  raw: string,
  options: CleanOptions = {},
): string {
  const neutral = cleanIdentifier(key, raw, { asOf: AS_OF, ...options });
  return neutral === null ? '' : (renderIdentifier(rendering, key, neutral) ?? '');
}

const cell = (rendering: PlatformRendering, key: IdentifierKey, raw: string, options: CleanOptions = {}) =>
  renderCell(rendering, key, raw, { asOf: AS_OF, ...options });

describe('6.1 platform-documented vectors', () => {
  it('Meta EMAIL John_Smith@gmail.com', () => {
    assert.equal(plain(meta, 'EMAIL', 'John_Smith@gmail.com'), 'john_smith@gmail.com');
    assert.equal(
      cell(meta, 'EMAIL', 'John_Smith@gmail.com'),
      '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
    );
  });

  it('Meta PHONE US (650)555-1212', () => {
    assert.equal(plain(meta, 'PHONE', '(650)555-1212'), '16505551212');
    assert.equal(
      cell(meta, 'PHONE', '(650)555-1212'),
      'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
    );
  });

  it('Meta FN Mary, 정 (UTF-8), Valéry (NFC)', () => {
    assert.equal(plain(meta, 'FN', 'Mary'), 'mary');
    assert.equal(
      cell(meta, 'FN', 'Mary'),
      '6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec',
    );
    assert.equal(plain(meta, 'FN', '정'), '정');
    assert.equal(cell(meta, 'FN', '정'), '8fa8cd9c440be61d0151429310034083132b35975c4bea67fdd74158eb51db14');
    assert.equal(plain(meta, 'FN', 'Valéry'), 'val\u00e9ry');
    assert.equal(
      cell(meta, 'FN', 'Valéry'),
      '08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c',
    );
  });

  it('Meta DOB 2/16/1997 → 19970216, split DOBY 1997 / DOBM 02 / DOBD 16', () => {
    const birth = cleanDateOfBirth('2/16/1997', AS_OF);
    assert.deepEqual(birth, { year: '1997', month: '02', day: '16' });
    const joined = `${birth?.year}${birth?.month}${birth?.day}`;
    assert.equal(joined, '19970216');
    assert.equal(
      digestIdentifier(meta, joined),
      '01acdbf6ec7b4f478a225f1a246e5d6767eeab1a7ffa17f025265b5b94f40f0c',
    );
    assert.equal(plain(meta, 'DOBY', '1997'), '1997');
    assert.equal(plain(meta, 'DOBM', '2'), '02');
    assert.equal(plain(meta, 'DOBD', '16'), '16');
  });

  it('Meta COUNTRY United States → us', () => {
    assert.equal(plain(meta, 'COUNTRY', 'United States'), 'us');
    assert.equal(
      cell(meta, 'COUNTRY', 'United States'),
      '79adb2a2fce5c6ba215fe5f27f532d4e7edbac4b6a5e09e1ef3a08084a904621',
    );
  });

  it('Meta GEN female / male → f / m', () => {
    assert.equal(plain(meta, 'GEN', 'female'), 'f');
    assert.equal(plain(meta, 'GEN', 'male'), 'm');
    assert.equal(plain(meta, 'GEN', 'Female'), 'f');
    assert.equal(plain(meta, 'GEN', 'M'), 'm');
  });

  it('Meta CT examples paris, london, newyork', () => {
    assert.equal(plain(meta, 'CT', 'Paris'), 'paris');
    assert.equal(plain(meta, 'CT', 'London'), 'london');
    assert.equal(plain(meta, 'CT', 'New York'), 'newyork');
  });

  it('Meta ST examples az, ca', () => {
    assert.equal(plain(meta, 'ST', 'Arizona'), 'az');
    assert.equal(plain(meta, 'ST', 'AZ'), 'az');
    assert.equal(plain(meta, 'ST', 'ca'), 'ca');
  });

  it('Meta ZIP US 94035 / AU 1987 / FR 75018 / UK m11ae (country known for AU and FR)', () => {
    assert.equal(plain(meta, 'ZIP', '94035'), '94035');
    assert.equal(plain(meta, 'ZIP', '1987', { country: 'au' }), '1987');
    assert.equal(plain(meta, 'ZIP', '75018', { country: 'fr' }), '75018');
    assert.equal(plain(meta, 'ZIP', 'M1 1AE'), 'm11ae');
  });

  it('Meta PHONE accepted forms 1-234-567-8910, +44 844 412 4653', () => {
    assert.equal(plain(meta, 'PHONE', '1-234-567-8910'), '12345678910');
    assert.equal(plain(meta, 'PHONE', '+44 844 412 4653'), '448444124653');
  });

  it('Snap PHONE +44 844 412 4653 and EMAIL Person@Example.com (Meta-style rendering)', () => {
    assert.equal(plain(meta, 'PHONE', '+44 844 412 4653'), '448444124653');
    assert.equal(
      cell(meta, 'PHONE', '+44 844 412 4653'),
      'dc008fda46e2e64002cf2f82a4906236282d431c4f75e5b60bfe79fc48546383',
    );
    assert.equal(plain(meta, 'EMAIL', 'Person@Example.com'), 'person@example.com');
    assert.equal(
      cell(meta, 'EMAIL', 'Person@Example.com'),
      '542d240129883c019e106e3b1b2d3f3cb3537c43c425364de8e951d5a3083345',
    );
  });

  it('X handle @AdsAPI → adsapi: no handle key in the schema; the digest of the documented form', () => {
    assert.equal(
      digestIdentifier(meta, 'adsapi'),
      '49e0be2aeccfb51a8dee4c945c8a70a9ac500cf6f5cb08112575f74db9b1470d',
    );
  });

  it('UID2/TTD EMAIL user@example.com, hex and Base64', () => {
    assert.equal(plain(ttd, 'EMAIL', 'user@example.com'), 'user@example.com');
    const hex = cell(meta, 'EMAIL', 'user@example.com');
    assert.ok(hex.startsWith('b4c9a289') && hex.endsWith('5e475514'), 'documented hex prefix and suffix');
    assert.equal(cell(ttd, 'EMAIL', 'user@example.com'), 'tMmiiTI7IaAcPpQPFQ65uMVCWH8av9jw4cwf/F5HVRQ=');
  });

  it('UID2/TTD EMAIL MyEmail@example.com and MYEMAIL@example.com → myemail@example.com', () => {
    for (const raw of ['MyEmail@example.com', 'MYEMAIL@example.com']) {
      assert.equal(plain(ttd, 'EMAIL', raw), 'myemail@example.com');
      assert.equal(
        cell(google, 'EMAIL', raw),
        '16c18d336f0b250f0e2d907452ceb9658a74ecdae8bc94864c23122a72cc27a5',
      );
      assert.equal(cell(ttd, 'EMAIL', raw), 'FsGNM28LJQ8OLZB0Us65ZYp07NrovJSGTCMSKnLMJ6U=');
    }
  });

  it('UID2/TTD EMAIL My.Email@example.com keeps its dot (not gmail)', () => {
    assert.equal(plain(ttd, 'EMAIL', 'My.Email@example.com'), 'my.email@example.com');
    assert.equal(
      cell(google, 'EMAIL', 'My.Email@example.com'),
      'e22b53bc6f871274f3a62ab37a3caed7214fc14d676215a96a242fcfada1c81f',
    );
  });

  it('UID2/TTD EMAIL JaneSaoirse+Work@example.com keeps its +tag (not gmail)', () => {
    assert.equal(plain(ttd, 'EMAIL', 'JaneSaoirse+Work@example.com'), 'janesaoirse+work@example.com');
    assert.equal(
      cell(google, 'EMAIL', 'JaneSaoirse+Work@example.com'),
      '28aaee4815230cd3b4ebd88c515226550666e91ac019929e3adac3f66c288180',
    );
  });

  it('UID2/TTD EMAIL gmail dots and +tag dropped → janesaoirse@gmail.com', () => {
    for (const raw of ['JANE.SAOIRSE@gmail.com', 'Jane.Saoirse@gmail.com', 'JaneSaoirse+Work@gmail.com']) {
      assert.equal(plain(ttd, 'EMAIL', raw), 'janesaoirse@gmail.com');
      assert.equal(
        cell(google, 'EMAIL', raw),
        '92ee26057ed9dea2535d6c8b141d48373932476599196e00352254896db5888f',
      );
      assert.equal(cell(ttd, 'EMAIL', raw), 'ku4mBX7Z3qJTXWyLFB1INzkyR2WZGW4ANSJUiW21iI8=');
    }
  });

  it('UID2/TTD PHONE 1 (234) 567-8901 → +12345678901, hex and Base64', () => {
    assert.equal(plain(ttd, 'PHONE', '1 (234) 567-8901'), '+12345678901');
    assert.equal(
      cell(google, 'PHONE', '1 (234) 567-8901'),
      '10e6f0b47054a83359477dcb35231db6de5c69fb1816e1a6b98e192de9e5b9ee',
    );
    assert.equal(cell(ttd, 'PHONE', '1 (234) 567-8901'), 'EObwtHBUqDNZR33LNSMdtt5cafsYFuGmuY4ZLenlue4=');
  });

  it('UID2 PHONE Singapore and Sydney (the calling code must be written or configured)', () => {
    // The document's input "65 1243 5678" does not carry the digits of its own output (a typo
    // there); the output +6512345678 is asserted from the written international form.
    assert.equal(plain(ttd, 'PHONE', '+65 1234 5678'), '+6512345678');
    // A trunk 0 means a national number: its country comes from configuration, never a guess.
    assert.equal(plain(ttd, 'PHONE', '(02) 1234 5678', { callingCode: '61' }), '+61212345678');
    assert.equal(plain(ttd, 'PHONE', '(02) 1234 5678'), '', 'U.S. numbers never start with 0');
  });

  it('Google EMAIL gmail canonicalized, other domains only lower-cased', () => {
    assert.equal(
      plain(google, 'EMAIL', 'cloudy.sanfrancisco+shopping@gmail.com'),
      'cloudysanfrancisco@gmail.com',
    );
    assert.equal(plain(google, 'EMAIL', 'user.name+NYC@Example.com'), 'user.name+nyc@example.com');
  });

  it('Google PHONE US (800)555-0100 → +18005550100', () => {
    assert.equal(plain(google, 'PHONE', '(800)555-0100'), '+18005550100');
  });

  it('LiveRamp EMAIL trimmed, PHONE national 10 digits', () => {
    assert.equal(plain(liveramp, 'EMAIL', 'MyName@liveramp.com '), 'myname@liveramp.com');
    assert.equal(plain(liveramp, 'PHONE', '+1 (555) 123-4567'), '5551234567');
    assert.equal(cell(liveramp, 'PHONE', '+1 (555) 123-4567'), '5551234567', 'plaintext file, not hashed');
  });

  it('TikTok PHONE (657)777-0000 and 374-93-828222 (country code + number, like Meta)', () => {
    assert.equal(plain(meta, 'PHONE', '(657)777-0000'), '16577770000');
    assert.equal(plain(meta, 'PHONE', '374-93-828222'), '37493828222');
  });
});

describe('6.2 open-source regression vectors', () => {
  it('EMAIL surrounding spaces and case', () => {
    assert.equal(plain(meta, 'EMAIL', '  Test@Example.COM  '), 'test@example.com');
  });

  it('PHONE (Meta) +1 (800) 555-1234 / +001-800-555-1234 / 0044 207 123 4567', () => {
    assert.equal(plain(meta, 'PHONE', '+1 (800) 555-1234'), '18005551234');
    assert.equal(plain(meta, 'PHONE', '+001-800-555-1234'), '18005551234');
    assert.equal(plain(meta, 'PHONE', '0044 207 123 4567'), '442071234567');
  });

  it('PHONE +0000000000 → blank cell, never a hash of ""', () => {
    assert.equal(cleanIdentifier('PHONE', '+0000000000'), null);
    assert.equal(cell(meta, 'PHONE', '+0000000000'), '');
  });

  it("LN O'Brien → obrien; FN Anne-Marie → annemarie", () => {
    assert.equal(plain(meta, 'LN', "O'Brien"), 'obrien');
    assert.equal(plain(meta, 'FN', 'Anne-Marie'), 'annemarie');
  });

  it('CT New York / London (spaces) / los_angeles', () => {
    assert.equal(plain(meta, 'CT', 'New York'), 'newyork');
    assert.equal(plain(meta, 'CT', '  London  '), 'london');
    assert.equal(plain(meta, 'CT', 'los_angeles'), 'losangeles');
  });

  it('ST California / TEXAS / newyork / CA', () => {
    assert.equal(plain(meta, 'ST', 'California'), 'ca');
    assert.equal(plain(meta, 'ST', 'TEXAS'), 'tx');
    assert.equal(plain(meta, 'ST', 'newyork'), 'ny');
    assert.equal(plain(meta, 'ST', 'CA'), 'ca');
  });

  it('ZIP 90210-1234 / " 90210 " / SW1A 1AA', () => {
    assert.equal(plain(meta, 'ZIP', '90210-1234'), '90210');
    assert.equal(plain(meta, 'ZIP', ' 90210 '), '90210');
    assert.equal(plain(meta, 'ZIP', 'SW1A 1AA'), 'sw1a1aa');
  });

  it('DOBM january / 9 / 1', () => {
    assert.equal(plain(meta, 'DOBM', 'january'), '01');
    assert.equal(plain(meta, 'DOBM', '9'), '09');
    assert.equal(plain(meta, 'DOBM', '1'), '01');
  });

  it('DOBD 1 / 31; 32 and 0 refused', () => {
    assert.equal(plain(meta, 'DOBD', '1'), '01');
    assert.equal(plain(meta, 'DOBD', '31'), '31');
    assert.equal(cell(meta, 'DOBD', '32'), '');
    assert.equal(cell(meta, 'DOBD', '0'), '');
  });

  it('DOBY 2000; 19999 and 1 refused', () => {
    assert.equal(plain(meta, 'DOBY', '2000'), '2000');
    assert.equal(cell(meta, 'DOBY', '19999'), '');
    assert.equal(cell(meta, 'DOBY', '1'), '');
  });

  it('FI ABC → a', () => {
    assert.equal(plain(meta, 'FI', 'ABC'), 'a');
  });

  it('COUNTRY US / "  US  " / U.S.', () => {
    assert.equal(plain(meta, 'COUNTRY', 'US'), 'us');
    assert.equal(plain(meta, 'COUNTRY', '  US  '), 'us');
    assert.equal(plain(meta, 'COUNTRY', 'U.S.'), 'us');
  });

  it('MADID lower-cased and sent as is, not hashed', () => {
    assert.equal(cell(meta, 'MADID', 'AB1234CD-E123-12FG-J123'), 'ab1234cd-e123-12fg-j123');
  });

  it('an already hashed value (64 lower-case hex) passes through unchanged', () => {
    const hashed = '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f';
    for (const key of ['EMAIL', 'PHONE', 'FN', 'ZIP', 'EXTERN_ID'] as const) {
      assert.equal(cell(meta, key, hashed), hashed, key);
    }
    assert.equal(
      cell(meta, 'EMAIL', ` ${hashed.toUpperCase()} `),
      hashed,
      'upper-case hex and spaces: lower-cased',
    );
  });
});

describe('6.3 project decisions', () => {
  it('decomposed vale\\u0301ry is composed (NFC) first, else its hash (0aac459e…) never matches', () => {
    assert.equal(plain(meta, 'FN', 'vale\u0301ry'), 'val\u00e9ry');
    assert.equal(
      cell(meta, 'FN', 'vale\u0301ry'),
      '08e1996b5dd49e62a4b4c010d44e4345592a863bb9f8e3976219bac29417149c',
    );
    assert.notEqual(cell(meta, 'FN', 'vale\u0301ry').slice(0, 8), '0aac459e');
  });

  it("Mary Ann → maryann: Meta's own SDK removes inner spaces and Meta asks for no spaces in CT", () => {
    assert.equal(plain(meta, 'FN', 'Mary Ann'), 'maryann');
    assert.equal(plain(meta, 'FN', 'MARY  ANN'), 'maryann');
  });

  it('United States → us: Meta documents it; cutting to two letters (un) names another entity', () => {
    assert.equal(plain(meta, 'COUNTRY', 'United States'), 'us');
    assert.equal(plain(meta, 'COUNTRY', 'United Kingdom'), 'gb');
    assert.equal(cell(meta, 'COUNTRY', 'Narnia'), '', 'an unknown name is blank, not its first two letters');
  });

  it('Unknown / U gender → blank: a hashed u or a guessed m would only add false matches', () => {
    for (const raw of ['Unknown', 'U', 'u', 'X', 'other']) assert.equal(cell(meta, 'GEN', raw), '', raw);
  });

  it('ZIP 2134 → 02134 (integer-stored ZIP lost its zero); 941011234 → 94101 (ZIP+4 without hyphen)', () => {
    assert.equal(plain(meta, 'ZIP', '2134'), '02134');
    assert.equal(plain(meta, 'ZIP', '941011234'), '94101');
    assert.equal(
      plain(meta, 'ZIP', '2134', { country: 'au' }),
      '2134',
      'outside the U.S. 4 digits are whole',
    );
  });

  it('10-digit US phone 6505551212: Meta 16505551212, Google/TTD +16505551212, LiveRamp 6505551212', () => {
    assert.equal(plain(meta, 'PHONE', '6505551212'), '16505551212');
    assert.equal(plain(google, 'PHONE', '6505551212'), '+16505551212');
    assert.equal(plain(ttd, 'PHONE', '6505551212'), '+16505551212');
    assert.equal(plain(liveramp, 'PHONE', '6505551212'), '6505551212');
    assert.equal(
      plain(liveramp, 'PHONE', '+44 844 412 4653'),
      '',
      'LiveRamp takes U.S. national numbers only',
    );
  });

  it('voter dob 19700105 → DOBY 1970, DOBM 01, DOBD 05; impossible or future dates are refused whole', () => {
    assert.deepEqual(cleanDateOfBirth('19700105', AS_OF), { year: '1970', month: '01', day: '05' });
    assert.equal(cleanDateOfBirth('19700231', AS_OF), null, 'no 31 February');
    assert.equal(cleanDateOfBirth('19701301', AS_OF), null, 'no month 13');
    assert.equal(cleanDateOfBirth('18000105', AS_OF), null, 'before 1880');
    assert.equal(cleanDateOfBirth('20270105', AS_OF), null, 'after the reference date');
    assert.deepEqual(cleanDateOfBirth('19700000', AS_OF), { year: '1970', month: null, day: null });
  });
});
