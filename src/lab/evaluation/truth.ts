import type { TruthEntry } from './metrics.ts';

/**
 * The truth file's format: header `matchback_id,voterbase_id,pattern,errors` (names
 * case-insensitive, any order; `pattern` and `errors` optional). `voterbase_id` is empty for a
 * non-member or several ids joined with `|` (a couple row: either is correct); `errors` is a
 * `;`-joined list of error tags. A file without a pattern column puts every row in pattern
 * {@link DEFAULT_PATTERN}.
 */
export const TRUTH_COLUMNS = ['matchback_id', 'voterbase_id', 'pattern', 'errors'] as const;
export const DEFAULT_PATTERN = 'all';

/** Positions of the truth columns in a header (-1: absent); throws when a required one is missing. */
export function truthLayout(header: readonly string[]): {
  matchbackId: number;
  voterbaseId: number;
  pattern: number;
  errors: number;
} {
  const names = header.map((name) => name.trim().toLowerCase());
  const layout = {
    matchbackId: names.indexOf('matchback_id'),
    voterbaseId: names.indexOf('voterbase_id'),
    pattern: names.indexOf('pattern'),
    errors: names.indexOf('errors'),
  };
  const missing = [
    layout.matchbackId < 0 ? 'matchback_id' : null,
    layout.voterbaseId < 0 ? 'voterbase_id' : null,
  ].filter((name) => name !== null);
  if (missing.length > 0) {
    throw new Error(
      `the truth file has no ${missing.join(' and no ')} column; its header must be ${TRUTH_COLUMNS.join(',')} (pattern and errors optional)`,
    );
  }
  return layout;
}

/** One truth row's cells (already picked from their columns) as a {@link TruthEntry}. */
export function parseTruthEntry(
  voterbaseIds: string,
  pattern: string | undefined,
  errors: string | undefined,
): TruthEntry {
  return {
    voterbaseIds: splitList(voterbaseIds, '|'),
    pattern: pattern === undefined || pattern.trim() === '' ? DEFAULT_PATTERN : pattern.trim(),
    errors: splitList(errors ?? '', ';'),
  };
}

const splitList = (value: string, separator: string): string[] =>
  value
    .split(separator)
    .map((part) => part.trim())
    .filter((part) => part !== '');
