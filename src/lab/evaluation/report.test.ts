import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderTextTable } from '../../domain/reports/report-tables.ts';
import { escapeHtml, niceMax } from '../../domain/reports/svg-charts.ts';
import { computeMetrics, type EvaluatedRow } from './metrics.ts';
import { formatRate, metricsTables, renderHtmlReport, renderTextReport } from './report.ts';

const rows: EvaluatedRow[] = [
  {
    truth: { voterbaseIds: ['A'], pattern: 'ids', errors: [] },
    candidates: [{ voterbaseId: 'A', score: 100, method: 'voter_id' }],
  },
  {
    truth: { voterbaseIds: ['B'], pattern: 'ids', errors: ['typo'] },
    candidates: [{ voterbaseId: 'X', score: 85, method: 'voter_id' }],
  },
  { truth: { voterbaseIds: [], pattern: '<b>evil</b>', errors: ['near_twin'] }, candidates: [] },
];
const metrics = computeMetrics(rows, 2);

describe('text report', () => {
  test('rates with 4 decimals, n/a for undefined ones', () => {
    assert.equal(formatRate(0.5), '0.5000');
    assert.equal(formatRate(null), 'n/a');
  });

  test('tables are aligned: numbers right, labels left, no trailing spaces', () => {
    const text = renderTextTable({
      title: 'T',
      headers: ['name', 'n'],
      align: ['l', 'r'],
      rows: [
        ['a', '1'],
        ['long name', '100'],
      ],
      note: 'note',
    });
    assert.equal(
      text,
      ['T', 'name         n', '---------  ---', 'a            1', 'long name  100', 'note'].join('\n'),
    );
  });

  test('the whole report lists every section and the context facts', () => {
    const text = renderTextReport(metrics, { title: 'Run', facts: [['matcher', 'deterministic']] });
    for (const title of metricsTables(metrics).map((t) => t.title)) assert.ok(text.includes(title), title);
    assert.match(text, /matcher {2}deterministic/);
    assert.match(text, /recall@1 {2}recall@2/);
    assert.match(text, /^ +3 +2 +1 +2 +1 +0\.5000 +0\.5000 +0\.5000 +0\.6667 +1 +0 +0$/m);
  });
});

describe('HTML report', () => {
  const html = renderHtmlReport(metrics, { title: 'Report <1>', facts: [['list', 'a&b.csv']] });

  test('self-contained: no scripts, no external resources', () => {
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /\b(src|href)=/i);
    assert.doesNotMatch(html, /url\(/i);
    assert.equal(html.match(/https?:\/\//g)?.length, 4, 'only the four SVG namespace declarations');
  });

  test('four charts with titles, and the tables', () => {
    assert.equal(html.match(/<svg /g)?.length, 4);
    for (const title of [
      'Precision and recall by acceptance threshold',
      'Match rate, precision and recall per input pattern',
      'Scores of true and false best matches',
      'Calibration: fraction correct by score band',
    ]) {
      assert.ok(html.includes(`>${title}</title>`), title);
    }
    assert.equal(html.match(/<table>/g)?.length, metricsTables(metrics).length);
  });

  test('values from the data are escaped', () => {
    assert.ok(!html.includes('<b>evil</b>'));
    assert.ok(html.includes('&lt;b&gt;evil&lt;/b&gt;'));
    assert.ok(html.includes('<title>Report &lt;1&gt;</title>'));
    assert.ok(html.includes('a&amp;b.csv'));
    assert.equal(escapeHtml(`"'&`), '&quot;&#39;&amp;');
  });

  test('renders with no predictions at all (no NaN anywhere)', () => {
    const empty = renderHtmlReport(computeMetrics([], 1), { title: 'empty', facts: [] });
    assert.ok(!empty.includes('NaN'));
    assert.ok(!html.includes('NaN'));
    assert.equal(empty.match(/<svg /g)?.length, 4);
  });

  test('axis maxima are round numbers', () => {
    assert.equal(niceMax(0), 1);
    assert.equal(niceMax(0.37), 0.5);
    assert.equal(niceMax(7), 10);
    assert.equal(niceMax(180), 200);
    assert.equal(niceMax(230), 250);
  });
});
