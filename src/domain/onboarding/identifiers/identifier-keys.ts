/**
 * The platform identifier keys (Meta's customer-list schema names, which the file-drop platforms'
 * column maps translate from) and the Pattern #2 header: a client's CSV whose header cells are
 * these keys, in any order and any case.
 */

export const IDENTIFIER_KEYS = [
  'EXTERN_ID',
  'EMAIL',
  'PHONE',
  'GEN',
  'DOBY',
  'DOBM',
  'DOBD',
  'LN',
  'FN',
  'FI',
  'CT',
  'ST',
  'ZIP',
  'MADID',
  'COUNTRY',
] as const;

export type IdentifierKey = (typeof IDENTIFIER_KEYS)[number];

const KEY_SET: ReadonlySet<string> = new Set(IDENTIFIER_KEYS);

export function isIdentifierKey(value: string): value is IdentifierKey {
  return KEY_SET.has(value);
}

/** MADID is a device id the platform matches as sent: it is lower-cased, never hashed. */
export function isHashedKey(key: IdentifierKey): boolean {
  return key !== 'MADID';
}

/** Longest header cell quoted back in an error; a header cell is never row data, but keep it short. */
const MAX_QUOTED_CHARS = 40;

export type HeaderResult =
  | { ok: true; schema: IdentifierKey[] }
  /** `message` is safe to show the client (it quotes header cells only, shortened). */
  | { ok: false; message: string };

function quote(cell: string): string {
  const visible = cell.replace(/\p{Cc}/gu, '');
  return visible.length > MAX_QUOTED_CHARS ? `"${visible.slice(0, MAX_QUOTED_CHARS)}…"` : `"${visible}"`;
}

/**
 * Validates a Pattern #2 header: every cell, trimmed and upper-cased, must be one of
 * IDENTIFIER_KEYS, each at most once (two columns of one key cannot both fill one schema cell).
 * Returns the schema in the file's column order, so row cell i is schema[i]. Unknown, blank or
 * repeated cells are all named in one message; never throws.
 */
export function parseIdentifierHeader(header: readonly string[]): HeaderResult {
  if (header.length === 0) return { ok: false, message: 'the header is empty' };
  const schema: IdentifierKey[] = [];
  const unknown: string[] = [];
  const repeated: string[] = [];
  let blank = 0;
  for (const cell of header) {
    const name = cell.trim().toUpperCase();
    if (name === '') blank++;
    else if (!isIdentifierKey(name)) unknown.push(quote(cell.trim()));
    else if (schema.includes(name)) repeated.push(name);
    else schema.push(name);
  }
  const problems: string[] = [];
  if (unknown.length > 0) {
    problems.push(
      `unknown identifier${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (allowed: ${IDENTIFIER_KEYS.join(', ')})`,
    );
  }
  if (repeated.length > 0) problems.push(`repeated identifier ${[...new Set(repeated)].join(', ')}`);
  if (blank > 0) problems.push(`${blank} blank header cell${blank > 1 ? 's' : ''}`);
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  return { ok: true, schema };
}
