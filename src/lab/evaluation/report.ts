/**
 * Renders {@link EvaluationMetrics}: as plain-text tables for the terminal, and as one
 * self-contained HTML file (inline CSS and SVG, no scripts, no external assets) with the
 * precision-recall curve over the acceptance threshold, match rate and precision/recall per
 * pattern, the score histograms of true and false matches, the calibration plot, and the tables.
 * Every value taken from the data (patterns, tags, methods, file names) is escaped.
 */

import {
  REPORT_STYLE,
  type ReportTable,
  renderHtmlTable,
  renderTextTable,
} from '../../domain/reports/report-tables.ts';
import {
  calibrationChart,
  escapeHtml,
  groupedBarChart,
  lineChart,
  overlaidHistogram,
} from '../../domain/reports/svg-charts.ts';
import type { EvaluationMetrics, QualityFigures } from './metrics.ts';
import { CEILING_PRECISION, type OracleFigures, type OracleResult } from './oracle.ts';

/** What the report says about the run besides the metrics. */
export interface ReportContext {
  title: string;
  /** [label, value] lines: inputs, matcher, timings. */
  facts: readonly (readonly [string, string])[];
}

/** Thresholds listed in the text table of the threshold curve (the HTML chart has all 0..100). */
export const LISTED_THRESHOLDS = [0, 50, 60, 70, 80, 85, 90, 95, 99, 100] as const;

/** A rate with 4 decimals, or `n/a` when it is undefined (for example no predictions). */
export const formatRate = (value: number | null): string => (value === null ? 'n/a' : value.toFixed(4));
const int = (value: number): string => String(value);

const QUALITY_HEADERS = [
  'rows',
  'members',
  'non-members',
  'predictions',
  'correct',
  'precision',
  'recall',
  'F1',
  'match rate',
];
const qualityCells = (f: QualityFigures): string[] => [
  int(f.rows),
  int(f.members),
  int(f.nonMembers),
  int(f.predictions),
  int(f.correct),
  formatRate(f.precision),
  formatRate(f.recall),
  formatRate(f.f1),
  formatRate(f.matchRate),
];

/** The report's tables, in print order. */
export function metricsTables(metrics: EvaluationMetrics): ReportTable[] {
  const o = metrics.overall;
  const ks = Array.from({ length: metrics.maxK }, (_, i) => i + 1);
  const byThreshold = new Map(metrics.thresholdCurve.map((p) => [p.threshold, p]));
  return [
    {
      title: 'Overall (best match = rank 1)',
      headers: [...QUALITY_HEADERS, 'wrong voter', 'non-member matched', 'tied at rank 1'],
      align: QUALITY_HEADERS.map(() => 'r' as const).concat(['r', 'r', 'r']),
      rows: [[...qualityCells(o), int(o.wrongVoter), int(o.nonMemberPredicted), int(o.tiedAtRank1)]],
      note: 'precision = correct / predictions; recall = correct / members; F1 = 2PR / (P + R); match rate = predictions / rows.',
    },
    {
      title: 'Per input pattern',
      headers: ['pattern', ...QUALITY_HEADERS],
      align: ['l', ...QUALITY_HEADERS.map(() => 'r' as const)],
      rows: metrics.byPattern.map((p) => [p.pattern, ...qualityCells(p)]),
    },
    {
      title: 'Recall@k (a true voter among ranks 1..k)',
      headers: ['group', 'members', ...ks.map((k) => `recall@${k}`)],
      align: ['l', 'r', ...ks.map(() => 'r' as const)],
      rows: [
        ['overall', int(o.members), ...o.recallAtK.map(formatRate)],
        ...metrics.byPattern.map((p) => [
          `pattern ${p.pattern}`,
          int(p.members),
          ...p.recallAtK.map(formatRate),
        ]),
      ],
    },
    {
      title: 'Best matches per method',
      headers: ['method', 'predictions', 'share', 'correct', 'precision'],
      align: ['l', 'r', 'r', 'r', 'r'],
      rows: metrics.byMethod.map((m) => [
        m.method,
        int(m.predictions),
        formatRate(m.share),
        int(m.correct),
        formatRate(m.precision),
      ]),
    },
    {
      title: 'Per error tag (a row with several tags counts under each)',
      headers: ['error tag', 'rows', 'members', 'predictions', 'correct', 'precision', 'recall'],
      align: ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
      rows: metrics.byErrorTag.map((t) => [
        t.tag,
        int(t.rows),
        int(t.members),
        int(t.predictions),
        int(t.correct),
        formatRate(t.precision),
        formatRate(t.recall),
      ]),
    },
    {
      title: 'Calibration (best matches by score band)',
      headers: ['score band', 'count', 'correct', 'fraction correct', 'mean score'],
      align: ['l', 'r', 'r', 'r', 'r'],
      rows: metrics.calibration.map((b) => [
        `${b.from}-${b.to}`,
        int(b.count),
        int(b.correct),
        formatRate(b.fractionCorrect),
        b.meanScore === null ? 'n/a' : b.meanScore.toFixed(1),
      ]),
      note: `expected calibration error (ECE = Σ count/N · |fraction correct − mean score/100|): ${formatRate(metrics.expectedCalibrationError)}`,
    },
    {
      title: 'Acceptance threshold (keep best matches with score ≥ t)',
      headers: ['threshold', 'accepted', 'correct', 'precision', 'recall', 'match rate'],
      align: ['r', 'r', 'r', 'r', 'r', 'r'],
      rows: LISTED_THRESHOLDS.map((t) => byThreshold.get(t))
        .filter((p) => p !== undefined)
        .map((p) => [
          int(p.threshold),
          int(p.predictions),
          int(p.correct),
          formatRate(p.precision),
          formatRate(p.recall),
          formatRate(p.matchRate),
        ]),
    },
  ];
}

