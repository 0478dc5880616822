import { CELL_KEY_WORDS } from './blocking-keys.ts';
import { CONTACT_SAMPLE_WORDS } from './contact-sample.ts';
import { MatchIndex, ZIP_COUNT } from './match-index.ts';
import type { MatchIndexData } from './match-index-data.ts';
import { TEXT_FIELDS, type TextField, WHOLE_FILE_VALUES } from './match-index-fields.ts';
import { PackedPostings } from './packed-postings.ts';
import { type SharedNumbers, StringDictionary } from './string-dictionary.ts';
import { VoterFieldTable, voterFieldLayout } from './voter-field-table.ts';

/**
 * The match index as named binary parts, for an adapter to store and load (the domain does no
 * I/O). Typed arrays are stored as their raw bytes (little-endian, as the machine writes them),
 * dictionaries as newline-joined UTF-8 plus a counts array.
 */
/**
 * 2: blocking keys hash city, state and house number values instead of dictionary ids.
 * 3: packed postings (16-bit hash residuals, 3-byte voters) and id columns as narrow as their
 * dictionaries allow.
 * 4: the sounds of first and last names stored by dictionary id.
 * 5: a filter of the cell keys posted in each map cell.
 * 6: the compared fields in one record per voter (voter-fields) instead of a column per field.
 * 7: ZIPs and dates of birth in the record by their codes in voter-zips and voter-dobs.
 * 8: the clear gender of each first name stored by dictionary id (first-genders).
 * 9: how much each first name's voters share birth years, by dictionary id (first-cohorts).
 * 10: voters read anew: highway contract routes (`HC 1 BOX 5`) as routes, not as a street
 * without a house number (which a list row's reading would no longer find), a NULL or #N/A
 * middle name, suffix, unit or city as none, and coordinates the wrong way round as swapped.
 * 11: voters' dates of birth from 1880 on are read (a placeholder such as 1900-01-01 was none).
 * 12: a shard's index carries the whole voter file's statistics (file-statistics.ts): `fileSize`,
 * the file-order, file-dob-counts, file-zip-ids and file-zip-counts parts, and dictionary counts,
 * first-name genders and cohorts of the whole file. An index of a whole file has none of them and
 * is still written as 11, so its bytes (and every index stored before) stay as they were; a shard
 * stored as 11 (imported before 12) loads with its own statistics, as it always did. Later, still
 * 12: the file-postings-hashes and file-postings-counts parts (the whole file's counts of the
 * shard's keys it skips as too common), file-cell-ids and file-cell-counts (the whole file's
 * density map); a shard stored without them skips keys and measures density by its own.
 * Later, both 11 and 12: the contact-phones and contact-emails parts (contact-sample.ts); an index
 * stored without them estimates u of a phone or e-mail agreement from its prior.
 * Later, 11: the voter-zip-counts and voter-dob-counts parts (a whole file's voters per ZIP and per
 * birth date: MatchIndexData.voterCounts); an index stored without them counts its voters when
 * it is opened (MatchIndex.countInSteps) or on the first row that asks.
 * 13 (a whole file's) and 14 (a shard's): 11 and 12 with each key's hash residual stored once
 * (postings-key-directory, postings-key-residuals) and a bit per entry where a key's entries
 * begin (postings-starts), instead of a residual per entry (postings-residuals): 17.7 bytes less
 * per voter, in memory and on disk. An index stored as 11 or 12 is read as it is, its postings
 * laid out so as it loads (PackedPostings.fromEntryResiduals).
 */
export const MATCH_INDEX_FORMAT = 13;
export const SHARD_MATCH_INDEX_FORMAT = 14;
/** The formats before 13, read as they are (their postings converted as they load). */
const ENTRY_RESIDUALS_FORMAT = 11;
const ENTRY_RESIDUALS_SHARD_FORMAT = 12;

/** Whether this code reads a stored index of this format (else it is rebuilt from the records). */
export const isReadableIndexFormat = (format: number) =>
  format === MATCH_INDEX_FORMAT ||
  format === SHARD_MATCH_INDEX_FORMAT ||
  format === ENTRY_RESIDUALS_FORMAT ||
  format === ENTRY_RESIDUALS_SHARD_FORMAT;

