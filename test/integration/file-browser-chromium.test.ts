/**
 * The web file browser in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
 * a client signs in with its API key, sees the result a completed job dropped in its folder,
 * downloads it, and a screenshot is saved. Without Chromium the test fails under CI=true and is
 * skipped, with the reason printed, otherwise.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, skipWithoutChromium } from '../support/chromium.ts';
import { deliveryArchive, jobIdOf } from '../support/delivery-archive.ts';
import {
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';

describe('web file browser in headless Chromium', () => {
  let dir: string;
  let t: TestService;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-file-browser-'));
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', DELIVERY_RETRY_BASE_SECONDS: '0.05' });
  });
  after(async () => {
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('sign in with the API key, see the delivered result, download it; screenshot saved', async (ctx) => {
    if (skipWithoutChromium(ctx)) return;
    const client = await t.createKey({ name: 'Acme Campaign' });
    const url = await register(t, client.key, 'filename=acme_members.csv');
    await upload(url, 'voterbase_id\nNC-000000001\n');
    assert.equal((await waitForResult(t, client.key, 'acme_members.csv')).error, null);
    const archive = await deliveryArchive(t, await jobIdOf(t, client.id, 'acme_members.csv'));
    const delivered = join(t.dataDir, 'files', client.id, 'smartmatch', 'acme_members.zip');
    const deadline = Date.now() + 15_000;
    while (!existsSync(delivered)) {
      if (Date.now() > deadline) assert.fail('the result was not delivered to the folder');
      await new Promise((r) => setTimeout(r, 50));
    }

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const context = await browser.newContext({
        acceptDownloads: true,
        viewport: { width: 1000, height: 640 },
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));

      await page.goto(`${t.base}/browse`);
      assert.equal(await page.title(), 'Sign in: listmatch files');
      await page.fill('#api_key', client.key);
      // The form posts to /browse/sign-in, which answers 303 back to /browse (the same URL as before).
      const [signInResponse] = await Promise.all([
        page.waitForResponse((response) => response.url() === `${t.base}/browse/sign-in`),
        page.click('button[type=submit]'),
      ]);
      assert.equal(signInResponse.status(), 303);
      await page.waitForSelector('text=Signed in as');
      assert.equal(page.url(), `${t.base}/browse`);
      assert.equal(await page.title(), 'smartmatch: listmatch files');
      assert.match((await page.locator('p.sub').textContent()) ?? '', /Signed in as Acme Campaign/);
      const link = page.locator('a[href="/browse/files/acme_members.zip"]');
      assert.equal(await link.textContent(), 'acme_members.zip');

      const screenshot = join(dir, 'file-browser.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.ok((await stat(screenshot)).size > 5_000, 'the screenshot has content');

      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'acme_members.zip');
      const saved = join(dir, 'downloaded.zip');
      await download.saveAs(saved);
      assert.deepEqual(await readFile(saved), archive);

      const cookies = await context.cookies();
      const session = cookies.find((cookie) => cookie.name === 'lm_files');
      assert.ok(session !== undefined, 'a session cookie');
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, 'Strict');
      assert.ok(!session.value.includes(client.key));
      assert.ok(
        requested.every((address) => !address.includes(client.key)),
        'the key never appears in a requested URL',
      );
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });
});
