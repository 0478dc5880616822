import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import { VOTER_FIELDS, type VoterFields, voterNormalizer } from '../normalize/person.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';

/** Maps a voter record (in the snapshot's column order) to the fields the matcher reads. */
export function voterFieldReader(columns: readonly string[]): (record: readonly string[]) => VoterFields {
  // Each field's position, looked up once; -1 (a column the file lacks) reads as ''. One shared
  // accessor, not a closure per column: V8 inlines it, and this runs for every voter.
  const at = (name: keyof VoterFields) => columns.indexOf(name);
  const first = at('first_name');
  const middle = at('middle_name');
  const last = at('last_name');
  const suffix = at('name_suffix');
  const address1 = at('address1');
  const address2 = at('address2');
  const city = at('city');
  const state = at('state');
  const zip = at('zip');
  const latitude = at('latitude');
  const longitude = at('longitude');
  const dob = at('dob');
  const gender = at('gender');
  const email = at('email');
  const landline = at('landline_phone');
  const wireless = at('wireless_phone');
  const voip = at('voip_phone');
  // One object literal with a fixed shape (not keys assigned in a loop): the normalizer reads
  // these fields for every voter, and a fixed shape keeps those reads fast.
  return (r) => ({
    first_name: field(r, first),
    middle_name: field(r, middle),
    last_name: field(r, last),
    name_suffix: field(r, suffix),
    address1: field(r, address1),
    address2: field(r, address2),
    city: field(r, city),
    state: field(r, state),
    zip: field(r, zip),
    latitude: field(r, latitude),
    longitude: field(r, longitude),
    dob: field(r, dob),
    gender: field(r, gender),
    email: field(r, email),
    landline_phone: field(r, landline),
    wireless_phone: field(r, wireless),
    voip_phone: field(r, voip),
  });
}

const field = (record: readonly string[], i: number): string => (i < 0 ? '' : (record[i] ?? ''));

/** Leading columns that hold every field the matcher reads: a record split into more is wasted work. */
export function voterFieldColumns(columns: readonly string[]): number {
  return Math.max(0, ...VOTER_FIELDS.map((name) => columns.indexOf(name))) + 1;
}

/** Builds the match index of a whole snapshot, record by record. */
export function buildMatchIndex(voters: VoterSnapshot, asOf = new Date()): MatchIndex {
  const read = voterFieldReader(voters.columns);
  const builder = new MatchIndexBuilder();
  const normalize = voterNormalizer(asOf);
  for (let i = 0; i < voters.size; i++) builder.add(i, normalize(read(voters.record(i))));
  return builder.finish();
}
