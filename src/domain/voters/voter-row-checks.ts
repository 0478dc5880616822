/**
 * Checks of one voter record at import. A bad optional value is cleared (so it never matches
 * wrongly) and reported by kind; the record itself is kept. Column positions are resolved once.
 */
const DOB = /^(\d{4})(\d{2})?(\d{2})?$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export class VoterRowChecker {
  private readonly dob: number;
  private readonly latitude: number;
  private readonly longitude: number;
  private readonly state: number;

  constructor(columns: readonly string[]) {
    this.dob = columns.indexOf('dob');
    this.latitude = columns.indexOf('latitude');
    this.longitude = columns.indexOf('longitude');
    this.state = columns.indexOf('state');
  }

  /** Clears bad values in place; returns the kinds of problems found. */
  check(values: string[]): string[] {
    const problems: string[] = [];
    const dob = values[this.dob];
    if (dob !== undefined && dob !== '' && !isValidDob(dob)) {
      values[this.dob] = '';
      problems.push('invalid_dob_cleared');
    }
    const lat = values[this.latitude] ?? '';
    const lon = values[this.longitude] ?? '';
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
        values[this.latitude] = '';
        values[this.longitude] = '';
        problems.push('invalid_coordinates_cleared');
      }
    }
    const state = values[this.state];
    if (state !== undefined && state !== '') {
      const upper = state.toUpperCase();
      if (upper.length === 2 && /^[A-Z]{2}$/.test(upper)) values[this.state] = upper;
      else {
        values[this.state] = '';
        problems.push('invalid_state_cleared');
      }
    }
    return problems;
  }
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
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day >= 1 && day <= days;
}
