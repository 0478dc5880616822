import { normalizeStateCode } from '../matching/normalize/contact.ts';
import type { IdIndexName } from './voter-columns.ts';

/**
 * Normalized lookup keys for the deterministic id indexes. The same functions build the index
 * at import and the query at match time, so both sides always agree.
 * Returns null when the row has no usable value.
 */
export function idKey(index: IdIndexName, value: string, state: string): string | null {
  if (value === '') return null;
  const id = value.trim().toUpperCase();
  if (id === '') return null;
  switch (index) {
    case 'voterbase_id':
    case 'exact_track':
      return id;
    case 'voter_id': {
      // State voter ids lose or gain leading zeros in spreadsheets: compare without them.
      const st = normalizeState(state);
      if (st === null) return null;
      let zeros = 0;
      while (zeros < id.length && id.charCodeAt(zeros) === 48) zeros++;
      return `${st}|${zeros === id.length ? '0' : zeros === 0 ? id : id.slice(zeros)}`;
    }
    case 'smartvan_id': {
      const st = normalizeState(state);
      return st === null ? null : `${st}|${id}`;
    }
  }
}

export function normalizeState(value: string): string | null {
  const st = value.length === 2 ? value.toUpperCase() : value.trim().toUpperCase();
  // A list's state by its name, dotted or in an old abbreviation ('North Carolina', 'N.C.').
  if (st.length !== 2) return st === '' ? null : normalizeStateCode(st);
  const a = st.charCodeAt(0);
  const b = st.charCodeAt(1);
  return a >= 65 && a <= 90 && b >= 65 && b <= 90 ? st : null;
}