/** The whole report for a terminal: the facts, then every table. */
export function renderTextReport(metrics: EvaluationMetrics, context?: ReportContext): string {
  const parts: string[] = [];
  if (context) {
    const width = Math.max(0, ...context.facts.map(([label]) => label.length));
    parts.push([context.title, ...context.facts.map(([l, v]) => `  ${l.padEnd(width)}  ${v}`)].join('\n'));
  }
  for (const table of metricsTables(metrics)) parts.push(renderTextTable(table));
  return `${parts.join('\n\n')}\n`;
}

const COLORS = {
  precision: '#1f77b4',
  recall: '#ff7f0e',
  matchRate: '#2ca02c',
  correct: '#2ca02c',
  incorrect: '#d62728',
};

/** The report's charts as inline SVG strings, in print order. */
export function metricsCharts(metrics: EvaluationMetrics): string[] {
  const curve = metrics.thresholdCurve;
  const patterns = metrics.byPattern;
  const correctTotal = metrics.scoreHistogram.reduce((s, b) => s + b.correct, 0);
  const incorrectTotal = metrics.scoreHistogram.reduce((s, b) => s + b.incorrect, 0);
  const share = (count: number, total: number) => (total === 0 ? 0 : count / total);
  return [
    lineChart({
      id: 'chart-threshold',
      title: 'Precision and recall by acceptance threshold',
      xLabel: 'acceptance threshold (keep best matches with score ≥ t)',
      yLabel: 'rate',
      xMax: 100,
      series: [
        { name: 'precision', color: COLORS.precision, values: curve.map((p) => p.precision) },
        { name: 'recall', color: COLORS.recall, values: curve.map((p) => p.recall) },
        { name: 'match rate', color: COLORS.matchRate, values: curve.map((p) => p.matchRate) },
      ],
    }),
    groupedBarChart({
      id: 'chart-patterns',
      title: 'Match rate, precision and recall per input pattern',
      yLabel: 'rate',
      categories: patterns.map((p) => p.pattern),
      series: [
        { name: 'match rate', color: COLORS.matchRate, values: patterns.map((p) => p.matchRate) },
        { name: 'precision', color: COLORS.precision, values: patterns.map((p) => p.precision) },
        { name: 'recall', color: COLORS.recall, values: patterns.map((p) => p.recall) },
      ],
    }),
    overlaidHistogram({
      id: 'chart-scores',
      title: 'Scores of true and false best matches',
      xLabel: 'score of the best match',
      yLabel: 'share of its class',
      bins: metrics.scoreHistogram,
      series: [
        {
          name: `true matches (${correctTotal})`,
          color: COLORS.correct,
          values: metrics.scoreHistogram.map((b) => share(b.correct, correctTotal)),
          labels: metrics.scoreHistogram.map((b) => `score ${b.from}-${b.to}: ${b.correct} true matches`),
        },
        {
          name: `false matches (${incorrectTotal})`,
          color: COLORS.incorrect,
          values: metrics.scoreHistogram.map((b) => share(b.incorrect, incorrectTotal)),
          labels: metrics.scoreHistogram.map((b) => `score ${b.from}-${b.to}: ${b.incorrect} false matches`),
        },
      ],
    }),
    calibrationChart({
      id: 'chart-calibration',
      title: 'Calibration: fraction correct by score band',
      points: metrics.calibration
        .filter((b) => b.count > 0 && b.meanScore !== null && b.fractionCorrect !== null)
        .map((b) => ({
          x: b.meanScore!,
          y: b.fractionCorrect!,
          count: b.count,
          label: `score ${b.from}-${b.to}: ${b.correct} of ${b.count} correct (${formatRate(b.fractionCorrect)})`,
        })),
    }),
  ];
}

