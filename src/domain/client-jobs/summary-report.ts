/**
 * summary.html: the job summary as one page a person reads at a glance, delivered in the archive
 * next to summary.json. Self-contained (inline CSS and SVG, no scripts, no external URLs) so it
 * opens from a mail attachment or an SFTP download as it is. It shows counts only, never row
 * contents: no passthrough column names either, since a file without a header row has its first
 * data row taken as the header (so the formula-like cells are a total here, by column only in
 * summary.json). Every string printed is escaped.
 */
import { REPORT_STYLE, type ReportTable, renderHtmlTable } from '../reports/report-tables.ts';
import { escapeHtml, groupedBarChart, overlaidHistogram } from '../reports/svg-charts.ts';
import type { JobSummary } from './job-types.ts';

/** What the page says about the job besides its summary. */
export interface SummaryReportJob {
  /** The filename the client registered (printed escaped). */
  filename: string;
  maxMatches: number;
}

/** States drawn one bar each; the others are added up as `other` (a chart of 50 bars is unreadable). */
export const CHARTED_STATES = 15;

const COLORS = {
  matched: '#2ca02c',
  unmatched: '#d62728',
  method: '#1f77b4',
  state: '#9467bd',
  score: '#ff7f0e',
};

/** The whole page. */
export function renderSummaryHtml(summary: JobSummary, job: SummaryReportJob): string {
  const title = `Match summary: ${job.filename}`;
  const unmatched = summary.rows - summary.matchedRows;
  const headline: [string, string][] = [
    ['rows', count(summary.rows)],
    ['matched', count(summary.matchedRows)],
    ['match rate', percent(summary.matchRate)],
    ['not matched', count(unmatched)],
    ['warnings', count(summary.warnings.total)],
  ];
  const facts: [string, string][] = [
    ['File', job.filename],
    ['Rows', count(summary.rows)],
    ['Matched rows', count(summary.matchedRows)],
    ['Match rate', percent(summary.matchRate)],
    ['Result lines (all ranks)', count(summary.outputRows)],
    ['Best matches with near-equal runner-up', count(summary.ambiguousMatches)],
    ['Best matches that may be a household member (possible)', count(summary.possibleMatches ?? 0)],
    ['Matches per row (max_matches)', String(job.maxMatches)],
    ['Acceptance threshold (score)', String(summary.matchThreshold)],
    ['Voter file version', summary.voterFileVersion ?? 'none'],
    ['Started', summary.startedAt],
    ['Completed', summary.completedAt],
    ['Duration', duration(summary.durationMs)],
    ['Identifier columns used', summary.identifierColumns.join(', ') || 'none'],
    ['Other columns carried through', count(summary.passthroughColumns.length)],
  ];
  const formulas = summary.formulaCells?.total;
  if (formulas !== undefined)
    facts.push(['Cells of the list a spreadsheet would read as formulas', count(formulas)]);
  const formulaWarning =
    formulas !== undefined && formulas > 0
      ? `<p class="warning">${escapeHtml(formulaWarningText(formulas))}</p>\n`
      : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}${SUMMARY_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<div class="headline">${headline.map(([l, v]) => `<div>${escapeHtml(l)}<b>${escapeHtml(v)}</b></div>`).join('')}</div>
<dl class="facts">${facts.map(([l, v]) => `<dt>${escapeHtml(l)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
${formulaWarning}<h2>Charts</h2>
<div class="charts">
${summaryCharts(summary)
  .map((svg) => `<figure>${svg}</figure>`)
  .join('\n')}
</div>
<h2>Details</h2>
${summaryTables(summary).map(renderHtmlTable).join('\n')}
</body>
</html>
`;
}

const SUMMARY_STYLE = `
p.warning { border-left: 4px solid #d62728; background: #fdf2f2; padding: 6px 10px; max-width: 72em; }
`;

/** What the client should know about the formula-like cells returned as they sent them. */
function formulaWarningText(total: number): string {
  const cells = total === 1 ? 'cell of the uploaded list starts' : 'cells of the uploaded list start';
  return `${count(total)} ${cells} with =, +, -, @, a tab or a carriage return (and are not plain numbers). The client's columns are returned exactly as sent, so a spreadsheet opening the result may run these as formulas; summary.json counts them per column.`;
}

/** Match rate, matches by method, by state of the matched voter, best-match scores. */
export function summaryCharts(summary: JobSummary): string[] {
  const share = (n: number, total: number) => (total === 0 ? 0 : n / total);
  const methods = byCountDesc(summary.matchesByMethod);
  const states = chartedStates(summary.matchesByState);
  return [
    groupedBarChart({
      id: 'chart-match-rate',
      title: 'Rows matched and not matched',
      yLabel: 'share of rows',
      categories: ['matched', 'not matched'],
      series: [
        {
          name: `share of ${summary.rows} rows`,
          color: COLORS.matched,
          values: [
            share(summary.matchedRows, summary.rows),
            share(summary.rows - summary.matchedRows, summary.rows),
          ],
        },
      ],
    }),
    groupedBarChart({
      id: 'chart-methods',
      title: 'Matches by method (of the best match)',
      yLabel: 'share of matched rows',
      categories: methods.map(([method]) => method),
      series: [
        {
          name: `share of ${summary.matchedRows} matched rows`,
          color: COLORS.method,
          values: methods.map(([, n]) => share(n, summary.matchedRows)),
        },
      ],
    }),
    groupedBarChart({
      id: 'chart-states',
      title: 'Matches by state of the matched voter',
      yLabel: 'share of matched rows',
      categories: states.map(([state]) => state),
      series: [
        {
          name: `share of ${summary.matchedRows} matched rows`,
          color: COLORS.state,
          values: states.map(([, n]) => share(n, summary.matchedRows)),
        },
      ],
    }),
    overlaidHistogram({
      id: 'chart-scores',
      title: 'Scores of the best matches',
      xLabel: 'score of the best match (100: an id match)',
      yLabel: 'matched rows',
      bins: summary.bestScoreHistogram,
      series: [
        {
          name: `best matches (${summary.matchedRows})`,
          color: COLORS.score,
          values: summary.bestScoreHistogram.map((band) => band.count),
          labels: summary.bestScoreHistogram.map(
            (band) => `score ${band.from}-${band.to}: ${band.count} rows`,
          ),
        },
      ],
    }),
  ];
}

/** The counts behind the charts, and what went wrong: unmatched reasons, input problems, warnings. */
export function summaryTables(summary: JobSummary): ReportTable[] {
  const countTable = (
    title: string,
    label: string,
    counts: Record<string, number>,
    of: number,
    ofName: string,
  ) => ({
    title,
    headers: [label, 'rows', `share of ${ofName}`],
    align: ['l', 'r', 'r'] as ('l' | 'r')[],
    rows: byCountDesc(counts).map(([key, n]) => [key, count(n), percent(of === 0 ? 0 : n / of)]),
  });
  const warnings = summary.warnings;
  return [
    countTable('Matches by method', 'method', summary.matchesByMethod, summary.matchedRows, 'matched rows'),
    countTable('Matches by state', 'state', summary.matchesByState, summary.matchedRows, 'matched rows'),
    {
      ...countTable(
        'Why rows were not matched',
        'reason',
        summary.unmatchedReasons,
        summary.rows,
        'all rows',
      ),
      ...reasonNote(summary.unmatchedReasons),
    },
    {
      ...countTable(
        'Input problems (values present but unusable)',
        'problem',
        summary.inputProblems,
        summary.rows,
        'all rows',
      ),
      note: 'A row can have several problems; a row with a problem can still be matched on its other values.',
    },
    {
      title: 'Warnings by kind',
      headers: ['kind', 'count'],
      align: ['l', 'r'],
      rows: byCountDesc(warnings.byKind).map(([kind, n]) => [kind, count(n)]),
    },
    {
      title:
        warnings.first.length < warnings.total
          ? `Warnings (the first ${warnings.first.length} of ${warnings.total})`
          : 'Warnings',
      headers: ['message'],
      align: ['l'],
      rows: warnings.first.map((message) => [message]),
    },
  ];
}

/** What the common reasons mean, in words (the others are value problems such as `invalid_phone`). */
const REASONS: Record<string, string> = {
  no_candidates: 'no voter came close',
  below_threshold: 'voters came close, but none scored at or above the threshold',
  name_only: 'nothing besides a name that could confirm a match',
  empty_row: 'no identifier values',
  no_usable_values: 'no value the matcher could use',
  id_not_found: 'the id is not in the voter file',
  id_without_valid_state: 'voter_id or smartvan_id without a valid state',
  no_id_values: 'no id values (ids only matching)',
};

function reasonNote(reasons: Record<string, number>): { note?: string } {
  const known = Object.keys(reasons)
    .filter((reason) => Object.hasOwn(REASONS, reason))
    .sort();
  return known.length === 0
    ? {}
    : { note: known.map((reason) => `${reason}: ${REASONS[reason]}`).join('; ') };
}

/** The most frequent states, then the rest added up as `other`. */
function chartedStates(counts: Record<string, number>): [string, number][] {
  const sorted = byCountDesc(counts);
  if (sorted.length <= CHARTED_STATES) return sorted;
  const shown = sorted.slice(0, CHARTED_STATES - 1);
  const other = sorted.slice(CHARTED_STATES - 1).reduce((sum, [, n]) => sum + n, 0);
  return [...shown, ['other', other]];
}

/** Entries by count, most first; equal counts by name so the page is the same on every run. */
const byCountDesc = (counts: Record<string, number>): [string, number][] =>
  Object.entries(counts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));

const count = (n: number): string => n.toLocaleString('en-US');
const percent = (rate: number): string => `${(rate * 100).toFixed(1)} %`;

/** `850 ms`, `12.3 s`, `4 min 05 s`, `1 h 02 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
  const minutes = Math.round(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
