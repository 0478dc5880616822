/** Columns of the operator's voter file with a fixed meaning; every other column is appendable. */
export const CORE_VOTER_COLUMNS = [
  'voterbase_id',
  'state',
  'voter_id',
  'smartvan_id',
  'exact_track',
  'first_name',
  'middle_name',
  'last_name',
  'name_suffix',
  'address1',
  'address2',
  'city',
  'zip',
  'latitude',
  'longitude',
  'dob',
  'gender',
  'email',
  'landline_phone',
  'wireless_phone',
  'voip_phone',
] as const;

export type CoreVoterColumn = (typeof CORE_VOTER_COLUMNS)[number];

/** Id indexes built at import; each maps a normalized key to the records carrying it. */
export const ID_INDEXES = ['voterbase_id', 'voter_id', 'smartvan_id', 'exact_track'] as const;
export type IdIndexName = (typeof ID_INDEXES)[number];

/** Voter-file column behind each contact field a profile may grant. */
export const CONTACT_FIELD_COLUMNS = {
  email: 'email',
  landline: 'landline_phone',
  wireless: 'wireless_phone',
  voip: 'voip_phone',
} as const;
