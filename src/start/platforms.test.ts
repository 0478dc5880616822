import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config.ts';
import { fileDropPlatformsFromConfig, metaSocialAudiencesFromConfig } from './platforms.ts';

test('the configured platforms are built from config; an unset URL leaves the platform out', () => {
  const platforms = fileDropPlatformsFromConfig(
    loadConfig({ MBP_URL: 'https://mbp.example', MBP_TOKEN_FILE: 'secrets/mbp_token' }),
  );
  assert.equal(platforms.politicaldsp, null);
  assert.equal(platforms.mbp?.profile.platform, 'mbp');
  assert.equal(platforms.mbp?.profile.readiness, 'poll');
  const both = fileDropPlatformsFromConfig(
    loadConfig({
      POLITICALDSP_URL: 'https://dsp.example',
      POLITICALDSP_TOKEN: 't',
      MBP_URL: 'https://m',
      MBP_TOKEN: 't',
    }),
  );
  assert.equal(both.politicaldsp?.profile.readiness, 'external');
  assert.equal(both.politicaldsp?.profile.hashing, 'sha256-hex');
});

test('from config: null until the operator sets the ad account; the token file is read at each call', () => {
  assert.equal(metaSocialAudiencesFromConfig(loadConfig({})), null);
  const dir = mkdtempSync(join(tmpdir(), 'listmatch-meta-'));
  try {
    const file = join(dir, 'token');
    writeFileSync(file, 'first-token\n');
    const social = metaSocialAudiencesFromConfig(
      loadConfig({ META_AD_ACCOUNT_ID: 'act_77', META_API_VERSION: 'v24.0', META_ACCESS_TOKEN_FILE: file }),
    );
    assert.equal(social?.operatorAdAccountId, '77');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
