import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Job, JobSummary, OnboardingJob, SmartmatchJob } from '../../domain/client-jobs/job-types.ts';
import { newId } from '../../domain/ids.ts';
import { SqliteQueue } from '../queue/sqlite-queue.ts';
import { SqliteDatabase } from '../sqlite/sqlite-database.ts';
import { SqlJobStore } from './sql-job-store.ts';
import { SqlKeyStore } from './sql-key-store.ts';
import { SqliteRunner } from './sqlite-runner.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const T0 = 1_700_000_000_000;
const TTL = 3_600_000;
const FOLLOW_UP = { type: 'match-list', payload: { v: 1, jobId: 'placeholder' } };

let database: SqliteDatabase;
let sql: SqliteRunner;
let store: SqlJobStore;

async function addKey(id: string): Promise<void> {
  await new SqlKeyStore(sql).insertKey({
    id,
    name: id,
    keyHash: `hash-${id}`,
    displayPrefix: 'lm_abcdef',
    entitlements: { listMatching: true, onboarding: true, directUpload: false },
    createdAt: T0,
    revokedAt: null,
  });
}

function smartmatchJob(overrides: Partial<SmartmatchJob> = {}, now = T0): SmartmatchJob {
  return {
    id: newId('job', now),
    kind: 'smartmatch',
    keyId: 'key_A',
    filename: 'list_1',
    state: 'registered',
    params: {
      webhook: null,
      include: [],
      maxMatches: 1,
      format: 'csv',
      searchRadiusMiles: null,
      notificationEmail: null,
      mbpOnboarding: false,
      digitalAudienceName: null,
      profileId: 'default',
    },
    uploadExpiresAt: now + TTL,
    uploadBlob: null,
    uploadBytes: null,
    resultBlob: null,
    resultName: null,
    error: null,
    summary: null,
    voterVersion: null,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

function queueRows(): Record<string, unknown>[] {
  return database.db
    .prepare('SELECT type, payload, state FROM queue ORDER BY id')
    .all()
    .map((r) => ({ ...r }));
}

async function stateOf(id: string): Promise<string | undefined> {
  return (await store.getJob(id))?.state;
}

const summary: JobSummary = {
  rows: 3,
  matchedRows: 2,
  outputRows: 2,
  matchRate: 0.6667,
  matchesByMethod: { voterbase_id: 2 },
  matchesByState: { TX: 2 },
  bestScoreHistogram: [{ from: 95, to: 100, count: 2 }],
  unmatchedReasons: { id_not_found: 1 },
  inputProblems: {},
  ambiguousMatches: 0,
  identifierColumns: ['voterbase_id'],
  passthroughColumns: ['matchback_id'],
  warnings: { total: 0, byKind: {}, first: [] },
  voterFileVersion: 'v1',
  matchThreshold: 50,
  startedAt: '2023-11-14T22:13:20.000Z',
  completedAt: '2023-11-14T22:13:21.000Z',
  durationMs: 1000,
};

beforeEach(async () => {
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  sql = new SqliteRunner(database, new SqliteQueue(database));
  store = new SqlJobStore(sql);
  await addKey('key_A');
  await addKey('key_B');
});

afterEach(() => database.close());

describe('SqlJobStore on SQLite: insert and read', () => {
  it('round-trips a smartmatch job', async () => {
    const job = smartmatchJob({
      params: { ...smartmatchJob().params, include: ['email', 'voip'], webhook: 'https://hook.example/x' },
    });
    await store.insertJob(job);
    assert.deepEqual(await store.getJob(job.id), job);
  });

  it('round-trips an onboarding job with a null filename', async () => {
    const job: OnboardingJob = {
      ...smartmatchJob(),
      kind: 'onboarding',
      filename: null,
      params: {
        platform: 'social',
        audience: 'aud_1',
        statusEmail: 'a@b.example',
        socialAdid: '123',
        ownerAdid: null,
      },
    };
    await store.insertJob(job);
    assert.deepEqual(await store.getJob(job.id), job);
  });

  it('returns null for an unknown id', async () => {
    assert.equal(await store.getJob('job_NOPE'), null);
  });

  it('refuses a job of an unknown key', async () => {
    await assert.rejects(
      async () => await store.insertJob(smartmatchJob({ keyId: 'key_UNKNOWN' })),
      /FOREIGN KEY/,
    );
  });
});

describe('SqlJobStore on SQLite: markUploaded', () => {
  const upload = { blob: 'uploads/x/upl_1.csv', bytes: 42, at: T0 + 1_000 };

  it('moves registered → uploaded and enqueues the follow-up in the same call', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    const followUp = { type: 'match-list', payload: { v: 1, jobId: job.id } };
    assert.equal(await store.markUploaded(job.id, upload, [followUp]), true);
    const stored = (await store.getJob(job.id))!;
    assert.equal(stored.state, 'uploaded');
    assert.equal(stored.uploadBlob, 'uploads/x/upl_1.csv');
    assert.equal(stored.uploadBytes, 42);
    assert.equal(stored.updatedAt, T0 + 1_000);
    assert.deepEqual(queueRows(), [
      { type: 'match-list', payload: JSON.stringify({ v: 1, jobId: job.id }), state: 'ready' },
    ]);
  });

  it('enqueues nothing when there is no follow-up', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    assert.equal(await store.markUploaded(job.id, upload, []), true);
    assert.equal(await stateOf(job.id), 'uploaded');
    assert.deepEqual(queueRows(), []);
  });

  it('accepts an upload at the last millisecond of the window', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    assert.equal(await store.markUploaded(job.id, { ...upload, at: T0 + TTL }, [FOLLOW_UP]), true);
  });

  it('refuses an upload after the window, enqueuing nothing', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    assert.equal(await store.markUploaded(job.id, { ...upload, at: T0 + TTL + 1 }, [FOLLOW_UP]), false);
    assert.equal(await stateOf(job.id), 'registered');
    assert.equal((await store.getJob(job.id))!.uploadBlob, null);
    assert.deepEqual(queueRows(), []);
  });

  it('refuses a second upload, keeping the first and enqueuing once', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), true);
    assert.equal(
      await store.markUploaded(job.id, { blob: 'uploads/x/upl_2.csv', bytes: 7, at: T0 + 2_000 }, [
        FOLLOW_UP,
      ]),
      false,
    );
    assert.equal((await store.getJob(job.id))!.uploadBlob, 'uploads/x/upl_1.csv');
    assert.equal(queueRows().length, 1);
  });

  for (const state of ['processing', 'complete', 'failed', 'expired'] as const) {
    it(`refuses a job in state ${state}`, async () => {
      const job = smartmatchJob({ state });
      await store.insertJob(job);
      assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), false);
      assert.equal(await stateOf(job.id), state);
      assert.deepEqual(queueRows(), []);
    });
  }

  it('returns false for an unknown job', async () => {
    assert.equal(await store.markUploaded('job_NOPE', upload, [FOLLOW_UP]), false);
    assert.deepEqual(queueRows(), []);
  });

  it('rolls the state change back when enqueuing the follow-up fails', async () => {
    const job = smartmatchJob();
    await store.insertJob(job);
    // JSON.stringify cannot encode a BigInt, so the enqueue inside the transaction throws.
    await assert.rejects(
      async () => await store.markUploaded(job.id, upload, [{ type: 'match-list', payload: { n: 1n } }]),
      TypeError,
    );
    const stored = (await store.getJob(job.id))!;
    assert.equal(stored.state, 'registered');
    assert.equal(stored.uploadBlob, null);
    assert.deepEqual(queueRows(), []);
    // The database is usable again (the transaction was closed).
    assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), true);
  });
});

