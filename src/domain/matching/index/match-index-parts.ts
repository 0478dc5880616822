import { KeyPostings } from './key-postings.ts';
import { MatchIndex, type MatchIndexData } from './match-index.ts';
import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';
import { StringDictionary } from './string-dictionary.ts';

/**
 * The match index as named binary parts, for an adapter to store and load (the domain does no
 * I/O). Typed arrays are stored as their raw bytes (little-endian, as the machine writes them),
 * dictionaries as newline-joined UTF-8 plus a counts array.
 */
/** 2: blocking keys hash city, state and house number values instead of dictionary ids. */
export const MATCH_INDEX_FORMAT = 2;

export interface MatchIndexMeta {
  format: number;
  size: number;
  parts: string[];
}

type Typed = Uint32Array | Uint8Array | Float32Array;

export function matchIndexParts(index: Pick<MatchIndex, 'data'>): {
  meta: MatchIndexMeta;
  parts: Map<string, Uint8Array>;
} {
  const d = index.data;
  const parts = new Map<string, Uint8Array>();
  const put = (name: string, array: Typed) =>
    parts.set(name, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  for (const field of TEXT_FIELDS) {
    parts.set(`dict-${field}.txt`, new TextEncoder().encode(d.dictionaries[field].values.join('\n')));
    put(`dict-${field}.counts`, d.dictionaries[field].counts);
    put(`ids-${field}`, d.ids[field]);
  }
  put('zip', d.zip);
  put('dob', d.dob);
  put('gender', d.gender);
  put('contact', d.contact);
  put('lat', d.lat);
  put('lon', d.lon);
  put('postings-hashes', d.postings.hashes);
  put('postings-voters', d.postings.voters);
  put('postings-directory', d.postings.directory);
  put('cell-ids', d.cellIds);
  put('cell-counts', d.cellCounts);
  put('zip-ids', d.zipIds);
  put('zip-lat', d.zipLat);
  put('zip-lon', d.zipLon);
  return { meta: { format: MATCH_INDEX_FORMAT, size: d.size, parts: [...parts.keys()] }, parts };
}

/** Rebuilds the index from stored parts; throws when a part is missing or has the wrong size. */
export function matchIndexFromParts(meta: MatchIndexMeta, part: (name: string) => Uint8Array): MatchIndex {
  if (meta.format !== MATCH_INDEX_FORMAT)
    throw new Error(`match index format ${meta.format} is not supported`);
  const u32 = (name: string) => view(part(name), Uint32Array, name);
  const f32 = (name: string) => view(part(name), Float32Array, name);
  const u8 = (name: string) => part(name);
  const dictionaries = {} as Record<TextField, StringDictionary>;
  const ids = {} as Record<TextField, Uint32Array>;
  for (const field of TEXT_FIELDS) {
    const text = part(`dict-${field}.txt`);
    // TextDecoder refuses views of shared memory (a worker thread's parts): decode a copy.
    const bytes = text.buffer instanceof SharedArrayBuffer ? text.slice() : text;
    const values = new TextDecoder().decode(bytes).split('\n');
    dictionaries[field] = StringDictionary.fromValues(values, u32(`dict-${field}.counts`));
    ids[field] = u32(`ids-${field}`);
  }
  const data: MatchIndexData = {
    size: meta.size,
    dictionaries,
    ids,
    zip: u32('zip'),
    dob: u32('dob'),
    gender: u8('gender'),
    contact: u8('contact'),
    lat: f32('lat'),
    lon: f32('lon'),
    postings: new KeyPostings(u32('postings-hashes'), u32('postings-voters'), u32('postings-directory')),
    cellIds: u32('cell-ids'),
    cellCounts: u32('cell-counts'),
    zipIds: u32('zip-ids'),
    zipLat: f32('zip-lat'),
    zipLon: f32('zip-lon'),
  };
  const expect = (name: string, length: number, wanted: number) => {
    if (length !== wanted)
      throw new Error(`match index part ${name} has the wrong size (${length}, not ${wanted})`);
  };
  for (const field of TEXT_FIELDS) {
    expect(`ids-${field}`, ids[field].length, meta.size);
    expect(`dict-${field}.counts`, dictionaries[field].counts.length, dictionaries[field].size);
  }
  for (const [name, column] of [
    ['zip', data.zip],
    ['dob', data.dob],
    ['gender', data.gender],
    ['contact', data.contact],
    ['lat', data.lat],
    ['lon', data.lon],
  ] as const) {
    expect(name, column.length, meta.size);
  }
  const postings = data.postings;
  expect('postings-voters', postings.voters.length, postings.hashes.length);
  const slots = postings.directory.length - 1;
  if (slots < 16 || (slots & (slots - 1)) !== 0)
    throw new Error('match index part postings-directory has the wrong size');
  expect('cell-counts', data.cellCounts.length, data.cellIds.length);
  expect('zip-lat', data.zipLat.length, data.zipIds.length);
  expect('zip-lon', data.zipLon.length, data.zipIds.length);
  return new MatchIndex(data);
}

function view<T extends Uint32Array | Float32Array>(
  bytes: Uint8Array,
  Type: { new (buffer: ArrayBuffer, offset: number, length: number): T; BYTES_PER_ELEMENT: number },
  name: string,
): T {
  if (bytes.byteLength % Type.BYTES_PER_ELEMENT !== 0)
    throw new Error(`match index part ${name} is truncated`);
  // Typed-array views need an aligned offset: copy the rare unaligned part.
  const aligned = bytes.byteOffset % Type.BYTES_PER_ELEMENT === 0 ? bytes : bytes.slice();
  return new Type(
    aligned.buffer as ArrayBuffer,
    aligned.byteOffset,
    aligned.byteLength / Type.BYTES_PER_ELEMENT,
  );
}
