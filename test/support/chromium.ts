import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';

/** Debian's Chromium, driven by playwright-core (never a downloaded browser). */
export const CHROMIUM = '/usr/bin/chromium';
const INSTALL_HINT = 'apt-get update && apt-get install -y chromium';

/** Headless, and quiet on this machine's closed network (no background connections). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * True when the test must skip (and has): Chromium is missing on a developer's machine. Under
 * CI=true a missing Chromium fails the test instead.
 */
export function skipWithoutChromium(t: TestContext): boolean {
  if (existsSync(CHROMIUM)) return false;
  const reason = `Chromium is not installed at ${CHROMIUM} (install it with: ${INSTALL_HINT})`;
  if (process.env['CI'] === 'true') assert.fail(`${reason}; CI must have it`);
  console.log(`skipping the browser test: ${reason}`);
  t.skip(reason);
  return true;
}
