import type { ContactSample } from './contact-sample.ts';
import type { TextField } from './match-index-fields.ts';
import type { PackedPostings } from './packed-postings.ts';
import type { StringDictionary } from './string-dictionary.ts';
import type { VoterFieldTable } from './voter-field-table.ts';

/**
 * Everything the matcher needs about the voter file, in typed arrays (a record of about 36 bytes
 * per voter plus about 9 bytes per blocking-key entry): the normalized fields as dictionary ids,
 * dates and coordinates, the blocking postings, and the density map of the dynamic radius.
 * Phones and e-mails live only in the postings: a candidate agrees on them when the input's
 * phone or e-mail key lists it.
 */
export interface MatchIndexData {
  size: number;
  dictionaries: Record<TextField, StringDictionary>;
  /**
   * Sound (hash of the primary double-metaphone code) of each first and last name, by dictionary
   * id (0 for the empty name): the blocking keys' and the scorer's "similar" level. Stored, so a
   * matching thread computes none (computing them on first use cost a fresh list's rows about a
   * sixth of their time).
   */
  firstSounds: Uint32Array;
  lastSounds: Uint32Array;
  /** Per first-name id, the gender nearly all its voters share (first-name-genders.ts), 0 when none does. */
  firstGenders: Uint8Array;
  /**
   * Per first-name id, how much more often two voters with the name share a birth year than two
   * of the file's voters do (first-name-cohorts.ts), 1 when nothing says so.
   */
  firstCohorts: Float32Array;
  /**
   * Per voter, the compared fields in one record: the text fields as dictionary ids (0 = empty),
   * ZIP, date of birth, gender, contact flags and coordinates (voter-field-table.ts).
   */
  fields: VoterFieldTable;
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
  /**
   * The sampled phones and e-mails with their holders' names (contact-sample.ts): what u of their
   * agreement is estimated from. Absent from an index stored before it was (u keeps its prior).
   */
  contacts?: ContactSample;
  /**
   * A whole file's voters per ZIP and per birth date (zipCount, dobCount), counted when it is
   * imported and stored: absent from an index stored before they were (counted when it is opened
   * or on first use) and from a shard's (its `file` holds the whole file's).
   */
  voterCounts?: VoterCounts;
  /**
   * The whole voter file's statistics, where this index holds one shard of it (file-statistics.ts):
   * a shard must weigh a candidate exactly as the whole file's index does. Absent for an index of
   * a whole file, whose statistics are its own. The shard's dictionary counts, first-name genders
   * and cohorts then hold the whole file's figures too, and its first-name, last-name and state
   * dictionaries hold the file's values its voters lack (ids past theirs: withFileStatistics).
   */
  file?: FileStatistics;
}

/** A whole file's voters by 5-digit ZIP and by date-of-birth code (see MatchIndexData.voterCounts). */
export interface VoterCounts {
  /** Indexed by the ZIP itself (ZIP_COUNT entries). */
  zips: Uint32Array;
  /** Indexed by the date-of-birth code (fields.dobs): 0 counts the voters without one. */
  dobs: Uint32Array;
}

/** What a shard's index holds of the whole voter file besides its dictionaries' counts. */
export interface FileStatistics {
  /** Voters in the whole file (the prior odds per voter, the term frequencies' denominator). */
  size: number;
  /**
   * Per voter of the shard, its position among the whole file's imported voters (its record index
   * when the file is imported whole): the order every tie between candidates falls back to.
   */
  order: Uint32Array;
  /** Per date-of-birth code of the shard (fields.dobs), the whole file's voters born that day. */
  dobCounts: Uint32Array;
  /** The whole file's ZIPs, ascending, and their voters (located or not). */
  zipIds: Uint32Array;
  zipCounts: Uint32Array;
  /**
   * The whole file's postings count of each blocking key of the shard (hash, ascending) that has
   * more postings in the whole file than here and more than FILE_POSTINGS_FLOOR: a key the whole
   * file skips as too common (CandidateOptions.maxPostings) is skipped here too. Empty in a shard
   * stored before they were (it skips by its own counts).
   */
  postingsHashes: Uint32Array;
  postingsCounts: Uint32Array;
  /**
   * Voters per map cell of the whole file (sorted cell ids): the density a row's dynamic radius
   * is measured on, and where its coordinates may be swapped. Empty in a shard stored before they
   * were (it measures on its own voters).
   */
  cellIds: Uint32Array;
  cellCounts: Uint32Array;
}
