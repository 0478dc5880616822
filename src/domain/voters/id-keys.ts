import type { IdIndexName } from './voter-columns.ts';

/**
 * Normalized lookup keys for the deterministic id indexes. The same functions build the index
 * at import and the query at match time, so both sides always agree.
 * Returns null when the row has no usable value.
 */
export function idKey(index: IdIndexName, value: string, state: string): string | null {
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
      const stripped = id.replace(/^0+/, '');
      return `${st}|${stripped === '' ? '0' : stripped}`;
    }
    case 'smartvan_id': {
      const st = normalizeState(state);
      return st === null ? null : `${st}|${id}`;
    }
  }
}

export function normalizeState(value: string): string | null {
  const st = value.trim().toUpperCase();
  return /^[A-Z]{2}$/.test(st) ? st : null;
}
