import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateVoterRows, VOTER_COLUMNS } from '../../../lab/synthetic/synthetic-voters.ts';
import { cleanIdentifier } from './clean-identifier.ts';
import { IDENTIFIER_KEYS, isHashedKey, parseIdentifierHeader } from './identifier-keys.ts';
import {
  ColumnHashClassifier,
  classifyColumn,
  PLATFORM_RENDERINGS,
  renderCell,
} from './platform-rendering.ts';
import { createRowRenderer } from './row-renderer.ts';
import {
  createVoterRowRenderer,
  PATTERN1_SCHEMA,
  PATTERN1_VOTER_COLUMNS,
  voterIdentifiers,
} from './voter-identifiers.ts';

const { meta, thetradedesk: ttd, liveramp } = PLATFORM_RENDERINGS;
const AS_OF = new Date('2026-11-21T00:00:00Z');
const HASH = /^[0-9a-f]{64}$/;
/** Digests from platforms.md 6.1, so the row tests do not trust the code under test. */
const MARY = '6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec';
const US = '79adb2a2fce5c6ba215fe5f27f532d4e7edbac4b6a5e09e1ef3a08084a904621';
const PHONE_16505551212 = 'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176';

describe('parseIdentifierHeader (Pattern #2)', () => {
  it('accepts any case, spacing and order and returns the schema in column order', () => {
    assert.deepEqual(parseIdentifierHeader([' email', 'Phone ', 'fn', 'LN', 'zip', 'madid']), {
      ok: true,
      schema: ['EMAIL', 'PHONE', 'FN', 'LN', 'ZIP', 'MADID'],
    });
    assert.deepEqual(parseIdentifierHeader([...IDENTIFIER_KEYS].reverse()), {
      ok: true,
      schema: [...IDENTIFIER_KEYS].reverse(),
    });
  });

  it('names every unknown identifier', () => {
    const result = parseIdentifierHeader(['EMAIL', 'first_name', 'PHONE', 'Zip5']);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.message.includes('"first_name"') && result.message.includes('"Zip5"'));
  });

  it('refuses repeated and blank header cells, and an empty header', () => {
    const repeated = parseIdentifierHeader(['EMAIL', 'email']);
    assert.ok(!repeated.ok && repeated.message.includes('repeated identifier EMAIL'));
    const blank = parseIdentifierHeader(['EMAIL', ' ']);
    assert.ok(!blank.ok && blank.message.includes('1 blank header cell'));
    assert.equal(parseIdentifierHeader([]).ok, false);
  });

  it('voterbase_id is not a platform identifier (that header is Pattern #1)', () => {
    assert.equal(parseIdentifierHeader(['voterbase_id']).ok, false);
  });

  it('quotes a long or control-laden header cell shortened and cleaned', () => {
    const result = parseIdentifierHeader([`${'x'.repeat(500)}\u0000`]);
    assert.ok(!result.ok && result.message.length < 400 && !result.message.includes('\u0000'));
  });

  it('MADID is the only key sent unhashed', () => {
    assert.deepEqual(
      IDENTIFIER_KEYS.filter((key) => !isHashedKey(key)),
      ['MADID'],
    );
  });
});

describe('classifyColumn (mixed hashed and plain values)', () => {
  const hashed = MARY;
  it('tells plain, hashed, mixed and empty columns apart, ignoring blank cells', () => {
    assert.equal(classifyColumn(['a@b.com', '', 'c@d.org']), 'plain');
    assert.equal(classifyColumn([hashed, '', ` ${hashed.toUpperCase()} `]), 'hashed');
    assert.equal(classifyColumn([hashed, 'a@b.com']), 'mixed');
    assert.equal(classifyColumn(['', '  ']), 'empty');
  });

  it('streams, counting each kind', () => {
    const classifier = new ColumnHashClassifier();
    for (const value of [hashed, 'mary', 'ann', '']) classifier.add(value);
    assert.equal(classifier.result, 'mixed');
    assert.equal(classifier.hashedCount, 1);
    assert.equal(classifier.plainCount, 2);
  });

  it('a 63- or 65-digit hex value, or one with a non-hex letter, is plain', () => {
    assert.equal(classifyColumn([hashed.slice(1)]), 'plain');
    assert.equal(classifyColumn([`${hashed}0`]), 'plain');
    assert.equal(classifyColumn([`g${hashed.slice(1)}`]), 'plain');
  });
});