describe('SqlJobStore on SQLite: transition', () => {
  it('moves a job only from one of the given states', async () => {
    const job = smartmatchJob({ state: 'uploaded' });
    await store.insertJob(job);
    assert.equal(await store.transition(job.id, ['registered'], 'processing', {}, T0 + 1), false);
    assert.equal(await stateOf(job.id), 'uploaded');
    assert.equal(await store.transition(job.id, ['registered', 'uploaded'], 'processing', {}, T0 + 2), true);
    assert.equal(await stateOf(job.id), 'processing');
    assert.equal((await store.getJob(job.id))!.updatedAt, T0 + 2);
    assert.equal(await store.transition(job.id, ['uploaded'], 'processing', {}, T0 + 3), false);
    assert.equal((await store.getJob(job.id))!.updatedAt, T0 + 2);
  });

  it('writes the given fields and leaves the others alone', async () => {
    const job = smartmatchJob({ state: 'processing', error: 'Internal Error: earlier attempt' });
    await store.insertJob(job);
    assert.equal(
      await store.transition(
        job.id,
        ['processing'],
        'complete',
        { summary, resultBlob: 'results/x.csv', resultName: 'list_1.csv', voterVersion: 'v1', error: null },
        T0 + 5,
      ),
      true,
    );
    const stored = (await store.getJob(job.id))!;
    assert.equal(stored.state, 'complete');
    assert.deepEqual(stored.summary, summary);
    assert.equal(stored.resultBlob, 'results/x.csv');
    assert.equal(stored.resultName, 'list_1.csv');
    assert.equal(stored.voterVersion, 'v1');
    assert.equal(stored.error, null);
    assert.equal(stored.uploadExpiresAt, job.uploadExpiresAt);
  });

  it('does not touch fields that are not given', async () => {
    const job = smartmatchJob({ state: 'processing', resultName: 'keep.csv', voterVersion: 'v9' });
    await store.insertJob(job);
    assert.equal(
      await store.transition(job.id, ['processing'], 'failed', { error: 'Internal Error: x' }, T0 + 1),
      true,
    );
    const stored = (await store.getJob(job.id))!;
    assert.equal(stored.error, 'Internal Error: x');
    assert.equal(stored.resultName, 'keep.csv');
    assert.equal(stored.voterVersion, 'v9');
  });

  it('never leaves a terminal state when not asked to', async () => {
    const job = smartmatchJob({ state: 'complete' });
    await store.insertJob(job);
    assert.equal(
      await store.transition(job.id, ['processing'], 'failed', { error: 'late failure' }, T0 + 1),
      false,
    );
    assert.equal(await stateOf(job.id), 'complete');
    assert.equal((await store.getJob(job.id))!.error, null);
  });

  it('returns false for an unknown job', async () => {
    assert.equal(await store.transition('job_NOPE', ['registered'], 'expired', {}, T0), false);
  });

  it('enqueues its follow-ups with the state change', async () => {
    const job = smartmatchJob({ state: 'processing' });
    await store.insertJob(job);
    const followUps = [
      { type: 'deliver-webhook', payload: { v: 1, jobId: job.id } },
      { type: 'notify', payload: { n: 2 } },
    ];
    assert.equal(await store.transition(job.id, ['processing'], 'complete', {}, T0 + 1, followUps), true);
    assert.deepEqual(queueRows(), [
      { type: 'deliver-webhook', payload: JSON.stringify({ v: 1, jobId: job.id }), state: 'ready' },
      { type: 'notify', payload: JSON.stringify({ n: 2 }), state: 'ready' },
    ]);
  });

  it('enqueues nothing when the guard refuses the transition', async () => {
    const job = smartmatchJob({ state: 'failed' });
    await store.insertJob(job);
    assert.equal(await store.transition(job.id, ['processing'], 'complete', {}, T0 + 1, [FOLLOW_UP]), false);
    assert.deepEqual(queueRows(), []);
  });

  it('rolls the state change back when a follow-up cannot be enqueued', async () => {
    const job = smartmatchJob({ state: 'processing' });
    await store.insertJob(job);
    await assert.rejects(
      async () =>
        await store.transition(job.id, ['processing'], 'complete', { resultName: 'x.csv' }, T0 + 1, [
          FOLLOW_UP,
          { type: 'bad', payload: { n: 1n } },
        ]),
      TypeError,
    );
    assert.equal(await stateOf(job.id), 'processing');
    assert.equal((await store.getJob(job.id))!.resultName, null);
    assert.deepEqual(queueRows(), []);
  });
});

