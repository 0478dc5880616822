/**
 * The public texts of failures, pinned byte for byte: clients read a failed job's `error` (poll,
 * notices) and every HTTP answer's `error`, so changing how they are built must not change them.
 * The real service (api role only: the test runs each job step itself), its SQLite job store
 * recording every `error` a transition writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  upload,
} from '../../test/support/test-service.ts';
import { Retention } from '../domain/client-jobs/retention.ts';
import { AppError } from '../domain/errors.ts';
import {
  ASSEMBLE_LIST_JOB,
  CHECK_AUDIENCE_JOB,
  MATCH_LIST_JOB,
  ONBOARD_AUDIENCE_JOB,
} from '../domain/ports/job-catalog.ts';
import { PlatformError } from '../domain/ports/platform-error.ts';

/** Both onboarding platforms connected, to an address nobody answers (no call gets that far). */
const PLATFORMS = {
  META_GRAPH_URL: 'http://127.0.0.1:9',
  META_AD_ACCOUNT_ID: 'act_1',
  META_API_VERSION: 'v24.0',
  META_ACCESS_TOKEN: 'test-token',
  POLITICALDSP_URL: 'http://127.0.0.1:9',
  POLITICALDSP_TOKEN: 'test-token',
};

const REVOKED_FILES_DELETED =
  'Authorization Error: the API key of this job was revoked and its files were deleted';
const EXPIRED = 'Validation Error: no file was uploaded before the upload URL expired; register again';

const jobIdOf = (url: string) => /files\/(job_[^/]+)\//.exec(url)![1]!;
const context = () => ({ attempt: 1, isFinalAttempt: false, signal: new AbortController().signal });

