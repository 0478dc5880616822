import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { JobSummary, OnboardingJob, SmartmatchJob } from '../../src/domain/client-jobs/job-types.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ApiKeyRecord } from '../../src/domain/keys/key-types.ts';
import type { JobStore } from '../../src/domain/ports/job-store.ts';
import type { KeyStore } from '../../src/domain/ports/key-store.ts';
import type { QueueMessage } from '../../src/domain/ports/queue.ts';

/** A committed follow-up message as the backend's queue holds it. */
export interface CommittedFollowUp {
  type: string;
  payload: unknown;
}

/** What the job-store suite needs of a backend: fresh, empty stores for each test. */
export interface JobStoreBackend {
  jobs: JobStore;
  /** Jobs belong to keys: the suite creates them through this store. */
  keys: KeyStore;
  /** A second store on the same data through its own connection(s), as another process has. */
  otherJobs: JobStore;
  /** The follow-up messages committed so far, in enqueue order. */
  committedFollowUps(): Promise<CommittedFollowUp[]>;
  /**
   * Makes each enqueue keep its transaction (and the job's row lock) open `ms` longer, so that
   * racing changes overlap. null for a backend whose transactions never interleave (SQLite runs
   * each synchronously).
   */
  holdFollowUps: ((ms: number) => void) | null;
  /** A message the backend's queue refuses inside the database (a server-side error), or null. */
  followUpRefusedByDatabase: QueueMessage | null;
  close(): Promise<void>;
}

export const T0 = 1_700_000_000_000;
export const UPLOAD_TTL = 3_600_000;
const FOLLOW_UP = { type: 'match-list', payload: { v: 1, jobId: 'placeholder' } };
/** JSON.stringify cannot encode a BigInt: enqueuing this throws inside the transaction. */
const UNENCODABLE = { type: 'bad', payload: { n: 1n } };

export function testKey(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    name: id,
    keyHash: `hash-${id}`,
    displayPrefix: 'lm_abcdef',
    entitlements: { listMatching: true, onboarding: true, directUpload: false },
    createdAt: T0,
    revokedAt: null,
    ...overrides,
  };
}

