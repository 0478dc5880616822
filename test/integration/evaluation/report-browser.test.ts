/**
 * Opens the HTML evaluation report in headless Chromium (the Debian package at
 * /usr/bin/chromium, driven by playwright-core) and checks that the charts render.
 * Without Chromium the test fails under CI=true and is skipped, with the reason printed, otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { computeMetrics, type EvaluatedRow } from '../../../src/lab/evaluation/metrics.ts';
import { renderHtmlReport } from '../../../src/lab/evaluation/report.ts';
import { CHROMIUM, CHROMIUM_ARGS, skipWithoutChromium } from '../../support/chromium.ts';

const TITLE = 'listmatch evaluation: browser test';
const CHART_TITLES = [
  'Precision and recall by acceptance threshold',
  'Match rate, precision and recall per input pattern',
  'Scores of true and false best matches',
  'Calibration: fraction correct by score band',
];

/** A varied, deterministic set of rows: several patterns, tags, methods and scores. */
function sampleRows(): EvaluatedRow[] {
  const patterns = ['ids', 'name_address', 'name_dob', 'email', 'phone'];
  const rows: EvaluatedRow[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 2000; i++) {
    const pattern = patterns[i % patterns.length]!;
    const member = next() < 0.8;
    const score = Math.round(pattern === 'ids' ? 100 : 30 + next() * 70);
    const correct = member && next() < score / 100;
    const predicted = next() < (pattern === 'phone' ? 0.5 : 0.9);
    rows.push({
      truth: { voterbaseIds: member ? [`V${i}`] : [], pattern, errors: next() < 0.3 ? ['typo'] : [] },
      candidates: predicted
        ? [
            {
              voterbaseId: correct ? `V${i}` : `W${i}`,
              score,
              method: pattern === 'ids' ? 'voterbase_id' : 'probabilistic',
            },
            {
              voterbaseId: member ? `V${i}` : `X${i}`,
              score: Math.max(0, score - 10),
              method: 'probabilistic',
            },
          ]
        : [],
    });
  }
  return rows;
}

describe('HTML report in headless Chromium', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-report-browser-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('renders the four charts and the tables; saves a screenshot', async (t) => {
    if (skipWithoutChromium(t)) return;
    const reportPath = join(dir, 'report.html');
    const html = renderHtmlReport(computeMetrics(sampleRows(), 2), {
      title: TITLE,
      facts: [['matcher', 'test']],
    });
    await writeFile(reportPath, html);

    // A fresh profile in the test's temp dir (Playwright takes it as the persistent context's
    // user data dir and passes it as --user-data-dir).
    const browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      viewport: { width: 1200, height: 900 },
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      // The report is self-contained: any request beyond the file itself is a bug.
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(reportPath).href);

      assert.equal(await page.title(), TITLE);
      assert.equal(await page.locator('svg').count(), 4);
      const titles = await page.locator('svg > title').allTextContents();
      assert.deepEqual(titles, CHART_TITLES);
      for (let i = 0; i < 4; i++) {
        const box = await page.locator('svg').nth(i).boundingBox();
        assert.ok(
          box !== null && box.width > 300 && box.height > 100,
          `chart ${i} is laid out: ${JSON.stringify(box)}`,
        );
      }
      // Marks are drawn: threshold lines, pattern bars, histogram bars, calibration points.
      assert.equal(await page.locator('#chart-threshold path.series').count(), 3);
      assert.ok((await page.locator('#chart-patterns rect.bar').count()) >= 12);
      assert.ok((await page.locator('#chart-scores rect.bar').count()) >= 2);
      assert.ok((await page.locator('#chart-calibration circle.point').count()) >= 2);
      assert.ok((await page.locator('table').count()) >= 7);
      assert.match((await page.locator('h1').textContent()) ?? '', /browser test/);
      assert.deepEqual(problems, []);
      assert.deepEqual(requests, [pathToFileURL(reportPath).href]);

      const screenshot = join(dir, 'report.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.ok((await stat(screenshot)).size > 10_000, 'the screenshot has content');
    } finally {
      await browser.close();
    }
  });
});