describe('renderCell', () => {
  it('a client hash is re-encoded for a Base64 platform and dropped for a plaintext one', () => {
    assert.equal(renderCell(ttd, 'FN', MARY), Buffer.from(MARY, 'hex').toString('base64'));
    assert.equal(renderCell(liveramp, 'FN', MARY), '');
  });

  it('plaintext platforms get the rendered value', () => {
    assert.equal(renderCell(liveramp, 'FN', ' Mary '), 'mary');
  });

  it('a placeholder is blank, but Nan is a name', () => {
    for (const raw of ['NULL', 'n/a', '#N/A', 'undefined', 'None']) {
      assert.equal(renderCell(meta, 'FN', raw), '', raw);
      assert.equal(renderCell(meta, 'ZIP', raw), '', raw);
      assert.equal(renderCell(meta, 'MADID', raw), '', raw);
      assert.equal(renderCell(meta, 'EXTERN_ID', raw), '', raw);
    }
    assert.match(renderCell(meta, 'FN', 'Nan'), HASH);
  });

  it('the all-zero device id (limited ad tracking) is blank', () => {
    assert.equal(renderCell(meta, 'MADID', '00000000-0000-0000-0000-000000000000'), '');
  });

  it('a birth year in the future is refused', () => {
    assert.equal(renderCell(meta, 'DOBY', '2027', { asOf: AS_OF }), '');
    assert.match(renderCell(meta, 'DOBY', '2026', { asOf: AS_OF }), HASH);
  });
});

describe('hostile input never throws and never yields a hash of ""', () => {
  const HOSTILE = [
    '',
    ' ',
    '\t\r\n',
    '\u0000\u0001\u001b[31m',
    '😀',
    '👩‍👩‍👧',
    'Jo😀hn',
    'NaN',
    'Infinity',
    '-0',
    '1e308',
    'undefined',
    'null',
    '[object Object]',
    '\u0301\u0301',
    '\ud800',
    '\ufeff\u200b',
    'x'.repeat(10_240),
    '9'.repeat(10_240),
    `${'a'.repeat(10_000)}@example.com`,
    'a@b.c\u0000om',
    '+'.repeat(50),
    "'; DROP TABLE voters; --",
    '=HYPERLINK("http://x")',
  ];
  const EMPTY_DIGEST = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

  it('cleanIdentifier and renderCell, every key, every platform', () => {
    for (const key of IDENTIFIER_KEYS) {
      for (const raw of HOSTILE) {
        const neutral = cleanIdentifier(key, raw);
        assert.ok(
          neutral === null || (neutral !== '' && neutral.length <= 256),
          `${key} ${raw.slice(0, 20)}`,
        );
        for (const rendering of Object.values(PLATFORM_RENDERINGS)) {
          const cell = renderCell(rendering, key, raw);
          assert.notEqual(cell, EMPTY_DIGEST);
          assert.notEqual(cell, Buffer.from(EMPTY_DIGEST, 'hex').toString('base64'));
        }
      }
    }
  });

  it('emoji and control characters are dropped from names, the letters kept', () => {
    assert.equal(cleanIdentifier('FN', 'Jo😀hn'), 'john');
    assert.equal(cleanIdentifier('LN', 'Smi\u0000th\u001b'), 'smith');
    assert.equal(cleanIdentifier('FN', '😀'), null);
  });

  it('10 KB values are refused, not hashed', () => {
    for (const key of IDENTIFIER_KEYS) assert.equal(renderCell(meta, key, 'x'.repeat(10_240)), '', key);
  });

  it('e-mails with control characters, spaces inside or no dotted domain are refused', () => {
    for (const raw of ['a@b.c\u0000om', 'a b@c.com', 'a@localhost', '@b.com', 'a@b@c.com', 'a@b.com.']) {
      assert.equal(cleanIdentifier('EMAIL', raw), null, raw);
    }
  });

  it('phones with letters, two plus signs or a NANP number of the wrong length are refused', () => {
    for (const raw of ['NaN', '1-800-FLOWERS', '++16505551212', '16505551', '+1 650 555 12', '+1234567']) {
      assert.equal(cleanIdentifier('PHONE', raw), null, raw);
    }
  });

  it('other digit counts without + are taken as carrying their country code (TikTok 374-93-828222)', () => {
    assert.equal(cleanIdentifier('PHONE', '650555121'), '650555121');
  });
});

