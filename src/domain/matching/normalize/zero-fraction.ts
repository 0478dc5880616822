/**
 * The end of value[start, end) without a fraction of zeros after digits ('27601.0', '2138.00'):
 * a spreadsheet or a data frame that read a column as numbers writes them so. Any other
 * fraction ('2760.1') is kept, and refused by the caller.
 */
export function withoutZeroFraction(value: string, start: number, end: number): number {
  let i = end;
  while (i > start && value.charCodeAt(i - 1) === 48) i--;
  if (i === end || i - 1 <= start || value.charCodeAt(i - 1) !== 46) return end;
  const digit = value.charCodeAt(i - 2);
  return digit >= 48 && digit <= 57 ? i - 1 : end;
}
