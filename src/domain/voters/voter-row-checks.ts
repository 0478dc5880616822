/**
 * Checks of one voter record at import. A bad optional value is cleared (so it never matches
 * wrongly) and reported by kind; the record itself is kept.
 */
const DOB = /^(\d{4})(\d{2})?(\d{2})?$/;

export function checkVoterValues(values: string[], columns: readonly string[]): string[] {
  const problems: string[] = [];
  const at = (name: string) => columns.indexOf(name);
  const dobAt = at('dob');
  const dob = values[dobAt];
  if (dob !== undefined && dob !== '' && !isValidDob(dob)) {
    values[dobAt] = '';
    problems.push('invalid_dob_cleared');
  }
  const latAt = at('latitude');
  const lonAt = at('longitude');
  const lat = values[latAt] ?? '';
  const lon = values[lonAt] ?? '';
  if (lat !== '' || lon !== '') {
    const la = Number(lat);
    const lo = Number(lon);
    if (
      lat === '' ||
      lon === '' ||
      !Number.isFinite(la) ||
      !Number.isFinite(lo) ||
      Math.abs(la) > 90 ||
      Math.abs(lo) > 180
    ) {
      values[latAt] = '';
      values[lonAt] = '';
      problems.push('invalid_coordinates_cleared');
    }
  }
  const stateAt = at('state');
  const state = values[stateAt];
  if (state !== undefined && state !== '') {
    const upper = state.toUpperCase();
    if (/^[A-Z]{2}$/.test(upper)) values[stateAt] = upper;
    else {
      values[stateAt] = '';
      problems.push('invalid_state_cleared');
    }
  }
  return problems;
}

/** YYYYMMDD, YYYYMM or YYYY with a plausible year, month and day. */
export function isValidDob(value: string): boolean {
  const m = DOB.exec(value);
  if (m === null) return false;
  const year = Number(m[1]);
  if (year < 1880 || year > 2100) return false;
  if (m[2] === undefined) return true;
  const month = Number(m[2]);
  if (month < 1 || month > 12) return false;
  if (m[3] === undefined) return true;
  const day = Number(m[3]);
  return day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}