describe('SqlJobStore on SQLite: findLatestByFilename', () => {
  it('returns the newest of several registrations, whatever the insert order', async () => {
    const oldest = smartmatchJob({}, T0);
    const middle = smartmatchJob({}, T0 + 1_000);
    const newest = smartmatchJob({}, T0 + 2_000);
    for (const job of [middle, newest, oldest]) await store.insertJob(job);
    assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, newest.id);
  });

  it('tells registrations within one millisecond apart', async () => {
    const jobs = [smartmatchJob({}, T0), smartmatchJob({}, T0), smartmatchJob({}, T0)];
    for (const job of [...jobs].reverse()) await store.insertJob(job);
    assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, jobs[2]!.id);
  });

  it('looks only at the given key and filename', async () => {
    const mine = smartmatchJob({}, T0);
    await store.insertJob(mine);
    await store.insertJob(smartmatchJob({ keyId: 'key_B' }, T0 + 1_000));
    await store.insertJob(smartmatchJob({ filename: 'list_2' }, T0 + 2_000));
    assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, mine.id);
    assert.equal(await store.findLatestByFilename('key_B', 'list_2'), null);
    assert.equal(await store.findLatestByFilename('key_A', 'LIST_1'), null);
  });
});

describe('SqlJobStore on SQLite: expireUnuploaded', () => {
  it('expires registered jobs whose window closed before now, and only those', async () => {
    const now = T0 + TTL;
    const closed = smartmatchJob({ uploadExpiresAt: now - 1 });
    const closingNow = smartmatchJob({ uploadExpiresAt: now });
    const open = smartmatchJob({ uploadExpiresAt: now + 1 });
    const uploaded = smartmatchJob({ state: 'uploaded', uploadExpiresAt: now - 1 });
    const failed = smartmatchJob({ state: 'failed', uploadExpiresAt: now - 1, error: 'Internal Error: x' });
    for (const job of [closed, closingNow, open, uploaded, failed]) await store.insertJob(job);

    assert.equal(await store.expireUnuploaded(now), 1);
    const expired = (await store.getJob(closed.id))!;
    assert.equal(expired.state, 'expired');
    assert.equal(expired.updatedAt, now);
    assert.equal(
      expired.error,
      'Validation Error: no file was uploaded before the upload URL expired; register again',
    );
    assert.equal(await stateOf(closingNow.id), 'registered');
    assert.equal(await stateOf(open.id), 'registered');
    assert.equal(await stateOf(uploaded.id), 'uploaded');
    assert.equal((await store.getJob(failed.id))!.error, 'Internal Error: x');
    assert.equal(await store.expireUnuploaded(now), 0);
  });
});

describe('SqlJobStore on SQLite: listing', () => {
  it('lists newest first with filters and counts by state', async () => {
    const a1 = smartmatchJob({}, T0);
    const a2 = smartmatchJob({ state: 'complete' }, T0 + 1);
    const b1 = smartmatchJob({ keyId: 'key_B' }, T0 + 2);
    for (const job of [a1, a2, b1]) await store.insertJob(job as Job);
    assert.deepEqual(
      (await store.listJobs({ limit: 10 })).map((job) => job.id),
      [b1.id, a2.id, a1.id],
    );
    assert.deepEqual(
      (await store.listJobs({ keyId: 'key_A', limit: 10 })).map((job) => job.id),
      [a2.id, a1.id],
    );
    assert.deepEqual(
      (await store.listJobs({ keyId: 'key_A', state: 'registered', limit: 10 })).map((job) => job.id),
      [a1.id],
    );
    assert.deepEqual(
      (await store.listJobs({ limit: 1 })).map((job) => job.id),
      [b1.id],
    );
    assert.deepEqual(await store.countByState(), { registered: 2, complete: 1 });
  });
});
