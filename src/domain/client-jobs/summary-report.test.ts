import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JobSummary } from './job-types.ts';
import { CHARTED_STATES, duration, renderSummaryHtml } from './summary-report.ts';

const bands = (counts: Record<number, number>) =>
  Array.from({ length: 20 }, (_, b) => ({
    from: b * 5,
    to: b === 19 ? 100 : b * 5 + 4,
    count: counts[b * 5] ?? 0,
  }));

const SUMMARY: JobSummary = {
  rows: 1234,
  matchedRows: 1000,
  outputRows: 1400,
  matchRate: 0.8104,
  matchesByMethod: { voter_id: 600, name_address: 400 },
  matchesByState: { NC: 700, OH: 300 },
  bestScoreHistogram: bands({ 95: 800, 70: 200 }),
  unmatchedReasons: { no_candidates: 200, '<img src=x onerror=alert(1)>': 34 },
  inputProblems: { invalid_phone: 12 },
  ambiguousMatches: 7,
  identifierColumns: ['voter_id', 'state', 'first_name'],
  // A headerless file: its first data row became the header. Never printed.
  passthroughColumns: ['Jane Q. Private', '555-0199', 'jane@private.example'],
  warnings: {
    total: 3,
    byKind: { ragged_row: 2, '"kind"': 1 },
    first: ['line 7: 3 fields, header has 4', '</td><script>alert("x")</script>'],
  },
  voterFileVersion: 'v2026-11-01',
  matchThreshold: 60,
  startedAt: '2026-11-21T14:00:00.000Z',
  completedAt: '2026-11-21T14:01:05.000Z',
  durationMs: 65_000,
};

describe('summary.html', () => {
  const html = renderSummaryHtml(SUMMARY, { filename: 'list_<b>&"x"', maxMatches: 3 });

  it('shows the job facts', () => {
    for (const fact of [
      '<dt>Rows</dt><dd>1,234</dd>',
      '<dt>Matched rows</dt><dd>1,000</dd>',
      '<dt>Match rate</dt><dd>81.0 %</dd>',
      '<dt>Duration</dt><dd>1 min 05 s</dd>',
      '<dt>Voter file version</dt><dd>v2026-11-01</dd>',
      '<dt>Acceptance threshold (score)</dt><dd>60</dd>',
      '<dt>Matches per row (max_matches)</dt><dd>3</dd>',
      '<dt>Other columns carried through</dt><dd>3</dd>',
    ]) {
      assert.ok(html.includes(fact), fact);
    }
  });

  it('has the four charts with their marks, and the tables', () => {
    assert.equal(html.match(/<svg /g)?.length, 4);
    for (const title of [
      'Rows matched and not matched',
      'Matches by method (of the best match)',
      'Matches by state of the matched voter',
      'Scores of the best matches',
    ]) {
      assert.ok(html.includes(`>${title}</title>`), title);
    }
    assert.equal(html.match(/<rect [^>]*class="bar"/g)?.length, 2 + 2 + 2 + 2);
    assert.ok(html.includes('<title>NC: share of 1000 matched rows 0.7000</title>'));
    assert.ok(html.includes('<title>score 95-100: 800 rows</title>'));
    for (const table of [
      'Why rows were not matched',
      'Input problems',
      'Warnings by kind',
      'Matches by state',
    ]) {
      assert.ok(html.includes(`<h3>${table}`), table);
    }
    assert.match(html, /<td>no_candidates<\/td><td class="r">200<\/td><td class="r">16\.2 %<\/td>/);
    assert.ok(html.includes('<td>line 7: 3 fields, header has 4</td>'));
    assert.ok(
      html.includes('<p class="note">no_candidates: no voter came close</p>'),
      'known reasons explained',
    );
  });

  it('is self-contained: no scripts, no external resources', () => {
    assert.doesNotMatch(html, /<script/i);
    // In a tag: the hostile reason's `src=` is escaped text, not an attribute.
    assert.doesNotMatch(html, /<[^>]*\b(src|href)=/i);
    assert.doesNotMatch(html, /url\(/i);
    assert.equal(html.match(/https?:\/\//g)?.length, 4, 'only the four SVG namespace declarations');
  });

  it('escapes every string from the job: filename, reasons, warning kinds and messages', () => {
    assert.ok(html.includes('<title>Match summary: list_&lt;b&gt;&amp;&quot;x&quot;</title>'));
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(html.includes('&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(html.includes('&quot;kind&quot;'));
    assert.ok(!html.includes('list_<b>'));
    assert.doesNotMatch(html, /<img|<script|<\/td><script/);
  });

  it('prints no row contents: not the passthrough column names, which may be a data row', () => {
    for (const value of SUMMARY.passthroughColumns) assert.ok(!html.includes(value), value);
  });

  it("says how many of the client's cells a spreadsheet would read as formulas, never which columns", () => {
    const flagged = renderSummaryHtml(
      { ...SUMMARY, formulaCells: { total: 1042, byColumn: { matchback_id: 1040, 'Jane Q. Private': 2 } } },
      { filename: 'x', maxMatches: 1 },
    );
    assert.ok(
      flagged.includes('<dt>Cells of the list a spreadsheet would read as formulas</dt><dd>1,042</dd>'),
      'the count among the facts',
    );
    assert.match(flagged, /<p class="warning">1,042 cells of the uploaded list start with/);
    assert.ok(!flagged.includes('Jane Q. Private'), 'column names are not printed');
    assert.ok(!flagged.includes('matchback_id'), 'column names are not printed');
    const clean = renderSummaryHtml(
      { ...SUMMARY, formulaCells: { total: 0, byColumn: {} } },
      { filename: 'x', maxMatches: 1 },
    );
    assert.ok(clean.includes('<dt>Cells of the list a spreadsheet would read as formulas</dt><dd>0</dd>'));
    assert.doesNotMatch(clean, /class="warning"/);
  });

  it('charts the most frequent states and adds up the rest as other', () => {
    const states = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`S${String(i).padStart(2, '0')}`, 30 - i]),
    );
    const many = renderSummaryHtml(
      { ...SUMMARY, matchesByState: states, matchedRows: 465 },
      { filename: 'x', maxMatches: 1 },
    );
    const chart = many.slice(many.indexOf('id="chart-states"'), many.indexOf('id="chart-scores"'));
    assert.equal(chart.match(/class="bar"/g)?.length, CHARTED_STATES);
    // S14..S29 hold 16 + 15 + … + 1 = 136 matches.
    assert.ok(chart.includes(`<title>other: share of 465 matched rows ${(136 / 465).toFixed(4)}</title>`));
    // The table still lists every state.
    assert.ok(many.includes('<td>S29</td>'));
  });

  it('renders a job without matches (empty charts, (none) tables)', () => {
    const none = renderSummaryHtml(
      {
        ...SUMMARY,
        matchedRows: 0,
        matchRate: 0,
        matchesByMethod: {},
        matchesByState: {},
        bestScoreHistogram: bands({}),
      },
      { filename: 'x', maxMatches: 1 },
    );
    assert.equal(none.match(/<svg /g)?.length, 4);
    assert.ok(none.includes('<td colspan="3">(none)</td>'));
    assert.doesNotMatch(none, /NaN|Infinity/);
  });

  it('durations read naturally', () => {
    assert.equal(duration(850), '850 ms');
    assert.equal(duration(12_340), '12.3 s');
    assert.equal(duration(245_000), '4 min 05 s');
    assert.equal(duration(3_720_000), '1 h 02 min');
  });
});
