/**
 * The compared fields and their agreement levels. Level 0 of every field means "not compared"
 * (a side lacks the value): it contributes nothing to the score, so a missing field is neutral.
 * Level names appear in `sm.explain` (`first=nickname last=exact dob=year zip=exact`).
 */
export const FIELDS = [
  { name: 'first', levels: ['exact', 'nickname', 'typo', 'initial', 'similar', 'middle', 'differ'] },
  { name: 'last', levels: ['exact', 'typo', 'part', 'similar', 'differ'] },
  { name: 'middle', levels: ['exact', 'initial', 'differ'] },
  { name: 'suffix', levels: ['exact', 'differ'] },
  { name: 'dob', levels: ['exact', 'swapped', 'month', 'year', 'near', 'typo', 'differ'] },
  { name: 'gender', levels: ['exact', 'differ'] },
  { name: 'address', levels: ['exact', 'unit', 'typo', 'street', 'differ'] },
  { name: 'zip', levels: ['exact', 'transposed', 'differ'] },
  { name: 'city', levels: ['exact', 'differ'] },
  { name: 'state', levels: ['exact', 'differ'] },
  { name: 'phone', levels: ['exact', 'differ'] },
  { name: 'email', levels: ['exact', 'differ'] },
  { name: 'distance', levels: ['near', 'close', 'radius', 'far'] },
] as const;

export const FIELD_COUNT = FIELDS.length;

/**
 * Names this layout of fields and levels (8 hex digits of a hash of their names): what is stored
 * per level (a voter file's random-pair u) is kept under it, so a version with other levels never
 * reads numbers laid out for another (the same count of levels does not mean the same levels).
 */
export const LEVELS_LAYOUT = fnv1a(FIELDS.map((f) => `${f.name}:${f.levels.join(',')}`).join(';'))
  .toString(16)
  .padStart(8, '0');

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
/** Levels per field, not counting level 0. */
export const LEVEL_COUNTS: readonly number[] = FIELDS.map((f) => f.levels.length);
export const MAX_LEVELS = Math.max(...LEVEL_COUNTS) + 1;

export const F = {
  first: 0,
  last: 1,
  middle: 2,
  suffix: 3,
  dob: 4,
  gender: 5,
  address: 6,
  zip: 7,
  city: 8,
  state: 9,
  phone: 10,
  email: 11,
  distance: 12,
} as const;

/** Levels by name, 1-based (0 = not compared). */
export const L = {
  // middle: one side's first name is the other's middle name (a person who goes by it).
  first: { exact: 1, nickname: 2, typo: 3, initial: 4, similar: 5, middle: 6, differ: 7 },
  last: { exact: 1, typo: 2, part: 3, similar: 4, differ: 5 },
  middle: { exact: 1, initial: 2, differ: 3 },
  suffix: { exact: 1, differ: 2 },
  dob: { exact: 1, swapped: 2, month: 3, year: 4, near: 5, typo: 6, differ: 7 },
  gender: { exact: 1, differ: 2 },
  address: { exact: 1, unit: 2, typo: 3, street: 4, differ: 5 },
  // transposed: two neighbouring digits swapped (27610 for 27601), a common keying slip.
  zip: { exact: 1, transposed: 2, differ: 3 },
  binary: { exact: 1, differ: 2 },
  distance: { near: 1, close: 2, radius: 3, far: 4 },
} as const;

/**
 * Prior m probabilities (P(level | same person)) per field and level: the starting point of EM
 * and the fallback for lists too small to estimate from. Written from general experience of
 * data-entry error, not fitted to any test file.
 */
export const PRIOR_M: readonly (readonly number[])[] = [
  [0, 0.85, 0.05, 0.03, 0.02, 0.02, 0.01, 0.02],
  [0, 0.85, 0.04, 0.02, 0.02, 0.07],
  [0, 0.6, 0.3, 0.1],
  [0, 0.95, 0.05],
  // dob: 'year' is also the agreement of an age or a year-only date, common in lists; 'typo' is
  // one digit substituted or two neighbours swapped (also an impossible date's digits).
  [0, 0.6, 0.02, 0.02, 0.3, 0.03, 0.015, 0.015],
  [0, 0.97, 0.03],
  [0, 0.8, 0.03, 0.04, 0.03, 0.1],
  [0, 0.88, 0.01, 0.11],
  [0, 0.88, 0.12],
  [0, 0.95, 0.05],
  [0, 0.75, 0.25],
  [0, 0.75, 0.25],
  [0, 0.6, 0.2, 0.1, 0.1],
];

/** `first=nickname last=exact …` for the compared fields of one comparison vector. */
export function explainLevels(levels: Uint8Array): string {
  const parts: string[] = [];
  for (let f = 0; f < FIELD_COUNT; f++) {
    const level = levels[f]!;
    if (level === 0) continue;
    parts.push(`${FIELDS[f]!.name}=${FIELDS[f]!.levels[level - 1]}`);
  }
  return parts.join(' ');
}
