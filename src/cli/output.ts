/** Prints a value as JSON or as aligned columns. */
export function printTable(rows: Record<string, unknown>[], json: boolean): void {
  if (json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const text = rows.map((row) => columns.map((c) => formatCell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((r) => r[i]!.length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  for (const r of text) console.log(r.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export const isoTime = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString());

/** `party,first_name:given_name` → appended fields; `source:name` writes the column as `vb.name`. */
export function parseAppendedFields(value: string): { source: string; as: string }[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const [source, as] = part.split(':');
      return { source: source!.toLowerCase(), as: (as ?? source!).toLowerCase() };
    });
}
