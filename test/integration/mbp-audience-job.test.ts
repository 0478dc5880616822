import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { mediaBuyingPlatform } from '../../src/adapters/platforms/file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from '../../src/adapters/platforms/http-file-drop-audiences.ts';
import { mediaBuyingIdsKey } from '../../src/domain/client-jobs/result-files.ts';
import { MBP_AUDIENCE_JOB } from '../../src/domain/ports/job-catalog.ts';
import { MBP_MAX_ATTEMPTS, mbpAudienceJob } from '../../src/jobs/mbp-audience.job.ts';
import { MbpServer } from '../support/mbp-server.ts';
import { type OnboardingHarness, openOnboardingHarness, quietLogger } from '../support/onboarding-harness.ts';

const TOKEN = 'mbp-test-key';

/** A logger that keeps what was logged at info and above, for the job's own account of its work. */
function recordingLogger(): { logger: FastifyBaseLogger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const record =
    () =>
    (fields: unknown, message?: string): void => {
      lines.push({ ...(typeof fields === 'object' ? fields : {}), msg: message });
    };
  const logger = {
    ...quietLogger,
    info: record(),
    warn: record(),
    error: record(),
    child: () => logger,
  } as unknown as FastifyBaseLogger;
  return { logger, lines };
}

describe('mbp-audience (local media buying platform)', () => {
  let mbp: MbpServer;
  let h: OnboardingHarness;
  before(async () => {
    mbp = new MbpServer({ token: TOKEN, pollsUntilReady: 1 });
    await mbp.start();
  });
  after(async () => await mbp.stop());
  beforeEach(async () => {
    h = await openOnboardingHarness();
  });
  afterEach(async () => await h.close());

  test('each matched voter once, in voterbase_id order, holding at most the configured number of ids (repeats across runs)', async () => {
    const job = await h.smartmatchJob('mbp_dedup');
    // 6,000 best matches of 1,500 voters, in no order: every voter repeats, far apart.
    const ids: string[] = [];
    for (let i = 0; i < 6_000; i++) ids.push(`NC-${String((i * 7919) % 1_500).padStart(9, '0')}`);
    await h.blobs.put(mediaBuyingIdsKey(job.id), Readable.from([Buffer.from(`${ids.join('\n')}\n`)]));
    const { logger, lines } = recordingLogger();
    const deps = {
      jobs: h.jobs,
      keys: h.keys,
      runs: h.runs,
      blobs: h.blobs,
      mbp: new HttpFileDropAudiences({
        platform: mediaBuyingPlatform,
        baseUrl: mbp.url,
        token: tokenSource({ token: TOKEN }),
        timeoutMs: 5_000,
      }),
      intervalMs: 5,
      distinctIdsHeld: 100,
      logger: () => logger,
    };

    await h.run(
      [mbpAudienceJob(deps)],
      { type: MBP_AUDIENCE_JOB, payload: { v: 1, jobId: job.id }, maxAttempts: MBP_MAX_ATTEMPTS },
      async () => ['ready', 'failed'].includes((await h.runs.get(job.id))?.stage ?? ''),
    );

    assert.equal((await h.runs.get(job.id))!.stage, 'ready');
    const audience = [...mbp.audiences.values()].find((a) => a.name === 'mbp_dedup')!;
    assert.deepEqual(audience.header, ['voterbase_id']);
    assert.equal(audience.rowCount, 1_500, 'each matched voter once');
    const distinct = [...new Set(ids)].sort();
    assert.deepEqual(
      audience.rows.map((row) => row[0]),
      distinct.slice(0, audience.rows.length),
      'in voterbase_id order',
    );
    const dedup = lines.find((line) => line['msg'] === 'media buying audience ids deduplicated');
    assert.ok(dedup, 'the job reports how it deduplicated');
    assert.ok(Number(dedup['peakIdsHeld']) <= 100, `held ${dedup['peakIdsHeld']} ids at once`);
    assert.ok(Number(dedup['runs']) >= 60, `${dedup['runs']} sorted runs`);
    assert.equal(dedup['distinct'], 1_500);
    assert.deepEqual(await h.blobs.list(`work/${job.id}/mbp-dedup/`), [], 'no sorted run left behind');
  });
});