/** The whole report as one HTML document. */
export function renderHtmlReport(metrics: EvaluationMetrics, context: ReportContext): string {
  const o = metrics.overall;
  const headline: [string, string][] = [
    ['precision', formatRate(o.precision)],
    ['recall', formatRate(o.recall)],
    ['F1', formatRate(o.f1)],
    ['match rate', formatRate(o.matchRate)],
    ['rows', int(o.rows)],
    ['ECE', formatRate(metrics.expectedCalibrationError)],
  ];
  const facts = context.facts
    .map(([label, value]) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const tables = metricsTables(metrics).map(renderHtmlTable).join('\n');
  const charts = metricsCharts(metrics)
    .map((svg) => `<figure>${svg}</figure>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(context.title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(context.title)}</h1>
<dl class="facts">${facts}</dl>
<div class="headline">${headline.map(([l, v]) => `<div>${escapeHtml(l)}<b>${escapeHtml(v)}</b></div>`).join('')}</div>
<h2>Charts</h2>
<div class="charts">
${charts}
</div>
<h2>Tables</h2>
${tables}
</body>
</html>
`;
}

/**
 * Recall against the oracle ceiling per error tag (oracle.ts): the members, how many of them
 * another voter agrees with as well as their own (no matcher can tell those apart), the
 * ceiling, and recall as a share of it.
 */
export function oracleTable(metrics: EvaluationMetrics, oracle: OracleResult): ReportTable {
  const recallOf = new Map(metrics.byErrorTag.map((t) => [t.tag, t.recall]));
  const row = (name: string, figures: OracleFigures, recall: number | null | undefined) => [
    name,
    int(figures.members),
    int(figures.ambiguous),
    int(figures.notFound),
    formatRate(figures.ceiling),
    formatRate(recall ?? null),
    recall == null || figures.ceiling === null || figures.ceiling === 0
      ? 'n/a'
      : (recall / figures.ceiling).toFixed(4),
    formatRate(figures.ceilingAtPrecision),
    recall == null || figures.ceilingAtPrecision === null || figures.ceilingAtPrecision === 0
      ? 'n/a'
      : (recall / figures.ceilingAtPrecision).toFixed(4),
  ];
  return {
    title: 'Oracle ceiling per error tag (members only)',
    headers: [
      'error tag',
      'members',
      'ambiguous',
      'not found',
      'ceiling',
      'recall',
      'recall ÷ ceiling',
      `ceiling at precision ${CEILING_PRECISION}`,
      'recall ÷ it',
    ],
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    rows: [
      row('overall', oracle.overall, metrics.overall.recall),
      ...oracle.byErrorTag.map((t) => row(t.tag, t, recallOf.get(t.tag))),
    ],
    note: "ambiguous: another voter agrees with the row at least as well as the true voter on every field (candidate stage, up to 10 per row); not found: the candidate search missed the voter (the candidate stage's miss, outside the ceiling); ceiling = (members − ambiguous − not found) / members: what selection could reach. Ceiling at precision: the share of members a matcher deciding by the agreement profile (each field's level) could accept with its precision kept, the list's non-member rows whose best candidate shows the same profile counted against it.",
  };
}
