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
