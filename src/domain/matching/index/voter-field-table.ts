import { positionOf } from './lower-bound.ts';
import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';

/** A field of the voter record stored as a small id: the text fields, and ZIP and date of birth by code. */
export type CodedField = TextField | 'zip' | 'dob';
const CODED_FIELDS: readonly CodedField[] = [...TEXT_FIELDS, 'zip', 'dob'];

/**
 * The fields the matcher compares, one fixed-size record per voter (row-major): a candidate's
 * fields lie in one or two cache lines instead of one line in each of fifteen columns. With
 * files of millions of voters nearly every candidate met for the first time is a cache miss per
 * field, so reading columns cost a fresh row about a fifth of its time on 10M voters.
 *
 * A record (little-endian, as the machine stores typed arrays):
 *   0  lat      float32, NaN when unknown
 *   4  lon      float32
 *   8… the text fields' dictionary ids (0 = empty) and the codes of the ZIP and the date of birth
 *      (positions in `zips` and `dobs`, the file's distinct values ascending, 0 first: a file
 *      holds a few ten thousand of each, so two bytes instead of four), each as wide as its
 *      table needs (1, 2 or 4 bytes), widest first so each is aligned; then one byte of flags
 *      (gender | contact << 2); the record is padded to 4 bytes (28 for 1M voters).
 * The layout follows from the tables' sizes alone, so it is not stored.
 */
export class VoterFieldTable {
  readonly size: number;
  /** Bytes per voter. */
  readonly stride: number;
  readonly bytes: Uint8Array;
  /** Distinct ZIPs (as numbers) and dates of birth (yyyymmdd) of the file, ascending, 0 first. */
  readonly zips: Uint32Array;
  readonly dobs: Uint32Array;
  /** The dictionary sizes the layout was made for (a shard's own, before it holds the file's names). */
  readonly dictionarySizes: Readonly<Record<TextField, number>>;
  private readonly u16: Uint16Array;
  private readonly u32: Uint32Array;
  private readonly f32: Float32Array;
  /** Words (4 bytes) per voter. */
  private readonly words: number;
  /** Per coded field: its byte offset in the record times 4, plus its width (1, 2 or 4 as 1, 2, 0). */
  private readonly slots: Record<CodedField, number>;
  private readonly flagsAt: number;
  private readonly firstSlot: number;
  private readonly middleSlot: number;
  private readonly lastSlot: number;
  private readonly suffixSlot: number;
  private readonly houseSlot: number;
  private readonly streetSlot: number;
  private readonly unitSlot: number;
  private readonly citySlot: number;
  private readonly stateSlot: number;
  private readonly zipSlot: number;
  private readonly dobSlot: number;

  /**
   * A table over `bytes` (size × stride of the layout for these tables), or a new zeroed one when
   * `bytes` is omitted. `zips` and `dobs` must be ascending and start with 0.
   */
  constructor(
    size: number,
    dictionarySizes: Readonly<Record<TextField, number>>,
    codes: { zips: Uint32Array; dobs: Uint32Array },
    bytes?: Uint8Array,
  ) {
    for (const [name, values] of [
      ['zips', codes.zips],
      ['dobs', codes.dobs],
    ] as const) {
      if (values[0] !== 0) throw new Error(`voter field table: ${name} must start with 0`);
      for (let i = 1; i < values.length; i++)
        if (values[i]! <= values[i - 1]!) throw new Error(`voter field table: ${name} must ascend`);
    }
    this.zips = codes.zips;
    this.dobs = codes.dobs;
    this.dictionarySizes = { ...dictionarySizes };
    const layout = voterFieldLayout({ ...dictionarySizes, zip: codes.zips.length, dob: codes.dobs.length });
    this.size = size;
    this.stride = layout.stride;
    this.words = layout.stride >> 2;
    this.slots = layout.slots;
    this.flagsAt = layout.flags;
    const wanted = size * layout.stride;
    if (bytes !== undefined && bytes.byteLength !== wanted)
      throw new Error(`voter field table has the wrong size (${bytes.byteLength}, not ${wanted})`);
    if (bytes !== undefined && bytes.byteOffset % 4 !== 0) bytes = bytes.slice();
    this.bytes = bytes ?? new Uint8Array(wanted);
    const { buffer, byteOffset } = this.bytes;
    this.u16 = new Uint16Array(buffer, byteOffset, wanted >> 1);
    this.u32 = new Uint32Array(buffer, byteOffset, wanted >> 2);
    this.f32 = new Float32Array(buffer, byteOffset, wanted >> 2);
    this.firstSlot = this.slots.first;
    this.middleSlot = this.slots.middle;
    this.lastSlot = this.slots.last;
    this.suffixSlot = this.slots.suffix;
    this.houseSlot = this.slots.house;
    this.streetSlot = this.slots.street;
    this.unitSlot = this.slots.unit;
    this.citySlot = this.slots.city;
    this.stateSlot = this.slots.state;
    this.zipSlot = this.slots.zip;
    this.dobSlot = this.slots.dob;
  }

  lat(voter: number): number {
    return this.f32[voter * this.words]!;
  }

