import type { VoterSnapshot } from '../../voters/voter-snapshot.ts';
import { type VoterFields, voterNormalizer } from '../normalize/person.ts';
import { type MatchIndex, MatchIndexBuilder } from './match-index.ts';

/** Maps a voter record (in the snapshot's column order) to the fields the matcher reads. */
export function voterFieldReader(columns: readonly string[]): (record: readonly string[]) => VoterFields {
  // Each field's position, looked up once; -1 (a column the file lacks) reads as ''.
  const column = (name: keyof VoterFields) => {
    const i = columns.indexOf(name);
    return (record: readonly string[]) => (i < 0 ? '' : (record[i] ?? ''));
  };
  const first = column('first_name');
  const middle = column('middle_name');
  const last = column('last_name');
  const suffix = column('name_suffix');
  const address1 = column('address1');
  const address2 = column('address2');
  const city = column('city');
  const state = column('state');
  const zip = column('zip');
  const latitude = column('latitude');
  const longitude = column('longitude');
  const dob = column('dob');
  const gender = column('gender');
  const email = column('email');
  const landline = column('landline_phone');
  const wireless = column('wireless_phone');
  const voip = column('voip_phone');
  // One object literal with a fixed shape (not keys assigned in a loop): the normalizer reads
  // these fields for every voter, and a fixed shape keeps those reads fast.
  return (r) => ({
    first_name: first(r),
    middle_name: middle(r),
    last_name: last(r),
    name_suffix: suffix(r),
    address1: address1(r),
    address2: address2(r),
    city: city(r),
    state: state(r),
    zip: zip(r),
    latitude: latitude(r),
    longitude: longitude(r),
    dob: dob(r),
    gender: gender(r),
    email: email(r),
    landline_phone: landline(r),
    wireless_phone: wireless(r),
    voip_phone: voip(r),
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

const indexes = new WeakMap<VoterSnapshot, MatchIndex>();

/**
 * The match index of a snapshot: the stored one, else (a version imported before the index
 * existed, or an in-memory snapshot) built from its records on first use and kept while the
 * snapshot lives.
 */
export function matchIndexOf(voters: VoterSnapshot): MatchIndex {
  if (voters.matchIndex !== null) return voters.matchIndex;
  let index = indexes.get(voters);
  if (index === undefined) {
    index = buildMatchIndex(voters);
    indexes.set(voters, index);
  }
  return index;
}
