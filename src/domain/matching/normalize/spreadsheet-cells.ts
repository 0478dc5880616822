/** What spreadsheets and exports leave in a cell instead of its value. */

/**
 * What spreadsheets and exports write for "no value" (lower-case, trimmed), and the errors a
 * spreadsheet's formula leaves in a cell (`#N/A` of a failed look-up). `nan` is not among them:
 * Nan is a first name; nor `na`, a surname.
 */
const PLACEHOLDERS: ReadonlySet<string> = new Set([
  'null',
  'undefined',
  'none',
  'n/a',
  'unknown',
  '#n/a',
  '#value!',
  '#ref!',
  '#name?',
  '#div/0!',
  '#num!',
  '#null!',
]);

/** Placeholders that are also surnames (a North Carolina voter is SARAH NULL): kept in a name. */
const ALSO_SURNAMES: ReadonlySet<string> = new Set(['null', 'none']);

/** Longest placeholder: a longer cell is a value without a look-up. */
const LONGEST = 16;

/**
 * Whether a raw cell is a placeholder for a missing value rather than a value; in a first or last
 * name (`inName`), NULL and NONE are names.
 */
export function isPlaceholder(raw: string, inName = false): boolean {
  if (raw.length === 0 || raw.length > LONGEST) return false;
  // Every placeholder starts with N, U or # (or a space before it): most values are passed
  // without a look-up (a voter file's every name goes through here).
  const c = raw.charCodeAt(0) | 0x20;
  if (c !== 0x6e && c !== 0x75 && c !== 0x23 && c !== 0x20) return false;
  const key = raw.trim().toLowerCase();
  return PLACEHOLDERS.has(key) && !(inName && ALSO_SURNAMES.has(key));
}

/**
 * A value as it was before a spreadsheet was kept from reading it as a number: `="02760"` (a
 * formula that keeps leading zeros, as many exports write ZIPs and ids) and `'02760` (the
 * apostrophe that marks text) give `02760`. Anything else is returned as it is.
 */
export function withoutTextGuard(value: string): string {
  const first = value.charCodeAt(0);
  if (first === 0x3d /* = */ && value.length >= 3 && value.charCodeAt(1) === 0x22 && value.endsWith('"'))
    return value.slice(2, -1);
  // An apostrophe before a digit, a '+' or a '(' (a number kept as text), not before a name.
  if (first === 0x27 && /^'[\d+(]/.test(value)) return value.slice(1);
  return value;
}
