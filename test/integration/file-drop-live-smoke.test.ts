import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { fileDropPlatformsFromConfig } from '../../src/start/platforms.ts';
import { sha256, stagedFromRows } from '../support/audience-files.ts';

/**
 * Against the real platforms, only when asked (LISTMATCH_LIVE_SMOKE=1) and configured
 * (POLITICALDSP_URL / MBP_URL with their tokens): creates one small, clearly named audience on
 * each and uploads two synthetic rows. It leaves those audiences behind: delete them by hand.
 */
const live = process.env['LISTMATCH_LIVE_SMOKE'] === '1';
const platforms = live ? fileDropPlatformsFromConfig(loadConfig()) : { politicaldsp: null, mbp: null };
/** Optional: runs only against a live platform the operator configured, with LISTMATCH_LIVE_SMOKE=1. */
const skipReason = (variables: string) =>
  live
    ? `${variables} are not set`
    : `optional live test: set LISTMATCH_LIVE_SMOKE=1 and ${variables} to run it`;
const name = `listmatch-smoke-${new Date().toISOString().slice(0, 19).replace(/\D/g, '')}`;

describe('file-drop platforms, live smoke test', () => {
  it('politicaldsp: create, upload, then wait for its e-mail', {
    skip: platforms.politicaldsp === null && skipReason('POLITICALDSP_URL and POLITICALDSP_TOKEN'),
  }, async () => {
    const dsp = platforms.politicaldsp!;
    const created = await dsp.createAudience({ name, description: 'listmatch smoke test; safe to delete' });
    const file = await stagedFromRows(dsp.profile, ['EMAIL'], [{ EMAIL: sha256('smoke-test@example.com') }]);
    await dsp.upload(created.audienceId, file, created.upload);
    assert.deepEqual(await dsp.status(created.audienceId), { state: 'awaiting_external_notification' });
  });

  it('media buying platform: create, upload, read the status', {
    skip: platforms.mbp === null && skipReason('MBP_URL and MBP_TOKEN'),
  }, async () => {
    const mbp = platforms.mbp!;
    const created = await mbp.createAudience({ name, description: 'listmatch smoke test; safe to delete' });
    const file = await stagedFromRows(mbp.profile, ['EMAIL'], [{ EMAIL: 'smoke-test@example.com' }]);
    await mbp.upload(created.audienceId, file, created.upload);
    const status = await mbp.status(created.audienceId);
    assert.ok(['processing', 'ready', 'failed'].includes(status.state), status.state);
  });
});