describe('failure texts (pinned: clients read them)', () => {
  let t: TestService;
  /** Every `error` a job transition wrote, with the job and the state it moved to. */
  let written: { jobId: string; to: string; error: string | null | undefined }[];
  let names = 0;

  before(async () => {
    t = await startTestService({
      ...PLATFORMS,
      ROLES: 'api',
      RATE_LIMIT_POLL_SECONDS: '0',
      RATE_LIMIT_REGISTER_PER_MINUTE: '3',
    });
    const store = t.running.services.jobStore;
    const transition = store.transition.bind(store);
    store.transition = async (id, from, to, fields, at, followUps) => {
      const done = await transition(id, from, to, fields, at, followUps);
      if (done && 'error' in fields) written.push({ jobId: id, to, error: fields.error });
      return done;
    };
  });
  after(async () => await t.stop());

  const module = (type: string) => t.running.services.registry.get(type)!;
  const storedError = async (jobId: string) => (await t.running.services.jobStore.getJob(jobId))!.error;
  const pollError = async (key: string, filename: string) =>
    (await getJson(`${t.base}/service/smartmatch/poll?filename=${filename}`, key)).body['error'];

  /** A fresh key with a list-matching job whose upload holds `body`; `written` starts empty. */
  async function uploadedList(body: string) {
    const { key, id: keyId } = await t.createKey();
    const filename = `list_${++names}`;
    const url = await register(t, key, `filename=${filename}&format=zip`);
    assert.equal((await upload(url, body)).status, 200);
    written = [];
    return { key, keyId, filename, jobId: jobIdOf(url) };
  }

  /** A fresh key with an onboarding job (social) whose upload is stored. */
  async function uploadedOnboarding() {
    const { key, id: keyId } = await t.createKey();
    const { body } = await getJson(
      `${t.base}/service/onboarding?platform=social&audience=a&status_email=a@b.co&social_adid=act_1234567890`,
      key,
    );
    const url = String(body['url']);
    assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200);
    written = [];
    return { key, keyId, jobId: jobIdOf(url) };
  }

  /** Runs the list job's step on a job whose file is unusable; returns the stored error and poll's. */
  async function failedList(body: string) {
    const job = await uploadedList(body);
    await module(MATCH_LIST_JOB).handle({ v: 1, jobId: job.jobId }, context());
    assert.equal((await t.running.services.jobStore.getJob(job.jobId))!.state, 'failed');
    const stored = await storedError(job.jobId);
    assert.equal(await pollError(job.key, job.filename), stored, 'poll answers the stored error');
    return stored;
  }

  describe('a job failed for its file', () => {
    test('empty file', async () => {
      assert.equal(await failedList(''), 'Validation Error: the uploaded file is empty');
    });

    test('no identifier column', async () => {
      assert.equal(
        await failedList('foo,bar\n1,2\n'),
        'Validation Error: the file has no recognizable identifier column; the header must name at least one of voterbase_id, smartvan_id, voter_id, exact_track, full_name, first_name_combined, first_name, middle_name, last_name, name_suffix, address1, address2, city, state, zip, age, gender, dob, phone, email, latitude, longitude',
      );
    });

    test('not a consistent CSV', async () => {
      const body = `voterbase_id,first_name,last_name\n${'NC-000000001,A\n'.repeat(1001)}`;
      assert.equal(
        await failedList(body),
        'Validation Error: 1001 of the first 1001 rows have a different number of fields than the header; the file is not a consistent CSV',
      );
    });

    test('a quoted field never closed', async () => {
      assert.equal(
        await failedList(
          'voterbase_id,notes\nNC-000000001,a\nNC-000000002,"open\nNC-000000003,c\nNC-000000004,d\n',
        ),
        'Validation Error: line 3: a quoted field is never closed, so the 3 lines after it were read into one cell; close or remove the quote and upload again',
      );
    });

    test('a first line too long to be a header', async () => {
      assert.equal(
        await failedList(`voterbase_id,${'x'.repeat(1024 * 1024)}`),
        'Validation Error: the first line is longer than 1048576 bytes, so it cannot be a CSV header; is this a CSV file?',
      );
    });
  });

  describe('an upload that never came, or came too large', () => {
    test('upload expired: poll before the sweep, the stored error after it', async () => {
      const { key, id: keyId } = await t.createKey();
      const url = await register(t, key, 'filename=never_uploaded');
      const record = (await t.running.services.keys.activeKey(keyId))!;
      const later = Date.now() + 2 * 3600_000;
      const {
        url: pollUrl,
        error,
        status,
      } = await t.running.services.jobs.poll(record, 'never_uploaded', later);
      assert.deepEqual({ url: pollUrl, error, status }, { url: '', error: EXPIRED, status: 'expired' });
      assert.ok((await t.running.services.jobStore.expireUnuploaded(later)) >= 1);
      assert.equal(await storedError(jobIdOf(url)), EXPIRED);
      assert.equal(await pollError(key, 'never_uploaded'), EXPIRED);
    });

    test('an upload over the size cap (object storage)', async () => {
      const { key } = await t.createKey();
      const jobId = jobIdOf(await register(t, key, 'filename=too_large'));
      written = [];
      const outcome = await t.running.services.jobs.acceptStoredUpload({
        jobId,
        key: `incoming/${jobId}`,
        bytes: 3 * 1024 ** 3,
        arrivedAt: Date.now(),
      });
      assert.equal(outcome, 'too_large');
      assert.deepEqual(
        written.map((w) => w.error),
        [
          `Validation Error: the upload exceeds the maximum of ${2 * 1024 ** 3} bytes; register again with a smaller file`,
        ],
      );
    });

    test('a failed job whose files retention deleted: with its reason, without one', async () => {
      const empty = await uploadedList('');
      await module(MATCH_LIST_JOB).handle({ v: 1, jobId: empty.jobId }, context());
      const silent = await uploadedList('voterbase_id\nNC-000000001\n');
      await t.running.services.jobStore.transition(
        silent.jobId,
        ['uploaded'],
        'failed',
        { error: null },
        Date.now(),
      );
      const retention = new Retention({
        jobs: t.running.services.jobStore,
        blobs: t.running.services.blobs,
        days: 30,
      });
      await retention.run(Date.now() + 31 * 24 * 3600_000);
      const expired =
        'Validation Error: the files of this job were deleted after the 30-day retention period; register and upload the list again';
      assert.equal(
        await storedError(empty.jobId),
        `${expired} (the job had failed: Validation Error: the uploaded file is empty)`,
      );
      assert.equal(await pollError(empty.key, empty.filename), await storedError(empty.jobId));
      assert.equal(await storedError(silent.jobId), expired);
    });
  });

  describe('a job of a revoked key', () => {
    test('list job: before matching, then its files withdrawn', async () => {
      const job = await uploadedList('voterbase_id\nNC-000000001\n');
      await t.running.services.revokeKey(job.keyId);
      await module(MATCH_LIST_JOB).handle({ v: 1, jobId: job.jobId }, context());
      assert.deepEqual(written, [
        {
          jobId: job.jobId,
          to: 'failed',
          error: 'Authorization Error: the API key of this job was revoked; the list was not matched',
        },
        { jobId: job.jobId, to: 'expired', error: REVOKED_FILES_DELETED },
      ]);
    });

    test('sharded list job: before its result was published', async () => {
      const job = await uploadedList('voterbase_id\nNC-000000001\n');
      await t.running.services.jobStore.transition(job.jobId, ['uploaded'], 'processing', {}, Date.now());
      await t.running.services.revokeKey(job.keyId);
      await module(ASSEMBLE_LIST_JOB).handle({ jobId: job.jobId, chunks: [] }, context());
      assert.deepEqual(
        written.map((w) => w.error),
        [
          'Authorization Error: the API key of this job was revoked while its list was matched; the result was deleted unpublished',
          REVOKED_FILES_DELETED,
        ],
      );
    });

    test('an upload that arrived in object storage after the key was revoked', async () => {
      const { key, id: keyId } = await t.createKey();
      const jobId = jobIdOf(await register(t, key, 'filename=arrived_revoked'));
      await t.running.services.revokeKey(keyId);
      written = [];
      await t.running.services.jobs.acceptStoredUpload({
        jobId,
        key: `incoming/${jobId}`,
        bytes: 10,
        arrivedAt: Date.now(),
      });
      assert.deepEqual(
        written.map((w) => w.error),
        ['Authorization Error: the API key of this job was revoked; the upload was deleted unread'],
      );
    });

    test('onboarding job', async () => {
      const job = await uploadedOnboarding();
      await t.running.services.revokeKey(job.keyId);
      await module(ONBOARD_AUDIENCE_JOB).handle({ v: 1, jobId: job.jobId }, context());
      assert.deepEqual(
        written.map((w) => w.error),
        ['Authorization Error: the API key of this job was revoked; no audience was built'],
      );
    });
  });

  describe('a job that failed on the service side', () => {
    test('list job given up: an unknown error, an application error', async () => {
      const first = await uploadedList('voterbase_id\nNC-000000001\n');
      await module(MATCH_LIST_JOB).onGiveUp!(
        { v: 1, jobId: first.jobId },
        new Error('disk on fire at /data'),
      );
      assert.equal(
        await storedError(first.jobId),
        `Internal Error: processing failed repeatedly; the operator can look it up as ${first.jobId}`,
      );
      assert.equal(await pollError(first.key, first.filename), await storedError(first.jobId));
      const second = await uploadedList('voterbase_id\nNC-000000001\n');
      await module(MATCH_LIST_JOB).onGiveUp!(
        { v: 1, jobId: second.jobId },
        new AppError(
          'UNAVAILABLE',
          'no voter file is loaded on this service yet; the operator must import one',
        ),
      );
      assert.equal(
        await storedError(second.jobId),
        `Internal Error: no voter file is loaded on this service yet; the operator must import one; the operator can look it up as ${second.jobId}`,
      );
    });

    test('sharded list job given up', async () => {
      const job = await uploadedList('voterbase_id\nNC-000000001\n');
      await module(ASSEMBLE_LIST_JOB).onGiveUp!({ jobId: job.jobId, chunks: [] }, new Error('x'));
      assert.equal(
        await storedError(job.jobId),
        `Internal Error: processing failed repeatedly; the operator can look it up as ${job.jobId}`,
      );
    });

    test('a failed job without a recorded error', async () => {
      const job = await uploadedList('voterbase_id\nNC-000000001\n');
      await t.running.services.jobStore.transition(
        job.jobId,
        ['uploaded'],
        'failed',
        { error: null },
        Date.now(),
      );
      assert.equal(await pollError(job.key, job.filename), 'Internal Error: the job failed');
    });

    test('onboarding job given up: ours, the platform unreachable, never ready', async () => {
      const ours = await uploadedOnboarding();
      await module(ONBOARD_AUDIENCE_JOB).onGiveUp!({ v: 1, jobId: ours.jobId }, new Error('x'));
      assert.equal(
        await storedError(ours.jobId),
        `Internal Error: building the audience failed repeatedly; the operator can look it up as ${ours.jobId}`,
      );
      const platform = await uploadedOnboarding();
      await module(ONBOARD_AUDIENCE_JOB).onGiveUp!(
        { v: 1, jobId: platform.jobId },
        new PlatformError('retry', 'connection refused'),
      );
      assert.equal(
        await storedError(platform.jobId),
        'Platform Error: the platform could not be reached: connection refused',
      );
      const never = await uploadedOnboarding();
      await module(CHECK_AUDIENCE_JOB).onGiveUp!({ v: 1, jobId: never.jobId }, new Error('x'));
      assert.equal(
        await storedError(never.jobId),
        'Platform Error: the platform did not report the audience ready within two days; it was uploaded and shared, so check it on the platform',
      );
    });

    test('an audience that cannot be checked', async () => {
      const job = await uploadedOnboarding();
      await t.running.services.jobStore.transition(job.jobId, ['uploaded'], 'processing', {}, Date.now());
      await t.running.services.onboarding.insert({
        jobId: job.jobId,
        stage: 'shared',
        pattern: 1,
        schema: [],
        stagedBlob: 'work/none',
        counts: { rows: 1, usable: 1, skipped: 0 } as never,
        audienceId: null,
        nextBatchSeq: 0,
        rowsDone: 0,
        updatedAt: Date.now(),
      });
      await module(CHECK_AUDIENCE_JOB).handle({ v: 1, jobId: job.jobId }, context());
      assert.equal(
        await storedError(job.jobId),
        'Internal Error: the audience cannot be checked (no platform or no audience id)',
      );
    });
  });

  describe('HTTP answers', () => {
    test('validation', async () => {
      const { key } = await t.createKey();
      const answer = await getJson(`${t.base}/service/smartmatch?filename=a&max_matches=99`, key);
      assert.deepEqual(
        [answer.status, answer.body['url'], answer.body['error']],
        [200, null, 'Validation Error: max_matches must be an integer from 1 to 10'],
      );
      const missing = await getJson(`${t.base}/service/nothing-here`, key);
      assert.deepEqual(
        [missing.status, missing.body['url'], missing.body['error']],
        [404, null, 'Validation Error: no endpoint GET /service/nothing-here; see /openapi.json'],
      );
    });

    test('authorization', async () => {
      const none = await getJson(`${t.base}/service/smartmatch?filename=a`);
      assert.deepEqual(
        [none.status, none.body['url'], none.body['error']],
        [401, null, 'Authorization Error: missing x-api-key header'],
      );
      const { key, id } = await t.createKey();
      const url = await register(t, key, 'filename=revoked_upload');
      await t.running.services.revokeKey(id);
      const put = await upload(url, 'voterbase_id\n');
      assert.equal(put.status, 403);
      assert.deepEqual(JSON.parse(put.text), {
        url: null,
        error: 'Authorization Error: the API key of this job was revoked; this URL no longer works',
        code: 'FORBIDDEN',
        request_id: JSON.parse(put.text).request_id,
      });
    });

    test('rate limit', async () => {
      const { key } = await t.createKey();
      for (let i = 0; i < 3; i++) await register(t, key, `filename=limited_${i}`);
      const refused = await getJson(`${t.base}/service/smartmatch?filename=limited_3`, key);
      assert.equal(refused.status, 429);
      assert.equal(refused.body['url'], null);
      const retry = refused.headers.get('retry-after');
      assert.equal(
        refused.body['error'],
        `Rate Limit Error: at most 3 registrations per minute per key; retry in ${retry} s`,
      );
    });

    test('storage full, and an error the service did not expect', async () => {
      const { key } = await t.createKey();
      const url = await register(t, key, 'filename=storage_full');
      const blobs = t.running.services.blobs;
      const put = blobs.put;
      blobs.put = async () => {
        throw Object.assign(new Error('write failed'), { code: 'ENOSPC' });
      };
      try {
        const answer = await upload(url, 'voterbase_id\nNC-000000001\n');
        assert.equal(answer.status, 500);
        assert.equal(JSON.parse(answer.text).error, "Internal Error: the service's storage is full");
      } finally {
        blobs.put = put;
      }
      const jobs = t.running.services.jobs;
      const poll = jobs.poll;
      jobs.poll = async () => {
        throw new Error('the database is gone');
      };
      try {
        const response = await fetch(`${t.base}/service/smartmatch/poll?filename=storage_full`, {
          headers: { 'x-api-key': key },
        });
        assert.equal(response.status, 500);
        const id = response.headers.get('x-request-id');
        assert.equal(
          ((await response.json()) as { error: string }).error,
          `Internal Error: the request failed; quote ${id} to the operator`,
        );
      } finally {
        jobs.poll = poll;
      }
    });
  });
});