describe('createRowRenderer (Pattern #2 rows)', () => {
  it('renders each cell of the schema, short rows blank, memoized values unchanged on reuse', () => {
    const render = createRowRenderer(meta, ['FN', 'COUNTRY', 'PHONE', 'GEN'], { asOf: AS_OF });
    const expected = [MARY, US, PHONE_16505551212, ''];
    assert.deepEqual(render(['Mary', 'US', '(650)555-1212', 'U']), expected);
    assert.deepEqual(render(['Mary', 'US', '(650)555-1212', 'U']), expected);
    assert.deepEqual(render(['Mary']), [MARY, '', '', '']);
  });

  it("a row's COUNTRY decides whether a 4-digit ZIP is padded", () => {
    const render = createRowRenderer(liveramp, ['ZIP', 'COUNTRY'], { asOf: AS_OF });
    assert.deepEqual(render(['2134', 'US']), ['02134', 'us']);
    assert.deepEqual(render(['2134', 'Australia']), ['2134', 'au']);
    assert.deepEqual(render(['2134', 'Narnia']), ['02134', ''], 'unknown country: blank, the U.S. rule');
    assert.deepEqual(render(['2134', 'AU']), ['2134', 'au']);
    assert.deepEqual(render(['2134', '']), ['02134', ''], 'unknown country: the U.S. rule');
  });

  it('returns a fresh array per row (batches hold them)', () => {
    const render = createRowRenderer(meta, ['FN']);
    assert.notEqual(render(['a']), render(['a']));
  });
});

