import { TEXT_FIELDS, type TextField } from './match-index-fields.ts';

/**
 * The fields the matcher compares, one fixed-size record per voter (row-major): a candidate's
 * fields lie in one or two cache lines instead of one line in each of fifteen columns. With
 * files of millions of voters nearly every candidate met for the first time is a cache miss per
 * field, so reading columns cost a fresh row about a third of its time on 10M voters.
 *
 * A record (little-endian, as the machine stores typed arrays):
 *   0  lat      float32, NaN when unknown
 *   4  lon      float32
 *   8  dob      uint32 yyyymmdd, month/day 0 when unknown, 0 when none
 *  12  place    uint32: zip (17 bits: five digits, 0 when none) | gender << 17 | contact << 19
 *  16… the text fields' dictionary ids (0 = empty), each as wide as its dictionary needs (1, 2
 *      or 4 bytes), widest first so each is aligned; the record is padded to 4 bytes.
 * The layout follows from the dictionaries' sizes alone, so it is not stored.
 */
export class VoterFieldTable {
  readonly size: number;
  /** Bytes per voter. */
  readonly stride: number;
  readonly bytes: Uint8Array;
  private readonly u16: Uint16Array;
  private readonly u32: Uint32Array;
  private readonly f32: Float32Array;
  /** Words (4 bytes) per voter. */
  private readonly words: number;
  /** Per text field: its byte offset in the record times 4, plus its width (1, 2 or 4 as 1, 2, 0). */
  private readonly slots: Record<TextField, number>;
  private readonly firstSlot: number;
  private readonly middleSlot: number;
  private readonly lastSlot: number;
  private readonly suffixSlot: number;
  private readonly houseSlot: number;
  private readonly streetSlot: number;
  private readonly unitSlot: number;
  private readonly citySlot: number;
  private readonly stateSlot: number;

  /**
   * A table over `bytes` (size × stride of the layout for these dictionary sizes), or a new
   * zeroed one when `bytes` is omitted.
   */
  constructor(size: number, dictionarySizes: Readonly<Record<TextField, number>>, bytes?: Uint8Array) {
    const layout = voterFieldLayout(dictionarySizes);
    this.size = size;
    this.stride = layout.stride;
    this.words = layout.stride >> 2;
    this.slots = layout.slots;
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
  }

  lat(voter: number): number {
    return this.f32[voter * this.words]!;
  }

  lon(voter: number): number {
    return this.f32[voter * this.words + 1]!;
  }

  dob(voter: number): number {
    return this.u32[voter * this.words + 2]!;
  }

  zip(voter: number): number {
    return this.u32[voter * this.words + 3]! & ZIP_MASK;
  }

  /** GENDER_CODE. */
  gender(voter: number): number {
    return (this.u32[voter * this.words + 3]! >>> 17) & 3;
  }

  /** CONTACT_PHONE | CONTACT_EMAIL when the voter has one. */
  contact(voter: number): number {
    return this.u32[voter * this.words + 3]! >>> 19;
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
    const slot = this.slots[field];
    const at = voter * this.stride + (slot >> 2);
    const width = slot & 3;
    if (width === 1) this.bytes[at] = id;
    else if (width === 2) this.u16[at >> 1] = id;
    else this.u32[at >> 2] = id;
  }

  /** Sets the fixed fields; the ZIP must be below 2^17 (normalized ZIPs are five digits). */
  setFixed(
    voter: number,
    fields: { lat: number; lon: number; dob: number; zip: number; gender: number; contact: number },
  ): void {
    if (fields.zip > ZIP_MASK || fields.zip < 0) throw new RangeError(`ZIP ${fields.zip} is out of range`);
    const at = voter * this.words;
    this.f32[at] = fields.lat;
    this.f32[at + 1] = fields.lon;
    this.u32[at + 2] = fields.dob;
    this.u32[at + 3] = fields.zip | (fields.gender << 17) | (fields.contact << 19);
  }

  private read(slot: number, voter: number): number {
    const at = voter * this.stride + (slot >> 2);
    const width = slot & 3;
    return width === 1 ? this.bytes[at]! : width === 2 ? this.u16[at >> 1]! : this.u32[at >> 2]!;
  }
}

const ZIP_MASK = (1 << 17) - 1;
const FIXED_BYTES = 16;

/** Bytes a dictionary id needs: 1, 2 or 4. */
export const idWidth = (dictionarySize: number): 1 | 2 | 4 =>
  dictionarySize <= 2 ** 8 ? 1 : dictionarySize <= 2 ** 16 ? 2 : 4;

/** Where each text field's id sits in a record, and the record's length, for these dictionaries. */
export function voterFieldLayout(dictionarySizes: Readonly<Record<TextField, number>>): {
  stride: number;
  slots: Record<TextField, number>;
} {
  const slots = {} as Record<TextField, number>;
  let offset = FIXED_BYTES;
  for (const width of [4, 2, 1] as const) {
    for (const field of TEXT_FIELDS) {
      if (idWidth(dictionarySizes[field]) !== width) continue;
      slots[field] = offset * 4 + (width & 3);
      offset += width;
    }
  }
  return { stride: (offset + 3) & ~3, slots };
}