/**
 * Whether a stored part is only read while the index loads and then let go (an older format's
 * postings, laid out anew), so that a loader need not place it in memory the threads share.
 */
export const isPartLetGoOnLoad = (name: string) => name === 'postings-residuals';

/**
 * A part reader for matchIndexFromParts and its kin over stored parts (`get`: undefined for a
 * part not there): throws a clear error for a missing part.
 */
export function requiredParts(get: (name: string) => Uint8Array | undefined): (name: string) => Uint8Array {
  return (name) => {
    const bytes = get(name);
    if (bytes === undefined) throw new Error(`match index part ${name} is missing`);
    return bytes;
  };
}

/** Whether an index of this format is a shard's (it carries its whole file's statistics). */
const isShardFormat = (format: number) =>
  format === SHARD_MATCH_INDEX_FORMAT || format === ENTRY_RESIDUALS_SHARD_FORMAT;

export interface MatchIndexMeta {
  format: number;
  size: number;
  /** Voters in the whole file, for a shard's index (format 12). */
  fileSize?: number;
  parts: string[];
  /** Bytes per voter in the postings (3 or 4). */
  postingsVoterBytes: 3 | 4;
  /**
   * The dictionary sizes the voter records are laid out for, where they differ from the stored
   * dictionaries' (a shard's dictionaries also hold the whole file's names and states).
   */
  voterDictionarySizes?: Record<TextField, number>;
}

type Typed = Uint32Array | Uint16Array | Uint8Array | Float32Array;

