import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTACT_EMAIL,
  CONTACT_PHONE,
  GENDER_CODE,
  TEXT_FIELDS,
  type TextField,
} from './match-index-fields.ts';
import {
  type CodedField,
  codeTable,
  idWidth,
  VoterFieldTable,
  voterFieldLayout,
} from './voter-field-table.ts';

const dictionaries = (overrides: Partial<Record<TextField, number>> = {}): Record<TextField, number> => ({
  ...(Object.fromEntries(TEXT_FIELDS.map((f) => [f, 10])) as Record<TextField, number>),
  ...overrides,
});

/** A distinct value per voter and field that fits the field's width. */
const idFor = (field: TextField, voter: number, width: number): number => {
  const max = width === 4 ? 2 ** 32 : 2 ** (8 * width);
  return (voter * 7919 + TEXT_FIELDS.indexOf(field) * 104729 + max - 1) % max;
};

const widthOf = (slot: number) => [4, 1, 2][slot & 3]!;

describe('voterFieldLayout', () => {
  it('gives each id the width its table needs, widest first, aligned, then the flags, padded to 4', () => {
    assert.deepEqual([256, 257, 65536, 65537].map(idWidth), [1, 2, 2, 4]);
    const layout = voterFieldLayout({
      ...dictionaries({ last: 70_000, street: 70_000, first: 300 }),
      zip: 40_000,
      dob: 30_000,
    });
    const at = (field: CodedField) => layout.slots[field] >> 2;
    // 8 bytes of coordinates; last and street (4 each); first, zip, dob (2 each); the six
    // 1-byte ids; the flags byte: 8 + 8 + 6 + 6 + 1 = 29, padded to 32.
    assert.equal(layout.stride, 32);
    assert.deepEqual([at('last'), at('street'), at('first'), at('zip'), at('dob')], [8, 12, 16, 18, 20]);
    assert.equal(layout.flags, 28);
    const fields = [...TEXT_FIELDS, 'zip', 'dob'] as const;
    for (const field of fields) {
      const width = widthOf(layout.slots[field]);
      assert.equal(at(field) % width, 0, `${field} aligned`);
      assert.ok(at(field) + width <= layout.flags, `${field} before the flags`);
    }
    assert.equal(new Set(fields.map(at)).size, fields.length, 'no two fields share a byte');
  });

  it('takes 28 bytes for a file of a million voters (two-byte names, streets, ZIPs and dates)', () => {
    const sizes = {
      ...dictionaries({ first: 6_354, middle: 3_094, last: 56_529, house: 27_773 }),
      zip: 1_700,
    };
    assert.equal(
      voterFieldLayout({ ...sizes, street: 24_916, city: 370, dob: 30_000, suffix: 5, unit: 251 }).stride,
      28,
    );
  });
});

describe('codeTable', () => {
  it('is the distinct values and 0, ascending as numbers', () => {
    assert.deepEqual(Array.from(codeTable([27601, 9, 27601, 100000, 0, 123])), [0, 9, 123, 27601, 100000]);
    assert.deepEqual(Array.from(codeTable([])), [0]);
  });
});