export function smartmatchJob(overrides: Partial<SmartmatchJob> = {}, now = T0): SmartmatchJob {
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
    uploadExpiresAt: now + UPLOAD_TTL,
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

export function onboardingJob(overrides: Partial<OnboardingJob> = {}, now = T0): OnboardingJob {
  return {
    ...smartmatchJob({}, now),
    kind: 'onboarding',
    filename: null,
    params: {
      platform: 'social',
      audience: 'aud_1',
      statusEmail: 'a@b.example',
      socialAdid: '123',
      ownerAdid: null,
    },
    ...overrides,
  };
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

/**
 * The JobStore contract: what every backend must do, including the conditional transitions that
 * keep two processes from both taking a job and the follow-ups that commit (or not) with them.
 */
export function jobStoreContract(backend: string, open: () => Promise<JobStoreBackend>): void {
  describe(`JobStore contract: ${backend}`, () => {
    let b: JobStoreBackend;
    let store: JobStore;

    const stateOf = async (id: string) => (await store.getJob(id))?.state;
    const inserted = async <J extends SmartmatchJob | OnboardingJob>(job: J): Promise<J> => {
      await store.insertJob(job);
      return job;
    };

    beforeEach(async () => {
      b = await open();
      store = b.jobs;
      await b.keys.insertKey(testKey('key_A'));
      await b.keys.insertKey(testKey('key_B'));
    });

    afterEach(() => b.close());

    describe('insert and read', () => {
      it('round-trips a smartmatch job', async () => {
        const job = await inserted(
          smartmatchJob({
            params: {
              ...smartmatchJob().params,
              include: ['email', 'voip'],
              webhook: 'https://hook.example/x',
            },
          }),
        );
        assert.deepEqual(await store.getJob(job.id), job);
      });

      it('round-trips an onboarding job with a null filename', async () => {
        const job = await inserted(onboardingJob());
        assert.deepEqual(await store.getJob(job.id), job);
      });

      it('round-trips every field of a finished job, with sizes beyond 32 bits', async () => {
        const job = await inserted(
          smartmatchJob({
            state: 'complete',
            uploadBlob: 'uploads/x/upl_1.csv',
            uploadBytes: 5 * 2 ** 32 + 7,
            resultBlob: 'results/x.zip',
            resultName: 'list_1.zip',
            error: null,
            summary,
            voterVersion: 'v1',
            updatedAt: T0 + 86_400_000,
          }),
        );
        const stored = await store.getJob(job.id);
        assert.deepEqual(stored, job);
        assert.equal(typeof stored?.uploadBytes, 'number');
        assert.equal(typeof stored?.createdAt, 'number');
        // JSON comes back as written, key order included (summary.json and responses show it).
        assert.deepEqual(Object.keys(stored?.summary ?? {}), Object.keys(summary));
        assert.deepEqual(Object.keys(stored?.params ?? {}), Object.keys(job.params));
      });

      it('keeps characters that JSON escapes, in params', async () => {
        const job = await inserted(
          onboardingJob({
            params: { ...onboardingJob().params, audience: 'Ünïcödé "quoted" \\ tab\t \u0000 \u0001 ✓ 😀' },
          }),
        );
        assert.deepEqual(await store.getJob(job.id), job);
      });

      it('returns null for an unknown id', async () => {
        assert.equal(await store.getJob('job_NOPE'), null);
      });

      it('refuses a job of an unknown key', async () => {
        await assert.rejects(store.insertJob(smartmatchJob({ keyId: 'key_UNKNOWN' })), /foreign key/i);
        assert.deepEqual(await store.listJobs({ limit: 10 }), []);
      });

      it('refuses a second job with the same id, keeping the first', async () => {
        const job = await inserted(smartmatchJob());
        await assert.rejects(store.insertJob({ ...job, filename: 'other' }));
        assert.equal((await store.getJob(job.id))?.filename, 'list_1');
      });
    });

    describe('markUploaded', () => {
      const upload = { blob: 'uploads/x/upl_1.csv', bytes: 42, at: T0 + 1_000 };

      it('moves registered → uploaded and enqueues the follow-up in the same call', async () => {
        const job = await inserted(smartmatchJob());
        const followUp = { type: 'match-list', payload: { v: 1, jobId: job.id } };
        assert.equal(await store.markUploaded(job.id, upload, [followUp]), true);
        const stored = (await store.getJob(job.id))!;
        assert.equal(stored.state, 'uploaded');
        assert.equal(stored.uploadBlob, 'uploads/x/upl_1.csv');
        assert.equal(stored.uploadBytes, 42);
        assert.equal(stored.updatedAt, T0 + 1_000);
        assert.deepEqual(await b.committedFollowUps(), [
          { type: 'match-list', payload: { v: 1, jobId: job.id } },
        ]);
      });

      it('enqueues nothing when there is no follow-up', async () => {
        const job = await inserted(smartmatchJob());
        assert.equal(await store.markUploaded(job.id, upload, []), true);
        assert.equal(await stateOf(job.id), 'uploaded');
        assert.deepEqual(await b.committedFollowUps(), []);
      });

      it('accepts an upload at the last millisecond of the window', async () => {
        const job = await inserted(smartmatchJob());
        assert.equal(await store.markUploaded(job.id, { ...upload, at: T0 + UPLOAD_TTL }, [FOLLOW_UP]), true);
      });

      it('refuses an upload after the window, enqueuing nothing', async () => {
        const job = await inserted(smartmatchJob());
        assert.equal(
          await store.markUploaded(job.id, { ...upload, at: T0 + UPLOAD_TTL + 1 }, [FOLLOW_UP]),
          false,
        );
        assert.equal(await stateOf(job.id), 'registered');
        assert.equal((await store.getJob(job.id))!.uploadBlob, null);
        assert.deepEqual(await b.committedFollowUps(), []);
      });

      it('refuses a second upload, keeping the first and enqueuing once', async () => {
        const job = await inserted(smartmatchJob());
        assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), true);
        assert.equal(
          await store.markUploaded(job.id, { blob: 'uploads/x/upl_2.csv', bytes: 7, at: T0 + 2_000 }, [
            FOLLOW_UP,
          ]),
          false,
        );
        assert.equal((await store.getJob(job.id))!.uploadBlob, 'uploads/x/upl_1.csv');
        assert.equal((await b.committedFollowUps()).length, 1);
      });

      for (const state of ['processing', 'complete', 'failed', 'expired'] as const) {
        it(`refuses a job in state ${state}`, async () => {
          const job = await inserted(smartmatchJob({ state }));
          assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), false);
          assert.equal(await stateOf(job.id), state);
          assert.deepEqual(await b.committedFollowUps(), []);
        });
      }

      it('returns false for an unknown job', async () => {
        assert.equal(await store.markUploaded('job_NOPE', upload, [FOLLOW_UP]), false);
        assert.deepEqual(await b.committedFollowUps(), []);
      });

      it('rolls the state change back when enqueuing the follow-up fails', async () => {
        const job = await inserted(smartmatchJob());
        await assert.rejects(store.markUploaded(job.id, upload, [FOLLOW_UP, UNENCODABLE]));
        const stored = (await store.getJob(job.id))!;
        assert.equal(stored.state, 'registered');
        assert.equal(stored.uploadBlob, null);
        assert.deepEqual(await b.committedFollowUps(), []);
        // The store is usable again (the transaction was closed).
        assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), true);
        assert.equal((await b.committedFollowUps()).length, 1);
      });

      it('rolls the state change back when the queue refuses a follow-up in the database', async (t) => {
        const refused = b.followUpRefusedByDatabase;
        if (refused === null) return t.skip(`${backend}'s queue refuses nothing server-side`);
        const job = await inserted(smartmatchJob());
        await assert.rejects(store.markUploaded(job.id, upload, [FOLLOW_UP, refused]));
        assert.equal(await stateOf(job.id), 'registered');
        assert.deepEqual(await b.committedFollowUps(), []);
        assert.equal(await store.markUploaded(job.id, upload, [FOLLOW_UP]), true);
      });
    });

    describe('transition', () => {
      it('moves a job only from one of the given states', async () => {
        const job = await inserted(smartmatchJob({ state: 'uploaded' }));
        assert.equal(await store.transition(job.id, ['registered'], 'processing', {}, T0 + 1), false);
        assert.equal(await stateOf(job.id), 'uploaded');
        assert.equal(
          await store.transition(job.id, ['registered', 'uploaded'], 'processing', {}, T0 + 2),
          true,
        );
        assert.equal(await stateOf(job.id), 'processing');
        assert.equal((await store.getJob(job.id))!.updatedAt, T0 + 2);
        assert.equal(await store.transition(job.id, ['uploaded'], 'processing', {}, T0 + 3), false);
        assert.equal((await store.getJob(job.id))!.updatedAt, T0 + 2);
      });

      it('moves nothing when no state is allowed', async () => {
        const job = await inserted(smartmatchJob());
        assert.equal(await store.transition(job.id, [], 'expired', {}, T0 + 1), false);
        assert.equal(await stateOf(job.id), 'registered');
      });

      it('writes the given fields and leaves the others alone', async () => {
        const job = await inserted(
          smartmatchJob({ state: 'processing', error: 'Internal Error: earlier attempt' }),
        );
        assert.equal(
          await store.transition(
            job.id,
            ['processing'],
            'complete',
            {
              summary,
              resultBlob: 'results/x.csv',
              resultName: 'list_1.csv',
              voterVersion: 'v1',
              error: null,
            },
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

      it('does not touch fields that are not given, and clears a summary given as null', async () => {
        const job = await inserted(
          smartmatchJob({ state: 'processing', resultName: 'keep.csv', voterVersion: 'v9', summary }),
        );
        assert.equal(
          await store.transition(job.id, ['processing'], 'failed', { error: 'Internal Error: x' }, T0 + 1),
          true,
        );
        let stored = (await store.getJob(job.id))!;
        assert.equal(stored.error, 'Internal Error: x');
        assert.equal(stored.resultName, 'keep.csv');
        assert.equal(stored.voterVersion, 'v9');
        assert.deepEqual(stored.summary, summary);
        assert.equal(await store.transition(job.id, ['failed'], 'failed', { summary: null }, T0 + 2), true);
        stored = (await store.getJob(job.id))!;
        assert.equal(stored.summary, null);
        assert.equal(stored.error, 'Internal Error: x');
      });

      it('never leaves a terminal state when not asked to', async () => {
        const job = await inserted(smartmatchJob({ state: 'complete' }));
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

      it('enqueues its follow-ups with the state change, in order', async () => {
        const job = await inserted(smartmatchJob({ state: 'processing' }));
        const followUps = [
          { type: 'deliver-webhook', payload: { v: 1, jobId: job.id } },
          { type: 'notify', payload: { n: 2 } },
        ];
        assert.equal(await store.transition(job.id, ['processing'], 'complete', {}, T0 + 1, followUps), true);
        assert.deepEqual(await b.committedFollowUps(), [
          { type: 'deliver-webhook', payload: { v: 1, jobId: job.id } },
          { type: 'notify', payload: { n: 2 } },
        ]);
      });

      it('enqueues nothing when the guard refuses the transition', async () => {
        const job = await inserted(smartmatchJob({ state: 'failed' }));
        assert.equal(
          await store.transition(job.id, ['processing'], 'complete', {}, T0 + 1, [FOLLOW_UP]),
          false,
        );
        assert.deepEqual(await b.committedFollowUps(), []);
      });

      it('rolls the state change back when a follow-up cannot be enqueued', async () => {
        const job = await inserted(smartmatchJob({ state: 'processing' }));
        await assert.rejects(
          store.transition(job.id, ['processing'], 'complete', { resultName: 'x.csv' }, T0 + 1, [
            FOLLOW_UP,
            UNENCODABLE,
          ]),
        );
        const stored = (await store.getJob(job.id))!;
        assert.equal(stored.state, 'processing');
        assert.equal(stored.resultName, null);
        assert.equal(stored.updatedAt, T0);
        assert.deepEqual(await b.committedFollowUps(), []);
        assert.equal(
          await store.transition(job.id, ['processing'], 'complete', {}, T0 + 2, [FOLLOW_UP]),
          true,
        );
        assert.equal((await b.committedFollowUps()).length, 1);
      });

      it('rolls the state change back when the queue refuses a follow-up in the database', async (t) => {
        const refused = b.followUpRefusedByDatabase;
        if (refused === null) return t.skip(`${backend}'s queue refuses nothing server-side`);
        const job = await inserted(smartmatchJob({ state: 'processing' }));
        await assert.rejects(
          store.transition(job.id, ['processing'], 'complete', {}, T0 + 1, [FOLLOW_UP, refused]),
        );
        assert.equal(await stateOf(job.id), 'processing');
        assert.deepEqual(await b.committedFollowUps(), []);
      });
    });

    describe('two connections racing', () => {
      const RACES = 8;

      it('lets exactly one of two concurrent transitions of a job win, enqueuing once', async () => {
        b.holdFollowUps?.(30);
        const jobs = await Promise.all(
          Array.from({ length: RACES }, (_, i) => inserted(smartmatchJob({ state: 'processing' }, T0 + i))),
        );
        const outcomes = await Promise.all(
          jobs.map((job) =>
            Promise.all(
              [store, b.otherJobs].map((s, side) =>
                s.transition(
                  job.id,
                  ['processing'],
                  'complete',
                  { resultName: `side-${side}.csv` },
                  T0 + 10,
                  [{ type: 'deliver-webhook', payload: { jobId: job.id, side } }],
                ),
              ),
            ),
          ),
        );
        for (const [i, [first, second]] of outcomes.entries()) {
          assert.equal(Number(first) + Number(second), 1, `job ${i}: exactly one transition wins`);
          const stored = (await store.getJob(jobs[i]!.id))!;
          assert.equal(stored.state, 'complete');
          // The fields written are the winner's.
          assert.equal(stored.resultName, `side-${first ? 0 : 1}.csv`);
        }
        const followUps = await b.committedFollowUps();
        assert.equal(followUps.length, RACES);
        assert.deepEqual(
          followUps.map((m) => (m.payload as { jobId: string }).jobId).sort(),
          jobs.map((job) => job.id).sort(),
        );
      });

      it('accepts only one of two concurrent uploads of a job', async () => {
        b.holdFollowUps?.(30);
        const jobs = await Promise.all(
          Array.from({ length: RACES }, (_, i) => inserted(smartmatchJob({}, T0 + i))),
        );
        const outcomes = await Promise.all(
          jobs.map((job) =>
            Promise.all(
              [store, b.otherJobs].map((s, side) =>
                s.markUploaded(job.id, { blob: `uploads/${side}.csv`, bytes: side + 1, at: T0 + 100 }, [
                  { type: 'match-list', payload: { jobId: job.id, side } },
                ]),
              ),
            ),
          ),
        );
        const followUps = await b.committedFollowUps();
        for (const [i, [first, second]] of outcomes.entries()) {
          assert.equal(Number(first) + Number(second), 1, `job ${i}: exactly one upload is accepted`);
          const winner = first ? 0 : 1;
          const stored = (await store.getJob(jobs[i]!.id))!;
          assert.equal(stored.uploadBlob, `uploads/${winner}.csv`);
          assert.equal(stored.uploadBytes, winner + 1);
          const mine = followUps.filter((m) => (m.payload as { jobId: string }).jobId === jobs[i]!.id);
          assert.deepEqual(mine, [{ type: 'match-list', payload: { jobId: jobs[i]!.id, side: winner } }]);
        }
      });

      it('never both expires and accepts the upload of a job', async () => {
        b.holdFollowUps?.(30);
        // Uploads at the last millisecond of the window race the expiry sweep that runs just after it.
        const jobs = await Promise.all(
          Array.from({ length: RACES }, (_, i) => inserted(smartmatchJob({}, T0 + i))),
        );
        const [expired, ...accepted] = await Promise.all([
          b.otherJobs.expireUnuploaded(T0 + UPLOAD_TTL + RACES),
          ...jobs.map((job) =>
            store.markUploaded(job.id, { blob: 'uploads/x.csv', bytes: 1, at: job.uploadExpiresAt }, [
              { type: 'match-list', payload: { jobId: job.id } },
            ]),
          ),
        ]);
        const states = await Promise.all(jobs.map((job) => stateOf(job.id)));
        for (const [i, ok] of accepted.entries()) assert.equal(states[i], ok ? 'uploaded' : 'expired');
        assert.equal(expired, accepted.filter((ok) => !ok).length);
        assert.equal((await b.committedFollowUps()).length, accepted.filter(Boolean).length);
      });
    });

    describe('insertUnderFilename (the filename rule)', () => {
      const REPLACED = 'Validation Error: replaced';

      it('inserts the first job of a filename', async () => {
        const job = smartmatchJob({}, T0);
        assert.equal(await store.insertUnderFilename(job, REPLACED), true);
        assert.deepEqual(await store.getJob(job.id), job);
      });

      it('replaces a job awaiting its upload: expired with the given error, the new one newest', async () => {
        const first = await inserted(smartmatchJob({}, T0));
        const other = await inserted(smartmatchJob({ filename: 'list_2' }, T0));
        const otherKey = await inserted(smartmatchJob({ keyId: 'key_B' }, T0));
        const second = smartmatchJob({}, T0 + 1_000);
        assert.equal(await store.insertUnderFilename(second, REPLACED), true);
        const replaced = await store.getJob(first.id);
        assert.deepEqual(
          [replaced?.state, replaced?.error, replaced?.updatedAt],
          ['expired', REPLACED, T0 + 1_000],
        );
        assert.equal(await stateOf(other.id), 'registered', 'another filename is not touched');
        assert.equal(await stateOf(otherKey.id), 'registered', "another key's job is not touched");
        assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, second.id);
        // Its upload can no longer be taken.
        assert.equal(await store.markUploaded(first.id, { blob: 'u', bytes: 1, at: T0 + 2_000 }, []), false);
      });

      for (const busy of ['uploaded', 'processing'] as const) {
        it(`refuses while a job of the filename is ${busy}, changing nothing`, async () => {
          const running = await inserted(smartmatchJob({ state: busy }, T0));
          const next = smartmatchJob({}, T0 + 1_000);
          assert.equal(await store.insertUnderFilename(next, REPLACED), false);
          assert.equal(await store.getJob(next.id), null);
          assert.equal(await stateOf(running.id), busy);
        });
      }

      for (const finished of ['complete', 'failed', 'expired'] as const) {
        it(`adds a new job beside a ${finished} one, which stays as it was`, async () => {
          const done = await inserted(
            smartmatchJob({ state: finished, resultBlob: 'r', resultName: 'n' }, T0),
          );
          const next = smartmatchJob({}, T0 + 1_000);
          assert.equal(await store.insertUnderFilename(next, REPLACED), true);
          assert.deepEqual(await store.getJob(done.id), done);
          assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, next.id);
        });
      }

      it('concurrent registrations of one filename, from two processes, leave one awaiting upload', async () => {
        const jobs = Array.from({ length: 6 }, (_, i) => smartmatchJob({}, T0 + i));
        const answers = await Promise.all(
          jobs.map((job, i) => (i % 2 === 0 ? store : b.otherJobs).insertUnderFilename(job, REPLACED)),
        );
        assert.deepEqual(
          answers,
          jobs.map(() => true),
        );
        const states = await Promise.all(jobs.map((job) => stateOf(job.id)));
        assert.equal(
          states.filter((state) => state === 'registered').length,
          1,
          `states: ${states.join(', ')}`,
        );
      });

      it('refuses an unknown key', async () => {
        assert.equal(
          await store.insertUnderFilename(smartmatchJob({ keyId: 'key_UNKNOWN' }), REPLACED),
          false,
        );
      });
    });

    describe('recordProgress', () => {
      const progress = { rowsMatched: 5_000, bytesRead: 2 ** 33, bytesTotal: 2 ** 34, at: T0 + 1 };

      it('records the progress of a processing job, read back by another process', async () => {
        const job = await inserted(smartmatchJob({ state: 'processing' }, T0));
        assert.equal(await store.recordProgress(job.id, progress), true);
        const seen = await b.otherJobs.getJob(job.id);
        assert.deepEqual(seen?.progress, progress);
        assert.equal(seen?.updatedAt, job.updatedAt, 'progress does not count as a change of the job');
      });

      it('changes nothing of a job that is not processing', async () => {
        for (const state of ['registered', 'uploaded', 'complete', 'failed'] as const) {
          const job = await inserted(smartmatchJob({ state, filename: `list_${state}` }, T0));
          assert.equal(await store.recordProgress(job.id, progress), false);
          assert.deepEqual(await store.getJob(job.id), job);
        }
      });
    });

    describe('addChunkRows', () => {
      const split = {
        rowsMatched: 0,
        bytesRead: 100,
        bytesTotal: 100,
        at: T0 + 1,
        chunks: { listRows: 1_000, shardRows: 2_500, shardRowsMatched: 0 },
      };

      it("adds chunks' rows at once from several writers, read back with the split's counts", async () => {
        const job = await inserted(smartmatchJob({ state: 'processing' }, T0));
        assert.equal(await store.recordProgress(job.id, split), true);
        // Two processes' chunks adding at the same time: no add is lost.
        const adds = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store : b.otherJobs).addChunkRows(job.id, 100)),
        );
        assert.deepEqual(new Set(adds), new Set([true]));
        const seen = await b.otherJobs.getJob(job.id);
        assert.deepEqual(seen?.progress, { ...split, chunks: { ...split.chunks, shardRowsMatched: 2_000 } });
        assert.equal(seen?.updatedAt, job.updatedAt, 'progress does not count as a change of the job');
      });

      it("a split's record starts the count over (a split run again after a crash)", async () => {
        const job = await inserted(smartmatchJob({ state: 'processing' }, T0));
        await store.recordProgress(job.id, split);
        await store.addChunkRows(job.id, 700);
        await store.recordProgress(job.id, { ...split, at: T0 + 2 });
        await store.addChunkRows(job.id, 100);
        const seen = await b.otherJobs.getJob(job.id);
        assert.equal(seen?.progress?.chunks?.shardRowsMatched, 100);
      });

      it('changes nothing of a job that is not processing', async () => {
        for (const state of ['registered', 'uploaded', 'complete', 'failed'] as const) {
          const job = await inserted(smartmatchJob({ state, filename: `chunks_${state}` }, T0));
          assert.equal(await store.addChunkRows(job.id, 100), false);
          assert.deepEqual(await store.getJob(job.id), job);
        }
      });
    });

    describe('findLatestByFilename', () => {
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

      it('looks only at the given key and filename, case-sensitively', async () => {
        const mine = await inserted(smartmatchJob({}, T0));
        await store.insertJob(smartmatchJob({ keyId: 'key_B' }, T0 + 1_000));
        await store.insertJob(smartmatchJob({ filename: 'list_2' }, T0 + 2_000));
        assert.equal((await store.findLatestByFilename('key_A', 'list_1'))?.id, mine.id);
        assert.equal(await store.findLatestByFilename('key_B', 'list_2'), null);
        assert.equal(await store.findLatestByFilename('key_A', 'LIST_1'), null);
      });
    });

    describe('expireUnuploaded', () => {
      it('expires registered jobs whose window closed before now, and only those', async () => {
        const now = T0 + UPLOAD_TTL;
        const closed = smartmatchJob({ uploadExpiresAt: now - 1 });
        const closingNow = smartmatchJob({ uploadExpiresAt: now });
        const open = smartmatchJob({ uploadExpiresAt: now + 1 });
        const uploaded = smartmatchJob({ state: 'uploaded', uploadExpiresAt: now - 1 });
        const failed = smartmatchJob({
          state: 'failed',
          uploadExpiresAt: now - 1,
          error: 'Internal Error: x',
        });
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

    describe('listing', () => {
      it('lists newest first with filters and counts by state', async () => {
        const a1 = await inserted(smartmatchJob({}, T0));
        const a2 = await inserted(smartmatchJob({ state: 'complete' }, T0 + 1));
        const b1 = await inserted(smartmatchJob({ keyId: 'key_B' }, T0 + 2));
        const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);
        assert.deepEqual(ids(await store.listJobs({ limit: 10 })), [b1.id, a2.id, a1.id]);
        assert.deepEqual(ids(await store.listJobs({ keyId: 'key_A', limit: 10 })), [a2.id, a1.id]);
        assert.deepEqual(ids(await store.listJobs({ keyId: 'key_A', state: 'registered', limit: 10 })), [
          a1.id,
        ]);
        assert.deepEqual(ids(await store.listJobs({ state: 'complete', limit: 10 })), [a2.id]);
        assert.deepEqual(ids(await store.listJobs({ limit: 1 })), [b1.id]);
        assert.deepEqual(await store.countByState(), { registered: 2, complete: 1 });
      });

      it('counts nothing in an empty store', async () => {
        assert.deepEqual(await store.countByState(), {});
        assert.deepEqual(await store.listJobs({ limit: 10 }), []);
      });

      it('lists finished jobs last changed before a time, oldest change first, up to a limit', async () => {
        const failedEarly = await inserted(smartmatchJob({ state: 'failed', updatedAt: T0 + 10 }, T0 + 3));
        const completeLater = await inserted(
          smartmatchJob({ state: 'complete', updatedAt: T0 + 20 }, T0 + 1),
        );
        const completeAtCutoff = await inserted(
          smartmatchJob({ state: 'complete', updatedAt: T0 + 30 }, T0 + 2),
        );
        await inserted(smartmatchJob({ state: 'processing', updatedAt: T0 }, T0 + 4));
        await inserted(smartmatchJob({ state: 'expired', updatedAt: T0 }, T0 + 5));
        const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);
        assert.deepEqual(ids(await store.listFinishedBefore(T0 + 30, 10)), [
          failedEarly.id,
          completeLater.id,
        ]);
        assert.deepEqual(ids(await store.listFinishedBefore(T0 + 31, 10)), [
          failedEarly.id,
          completeLater.id,
          completeAtCutoff.id,
        ]);
        assert.deepEqual(ids(await store.listFinishedBefore(T0 + 31, 1)), [failedEarly.id]);
        assert.deepEqual(await store.listFinishedBefore(T0 + 10, 10), []);
      });
    });
  });
}