export function matchIndexParts(
  index: Pick<MatchIndex, 'data'>,
  /**
   * `sharedTexts: false`: without the text of the dictionaries of shared values, for a thread
   * that is handed their numbers instead (sharedDictionaryHandover).
   */
  options: { sharedTexts?: boolean } = {},
): {
  meta: MatchIndexMeta;
  parts: Map<string, Uint8Array>;
} {
  const d = index.data;
  const parts = new Map<string, Uint8Array>();
  const put = (name: string, array: Typed) =>
    parts.set(name, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  for (const field of TEXT_FIELDS) {
    const dictionary = d.dictionaries[field];
    if (options.sharedTexts !== false || dictionary.sharedNumbers() === null)
      parts.set(
        `dict-${field}.txt`,
        dictionary.text ?? new TextEncoder().encode(dictionary.values.join('\n')),
      );
    put(`dict-${field}.counts`, dictionary.counts);
  }
  put('sounds-first', d.firstSounds);
  put('sounds-last', d.lastSounds);
  put('first-genders', d.firstGenders);
  put('first-cohorts', d.firstCohorts);
  put('voter-fields', d.fields.bytes);
  put('voter-zips', d.fields.zips);
  put('voter-dobs', d.fields.dobs);
  put('postings-key-directory', d.postings.keyDirectory);
  put('postings-key-residuals', d.postings.keyResiduals);
  put('postings-starts', d.postings.starts);
  put('postings-voters', d.postings.voterData);
  put('postings-directory', d.postings.directory);
  put('cell-ids', d.cellIds);
  put('cell-counts', d.cellCounts);
  put('cell-key-filters', d.cellKeyFilters);
  put('zip-ids', d.zipIds);
  put('zip-lat', d.zipLat);
  put('zip-lon', d.zipLon);
  if (d.contacts !== undefined) {
    put('contact-phones', d.contacts.phone);
    put('contact-emails', d.contacts.email);
  }
  if (d.voterCounts !== undefined && d.file === undefined) {
    put('voter-zip-counts', d.voterCounts.zips);
    put('voter-dob-counts', d.voterCounts.dobs);
  }
  if (d.file !== undefined) {
    put('file-order', d.file.order);
    put('file-dob-counts', d.file.dobCounts);
    put('file-zip-ids', d.file.zipIds);
    put('file-zip-counts', d.file.zipCounts);
    put('file-postings-hashes', d.file.postingsHashes);
    put('file-postings-counts', d.file.postingsCounts);
    put('file-cell-ids', d.file.cellIds);
    put('file-cell-counts', d.file.cellCounts);
  }
  const laidOut = d.fields.dictionarySizes;
  const extended = TEXT_FIELDS.some((field) => laidOut[field] !== d.dictionaries[field].size);
  return {
    meta: {
      format: d.file === undefined ? MATCH_INDEX_FORMAT : SHARD_MATCH_INDEX_FORMAT,
      size: d.size,
      ...(d.file === undefined ? {} : { fileSize: d.file.size }),
      parts: [...parts.keys()],
      postingsVoterBytes: d.postings.voterBytes,
      ...(extended ? { voterDictionarySizes: { ...laidOut } } : {}),
    },
    parts,
  };
}

/** A dictionary's stored values and counts, and whether its values are held once per thread. */
function dictionaryPart(
  meta: MatchIndexMeta,
  part: (name: string) => Uint8Array,
  field: TextField,
): { values: string[]; counts: Uint32Array; shared: boolean; own: number; text: Uint8Array } {
  const text = part(`dict-${field}.txt`);
  // TextDecoder refuses views of shared memory (a worker thread's parts): decode a copy.
  const bytes = text.buffer instanceof SharedArrayBuffer ? text.slice() : text;
  return {
    values: new TextDecoder().decode(bytes).split('\n'),
    counts: view(part(`dict-${field}.counts`), Uint32Array, `dict-${field}.counts`),
    // The names every shard holds whole (WHOLE_FILE_VALUES) are held once per thread; a file
    // imported whole (no fileSize: not a shard) keeps its own map (one lookup less per name).
    shared: meta.fileSize !== undefined && WHOLE_FILE_VALUES.includes(field),
    // A shard's own values come first, then the file's it lacks (file-statistics.ts).
    own: meta.voterDictionarySizes?.[field] ?? Number.POSITIVE_INFINITY,
    text,
  };
}

/**
 * The index's dictionaries from its stored parts, one at a time with `pause` between them and
 * within the large ones (StringDictionary.fromValuesInSteps), for matchIndexFromParts: what a
 * process or thread that answers requests meanwhile loads a voter file with. Those in `handover`
 * (sharedDictionaryHandover) are made as the loading thread holds them.
 */
export async function dictionariesFromParts(
  meta: MatchIndexMeta,
  part: (name: string) => Uint8Array,
  pause: () => Promise<void>,
  handover: Partial<Record<TextField, SharedDictionaryHandover>> = {},
): Promise<Record<TextField, StringDictionary>> {
  const dictionaries = {} as Record<TextField, StringDictionary>;
  for (const field of TEXT_FIELDS) {
    await pause();
    const given = handover[field];
    if (given !== undefined) {
      StringDictionary.appendSharedValues(field, given.from, given.values);
      const counts = view(part(`dict-${field}.counts`), Uint32Array, `dict-${field}.counts`);
      dictionaries[field] = StringDictionary.fromSharedNumbers(field, counts, given);
      continue;
    }
    const { values, counts, shared, own, text } = dictionaryPart(meta, part, field);
    dictionaries[field] = shared
      ? StringDictionary.fromSharedValues(field, values, counts, own)
      : await StringDictionary.fromValuesInSteps(values, counts, pause, { text });
  }
  return dictionaries;
}

/**
 * What a thread is handed of a dictionary of shared values instead of its text: the loading
 * thread's shared values it lacks (from number `from` on) and the dictionary's numbers. Every
 * shard of a national file holds the file's 1.4M surnames: numbered on each thread they cost
 * each thread 7 s and 11 MB a shard (290 MB a thread at 50M).
 */
export interface SharedDictionaryHandover extends SharedNumbers {
  from: number;
  values: string[];
}

/**
 * The handover of each dictionary of shared values of `index` (made on this thread) to a thread
 * that holds this thread's shared values before number `sent[field]` (0: none); `sent` is moved
 * on to what the thread will hold.
 */
export function sharedDictionaryHandover(
  index: Pick<MatchIndex, 'data'>,
  sent: Map<TextField, number>,
): Partial<Record<TextField, SharedDictionaryHandover>> {
  const handover: Partial<Record<TextField, SharedDictionaryHandover>> = {};
  for (const field of TEXT_FIELDS) {
    const numbers = index.data.dictionaries[field].sharedNumbers();
    if (numbers === null) continue;
    const from = sent.get(field) ?? 0;
    const values = StringDictionary.sharedValuesSince(field, from);
    sent.set(field, from + values.length);
    handover[field] = { ...numbers, from, values };
  }
  return handover;
}

/** The index's dictionaries from its stored parts, all at once (dictionariesFromParts: in steps). */
function dictionariesAtOnce(
  meta: MatchIndexMeta,
  part: (name: string) => Uint8Array,
): Record<TextField, StringDictionary> {
  const dictionaries = {} as Record<TextField, StringDictionary>;
  for (const field of TEXT_FIELDS) {
    const { values, counts, shared, own, text } = dictionaryPart(meta, part, field);
    dictionaries[field] = shared
      ? StringDictionary.fromSharedValues(field, values, counts, own)
      : StringDictionary.fromValues(values, counts, text);
  }
  return dictionaries;
}

/** Rebuilds the index from stored parts; throws when a part is missing or has the wrong size. */
export function matchIndexFromParts(
  meta: MatchIndexMeta,
  part: (name: string) => Uint8Array,
  /** The dictionaries, already made from the parts (dictionariesFromParts); else made here. */
  made?: Record<TextField, StringDictionary>,
): MatchIndex {
  if (!isReadableIndexFormat(meta.format))
    throw new Error(`match index format ${meta.format} is not supported`);
  const u32 = (name: string) => view(part(name), Uint32Array, name);
  const f32 = (name: string) => view(part(name), Float32Array, name);
  const u8 = (name: string) => part(name);
  const dictionaries = made ?? dictionariesAtOnce(meta, part);
  const sizes =
    meta.voterDictionarySizes ??
    (Object.fromEntries(TEXT_FIELDS.map((f) => [f, dictionaries[f].size])) as Record<TextField, number>);
  const data: MatchIndexData = {
    size: meta.size,
    dictionaries,
    firstSounds: u32('sounds-first'),
    lastSounds: u32('sounds-last'),
    firstGenders: u8('first-genders'),
    firstCohorts: f32('first-cohorts'),
    fields: voterFields(
      meta.size,
      sizes,
      { zips: u32('voter-zips'), dobs: u32('voter-dobs') },
      part('voter-fields'),
    ),
    postings: postingsFromParts(meta, part),
    cellIds: u32('cell-ids'),
    cellCounts: u32('cell-counts'),
    cellKeyFilters: u32('cell-key-filters'),
    zipIds: u32('zip-ids'),
    zipLat: f32('zip-lat'),
    zipLon: f32('zip-lon'),
    // Absent from an index stored before they were.
    ...(meta.parts.includes('contact-phones') && meta.parts.includes('contact-emails')
      ? { contacts: { phone: u32('contact-phones'), email: u32('contact-emails') } }
      : {}),
    ...(meta.parts.includes('voter-zip-counts') && meta.parts.includes('voter-dob-counts')
      ? { voterCounts: { zips: u32('voter-zip-counts'), dobs: u32('voter-dob-counts') } }
      : {}),
  };
  if (isShardFormat(meta.format)) {
    if (meta.fileSize === undefined || meta.fileSize < meta.size)
      throw new Error('match index of a shard without the size of its voter file');
    data.file = {
      size: meta.fileSize,
      order: u32('file-order'),
      dobCounts: u32('file-dob-counts'),
      zipIds: u32('file-zip-ids'),
      zipCounts: u32('file-zip-counts'),
      // Absent from a shard stored before they were.
      postingsHashes: meta.parts.includes('file-postings-hashes')
        ? u32('file-postings-hashes')
        : new Uint32Array(0),
      postingsCounts: meta.parts.includes('file-postings-counts')
        ? u32('file-postings-counts')
        : new Uint32Array(0),
      cellIds: meta.parts.includes('file-cell-ids') ? u32('file-cell-ids') : new Uint32Array(0),
      cellCounts: meta.parts.includes('file-cell-counts') ? u32('file-cell-counts') : new Uint32Array(0),
    };
  }
  const expect = (name: string, length: number, wanted: number) => {
    if (length !== wanted)
      throw new Error(`match index part ${name} has the wrong size (${length}, not ${wanted})`);
  };
  for (const field of TEXT_FIELDS) {
    expect(`dict-${field}.counts`, dictionaries[field].counts.length, dictionaries[field].size);
  }
  expect('sounds-first', data.firstSounds.length, dictionaries.first.size);
  expect('sounds-last', data.lastSounds.length, dictionaries.last.size);
  expect('first-genders', data.firstGenders.length, dictionaries.first.size);
  expect('first-cohorts', data.firstCohorts.length, dictionaries.first.size);
  expect('cell-counts', data.cellCounts.length, data.cellIds.length);
  expect('cell-key-filters', data.cellKeyFilters.length, data.cellIds.length * CELL_KEY_WORDS);
  expect('zip-lat', data.zipLat.length, data.zipIds.length);
  expect('zip-lon', data.zipLon.length, data.zipIds.length);
  if (data.voterCounts !== undefined) {
    expect('voter-zip-counts', data.voterCounts.zips.length, ZIP_COUNT);
    expect('voter-dob-counts', data.voterCounts.dobs.length, data.fields.dobs.length);
  }
  if (data.contacts !== undefined) {
    expect('contact-phones', data.contacts.phone.length % CONTACT_SAMPLE_WORDS, 0);
    expect('contact-emails', data.contacts.email.length % CONTACT_SAMPLE_WORDS, 0);
  }
  if (data.file !== undefined) {
    expect('file-order', data.file.order.length, meta.size);
    expect('file-dob-counts', data.file.dobCounts.length, data.fields.dobs.length);
    expect('file-zip-counts', data.file.zipCounts.length, data.file.zipIds.length);
    expect('file-postings-counts', data.file.postingsCounts.length, data.file.postingsHashes.length);
    expect('file-cell-counts', data.file.cellCounts.length, data.file.cellIds.length);
  }
  return new MatchIndex(data);
}

/**
 * The voters' records: one per voter, as long as the layout for these tables; the code tables
 * ascending from 0 (VoterFieldTable throws otherwise).
 */
function voterFields(
  size: number,
  dictionarySizes: Record<TextField, number>,
  codes: { zips: Uint32Array; dobs: Uint32Array },
  bytes: Uint8Array,
): VoterFieldTable {
  const layout = voterFieldLayout({ ...dictionarySizes, zip: codes.zips.length, dob: codes.dobs.length });
  const wanted = size * layout.stride;
  if (bytes.byteLength !== wanted)
    throw new Error(`match index part voter-fields has the wrong size (${bytes.byteLength}, not ${wanted})`);
  try {
    return new VoterFieldTable(size, dictionarySizes, codes, bytes);
  } catch (error) {
    throw new Error(`match index part voter-zips or voter-dobs is damaged: ${(error as Error).message}`);
  }
}

/**
 * The stored postings (a part of an index): as stored (13, 14), or laid out so from a residual
 * per entry (11, 12). Throws when a part is missing or has the wrong size.
 */
export function postingsFromParts(meta: MatchIndexMeta, part: (name: string) => Uint8Array): PackedPostings {
  const directory = view(part('postings-directory'), Uint32Array, 'postings-directory');
  const voters = part('postings-voters');
  const slots = directory.length - 1;
  const entries = directory[slots];
  if (slots < 2 ** 16 || (slots & (slots - 1)) !== 0 || entries === undefined)
    throw new Error('match index part postings-directory has the wrong size');
  if (voters.byteLength !== entries * meta.postingsVoterBytes)
    throw new Error('match index part postings-voters has the wrong size');
  if (meta.format === ENTRY_RESIDUALS_FORMAT || meta.format === ENTRY_RESIDUALS_SHARD_FORMAT) {
    const residuals = view(part('postings-residuals'), Uint16Array, 'postings-residuals');
    if (residuals.length !== entries)
      throw new Error('match index part postings-residuals has the wrong size');
    return PackedPostings.fromEntryResiduals(directory, residuals, voters, meta.postingsVoterBytes);
  }
  return new PackedPostings(
    {
      directory,
      keyDirectory: view(part('postings-key-directory'), Uint32Array, 'postings-key-directory'),
      keyResiduals: view(part('postings-key-residuals'), Uint16Array, 'postings-key-residuals'),
      starts: view(part('postings-starts'), Uint32Array, 'postings-starts'),
      voterData: voters,
    },
    meta.postingsVoterBytes,
  );
}

function view<T extends Uint32Array | Uint16Array | Float32Array>(
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