describe('Pattern #1 voter mapping', () => {
  const voter: Record<(typeof PATTERN1_VOTER_COLUMNS)[number], string> = {
    email: 'John_Smith@gmail.com',
    wireless_phone: '',
    voip_phone: '6505551212',
    landline_phone: '9195550000',
    first_name: 'MARY',
    last_name: "O'BRIEN",
    city: 'LA JUNTA',
    state: 'CO',
    zip: '2134',
    dob: '19700105',
    gender: 'F',
  };
  const fields = (v: typeof voter) => PATTERN1_VOTER_COLUMNS.map((column) => v[column]);

  it('maps the voter columns to the schema: first usable phone (wireless, voip, landline), dob split, COUNTRY us', () => {
    assert.deepEqual(PATTERN1_SCHEMA, [
      'EMAIL',
      'PHONE',
      'FN',
      'LN',
      'CT',
      'ST',
      'ZIP',
      'COUNTRY',
      'DOBY',
      'DOBM',
      'DOBD',
      'GEN',
    ]);
    assert.deepEqual(voterIdentifiers(fields(voter)), [
      'John_Smith@gmail.com',
      '6505551212',
      'MARY',
      "O'BRIEN",
      'LA JUNTA',
      'CO',
      '2134',
      'us',
      '1970',
      '01',
      '05',
      'F',
    ]);
  });

  it('wireless comes first; an unusable wireless falls through to the next phone', () => {
    assert.equal(voterIdentifiers(fields({ ...voter, wireless_phone: '7195339940' }))[1], '7195339940');
    assert.equal(voterIdentifiers(fields({ ...voter, wireless_phone: 'n/a' }))[1], '6505551212');
    assert.equal(voterIdentifiers(fields({ ...voter, voip_phone: '' }))[1], '9195550000');
  });

  it('an impossible dob blanks all three parts', () => {
    const row = voterIdentifiers(fields({ ...voter, dob: '19700231' }));
    assert.deepEqual(row.slice(8, 11), ['', '', '']);
  });

  it('renders hashed cells for Meta, blanks for what is unknown', () => {
    const render = createVoterRowRenderer(meta, { asOf: AS_OF });
    const row = render(fields({ ...voter, first_name: 'Mary', gender: 'U' }));
    assert.equal(row.length, PATTERN1_SCHEMA.length);
    assert.equal(row[0], '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f');
    assert.equal(row[1], PHONE_16505551212);
    assert.equal(row[2], MARY);
    assert.equal(row[7], US);
    assert.equal(row[11], '', 'gender U');
    for (const value of row.slice(3, 11)) assert.match(value, HASH);
    assert.deepEqual(
      render(fields({ ...voter, first_name: 'Mary', gender: 'U' })),
      row,
      'memoized second pass is identical',
    );
  });

  it('renders plaintext for a plaintext platform (LiveRamp)', () => {
    const render = createVoterRowRenderer(liveramp, { asOf: AS_OF });
    assert.deepEqual(render(fields(voter)), [
      'john_smith@gmail.com',
      '6505551212',
      'mary',
      'obrien',
      'lajunta',
      'co',
      '02134',
      'us',
      '1970',
      '01',
      '05',
      'f',
    ]);
  });

  it('the fast voter renderer gives the cells of the generic pipeline (synthetic voters, odd dobs, phones)', () => {
    const positions = PATTERN1_VOTER_COLUMNS.map((column) => VOTER_COLUMNS.indexOf(column));
    const odd = [
      { dob: '19700000', gender: 'U' },
      { dob: '19700500', state: 'North Carolina' },
      { dob: '20000229', zip: '941011234' },
      { dob: '19000229', zip: '0' },
      { dob: '18791231', gender: 'female' },
      { dob: '20261121', wireless_phone: '+44 844 412 4653' },
      { dob: '20261122', wireless_phone: '(02) 1234 5678' },
      { dob: '20260000' },
      { dob: '20261100' },
      { dob: '20261200' },
      { dob: '2/16/1997', first_name: 'vale\u0301ry' },
      { dob: '1970-01-05', email: 'JaneSaoirse+Work@gmail.com' },
      { dob: 'garbage', last_name: '😀' },
      { dob: '19701301' },
      { dob: '19700132' },
    ].map((changes) => fields({ ...voter, ...changes }));
    const synthetic = [...generateVoterRows({ rows: 2000, seed: 3 })].map((row) =>
      positions.map((p) => row[p] ?? ''),
    );
    for (const rendering of [meta, liveramp, ttd]) {
      const fast = createVoterRowRenderer(rendering, { asOf: AS_OF });
      const generic = createRowRenderer(rendering, PATTERN1_SCHEMA, { asOf: AS_OF });
      for (const row of [...odd, ...synthetic]) {
        assert.deepEqual(
          fast(row),
          generic(voterIdentifiers(row, { asOf: AS_OF })),
          `${rendering.platform} ${row[9]}`,
        );
      }
    }
  });

  it('a record with nothing usable renders only COUNTRY', () => {
    const render = createVoterRowRenderer(meta, { asOf: AS_OF });
    const empty = PATTERN1_VOTER_COLUMNS.map(() => '');
    assert.deepEqual(render(empty), ['', '', '', '', '', '', '', US, '', '', '', '']);
  });
});