describe('VoterFieldTable', () => {
  const voters = 50;
  const fixed = (voter: number) => ({
    lat: voter % 5 === 0 ? Number.NaN : Math.fround(35 + voter / 100),
    lon: voter % 5 === 0 ? Number.NaN : Math.fround(-78 - voter / 100),
    dob: voter % 4 === 0 ? 0 : 19_000_000 + voter * 101,
    zip: voter % 3 === 0 ? 0 : voter === 1 ? 99_999 : 10_000 + voter,
    gender: voter % 3,
    contact: voter % 4,
  });
  const codes = {
    zips: codeTable(Array.from({ length: voters }, (_, v) => fixed(v).zip)),
    dobs: codeTable(Array.from({ length: voters }, (_, v) => fixed(v).dob)),
  };
  for (const sizes of [
    dictionaries(),
    dictionaries({ first: 300, unit: 300 }),
    dictionaries({ last: 2 ** 17, street: 2 ** 20 }),
  ]) {
    const layout = voterFieldLayout({ ...sizes, zip: codes.zips.length, dob: codes.dobs.length });
    it(`keeps every field of every voter apart (stride ${layout.stride})`, () => {
      const table = new VoterFieldTable(voters, sizes, codes);
      const width = (field: TextField) => widthOf(layout.slots[field]);
      // Written in an order that would expose a field overwriting its neighbour's bytes.
      for (let voter = voters - 1; voter >= 0; voter--) {
        for (const field of TEXT_FIELDS) table.setId(field, voter, idFor(field, voter, width(field)));
        table.setFixed(voter, fixed(voter));
      }
      for (let voter = 0; voter < voters; voter++) {
        for (const field of TEXT_FIELDS) {
          const expected = idFor(field, voter, width(field));
          assert.equal(table.id(field, voter), expected, `${field} of ${voter}`);
          assert.equal(table[field](voter), expected, `${field}() of ${voter}`);
        }
        const f = fixed(voter);
        assert.equal(table.dob(voter), f.dob);
        assert.equal(table.zip(voter), f.zip);
        assert.equal(table.gender(voter), f.gender);
        assert.equal(table.contact(voter), f.contact);
        assert.ok(
          Object.is(table.lat(voter), f.lat) && Object.is(table.lon(voter), f.lon),
          `coordinates of ${voter}`,
        );
      }
      const copy = new VoterFieldTable(voters, sizes, codes, table.bytes.slice());
      for (let voter = 0; voter < voters; voter++) {
        assert.equal(copy.street(voter), table.street(voter));
        assert.equal(copy.dob(voter), table.dob(voter));
      }
    });
  }

  it('stores the largest ZIP, both flags and every gender; refuses a ZIP or date it has no code for', () => {
    const table = new VoterFieldTable(1, dictionaries(), {
      zips: codeTable([99_999]),
      dobs: codeTable([20_991_231]),
    });
    table.setFixed(0, {
      lat: 0,
      lon: 0,
      dob: 20_991_231,
      zip: 99_999,
      gender: GENDER_CODE.M,
      contact: CONTACT_PHONE | CONTACT_EMAIL,
    });
    assert.deepEqual(
      [table.zip(0), table.gender(0), table.contact(0), table.dob(0)],
      [99_999, GENDER_CODE.M, CONTACT_PHONE | CONTACT_EMAIL, 20_991_231],
    );
    assert.throws(
      () => table.setFixed(0, { lat: 0, lon: 0, dob: 0, zip: 27_601, gender: 0, contact: 0 }),
      /ZIP 27601 is not in/,
    );
    assert.throws(
      () => table.setFixed(0, { lat: 0, lon: 0, dob: 19_700_101, zip: 0, gender: 0, contact: 0 }),
      /date of birth 19700101 is not in/,
    );
  });

  it('refuses code tables that do not start with 0 or do not ascend', () => {
    const ok = codeTable([1]);
    assert.throws(
      () => new VoterFieldTable(0, dictionaries(), { zips: Uint32Array.of(1, 2), dobs: ok }),
      /zips must start with 0/,
    );
    assert.throws(
      () => new VoterFieldTable(0, dictionaries(), { zips: ok, dobs: Uint32Array.of(0, 5, 5) }),
      /dobs must ascend/,
    );
  });

  it('refuses bytes of the wrong length, and copies bytes at an unaligned offset', () => {
    const small = { zips: codeTable([]), dobs: codeTable([]) };
    const stride = voterFieldLayout({ ...dictionaries(), zip: 1, dob: 1 }).stride;
    assert.throws(
      () => new VoterFieldTable(2, dictionaries(), small, new Uint8Array(2 * stride - 1)),
      /wrong size/,
    );
    const source = new VoterFieldTable(2, dictionaries(), small);
    source.setId('last', 1, 7);
    const unaligned = new Uint8Array(2 * stride + 1).subarray(1);
    unaligned.set(source.bytes);
    assert.equal(new VoterFieldTable(2, dictionaries(), small, unaligned).last(1), 7);
  });
});
