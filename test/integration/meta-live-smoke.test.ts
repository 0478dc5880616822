import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { uploadSessionId } from '../../src/domain/ports/social-audiences.ts';
import { metaSocialAudiencesFromConfig } from '../../src/start/platforms.ts';

/**
 * Optional smoke test against the real Marketing API. Runs only when the operator's credentials
 * are in the environment (META_AD_ACCOUNT_ID, META_API_VERSION, and META_ACCESS_TOKEN or
 * META_ACCESS_TOKEN_FILE);
 * otherwise, CI included, it is skipped with the reason. It creates a customer-list audience named
 * listmatch_smoke_<time> in the ad account, uploads three synthetic rows (hashes of example.com
 * addresses, nobody's data), reads its status, shares it with META_SMOKE_SHARE_AD_ACCOUNT_ID when
 * that is set, and deletes the audience again.
 */
const env = process.env;
const configured =
  env['META_AD_ACCOUNT_ID'] !== undefined &&
  env['META_API_VERSION'] !== undefined &&
  (env['META_ACCESS_TOKEN'] !== undefined || env['META_ACCESS_TOKEN_FILE'] !== undefined);
const skip = configured
  ? false
  : 'no Meta credentials: set META_AD_ACCOUNT_ID, META_API_VERSION and META_ACCESS_TOKEN (or META_ACCESS_TOKEN_FILE) to run it';

test('live Marketing API: create, upload, status, share, delete', { skip, timeout: 120_000 }, async () => {
  const config = loadConfig(env);
  const social = metaSocialAudiencesFromConfig(config)!;
  const name = `listmatch_smoke_${Date.now()}`;
  const { audienceId } = await social.createAudience({
    adAccountId: social.operatorAdAccountId,
    name,
    description: 'listmatch live smoke test; safe to delete',
    customerFileSource: 'PARTNER_PROVIDED_ONLY',
  });
  try {
    const hash = (value: string) => createHash('sha256').update(value).digest('hex');
    const rows = [1, 2, 3].map((n) => [hash(`listmatch-smoke-${n}@example.com`)]);
    const result = await social.addUsers(
      audienceId,
      { schema: ['EMAIL'], rows },
      { sessionId: uploadSessionId(name, audienceId), batchSeq: 1, lastBatch: true, estimatedTotal: 3 },
    );
    assert.equal(result.received, 3);
    const status = await social.getStatus(audienceId);
    assert.notEqual(status.readiness, 'flagged');
    const shareWith = env['META_SMOKE_SHARE_AD_ACCOUNT_ID'];
    if (shareWith !== undefined && shareWith !== '') {
      assert.deepEqual(await social.shareWith(audienceId, shareWith), { alreadyShared: false });
      assert.deepEqual(await social.shareWith(audienceId, shareWith), { alreadyShared: true });
    }
  } finally {
    // Cleanup outside the port (which has no delete): DELETE /<audience id>.
    const token = config.META_ACCESS_TOKEN ?? readFileSync(config.META_ACCESS_TOKEN_FILE!, 'utf8').trim();
    const response = await fetch(
      `${config.META_GRAPH_URL.replace(/\/+$/, '')}/${config.META_API_VERSION!}/${audienceId}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${token}` } },
    );
    if (!response.ok) console.warn(`smoke audience ${audienceId} was not deleted (HTTP ${response.status})`);
  }
});
