import { type CleanOptions, cleanCountry } from './clean-identifier.ts';
import type { IdentifierKey } from './identifier-keys.ts';
import { type PlatformRendering, renderCell } from './platform-rendering.ts';

/**
 * Keys whose values repeat across a list (genders, months, states, ZIPs, common names): their
 * finished cells are memoized per column, so most rows hash only EMAIL and PHONE. The others are
 * nearly unique per person and would only fill the memo.
 */
const MEMOIZED: ReadonlySet<IdentifierKey> = new Set([
  'GEN',
  'DOBY',
  'DOBM',
  'DOBD',
  'FN',
  'LN',
  'FI',
  'CT',
  'ST',
  'ZIP',
  'COUNTRY',
]);

/** Entries per column memo before it starts over: bounds memory on a hostile all-distinct column. */
const MEMO_LIMIT = 50_000;

/** Raw cells of one row in schema order → the platform's cells in schema order ('' = unknown). */
export type RowRenderer = (raw: readonly string[]) => string[];

/**
 * A renderer of rows for a fixed schema, for the million-row batches: the per-key work is chosen
 * once, and repeated values come from a per-column memo (a raw value's cell never depends on the
 * row, except ZIP on the row's COUNTRY, which is then not memoized). The memo holds digests and
 * cleaned values of the list being uploaded: it lives as long as the renderer, never longer
 * than one job. A missing cell (short row) counts as blank. Never throws.
 */
export function createRowRenderer(
  rendering: PlatformRendering,
  schema: readonly IdentifierKey[],
  options: CleanOptions = {},
): RowRenderer {
  const countryColumn = schema.indexOf('COUNTRY');
  const base: CleanOptions = { ...options, asOf: options.asOf ?? new Date() };
  const withCountry: CleanOptions = { ...base };
  const memos = schema.map((key) =>
    MEMOIZED.has(key) && !(key === 'ZIP' && countryColumn >= 0) ? new Map<string, string>() : null,
  );
  const width = schema.length;
  return (raw) => {
    const out = new Array<string>(width);
    let cleanOptions = base;
    if (countryColumn >= 0) {
      withCountry.country = cleanCountry(raw[countryColumn] ?? '');
      cleanOptions = withCountry;
    }
    for (let i = 0; i < width; i++) {
      const value = raw[i] ?? '';
      if (value === '') {
        out[i] = '';
        continue;
      }
      const memo = memos[i];
      if (memo === null || memo === undefined) {
        out[i] = renderCell(rendering, schema[i]!, value, cleanOptions);
        continue;
      }
      let cell = memo.get(value);
      if (cell === undefined) {
        cell = renderCell(rendering, schema[i]!, value, cleanOptions);
        if (memo.size >= MEMO_LIMIT) memo.clear();
        memo.set(value, cell);
      }
      out[i] = cell;
    }
    return out;
  };
}
