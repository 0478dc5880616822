import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptyPerson, normalizeVoter, type VoterFields } from '../normalize/person.ts';
import { keyZipFirst, keyZipLast } from './blocking-keys.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';
import { firstGroupsOf, soundOf, TEXT_FIELDS } from './match-index-fields.ts';
import {
  dictionariesFromParts,
  MATCH_INDEX_FORMAT,
  type MatchIndexMeta,
  matchIndexFromParts,
  matchIndexParts,
  SHARD_MATCH_INDEX_FORMAT,
} from './match-index-parts.ts';

const AS_OF = new Date('2025-06-01T00:00:00Z');

const voterFields = (fields: Partial<VoterFields>): VoterFields => ({
  first_name: '',
  middle_name: '',
  last_name: '',
  name_suffix: '',
  address1: '',
  address2: '',
  city: '',
  state: '',
  zip: '',
  latitude: '',
  longitude: '',
  dob: '',
  gender: '',
  email: '',
  landline_phone: '',
  wireless_phone: '',
  voip_phone: '',
  ...fields,
});

const RECORDS: Partial<VoterFields>[] = [
  {
    first_name: 'Robert',
    middle_name: 'J',
    last_name: 'Smith',
    name_suffix: 'Jr',
    address1: '12 Oak St',
    address2: 'Apt 2',
    city: 'Raleigh',
    state: 'NC',
    zip: '27601',
    latitude: '35.78',
    longitude: '-78.64',
    dob: '19700312',
    gender: 'M',
    wireless_phone: '9194471042',
    email: 'bob@example.org',
  },
  {
    first_name: 'Bob',
    last_name: 'Smith',
    zip: '27601',
    latitude: '35.79',
    longitude: '-78.62',
    dob: '1971',
  },
  { first_name: 'José', last_name: 'Núñez', city: 'Durham', state: 'NC', gender: 'M' },
  { first_name: 'Mary', last_name: "O'Brien", address1: 'PO Box 12', zip: '27511', gender: 'F' },
  {},
  { first_name: 'Alice', last_name: 'Walker', state: 'VA', latitude: '37.54', longitude: '-77.43' },
];

function buildIndex(): MatchIndex {
  const builder = new MatchIndexBuilder();
  RECORDS.forEach((r, i) => {
    builder.add(i, normalizeVoter(voterFields(r), AS_OF));
  });
  return builder.finish();
}

/** Every array and dictionary of two indexes, compared element by element. */
function assertSameIndex(actual: MatchIndex, expected: MatchIndex): void {
  const a = actual.data;
  const e = expected.data;
  assert.equal(a.size, e.size);
  for (const field of TEXT_FIELDS) {
    assert.deepEqual(a.dictionaries[field].values, e.dictionaries[field].values, `dict ${field}`);
    assert.deepEqual(Array.from(a.dictionaries[field].counts), Array.from(e.dictionaries[field].counts));
    for (const value of e.dictionaries[field].values) {
      assert.equal(a.dictionaries[field].idOf(value), e.dictionaries[field].idOf(value), `${field} ${value}`);
    }
  }
  // Every voter's record, byte for byte (dictionary ids, dates, ZIPs, flags and coordinates).
  assert.equal(a.fields.stride, e.fields.stride);
  assert.ok(Buffer.from(a.fields.bytes).equals(Buffer.from(e.fields.bytes)), 'voter fields');
  const arrays = ['cellIds', 'cellCounts', 'zipIds', 'zipLat', 'zipLon'] as const;
  for (const name of arrays) {
    assert.equal(a[name].constructor, e[name].constructor, name);
    // Array.from + deepEqual: NaN equals NaN, so missing coordinates compare equal.
    assert.deepEqual(Array.from(a[name]), Array.from(e[name]), name);
  }
  assert.deepEqual(Array.from(a.postings.keyResiduals), Array.from(e.postings.keyResiduals), 'key residuals');
  assert.deepEqual(Array.from(a.postings.keyDirectory), Array.from(e.postings.keyDirectory), 'key directory');
  assert.deepEqual(Array.from(a.postings.starts), Array.from(e.postings.starts), 'key starts');
  assert.deepEqual(Array.from(a.postings.voterData), Array.from(e.postings.voterData), 'postings voters');
  assert.deepEqual(Array.from(a.postings.directory), Array.from(e.postings.directory), 'directory');
  assert.equal(a.postings.bits, e.postings.bits);
  assert.equal(a.postings.voterBytes, e.postings.voterBytes);
  // Derived features are rebuilt the same.
  const sounds = (index: MatchIndex, field: 'first' | 'last') =>
    Array.from({ length: index.data.dictionaries[field].size }, (_, id) =>
      field === 'first' ? index.firstSound(id) : index.lastSound(id),
    );
  assert.deepEqual(sounds(actual, 'first'), sounds(expected, 'first'));
  assert.deepEqual(sounds(actual, 'last'), sounds(expected, 'last'));
  assert.deepEqual(Array.from(a.firstCohorts), Array.from(e.firstCohorts), 'first-name cohorts');
}

