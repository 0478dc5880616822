/**
 * Tables and the stylesheet shared by the service's HTML job summary and the evaluation's
 * reports: one table model, rendered as aligned text or as escaped HTML.
 */
import { escapeHtml } from './svg-charts.ts';

/** A table shared by the text and the HTML renderers. */
export interface ReportTable {
  title: string;
  headers: string[];
  /** 'r' for numbers. */
  align: ('l' | 'r')[];
  rows: string[][];
  note?: string;
}

/** One table as aligned plain text (no trailing spaces), headed by its title. */
export function renderTextTable(table: ReportTable): string {
  const widths = table.headers.map((h, i) =>
    Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (table.align[i] === 'r' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [table.title, line(table.headers), widths.map((w) => '-'.repeat(w)).join('  ')];
  if (table.rows.length === 0) out.push('(none)');
  for (const row of table.rows) out.push(line(row));
  if (table.note) out.push(table.note);
  return out.join('\n');
}

/** The reports' stylesheet: the job summary's (domain/client-jobs/summary-report.ts) and the evaluation report's. */
export const REPORT_STYLE = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px auto; max-width: 1100px; color: #222; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; margin: 12px 0; }
dl.facts dt { color: #555; }
dl.facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.headline { display: flex; gap: 16px; flex-wrap: wrap; margin: 16px 0; }
.headline div { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.headline b { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
figure { margin: 0; border: 1px solid #eee; border-radius: 6px; padding: 8px; }
svg.chart { width: 100%; height: auto; }
svg .chart-title { font-size: 15px; font-weight: 600; fill: #222; }
svg .tick, svg .legend { font-size: 11px; fill: #444; }
svg .axis-label { font-size: 12px; fill: #333; }
table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 3px 10px; }
th { background: #f6f6f6; text-align: left; }
td.r, th.r { text-align: right; }
p.note { color: #555; font-size: 12px; margin: 2px 0 0; }
`;

/** One table as HTML, every cell escaped. */
export function renderHtmlTable(table: ReportTable): string {
  const cls = (i: number) => (table.align[i] === 'r' ? ' class="r"' : '');
  const head = table.headers.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('');
  const body =
    table.rows.length === 0
      ? `<tr><td colspan="${table.headers.length}">(none)</td></tr>`
      : table.rows
          .map((row) => `<tr>${row.map((cell, i) => `<td${cls(i)}>${escapeHtml(cell)}</td>`).join('')}</tr>`)
          .join('\n');
  const note = table.note ? `<p class="note">${escapeHtml(table.note)}</p>` : '';
  return `<section><h3>${escapeHtml(table.title)}</h3><table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>${note}</section>`;
}
