/**
 * Whether two ZIPs (as numbers, 5 digits) differ by two neighbouring digits swapped: 27601 and
 * 27610, 60614 and 06614. Equal ZIPs are not.
 */
export function isZipTransposition(a: number, b: number): boolean {
  if (a === b || a < 0 || b < 0 || a > 99_999 || b > 99_999) return false;
  for (let i = 0, unit = 1; i < 4; i++, unit *= 10) {
    const low = Math.floor(a / unit) % 10;
    const high = Math.floor(a / (unit * 10)) % 10;
    if (low === high) continue;
    if (a + (high - low) * unit + (low - high) * unit * 10 === b) return true;
  }
  return false;
}

/** The ZIPs one swap of neighbouring digits away from `zip` (at most 4; none for equal digits). */
export function zipTranspositions(zip: number): number[] {
  const out: number[] = [];
  if (zip < 0 || zip > 99_999) return out;
  for (let i = 0, unit = 1; i < 4; i++, unit *= 10) {
    const low = Math.floor(zip / unit) % 10;
    const high = Math.floor(zip / (unit * 10)) % 10;
    if (low !== high) out.push(zip + (high - low) * unit + (low - high) * unit * 10);
  }
  return out;
}
