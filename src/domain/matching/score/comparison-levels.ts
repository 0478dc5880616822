/**
 * The compared fields and their agreement levels. Level 0 of every field means "not compared"
 * (a side lacks the value): it contributes nothing to the score, so a missing field is neutral.
 * Level names appear in `sm.explain` (`first=nickname last=exact age=year zip=exact`).
 */
export const FIELDS = [
  { name: 'first', levels: ['exact', 'nickname', 'typo', 'initial', 'similar', 'middle', 'differ'] },
  { name: 'last', levels: ['exact', 'typo', 'part', 'similar', 'differ'] },
  { name: 'middle', levels: ['exact', 'initial', 'differ'] },
  { name: 'suffix', levels: ['exact', 'differ'] },
  { name: 'dob', levels: ['exact', 'swapped', 'month', 'typo', 'differ'] },
  // A birth year against a date, where one side gives no more than the year: an age (two years),
  // a year-only date, or a voter file of birth years. A field of its own, not a level of dob: such
  // a row agrees at 'year' nine times in ten, and a full date never does.
  { name: 'age', levels: ['year', 'near', 'differ'] },
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
  age: 5,
  gender: 6,
  address: 7,
  zip: 8,
  city: 9,
  state: 10,
  phone: 11,
  email: 12,
  distance: 13,
} as const;

/** Levels by name, 1-based (0 = not compared). */
export const L = {
  // middle: one side's first name is the other's middle name (a person who goes by it).
  first: { exact: 1, nickname: 2, typo: 3, initial: 4, similar: 5, middle: 6, differ: 7 },
  last: { exact: 1, typo: 2, part: 3, similar: 4, differ: 5 },
  middle: { exact: 1, initial: 2, differ: 3 },
  suffix: { exact: 1, differ: 2 },
  // month: the same year and month, a day missing on one side.
  dob: { exact: 1, swapped: 2, month: 3, typo: 4, differ: 5 },
  // year: one of the years the row allows; near: one year outside them (an age off by one).
  age: { year: 1, near: 2, differ: 3 },
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
  // suffix: a generational suffix is who someone is; the same person's recorded otherwise (JR
  // for II) is rare, and one that differs is most often the father's or the son's.
  [0, 0.99, 0.01],
  // dob (full dates on both sides): 'typo' is one digit substituted or two neighbours swapped
  // (also an impossible date's digits).
  [0, 0.9, 0.02, 0.01, 0.035, 0.035],
  // age: an age is a year off about one time in ten (a birthday since the list was made).
  [0, 0.85, 0.1, 0.05],
  [0, 0.97, 0.03],
  [0, 0.8, 0.03, 0.04, 0.03, 0.1],
  [0, 0.88, 0.01, 0.11],
  [0, 0.88, 0.12],
  [0, 0.95, 0.05],
  [0, 0.75, 0.25],
  [0, 0.75, 0.25],
  [0, 0.6, 0.2, 0.1, 0.1],
];

/**
 * Whether the birth date or age agrees at all: to the day, a typo or swap of it, the month, one
 * of the years an age allows or next to them.
 */
export function dateAgrees(levels: ArrayLike<number>): boolean {
  const dob = levels[F.dob]!;
  const age = levels[F.age]!;
  return (dob !== 0 && dob !== L.dob.differ) || (age !== 0 && age !== L.age.differ);
}

/**
 * `first=nickname last=exact …` for the compared fields of one comparison vector. Kept by the
 * vector (a few hundred occur in a list): building the text took a search's largest allocations.
 */
export function explainLevels(levels: Uint8Array): string {
  // Each level below 8: the vector as a number of 3 bits a field (42 bits, exact in a double).
  let key = 0;
  for (let f = FIELD_COUNT - 1; f >= 0; f--) key = key * 8 + levels[f]!;
  let text = explained.get(key);
  if (text === undefined) {
    if (explained.size >= EXPLAINED_KEPT) explained.clear();
    text = explainAnew(levels);
    explained.set(key, text);
  }
  return text;
}

const explained = new Map<number, string>();
const EXPLAINED_KEPT = 4096;
// explainLevels' key holds 3 bits a field: a field of more levels needs a wider key.
if (MAX_LEVELS > 8) throw new Error('explainLevels keys a comparison vector by 3 bits a field');

function explainAnew(levels: Uint8Array): string {
  const parts: string[] = [];
  for (let f = 0; f < FIELD_COUNT; f++) {
    const level = levels[f]!;
    if (level === 0) continue;
    parts.push(`${FIELDS[f]!.name}=${FIELDS[f]!.levels[level - 1]}`);
  }
  return parts.join(' ');
}
