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
  const positions = VOTER_FIELD_NAMES.map((name) => columns.indexOf(name));
  return (record) => {
    const fields = {} as VoterFields;
    for (let i = 0; i < VOTER_FIELD_NAMES.length; i++) {
      const position = positions[i]!;
      fields[VOTER_FIELD_NAMES[i]!] = position < 0 ? '' : (record[position] ?? '');
    }
    return fields;
  };
}

/** Builds the match index of a whole snapshot, record by record. */
export function buildMatchIndex(voters: VoterSnapshot, asOf = new Date()): MatchIndex {
  const read = voterFieldReader(voters.columns);
  const builder = new MatchIndexBuilder();
  const normalize = voterNormalizer(asOf);
  for (let i = 0; i < voters.size; i++) builder.add(i, normalize(read(voters.record(i))));
  return builder.finish();
}
