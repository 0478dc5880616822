import type { CoreVoterColumn } from '../../voters/voter-columns.ts';
import { type BirthDate, type CleanOptions, cleanDateOfBirth, cleanPhone } from './clean-identifier.ts';
import type { IdentifierKey } from './identifier-keys.ts';
import type { PlatformRendering } from './platform-rendering.ts';
import { createRowRenderer } from './row-renderer.ts';

/**
 * Pattern #1: a voter-file record → the identifiers sent for that person. The mapping follows the
 * open-source voter-data connector in platforms.md (first name → FN, last name → LN, wireless
 * phone first → PHONE, ZIP, gender, dob split into DOBY/DOBM/DOBD, city, state, e-mail), plus
 * COUNTRY=us because the voter file is U.S.-only and Meta weighs the country with city and ZIP.
 *
 * Not sent, on purpose:
 * - FI: it adds nothing to FN, which every voter record carries.
 * - EXTERN_ID: voterbase_id is the operator's key into the voter file; the platform has no use
 *   for it (no pixel or event carries it) and it would let the platform link uploads over time.
 * - MADID: the voter file has none. address1: the platforms have no street key.
 */
export const PATTERN1_SCHEMA: readonly IdentifierKey[] = [
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
];

/**
 * The voter-file columns Pattern #1 reads, in the order voterIdentifiers expects them (fetch them
 * with VoterSnapshot.fields and the positions from columnIndex). Phones in order of preference:
 * wireless (the number people register ad accounts with), then VoIP (often a personal number
 * that receives texts), then landline.
 */
export const PATTERN1_VOTER_COLUMNS = [
  'email',
  'wireless_phone',
  'voip_phone',
  'landline_phone',
  'first_name',
  'last_name',
  'city',
  'state',
  'zip',
  'dob',
  'gender',
] as const satisfies readonly CoreVoterColumn[];

const EMAIL = 0;
const PHONES = [1, 2, 3] as const;
const FIRST = 4;
const LAST = 5;
const CITY = 6;
const STATE = 7;
const ZIP = 8;
const DOB = 9;
const GENDER = 10;

/** Entries of the dob memo before it starts over (a voter file has ~40,000 distinct birth dates). */
const DOB_MEMO_LIMIT = 100_000;

/**
 * Raw values of one voter record in PATTERN1_SCHEMA order, written into `out` (reused by the
 * caller across rows): the first usable phone in preference order, the dob split (an impossible
 * or future date blanks all three parts), COUNTRY `us`. `fields` are in PATTERN1_VOTER_COLUMNS
 * order; a missing one is blank.
 */
export function voterIdentifiers(
  fields: readonly string[],
  out: string[] = new Array<string>(PATTERN1_SCHEMA.length),
  splitDob: (dob: string) => BirthDate | null = (dob) => cleanDateOfBirth(dob),
  callingCode = '1',
): string[] {
  let phone = '';
  for (const at of PHONES) {
    const candidate = fields[at] ?? '';
    if (candidate !== '' && cleanPhone(candidate, callingCode) !== null) {
      phone = candidate;
      break;
    }
  }
  const dob = fields[DOB] ?? '';
  const birth = dob === '' ? null : splitDob(dob);
  out[0] = fields[EMAIL] ?? '';
  out[1] = phone;
  out[2] = fields[FIRST] ?? '';
  out[3] = fields[LAST] ?? '';
  out[4] = fields[CITY] ?? '';
  out[5] = fields[STATE] ?? '';
  out[6] = fields[ZIP] ?? '';
  out[7] = 'us';
  out[8] = birth?.year ?? '';
  out[9] = birth?.month ?? '';
  out[10] = birth?.day ?? '';
  out[11] = fields[GENDER] ?? '';
  return out;
}

/**
 * Voter record (PATTERN1_VOTER_COLUMNS order) → the platform's cells in PATTERN1_SCHEMA order.
 * One renderer per job: it memoizes repeated values (see createRowRenderer) and dob splits.
 */
export function createVoterRowRenderer(
  rendering: PlatformRendering,
  options: CleanOptions = {},
): (fields: readonly string[]) => string[] {
  const asOf = options.asOf ?? new Date();
  const render = createRowRenderer(rendering, PATTERN1_SCHEMA, { ...options, asOf, country: 'us' });
  const dobs = new Map<string, BirthDate | null>();
  const splitDob = (dob: string): BirthDate | null => {
    let birth = dobs.get(dob);
    if (birth === undefined) {
      birth = cleanDateOfBirth(dob, asOf);
      if (dobs.size >= DOB_MEMO_LIMIT) dobs.clear();
      dobs.set(dob, birth);
    }
    return birth;
  };
  // Safe to reuse: the row renderer copies into a fresh array before returning.
  const scratch = new Array<string>(PATTERN1_SCHEMA.length);
  const callingCode = options.callingCode ?? '1';
  return (fields) => render(voterIdentifiers(fields, scratch, splitDob, callingCode));
}
