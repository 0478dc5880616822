import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CONTACT_EMAIL,
  CONTACT_PHONE,
  GENDER_CODE,
  TEXT_FIELDS,
  type TextField,
} from './match-index-fields.ts';
import { idWidth, VoterFieldTable, voterFieldLayout } from './voter-field-table.ts';

const sizes = (overrides: Partial<Record<TextField, number>> = {}): Record<TextField, number> => ({
  ...(Object.fromEntries(TEXT_FIELDS.map((f) => [f, 10])) as Record<TextField, number>),
  ...overrides,
});

/** A distinct value per voter and field that fits the field's width. */
const idFor = (field: TextField, voter: number, width: number): number => {
  const max = width === 4 ? 2 ** 32 : 2 ** (8 * width);
  return (voter * 7919 + TEXT_FIELDS.indexOf(field) * 104729 + max - 1) % max;
};

describe('voterFieldLayout', () => {
  it('gives each id the width its dictionary needs, widest first, aligned, the record padded to 4', () => {
    assert.deepEqual([256, 257, 65536, 65537].map(idWidth), [1, 2, 2, 4]);
    const layout = voterFieldLayout(sizes({ last: 70_000, street: 70_000, first: 300, state: 60 }));
    const at = (field: TextField) => layout.slots[field] >> 2;
    const width = (field: TextField) => [4, 1, 2][layout.slots[field] & 3];
    // 16 fixed bytes, then last and street (4 each), first (2), then the six 1-byte ids: 32.
    assert.equal(layout.stride, 32);
    assert.equal(at('last'), 16);
    assert.equal(at('street'), 20);
    assert.equal(at('first'), 24);
    assert.equal(width('first'), 2);
    for (const field of TEXT_FIELDS) assert.equal(at(field) % width(field)!, 0, `${field} aligned`);
    const ends = TEXT_FIELDS.map((f) => at(f) + width(f)!);
    assert.ok(Math.max(...ends) <= layout.stride);
    assert.equal(new Set(TEXT_FIELDS.map(at)).size, TEXT_FIELDS.length, 'no two fields share a byte');
  });
});

describe('VoterFieldTable', () => {
  for (const dictionaries of [
    sizes(),
    sizes({ first: 300, unit: 300 }),
    sizes({ last: 2 ** 17, street: 2 ** 20 }),
  ]) {
    it(`keeps every field of every voter apart (stride ${voterFieldLayout(dictionaries).stride})`, () => {
      const voters = 50;
      const table = new VoterFieldTable(voters, dictionaries);
      const layout = voterFieldLayout(dictionaries);
      const width = (field: TextField) => [4, 1, 2][layout.slots[field] & 3]!;
      const fixed = (voter: number) => ({
        lat: voter % 5 === 0 ? Number.NaN : Math.fround(35 + voter / 100),
        lon: voter % 5 === 0 ? Number.NaN : Math.fround(-78 - voter / 100),
        dob: voter % 4 === 0 ? 0 : 19_000_000 + voter * 101,
        zip: voter % 3 === 0 ? 0 : voter === 1 ? 99_999 : 10_000 + voter,
        gender: voter % 3,
        contact: voter % 4,
      });
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
      const copy = new VoterFieldTable(voters, dictionaries, table.bytes.slice());
      for (let voter = 0; voter < voters; voter++) assert.equal(copy.street(voter), table.street(voter));
    });
  }

  it('stores the largest ZIP, both flags and every gender, and refuses a ZIP of more than 17 bits', () => {
    const table = new VoterFieldTable(1, sizes());
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
      () => table.setFixed(0, { lat: 0, lon: 0, dob: 0, zip: 2 ** 17, gender: 0, contact: 0 }),
      /out of range/,
    );
  });

  it('refuses bytes of the wrong length, and copies bytes at an unaligned offset', () => {
    const stride = voterFieldLayout(sizes()).stride;
    assert.throws(() => new VoterFieldTable(2, sizes(), new Uint8Array(2 * stride - 1)), /wrong size/);
    const source = new VoterFieldTable(2, sizes());
    source.setId('last', 1, 7);
    const unaligned = new Uint8Array(2 * stride + 1).subarray(1);
    unaligned.set(source.bytes);
    assert.equal(new VoterFieldTable(2, sizes(), unaligned).last(1), 7);
  });
});
