/**
 * Checks of one voter record at import. A bad optional value is cleared (so it never matches
 * wrongly) and reported by kind; the record itself is kept. Column positions are resolved once.
 */
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
  const length = value.length;
  if (length !== 4 && length !== 6 && length !== 8) return false;
  for (let i = 0; i < length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  const digits = (from: number, to: number) => {
    let n = 0;
    for (let i = from; i < to; i++) n = n * 10 + value.charCodeAt(i) - 48;
    return n;
  };
  const year = digits(0, 4);
  if (year < 1880 || year > 2100) return false;
  if (length === 4) return true;
  const month = digits(4, 6);
  if (month < 1 || month > 12) return false;
  if (length === 6) return true;
  const day = digits(6, 8);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  return day >= 1 && day <= days;
}
