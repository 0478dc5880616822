import type { TextField } from './match-index-fields.ts';
import type { PackedPostings } from './packed-postings.ts';
import type { StringDictionary } from './string-dictionary.ts';

/**
 * Everything the matcher needs about the voter file, in columns of typed arrays (about 50 bytes
 * per voter plus about 9 bytes per blocking-key entry): the normalized fields as dictionary ids,
 * dates and coordinates, the blocking postings, and the density map of the dynamic radius.
 * Phones and e-mails live only in the postings: a candidate agrees on them when the input's
 * phone or e-mail key lists it.
 */
export interface MatchIndexData {
  size: number;
  dictionaries: Record<TextField, StringDictionary>;
  /**
   * Per voter, per text field: the value's dictionary id (0 = empty), in the narrowest array its
   * dictionary allows (8 bits for states, 16 for first names, …).
   */
  ids: Record<TextField, IdColumn>;
  /**
   * Sound (hash of the primary double-metaphone code) of each first and last name, by dictionary
   * id (0 for the empty name): the blocking keys' and the scorer's "similar" level. Stored, so a
   * matching thread computes none (computing them on first use cost a fresh list's rows about a
   * sixth of their time).
   */
  firstSounds: Uint32Array;
  lastSounds: Uint32Array;
  zip: Uint32Array;
  /** yyyymmdd, month/day 0 when unknown, 0 when no dob. */
  dob: Uint32Array;
  gender: Uint8Array;
  /** CONTACT_PHONE | CONTACT_EMAIL when the voter has one. */
  contact: Uint8Array;
  /** NaN when unknown. */
  lat: Float32Array;
  lon: Float32Array;
  postings: PackedPostings;
  /** Voters per map cell: sorted cell ids and their counts. */
  cellIds: Uint32Array;
  cellCounts: Uint32Array;
  /** Per cell, CELL_KEY_WORDS words: the filter of the cell keys posted in it (blocking-keys.ts). */
  cellKeyFilters: Uint32Array;
  /** ZIP centroids: sorted ZIPs, mean coordinates and voter counts. */
  zipIds: Uint32Array;
  zipLat: Float32Array;
  zipLon: Float32Array;
}

/** A column of dictionary ids. */
export type IdColumn = Uint8Array | Uint16Array | Uint32Array;

/** The narrowest id column for a dictionary of `size` values. */
export function idColumnFor(size: number, voters: number): IdColumn {
  return size <= 2 ** 8
    ? new Uint8Array(voters)
    : size <= 2 ** 16
      ? new Uint16Array(voters)
      : new Uint32Array(voters);
}
