import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { JobStore } from '../../src/domain/ports/job-store.ts';
import type { KeyStore } from '../../src/domain/ports/key-store.ts';
import type { OnboardingRun, OnboardingStore } from '../../src/domain/ports/onboarding-store.ts';
import { type CommittedFollowUp, onboardingJob, T0, testKey } from './job-store.contract.ts';

/** What the onboarding-store suite needs of a backend: fresh, empty stores for each test. */
export interface OnboardingStoreBackend {
  onboarding: OnboardingStore;
  /** A second store on the same data through its own connection(s), as another process has. */
  otherOnboarding: OnboardingStore;
  /** Runs belong to jobs, jobs to keys: the suite creates them through these. */
  jobs: JobStore;
  keys: KeyStore;
  /** The follow-up messages committed so far, in enqueue order. */
  committedFollowUps(): Promise<CommittedFollowUp[]>;
  close(): Promise<void>;
}

const NOTICE = { type: 'send-notice', payload: { v: 1, jobId: 'placeholder', notice: 'uploaded' } };
/** JSON.stringify cannot encode a BigInt: enqueuing this throws inside the transaction. */
const UNENCODABLE = { type: 'bad', payload: { n: 1n } };

function run(jobId: string, overrides: Partial<OnboardingRun> = {}): OnboardingRun {
  return {
    jobId,
    stage: 'staged',
    pattern: 1,
    schema: ['email', 'phone', 'fn', 'ln', 'zip'],
    stagedBlob: `onboarding/${jobId}/staged.tsv`,
    counts: { rows: 10, usable: 8, unknownIds: 1, malformed: 1, sent: 0 },
    audienceId: null,
    nextBatchSeq: 1,
    rowsDone: 0,
    updatedAt: T0,
    ...overrides,
  };
}

/** The OnboardingStore contract: progress that resumes, and status e-mails that commit with it. */
export function onboardingStoreContract(backend: string, open: () => Promise<OnboardingStoreBackend>): void {
  describe(`OnboardingStore contract: ${backend}`, () => {
    let b: OnboardingStoreBackend;
    let store: OnboardingStore;
    let jobId: string;

    beforeEach(async () => {
      b = await open();
      store = b.onboarding;
      await b.keys.insertKey(testKey('key_A'));
      const job = onboardingJob();
      await b.jobs.insertJob(job);
      jobId = job.id;
    });

    afterEach(() => b.close());

    it('has no run for a job that was not staged', async () => {
      assert.equal(await store.get(jobId), null);
      assert.equal(await store.get('job_NOPE'), null);
    });

    it('round-trips a run and enqueues its follow-ups with it', async () => {
      const stored = run(jobId);
      await store.insert(stored, [NOTICE, { type: 'check', payload: { n: 2 } }]);
      assert.deepEqual(await store.get(jobId), stored);
      assert.deepEqual(await b.committedFollowUps(), [NOTICE, { type: 'check', payload: { n: 2 } }]);
    });

    it('round-trips every field, with counts beyond 32 bits', async () => {
      const stored = run(jobId, {
        stage: 'awaiting_external',
        pattern: 2,
        schema: [],
        audienceId: 'aud_123',
        nextBatchSeq: 42,
        rowsDone: 3 * 2 ** 32,
        counts: { rows: 3 * 2 ** 32, usable: 3 * 2 ** 32, unknownIds: 0, malformed: 0, sent: 3 * 2 ** 32 },
        updatedAt: T0 + 86_400_000,
      });
      await store.insert(stored);
      assert.deepEqual(await store.get(jobId), stored);
      assert.deepEqual(await b.committedFollowUps(), []);
    });

    it('refuses a second run of a job, enqueuing nothing for it', async () => {
      const first = run(jobId);
      await store.insert(first);
      await assert.rejects(store.insert(run(jobId, { stage: 'created' }), [NOTICE]));
      assert.deepEqual(await store.get(jobId), first);
      assert.deepEqual(await b.committedFollowUps(), []);
    });

    it('refuses a run of an unknown job, enqueuing nothing', async () => {
      await assert.rejects(store.insert(run('job_NOPE'), [NOTICE]), /foreign key/i);
      assert.deepEqual(await b.committedFollowUps(), []);
    });

    it('stores no run when its follow-up cannot be enqueued', async () => {
      await assert.rejects(store.insert(run(jobId), [NOTICE, UNENCODABLE]));
      assert.equal(await store.get(jobId), null);
      assert.deepEqual(await b.committedFollowUps(), []);
      await store.insert(run(jobId), [NOTICE]);
      assert.equal((await b.committedFollowUps()).length, 1);
    });

    it('updates the given fields and leaves the others alone', async () => {
      const stored = run(jobId);
      await store.insert(stored);
      await store.update(jobId, { stage: 'created', audienceId: 'aud_9', updatedAt: T0 + 1 });
      assert.deepEqual(await store.get(jobId), {
        ...stored,
        stage: 'created',
        audienceId: 'aud_9',
        updatedAt: T0 + 1,
      });
      const counts = { ...stored.counts, sent: 8 };
      await store.update(jobId, {
        nextBatchSeq: 3,
        rowsDone: 8,
        counts,
        schema: ['email'],
        updatedAt: T0 + 2,
      });
      assert.deepEqual(await store.get(jobId), {
        ...stored,
        stage: 'created',
        audienceId: 'aud_9',
        nextBatchSeq: 3,
        rowsDone: 8,
        counts,
        schema: ['email'],
        updatedAt: T0 + 2,
      });
    });

    it('clears the audience id when given null', async () => {
      await store.insert(run(jobId, { audienceId: 'aud_1' }));
      await store.update(jobId, { audienceId: null });
      assert.equal((await store.get(jobId))?.audienceId, null);
    });

    it('enqueues an update’s follow-ups with it, in order', async () => {
      await store.insert(run(jobId));
      await store.update(jobId, { stage: 'uploaded' }, [NOTICE, { type: 'check', payload: { n: 2 } }]);
      assert.equal((await store.get(jobId))?.stage, 'uploaded');
      assert.deepEqual(await b.committedFollowUps(), [NOTICE, { type: 'check', payload: { n: 2 } }]);
    });

    it('enqueues follow-ups of an update that changes no field', async () => {
      const stored = run(jobId);
      await store.insert(stored);
      await store.update(jobId, {}, [NOTICE]);
      assert.deepEqual(await store.get(jobId), stored);
      assert.deepEqual(await b.committedFollowUps(), [NOTICE]);
    });

    it('keeps the fields when an update’s follow-up cannot be enqueued', async () => {
      const stored = run(jobId);
      await store.insert(stored);
      await assert.rejects(store.update(jobId, { stage: 'ready', rowsDone: 10 }, [NOTICE, UNENCODABLE]));
      assert.deepEqual(await store.get(jobId), stored);
      assert.deepEqual(await b.committedFollowUps(), []);
    });

    it('changes nothing for an unknown job', async () => {
      await store.update('job_NOPE', { stage: 'ready' });
      assert.equal(await store.get('job_NOPE'), null);
    });

    it('loses neither of two concurrent updates of different fields from two connections', async () => {
      await store.insert(run(jobId));
      for (let i = 1; i <= 10; i++) {
        await Promise.all([
          store.update(jobId, { rowsDone: i * 100 }),
          b.otherOnboarding.update(jobId, { nextBatchSeq: i + 1 }),
        ]);
        const stored = await store.get(jobId);
        assert.equal(stored?.rowsDone, i * 100);
        assert.equal(stored?.nextBatchSeq, i + 1);
      }
    });
  });
}
