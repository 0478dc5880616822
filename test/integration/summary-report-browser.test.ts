/**
 * Opens summary.html in headless Chromium (the Debian package at /usr/bin/chromium, driven by
 * playwright-core) and checks that it lays out, draws its charts and asks for nothing beyond the
 * file itself. Without Chromium the test fails under CI=true and is skipped, with the reason
 * printed, otherwise.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import type { JobSummary } from '../../src/domain/client-jobs/job-types.ts';
import { renderSummaryHtml } from '../../src/domain/client-jobs/summary-report.ts';
import { CHROMIUM, CHROMIUM_ARGS, skipWithoutChromium } from '../support/chromium.ts';

const SUMMARY: JobSummary = {
  rows: 25_000,
  matchedRows: 20_311,
  outputRows: 27_450,
  matchRate: 0.8124,
  matchesByMethod: { voter_id: 9000, name_address: 7000, name_dob: 3000, email: 1311 },
  matchesByState: Object.fromEntries(
    [
      'NC',
      'OH',
      'TX',
      'PA',
      'GA',
      'FL',
      'VA',
      'MI',
      'WI',
      'AZ',
      'NV',
      'NM',
      'CO',
      'MN',
      'IA',
      'ME',
      'NH',
      'VT',
    ].map((state, i) => [state, i === 0 ? 20_311 - 17 * 100 : 100]),
  ),
  bestScoreHistogram: Array.from({ length: 20 }, (_, b) => ({
    from: b * 5,
    to: b === 19 ? 100 : b * 5 + 4,
    count: b < 10 ? 0 : b === 19 ? 12_000 : 1_000 - b * 10,
  })),
  unmatchedReasons: { no_candidates: 3000, below_threshold: 1200, name_only: 489 },
  inputProblems: { invalid_phone: 300, invalid_dob: 120 },
  ambiguousMatches: 211,
  identifierColumns: ['voter_id', 'state', 'first_name', 'last_name', 'address1', 'zip'],
  passthroughColumns: ['matchback_id'],
  formulaCells: { total: 37, byColumn: { matchback_id: 37 } },
  warnings: {
    total: 2,
    byKind: { ragged_row: 2 },
    first: ['line 7: 3 fields, header has 4', 'line 9: 5 fields, header has 4'],
  },
  voterFileVersion: 'v2026-11-01',
  matchThreshold: 50,
  startedAt: '2026-11-21T14:00:00.000Z',
  completedAt: '2026-11-21T14:00:42.000Z',
  durationMs: 42_000,
};

describe('summary.html in headless Chromium', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-summary-browser-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('renders the four charts and the tables; saves a screenshot', async (t) => {
    if (skipWithoutChromium(t)) return;
    const path = join(dir, 'summary.html');
    await writeFile(path, renderSummaryHtml(SUMMARY, { filename: 'tmc_1a2b3c4d-5.csv', maxMatches: 3 }));
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
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(path).href);

      assert.equal(await page.title(), 'Match summary: tmc_1a2b3c4d-5.csv');
      assert.deepEqual(await page.locator('svg > title').allTextContents(), [
        'Rows matched and not matched',
        'Matches by method (of the best match)',
        'Matches by state of the matched voter',
        'Scores of the best matches',
      ]);
      for (let i = 0; i < 4; i++) {
        const box = await page.locator('svg').nth(i).boundingBox();
        assert.ok(box !== null && box.width > 300 && box.height > 100, `chart ${i}: ${JSON.stringify(box)}`);
      }
      assert.equal(await page.locator('#chart-match-rate rect.bar').count(), 2);
      assert.equal(await page.locator('#chart-methods rect.bar').count(), 4);
      assert.equal(await page.locator('#chart-states rect.bar').count(), 15);
      assert.equal(await page.locator('#chart-scores rect.bar').count(), 10);
      assert.equal(await page.locator('table').count(), 6);
      const warning = await page.locator('p.warning').boundingBox();
      assert.ok(warning !== null && warning.height > 10, `formula warning: ${JSON.stringify(warning)}`);
      assert.deepEqual(problems, []);
      assert.deepEqual(requests, [pathToFileURL(path).href]);
      const screenshot = join(dir, 'summary.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.ok((await stat(screenshot)).size > 10_000, 'the screenshot has content');
    } finally {
      await browser.close();
    }
  });
});