/** The adapters' loader: a part not in the map is an error. */
const fromMap = (parts: Map<string, Uint8Array>) => (name: string) => {
  const part = parts.get(name);
  if (part === undefined) throw new Error(`match index part ${name} is missing`);
  return part;
};

describe('matchIndexParts / matchIndexFromParts', () => {
  const index = buildIndex();

  it('lists every part in the meta, with the format and size', () => {
    const { meta, parts } = matchIndexParts(index);
    assert.equal(meta.format, MATCH_INDEX_FORMAT);
    assert.equal(meta.size, RECORDS.length);
    assert.deepEqual(meta.parts, [...parts.keys()]);
    assert.equal(new Set(meta.parts).size, meta.parts.length);
    for (const part of parts.values()) assert.ok(part instanceof Uint8Array);
    // Per text field: the values and their counts; the names' sounds, first names' genders and
    // birth-year cohorts; the voters' records and their ZIP and date codes; five parts of
    // postings, three each of map cells and ZIP centroids; the sampled phones and e-mails.
    assert.equal(meta.parts.length, TEXT_FIELDS.length * 2 + 4 + 3 + 5 + 6 + 2);
    assert.ok(meta.parts.includes('contact-phones') && meta.parts.includes('contact-emails'));
    for (const name of ['voter-fields', 'voter-zips', 'voter-dobs'])
      assert.ok(meta.parts.includes(name), name);
    assert.ok(meta.parts.includes('sounds-first') && meta.parts.includes('sounds-last'));
    assert.ok(meta.parts.includes('first-genders'));
    assert.ok(meta.parts.includes('first-cohorts'));
  });

  it('round trips every typed array and dictionary', () => {
    const { meta, parts } = matchIndexParts(index);
    const requested: string[] = [];
    const loaded = matchIndexFromParts(meta, (name) => {
      requested.push(name);
      return fromMap(parts)(name);
    });
    assertSameIndex(loaded, index);
    assert.deepEqual(
      [...new Set(requested)].sort(),
      [...meta.parts].sort(),
      'reads exactly the listed parts',
    );
    // And it works as an index.
    assert.equal(loaded.data.postings.count(keyZipLast(27601, soundOf('SMITH'))), 2);
    assert.equal(loaded.data.postings.count(keyZipFirst(27601, firstGroupsOf('ROBERT')[0]!)), 2);
    assert.deepEqual(loaded.zipCentroid(27601), index.zipCentroid(27601));
  });

  it("stores a whole file's voters by ZIP and birth date when counted; loads without them by counting", () => {
    const counted = buildIndex();
    const zips = [27601, 27511, 27701, 27612];
    const dobs = [19700312, 19951120, 19600101];
    const expected = {
      zips: zips.map((z) => counted.zipCount(z)),
      dobs: dobs.map((d) => counted.dobCount(d)),
    };
    assert.ok(expected.zips[0]! > 0 && expected.dobs.some((n) => n > 0), 'the records live in these ZIPs');
    const stored = matchIndexParts(counted);
    assert.ok(
      stored.meta.parts.includes('voter-zip-counts') && stored.meta.parts.includes('voter-dob-counts'),
    );
    const loaded = matchIndexFromParts(stored.meta, fromMap(stored.parts));
    assert.ok(loaded.data.voterCounts !== undefined, 'loaded with the stored counts');
    assert.deepEqual(
      { zips: zips.map((z) => loaded.zipCount(z)), dobs: dobs.map((d) => loaded.dobCount(d)) },
      expected,
    );
    // Stored before they were: counted on use, the same.
    const older = matchIndexParts(buildIndex());
    assert.equal(older.meta.parts.includes('voter-zip-counts'), false);
    const old = matchIndexFromParts(older.meta, fromMap(older.parts));
    assert.equal(old.data.voterCounts, undefined);
    assert.deepEqual(
      { zips: zips.map((z) => old.zipCount(z)), dobs: dobs.map((d) => old.dobCount(d)) },
      expected,
    );
    // A counts part of the wrong size is refused.
    const cut = new Map(stored.parts);
    cut.set('voter-zip-counts', stored.parts.get('voter-zip-counts')!.subarray(0, 400));
    assert.throws(
      () => matchIndexFromParts(stored.meta, fromMap(cut)),
      /voter-zip-counts has the wrong size/,
    );
  });

  it('hands on the stored bytes of the dictionaries it loaded, not the values encoded again', async () => {
    const { meta, parts } = matchIndexParts(index);
    const loadedAtOnce = matchIndexFromParts(meta, fromMap(parts));
    const loadedInSteps = matchIndexFromParts(
      meta,
      fromMap(parts),
      await dictionariesFromParts(meta, fromMap(parts), async () => {}),
    );
    for (const loaded of [loadedAtOnce, loadedInSteps]) {
      const again = matchIndexParts(loaded);
      for (const field of TEXT_FIELDS) {
        const name = `dict-${field}.txt`;
        assert.equal(again.parts.get(name), parts.get(name), `${name}: the same bytes, not a copy`);
      }
      assertSameIndex(matchIndexFromParts(again.meta, fromMap(again.parts)), index);
    }
    // Made from values (a build), a dictionary has no stored bytes: its values are encoded.
    assert.equal(index.data.dictionaries.last.text, null);
  });

  it('round trips with dictionaries made in steps (dictionariesFromParts), pausing between them', async () => {
    const { meta, parts } = matchIndexParts(index);
    let pauses = 0;
    const dictionaries = await dictionariesFromParts(meta, fromMap(parts), async () => {
      pauses++;
    });
    assert.ok(pauses >= TEXT_FIELDS.length, 'a pause before each dictionary at least');
    assertSameIndex(matchIndexFromParts(meta, fromMap(parts), dictionaries), index);
  });

  it('round trips through copies of the bytes (as read back from disk)', () => {
    const { meta, parts } = matchIndexParts(index);
    const copies = new Map([...parts].map(([name, part]) => [name, Uint8Array.from(part)]));
    const loaded = matchIndexFromParts(JSON.parse(JSON.stringify(meta)) as MatchIndexMeta, fromMap(copies));
    assertSameIndex(loaded, index);
  });

  it('loads an index stored with a residual per posting (formats 11 and 12) as the same index', () => {
    const { meta, parts } = matchIndexParts(index);
    // The postings as those formats stored them: each entry's hash residual, in entry order.
    const postings = index.data.postings;
    const residuals = new Uint16Array(postings.size);
    let entry = 0;
    postings.forEachKey((hash, entries) => {
      residuals.fill(hash & (2 ** (32 - postings.bits) - 1), entry, entry + entries);
      entry += entries;
    });
    assert.equal(entry, postings.size);
    const older = new Map([...parts].filter(([name]) => !/^postings-(key-|starts)/.test(name)));
    older.set('postings-residuals', new Uint8Array(residuals.buffer));
    const olderMeta = { ...meta, format: 11, parts: [...older.keys()] };
    const loaded = matchIndexFromParts(olderMeta, fromMap(older));
    assertSameIndex(loaded, index);
    assert.equal(loaded.data.postings.count(keyZipLast(27601, soundOf('SMITH'))), 2);
    // Held in shared memory, it is laid out there (the matching threads read it without a copy).
    const shared = new Map<string, Uint8Array>();
    for (const [name, part] of older) {
      const bytes = new Uint8Array(new SharedArrayBuffer(part.byteLength));
      bytes.set(part);
      shared.set(name, bytes);
    }
    assert.ok(
      matchIndexFromParts(olderMeta, fromMap(shared)).data.postings.keyResiduals.buffer instanceof
        SharedArrayBuffer,
    );
    // Stored again, it is the current format.
    assert.equal(matchIndexParts(loaded).meta.format, MATCH_INDEX_FORMAT);
    const cut = new Map(older);
    cut.set('postings-residuals', new Uint8Array(residuals.buffer, 0, residuals.byteLength - 2));
    assert.throws(
      () => matchIndexFromParts(olderMeta, fromMap(cut)),
      /postings-residuals has the wrong size/,
    );
  });

  it('loads parts held in SharedArrayBuffers, viewing them without a copy', () => {
    const { meta, parts } = matchIndexParts(index);
    const shared = new Map<string, Uint8Array>();
    for (const [name, part] of parts) {
      const bytes = new Uint8Array(new SharedArrayBuffer(part.byteLength));
      bytes.set(part);
      shared.set(name, bytes);
    }
    const loaded = matchIndexFromParts(meta, fromMap(shared));
    assertSameIndex(loaded, index);
    assert.equal(loaded.data.fields.bytes.buffer, shared.get('voter-fields')!.buffer);
    assert.equal(loaded.data.postings.keyResiduals.buffer, shared.get('postings-key-residuals')!.buffer);
    assert.ok(loaded.data.cellIds.buffer instanceof SharedArrayBuffer);
  });

  it('loads parts at unaligned offsets of a larger buffer', () => {
    const { meta, parts } = matchIndexParts(index);
    const unaligned = new Map<string, Uint8Array>();
    for (const [name, part] of parts) {
      const bytes = new Uint8Array(part.byteLength + 3).subarray(1, part.byteLength + 1);
      bytes.set(part);
      unaligned.set(name, bytes);
    }
    assertSameIndex(matchIndexFromParts(meta, fromMap(unaligned)), index);
  });

  it('dictionary values outside ASCII survive the UTF-8 text part', () => {
    const builder = new MatchIndexBuilder();
    const person = emptyPerson();
    person.first = 'ZOË';
    person.last = 'ŁUKASZ 李';
    builder.add(0, person);
    const built = builder.finish();
    const { meta, parts } = matchIndexParts(built);
    const loaded = matchIndexFromParts(meta, fromMap(parts));
    assertSameIndex(loaded, built);
    assert.equal(loaded.data.dictionaries.last.idOf('ŁUKASZ 李'), 1);
  });

  it('an index without voters round trips', () => {
    const empty = new MatchIndexBuilder().finish();
    const { meta, parts } = matchIndexParts(empty);
    const loaded = matchIndexFromParts(meta, fromMap(parts));
    assertSameIndex(loaded, empty);
    assert.equal(loaded.data.postings.count(0), 0);
  });

  it('throws a clear error for a missing part', () => {
    const { meta, parts } = matchIndexParts(index);
    for (const name of ['postings-key-residuals', 'postings-starts', 'dict-first.txt', 'zip-lon']) {
      const without = new Map(parts);
      without.delete(name);
      assert.throws(() => matchIndexFromParts(meta, fromMap(without)), new RegExp(`part ${name} is missing`));
    }
  });

  it('throws for an unsupported format version', () => {
    const { meta, parts } = matchIndexParts(index);
    for (const format of [0, SHARD_MATCH_INDEX_FORMAT + 1]) {
      assert.throws(
        () => matchIndexFromParts({ ...meta, format }, fromMap(parts)),
        new RegExp(`format ${format} is not supported`),
      );
    }
  });

  it('throws when a part of 2- or 4-byte elements is cut mid-element', () => {
    const { meta, parts } = matchIndexParts(index);
    for (const name of ['postings-key-residuals', 'postings-directory', 'dict-first.counts']) {
      const cut = new Map(parts);
      cut.set(name, parts.get(name)!.subarray(0, parts.get(name)!.byteLength - 1));
      assert.throws(
        () => matchIndexFromParts(meta, fromMap(cut)),
        new RegExp(`part ${name} is truncated`),
        name,
      );
    }
  });

  it('throws when the voter records do not cover every voter, or one is cut short', () => {
    const { meta, parts } = matchIndexParts(index);
    const records = parts.get('voter-fields')!;
    const stride = records.byteLength / RECORDS.length;
    for (const cutBy of [1, 4, stride]) {
      const cut = new Map(parts);
      cut.set('voter-fields', records.subarray(0, records.byteLength - cutBy));
      assert.throws(
        () => matchIndexFromParts(meta, fromMap(cut)),
        /part voter-fields has the wrong size/,
        `cut by ${cutBy}`,
      );
    }
    assert.throws(
      () => matchIndexFromParts({ ...meta, size: RECORDS.length + 1 }, fromMap(parts)),
      /has the wrong size/,
    );
  });

  it('throws when a code table of ZIPs or dates is damaged', () => {
    const { meta, parts } = matchIndexParts(index);
    for (const name of ['voter-zips', 'voter-dobs']) {
      const codes = new Uint32Array(Uint8Array.from(parts.get(name)!).buffer);
      [codes[1], codes[2]] = [codes[2]!, codes[1]!];
      const damaged = new Map(parts);
      damaged.set(name, new Uint8Array(codes.buffer));
      assert.throws(
        () => matchIndexFromParts(meta, fromMap(damaged)),
        /voter-zips or voter-dobs is damaged/,
        name,
      );
    }
  });

  it('throws when parallel parts disagree in length', {}, () => {
    const { meta, parts } = matchIndexParts(index);
    const shortBy4 = (name: string) => {
      const cut = new Map(parts);
      cut.set(name, parts.get(name)!.subarray(0, parts.get(name)!.byteLength - 4));
      return cut;
    };
    for (const name of [
      'postings-voters',
      'postings-directory',
      'cell-counts',
      'zip-lat',
      'dict-last.counts',
    ]) {
      assert.throws(() => matchIndexFromParts(meta, fromMap(shortBy4(name))), /wrong size/, name);
    }
  });
});