  lon(voter: number): number {
    return this.f32[voter * this.words + 1]!;
  }

  /** yyyymmdd, month/day 0 when unknown, 0 when none. */
  dob(voter: number): number {
    return this.dobs[this.read(this.dobSlot, voter)]!;
  }

  /** The voter's date of birth as its position in `dobs`. */
  dobCode(voter: number): number {
    return this.read(this.dobSlot, voter);
  }

  /** The five-digit ZIP as a number, 0 when none. */
  zip(voter: number): number {
    return this.zips[this.read(this.zipSlot, voter)]!;
  }

  /** GENDER_CODE. */
  gender(voter: number): number {
    return this.bytes[voter * this.stride + this.flagsAt]! & 3;
  }

  /** CONTACT_PHONE | CONTACT_EMAIL when the voter has one. */
  contact(voter: number): number {
    return this.bytes[voter * this.stride + this.flagsAt]! >>> 2;
  }

  first(voter: number): number {
    return this.read(this.firstSlot, voter);
  }

  middle(voter: number): number {
    return this.read(this.middleSlot, voter);
  }

  last(voter: number): number {
    return this.read(this.lastSlot, voter);
  }

  suffix(voter: number): number {
    return this.read(this.suffixSlot, voter);
  }

  house(voter: number): number {
    return this.read(this.houseSlot, voter);
  }

  street(voter: number): number {
    return this.read(this.streetSlot, voter);
  }

  unit(voter: number): number {
    return this.read(this.unitSlot, voter);
  }

  city(voter: number): number {
    return this.read(this.citySlot, voter);
  }

  state(voter: number): number {
    return this.read(this.stateSlot, voter);
  }

  /**
   * Reads the first and last word of a voter's record, which brings its cache lines in: the
   * scorer touches every candidate first so their misses overlap (score-candidates.ts).
   */
  touch(voter: number): number {
    const at = voter * this.words;
    return this.u32[at]! + this.u32[at + this.words - 1]!;
  }

  /** A text field's dictionary id for the voter (the named getters are the fast path). */
  id(field: TextField, voter: number): number {
    return this.read(this.slots[field], voter);
  }

  setId(field: TextField, voter: number, id: number): void {
    this.write(this.slots[field], voter, id);
  }

  /** Sets the fields outside the dictionaries; the ZIP and date must be among `zips` and `dobs`. */
  setFixed(
    voter: number,
    fields: { lat: number; lon: number; dob: number; zip: number; gender: number; contact: number },
  ): void {
    const at = voter * this.words;
    this.f32[at] = fields.lat;
    this.f32[at + 1] = fields.lon;
    this.write(this.zipSlot, voter, codeOf(this.zips, fields.zip, 'ZIP'));
    this.write(this.dobSlot, voter, codeOf(this.dobs, fields.dob, 'date of birth'));
    this.bytes[voter * this.stride + this.flagsAt] = fields.gender | (fields.contact << 2);
  }

  private write(slot: number, voter: number, id: number): void {
    const at = voter * this.stride + (slot >> 2);
    const width = slot & 3;
    if (width === 1) this.bytes[at] = id;
    else if (width === 2) this.u16[at >> 1] = id;
    else this.u32[at >> 2] = id;
  }

  private read(slot: number, voter: number): number {
    const at = voter * this.stride + (slot >> 2);
    const width = slot & 3;
    return width === 1 ? this.bytes[at]! : width === 2 ? this.u16[at >> 1]! : this.u32[at >> 2]!;
  }
}

/** Coordinates. */
const FIXED_BYTES = 8;

/** Bytes an id into a table of `size` values needs: 1, 2 or 4. */
export const idWidth = (size: number): 1 | 2 | 4 => (size <= 2 ** 8 ? 1 : size <= 2 ** 16 ? 2 : 4);

/**
 * Where each coded field sits in a record, where the flags byte is, and the record's length, for
 * tables (dictionaries, ZIPs, dates) of these sizes.
 */
export function voterFieldLayout(sizes: Readonly<Record<CodedField, number>>): {
  stride: number;
  slots: Record<CodedField, number>;
  flags: number;
} {
  const slots = {} as Record<CodedField, number>;
  let offset = FIXED_BYTES;
  for (const width of [4, 2, 1] as const) {
    for (const field of CODED_FIELDS) {
      if (idWidth(sizes[field]) !== width) continue;
      slots[field] = offset * 4 + (width & 3);
      offset += width;
    }
  }
  return { stride: (offset + 1 + 3) & ~3, slots, flags: offset };
}

/** The distinct values of `values` and 0, ascending: the code table of a ZIP or date field. */
export function codeTable(values: Iterable<number>): Uint32Array {
  const distinct = new Set<number>([0]);
  for (const value of values) distinct.add(value);
  return Uint32Array.from(distinct).sort();
}

/** The position of `value` in an ascending code table. */
function codeOf(table: Uint32Array, value: number, name: string): number {
  const code = positionOf(table, value);
  if (code < 0) throw new RangeError(`${name} ${value} is not in the voter field table's codes`);
  return code;
}
