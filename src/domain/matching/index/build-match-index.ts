import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import { type VoterFields, voterNormalizer } from '../normalize/person.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';

const VOTER_FIELD_NAMES: readonly (keyof VoterFields)[] = [
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'address1',
  'address2',
  'city',
  'state',
  'zip',
  'latitude',
  'longitude',
  'dob',
  'gender',
  'email',
  'landline_phone',
  'wireless_phone',
  'voip_phone',
];

/** Maps a voter record (in the snapshot's column order) to the fields the matcher reads. */
export function voterFieldReader(columns: readonly string[]): (record: readonly string[]) => VoterFields {
  const at = (name: keyof VoterFields) => columns.indexOf(name);
  const [fn, mn, ln, sx, a1, a2, ci, st, zp, la, lo, db, gd, em, lp, wp, vp] = VOTER_FIELD_NAMES.map(
    at,
  ) as number[];
  const get = (record: readonly string[], i: number | undefined) =>
    i === undefined || i < 0 ? '' : (record[i] ?? '');
  // One object literal with a fixed shape (not keys assigned in a loop): the normalizer reads
  // these fields for every voter, and a fixed shape keeps those reads fast.
  return (r) => ({
    first_name: get(r, fn),
    middle_name: get(r, mn),
    last_name: get(r, ln),
    name_suffix: get(r, sx),
    address1: get(r, a1),
    address2: get(r, a2),
    city: get(r, ci),
    state: get(r, st),
    zip: get(r, zp),
    latitude: get(r, la),
    longitude: get(r, lo),
    dob: get(r, db),
    gender: get(r, gd),
    email: get(r, em),
    landline_phone: get(r, lp),
    wireless_phone: get(r, wp),
    voip_phone: get(r, vp),
  });
}

/** Builds the match index of a whole snapshot, record by record. */
export function buildMatchIndex(voters: VoterSnapshot, asOf = new Date()): MatchIndex {
  const read = voterFieldReader(voters.columns);
  const builder = new MatchIndexBuilder();
  const normalize = voterNormalizer(asOf);
  for (let i = 0; i < voters.size; i++) builder.add(i, normalize(read(voters.record(i))));
  return builder.finish();
}
