import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FsBlobStore } from '../../adapters/blobs/fs-blob-store.ts';
import { SqliteQueue } from '../../adapters/queue/sqlite-queue.ts';
import { SqlJobStore } from '../../adapters/sql/sql-job-store.ts';
import { SqlKeyStore } from '../../adapters/sql/sql-key-store.ts';
import { SqliteRunner } from '../../adapters/sql/sqlite-runner.ts';
import { SqliteDatabase } from '../../adapters/sqlite/sqlite-database.ts';
import { HmacUrlSigner } from '../../adapters/urls/hmac-url-signer.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { KeyService } from '../keys/key-service.ts';
import type { ApiKeyRecord, Entitlements } from '../keys/key-types.ts';
import { MATCH_LIST_JOB } from '../ports/job-catalog.ts';
import type { UrlGrant } from '../ports/url-signer.ts';
import { incomingUploadKey, JobService, type JobServiceSettings, UPLOAD_NAME } from './job-service.ts';
import type { Job, JobSummary, OnboardingParams, SmartmatchParams } from './job-types.ts';

const MIGRATIONS = fileURLToPath(new URL('../../../migrations/sqlite', import.meta.url));
const T0 = 1_700_000_000_000;
const SETTINGS: JobServiceSettings = {
  uploadUrlTtlSeconds: 3600,
  downloadUrlTtlSeconds: 3600,
  maxUploadBytes: 64,
  maxConcurrentUploadsPerKey: 4,
  platforms: { social: true, politicaldsp: true, mbp: true },
};
const CSV = 'voterbase_id\nTX-000000001\nTX-000000002\n';

let root: string;
let dataDir: string;
let database: SqliteDatabase;
let jobStore: SqlJobStore;
let keys: KeyService;
let blobs: FsBlobStore;
let signer: HmacUrlSigner;
let service: JobService;
let transitions: [string, string][];
let testNumber = 0;

const PARAMS: Omit<SmartmatchParams, 'profileId'> = {
  webhook: null,
  include: [],
  maxMatches: 1,
  format: 'csv',
  searchRadiusMiles: null,
  notificationEmail: null,
  mbpOnboarding: false,
  digitalAudienceName: null,
};

const ONBOARDING: OnboardingParams = {
  platform: 'social',
  audience: 'aud_1',
  statusEmail: 'ops@example.org',
  socialAdid: '1234567890',
  ownerAdid: null,
};

async function createKey(name: string, entitlements: Partial<Entitlements> = {}): Promise<ApiKeyRecord> {
  return (await keys.createKey({ name, entitlements }, T0)).record;
}

/** Verifies a URL the service handed out, as the presigned-files route would. */
function verifyUrl(url: string, method: string, now = T0): UrlGrant {
  const parsed = new URL(url);
  const [, files, jobId, name] = parsed.pathname.split('/');
  assert.equal(files, 'files');
  return signer.verify(
    {
      method,
      jobId: decodeURIComponent(jobId!),
      name: decodeURIComponent(name!),
      url: `${parsed.pathname}${parsed.search}`,
    },
    now,
  );
}

function body(text: string | Buffer, chunkSize = 16): Readable {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  return Readable.from(chunks);
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function assertAppError(promise: Promise<unknown>, code: ErrorCode, message: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    assert.equal(error.message, message);
    return true;
  });
}

async function assertThrowsAppError(fn: () => unknown, code: ErrorCode, message: string): Promise<void> {
  await assert.rejects(
    async () => fn(),
    (error: unknown) => {
      assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
      assert.equal(error.code, code);
      assert.equal(error.message, message);
      return true;
    },
  );
}

function queueRows(): { type: string; payload: string }[] {
  return database.db
    .prepare('SELECT type, payload FROM queue ORDER BY id')
    .all()
    .map((r) => ({ type: r['type'] as string, payload: r['payload'] as string }));
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-job-service-'));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  dataDir = join(root, `t${++testNumber}`);
  database = new SqliteDatabase(':memory:', MIGRATIONS);
  const sql = new SqliteRunner(database, new SqliteQueue(database));
  jobStore = new SqlJobStore(sql);
  keys = new KeyService(new SqlKeyStore(sql));
  blobs = new FsBlobStore(dataDir);
  signer = new HmacUrlSigner({
    secret: 'job-service-test-secret-0123456789',
    baseUrl: 'http://localhost:8080',
  });
  transitions = [];
  service = new JobService({
    jobs: jobStore,
    blobs,
    signer,
    keys,
    settings: SETTINGS,
    events: { onTransition: (kind, state) => transitions.push([kind, state]) },
  });
});

afterEach(() => database.close());

describe('JobService.registerSmartmatch', () => {
  it('stores a registered job and returns a PUT URL for its upload, capped and expiring with the TTL', async () => {
    const key = await createKey('client');
    const { jobId, url } = await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0);
    assert.match(jobId, /^job_[0-9A-Z]{26}$/);
    assert.deepEqual(verifyUrl(url, 'PUT'), {
      op: 'put',
      jobId,
      name: UPLOAD_NAME,
      expiresAt: T0 / 1000 + 3600,
      maxBytes: 64,
    });
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.kind, 'smartmatch');
    assert.equal(job.state, 'registered');
    assert.equal(job.filename, 'list_1');
    assert.equal(job.keyId, key.id);
    assert.equal(job.uploadExpiresAt, T0 + 3_600_000);
    assert.deepEqual(job.params, { ...PARAMS, profileId: 'default' });
    assert.deepEqual(transitions, [['smartmatch', 'registered']]);
  });

  it('refuses a key without listMatching (FORBIDDEN) and stores nothing', async () => {
    const key = await createKey('onboarding only', { listMatching: false });
    await assertThrowsAppError(
      async () => await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0),
      'FORBIDDEN',
      'this API key is not enabled for list matching',
    );
    assert.deepEqual(await jobStore.listJobs({ limit: 10 }), []);
    assert.deepEqual(transitions, []);
  });

  it('refuses an unknown profile_id, naming it', async () => {
    const key = await createKey('client');
    await assertThrowsAppError(
      async () =>
        await service.registerSmartmatch(
          key,
          { filename: 'list_1', params: { ...PARAMS, profileId: 'vip' } },
          T0,
        ),
      'VALIDATION_FAILED',
      'profile_id "vip" is not a profile of this API key',
    );
    assert.deepEqual(await jobStore.listJobs({ limit: 10 }), []);
  });

  it("refuses another key's profile", async () => {
    const owner = await createKey('owner');
    await keys.setProfile(owner.id, 'vip', { contactFields: ['email'] }, T0);
    const other = await createKey('other');
    await assertThrowsAppError(
      async () =>
        await service.registerSmartmatch(
          other,
          { filename: 'list_1', params: { ...PARAMS, profileId: 'vip' } },
          T0,
        ),
      'VALIDATION_FAILED',
      'profile_id "vip" is not a profile of this API key',
    );
  });

  it('uses the named profile', async () => {
    const key = await createKey('client');
    await keys.setProfile(key.id, 'vip', { contactFields: ['wireless'] }, T0);
    const { jobId } = await service.registerSmartmatch(
      key,
      { filename: 'list_1', params: { ...PARAMS, include: ['wireless'], profileId: 'vip' } },
      T0,
    );
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.kind === 'smartmatch' && job.params.profileId, 'vip');
  });

  it('refuses one include_ flag the profile does not grant', async () => {
    const key = await createKey('client');
    await keys.setProfile(key.id, 'default', { contactFields: ['email'] }, T0);
    await assertThrowsAppError(
      async () =>
        await service.registerSmartmatch(
          key,
          { filename: 'list_1', params: { ...PARAMS, include: ['email', 'landline'] } },
          T0,
        ),
      'VALIDATION_FAILED',
      'include_landline is not enabled for profile "default" of this API key; ask client services to enable it',
    );
  });

  it('names every refused include_ flag', async () => {
    const key = await createKey('client');
    await keys.setProfile(key.id, 'default', { contactFields: ['email'] }, T0);
    await assertThrowsAppError(
      async () =>
        await service.registerSmartmatch(
          key,
          { filename: 'list_1', params: { ...PARAMS, include: ['email', 'wireless', 'voip'] } },
          T0,
        ),
      'VALIDATION_FAILED',
      'include_wireless, include_voip are not enabled for profile "default" of this API key; ask client services to enable it',
    );
    assert.deepEqual(await jobStore.listJobs({ limit: 10 }), []);
  });

  it('accepts include_ flags the profile grants', async () => {
    const key = await createKey('client');
    await keys.setProfile(key.id, 'default', { contactFields: ['email', 'voip'] }, T0);
    const { jobId } = await service.registerSmartmatch(
      key,
      { filename: 'list_1', params: { ...PARAMS, include: ['voip', 'email'] } },
      T0,
    );
    const job = (await jobStore.getJob(jobId))!;
    assert.deepEqual(job.kind === 'smartmatch' && job.params.include, ['voip', 'email']);
  });
});

describe('JobService.registerSmartmatch profile limits', () => {
  it("refuses max_matches above the profile's cap and accepts it at the cap", async () => {
    const key = await createKey('client');
    await keys.setProfile(key.id, 'default', { maxMatchesCap: 3 }, T0);
    await assertThrowsAppError(
      async () =>
        await service.registerSmartmatch(
          key,
          { filename: 'list_1', params: { ...PARAMS, maxMatches: 4 } },
          T0,
        ),
      'VALIDATION_FAILED',
      'max_matches 4 is above the limit of 3 of profile "default" of this API key',
    );
    const { jobId } = await service.registerSmartmatch(
      key,
      { filename: 'list_1', params: { ...PARAMS, maxMatches: 3 } },
      T0,
    );
    assert.ok(await jobStore.getJob(jobId));
  });

  it("refuses a webhook host outside the profile's list; accepts listed hosts, ports included", async () => {
    const key = await createKey('client');
    await keys.setProfile(
      key.id,
      'default',
      { webhookHosts: ['hooks.example.com', 'ops.example.com:8443'] },
      T0,
    );
    const register = async (webhook: string) =>
      await service.registerSmartmatch(key, { filename: 'list_1', params: { ...PARAMS, webhook } }, T0);
    await assertThrowsAppError(
      async () => await register('https://evil.example.net/hook'),
      'VALIDATION_FAILED',
      'the webhook host is not among the hosts allowed for profile "default" of this API key',
    );
    await assertThrowsAppError(
      async () => await register('https://ops.example.com/hook'),
      'VALIDATION_FAILED',
      'the webhook host is not among the hosts allowed for profile "default" of this API key',
    );
    assert.ok((await register('https://HOOKS.example.com:443/hook')).jobId);
    assert.ok((await register('https://ops.example.com:8443/hook')).jobId);
  });
});

describe('JobService.registerSmartmatch webhook targets', () => {
  const withWebhook = (webhook: string) => ({ filename: 'list_1', params: { ...PARAMS, webhook } });

  it('accepts a public webhook and stores it', async () => {
    const key = await createKey('client');
    const { jobId } = await service.registerSmartmatch(key, withWebhook('https://hooks.example.org/lm'), T0);
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.kind === 'smartmatch' && job.params.webhook, 'https://hooks.example.org/lm');
  });

  it('refuses a loopback or private address literal', async () => {
    const key = await createKey('client');
    for (const webhook of [
      'http://127.0.0.1:3000/done',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
    ]) {
      await assertThrowsAppError(
        async () => await service.registerSmartmatch(key, withWebhook(webhook), T0),
        'VALIDATION_FAILED',
        'webhook must be a public address, not a private, loopback or link-local one',
      );
    }
    assert.deepEqual(await jobStore.listJobs({ limit: 10 }), []);
  });

  it('refuses localhost', async () => {
    const key = await createKey('client');
    await assertThrowsAppError(
      async () => await service.registerSmartmatch(key, withWebhook('http://localhost:8080/hook'), T0),
      'VALIDATION_FAILED',
      'webhook must be a public address, not localhost',
    );
  });

  it('accepts an allowlisted private host', async () => {
    const allowing = new JobService({
      jobs: jobStore,
      blobs,
      signer,
      keys,
      settings: { ...SETTINGS, webhookAllowHosts: ['127.0.0.1:3000'] },
    });
    const key = await createKey('client');
    const { jobId } = await allowing.registerSmartmatch(key, withWebhook('http://127.0.0.1:3000/done'), T0);
    assert.equal((await jobStore.getJob(jobId))?.state, 'registered');
  });
});

describe('JobService.registerOnboarding', () => {
  it('stores a registered onboarding job and returns its PUT URL', async () => {
    const key = await createKey('client');
    const { jobId, url } = await service.registerOnboarding(key, ONBOARDING, T0);
    assert.equal(verifyUrl(url, 'PUT').jobId, jobId);
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.kind, 'onboarding');
    assert.equal(job.filename, null);
    assert.deepEqual(job.params, ONBOARDING);
    assert.deepEqual(transitions, [['onboarding', 'registered']]);
  });

  it('refuses owner_adid without direct upload approval (FORBIDDEN)', async () => {
    const key = await createKey('client', { directUpload: false });
    await assertThrowsAppError(
      async () => await service.registerOnboarding(key, { ...ONBOARDING, ownerAdid: '555' }, T0),
      'FORBIDDEN',
      'owner_adid requires approval for direct upload; ask client services, or leave owner_adid out',
    );
    assert.deepEqual(await jobStore.listJobs({ limit: 10 }), []);
  });

  it('accepts owner_adid with direct upload approval', async () => {
    const key = await createKey('client', { directUpload: true });
    const { jobId } = await service.registerOnboarding(key, { ...ONBOARDING, ownerAdid: '555' }, T0);
    assert.equal((await jobStore.getJob(jobId))?.state, 'registered');
  });

  it('refuses a key without onboarding (FORBIDDEN)', async () => {
    const key = await createKey('client', { onboarding: false });
    await assertThrowsAppError(
      async () => await service.registerOnboarding(key, ONBOARDING, T0),
      'FORBIDDEN',
      'this API key is not enabled for audience onboarding',
    );
  });
});

describe('JobService.receiveUpload', () => {
  async function register(): Promise<{ key: ApiKeyRecord; jobId: string }> {
    const key = await createKey('client');
    return {
      key,
      jobId: (await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0)).jobId,
    };
  }
  const at = (ms: number) => () => ms;

  it('stores the streamed file, moves the job to uploaded and enqueues the match', async () => {
    const { jobId } = await register();
    assert.deepEqual(await service.receiveUpload(jobId, body(CSV), CSV.length, at(T0 + 1_000)), {
      bytes: CSV.length,
    });
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.state, 'uploaded');
    assert.equal(job.uploadBytes, CSV.length);
    assert.match(job.uploadBlob!, new RegExp(`^uploads/${jobId}/upl_[0-9A-Z]{26}\\.csv$`));
    assert.equal(await readFile(join(dataDir, job.uploadBlob!), 'utf8'), CSV);
    assert.deepEqual(queueRows(), [{ type: MATCH_LIST_JOB, payload: JSON.stringify({ v: 1, jobId }) }]);
    assert.deepEqual(transitions, [
      ['smartmatch', 'registered'],
      ['smartmatch', 'uploaded'],
    ]);
  });

  it('accepts a body without a declared size', async () => {
    const { jobId } = await register();
    assert.deepEqual(await service.receiveUpload(jobId, body(CSV), null, at(T0 + 1)), { bytes: CSV.length });
    assert.equal((await jobStore.getJob(jobId))?.state, 'uploaded');
  });

  it('accepts a body of exactly the cap', async () => {
    const { jobId } = await register();
    const exact = 'x'.repeat(SETTINGS.maxUploadBytes);
    assert.deepEqual(await service.receiveUpload(jobId, body(exact), null, at(T0 + 1)), { bytes: 64 });
  });

  it('enqueues the audience build and the received status e-mail for an onboarding upload', async () => {
    const key = await createKey('client');
    const { jobId } = await service.registerOnboarding(key, ONBOARDING, T0);
    await service.receiveUpload(jobId, body(CSV), CSV.length, at(T0 + 1));
    assert.equal((await jobStore.getJob(jobId))?.state, 'uploaded');
    assert.deepEqual(
      queueRows().map((row) => [row.type, JSON.parse(row.payload as string)]),
      [
        ['onboard-audience', { v: 1, jobId }],
        ['send-notice', { v: 1, jobId, notice: 'received', facts: {} }],
      ],
    );
  });

  it('refuses a second upload (CONFLICT), keeping the first file and the single follow-up', async () => {
    const { jobId } = await register();
    await service.receiveUpload(jobId, body(CSV), CSV.length, at(T0 + 1));
    const first = (await jobStore.getJob(jobId))!.uploadBlob!;
    await assertAppError(
      service.receiveUpload(jobId, body('voterbase_id\nXX\n'), 16, at(T0 + 2)),
      'CONFLICT',
      'the file for this job was already uploaded; register again to send another file',
    );
    assert.equal((await jobStore.getJob(jobId))!.uploadBlob, first);
    assert.deepEqual(await listFiles(join(dataDir, 'uploads')), [first.slice('uploads/'.length)]);
    assert.equal(queueRows().length, 1);
  });

  it('refuses a declared size over the cap (PAYLOAD_TOO_LARGE) before storing anything', async () => {
    const { jobId } = await register();
    await assertAppError(
      service.receiveUpload(jobId, body(CSV), 65, at(T0 + 1)),
      'PAYLOAD_TOO_LARGE',
      'the upload exceeds the maximum of 64 bytes',
    );
    assert.equal((await jobStore.getJob(jobId))?.state, 'registered');
    assert.deepEqual(await listFiles(dataDir), []);
  });

  it('refuses a streamed body over the cap and leaves no blob behind; the URL stays usable', async () => {
    const { jobId } = await register();
    const tooBig = `voterbase_id\n${'TX-000000001\n'.repeat(10)}`;
    await assertAppError(
      service.receiveUpload(jobId, body(tooBig), null, at(T0 + 1)),
      'PAYLOAD_TOO_LARGE',
      'the upload exceeds the maximum of 64 bytes',
    );
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.state, 'registered');
    assert.equal(job.uploadBlob, null);
    assert.deepEqual(await listFiles(dataDir), []);
    assert.deepEqual(queueRows(), []);
    assert.deepEqual(await service.receiveUpload(jobId, body(CSV), CSV.length, at(T0 + 2)), {
      bytes: CSV.length,
    });
  });

  it('refuses a body that lies about its size by streaming more than the cap', async () => {
    const { jobId } = await register();
    await assertAppError(
      service.receiveUpload(jobId, body('y'.repeat(100)), 10, at(T0 + 1)),
      'PAYLOAD_TOO_LARGE',
      'the upload exceeds the maximum of 64 bytes',
    );
    assert.deepEqual(await listFiles(dataDir), []);
  });

  it('refuses an upload after the upload window (URL_INVALID)', async () => {
    const { jobId } = await register();
    await assertAppError(
      service.receiveUpload(jobId, body(CSV), CSV.length, at(T0 + 3_600_001)),
      'URL_INVALID',
      'this URL has expired; register the job again for a new one',
    );
    assert.equal((await jobStore.getJob(jobId))?.state, 'registered');
    assert.deepEqual(await listFiles(dataDir), []);
  });

  it('lets exactly one of two concurrent uploads win; the other gets CONFLICT and leaves no file', async () => {
    const { jobId } = await register();
    const results = await Promise.allSettled([
      service.receiveUpload(jobId, body(CSV, 4), null, at(T0 + 1)),
      service.receiveUpload(jobId, body('voterbase_id\nOH-1\n', 4), null, at(T0 + 1)),
    ]);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(fulfilled.length, 1);
    assert.equal(rejected.length, 1);
    assert.equal((rejected[0]!.reason as AppError).code, 'CONFLICT');
    const job = (await jobStore.getJob(jobId))!;
    assert.deepEqual(await listFiles(dataDir), [job.uploadBlob!]);
    assert.equal(queueRows().length, 1);
  });

  it('refuses an upload whose window closed while it was streaming, leaving no file', async () => {
    const { jobId } = await register();
    const times = [T0 + 1, T0 + 3_600_001, T0 + 3_600_001];
    await assertAppError(
      service.receiveUpload(jobId, body(CSV), CSV.length, () => times.shift() ?? T0 + 3_600_001),
      'URL_INVALID',
      'this URL has expired; register the job again for a new one',
    );
    assert.equal((await jobStore.getJob(jobId))?.state, 'registered');
    assert.deepEqual(await listFiles(dataDir), []);
    assert.deepEqual(queueRows(), []);
  });

  it('refuses an unknown job (NOT_FOUND)', async () => {
    await assertAppError(
      service.receiveUpload('job_01HZZZZZZZZZZZZZZZZZZZZZZZ', body(CSV), CSV.length, at(T0)),
      'NOT_FOUND',
      'this upload URL belongs to no job',
    );
  });
});

describe('JobService.acceptStoredUpload (uploads that arrived in object storage)', () => {
  async function registerWithArrival(content: string): Promise<{ jobId: string; key: string }> {
    const key = await createKey('client');
    const { jobId } = await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0);
    await blobs.put(incomingUploadKey(jobId), body(content));
    return { jobId, key: incomingUploadKey(jobId) };
  }

  it('copies the upload to a key of the job, starts processing and removes the incoming object', async () => {
    const { jobId, key } = await registerWithArrival(CSV);
    const outcome = await service.acceptStoredUpload(
      { jobId, key, bytes: CSV.length, arrivedAt: T0 + 500 },
      () => T0 + 5_000,
    );
    assert.equal(outcome, 'accepted');
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.state, 'uploaded');
    assert.match(job.uploadBlob!, new RegExp(`^uploads/${jobId}/upl_[0-9A-Z]{26}\\.csv$`));
    assert.equal(await readFile(join(dataDir, job.uploadBlob!), 'utf8'), CSV);
    assert.equal(await blobs.stat(key), null, 'the incoming object is gone');
    assert.deepEqual(queueRows(), [{ type: MATCH_LIST_JOB, payload: JSON.stringify({ v: 1, jobId }) }]);
  });

  it('a second arrival for a job already uploaded is deleted unread and changes nothing', async () => {
    const { jobId, key } = await registerWithArrival(CSV);
    await service.acceptStoredUpload({ jobId, key, bytes: CSV.length, arrivedAt: T0 + 1 });
    const first = (await jobStore.getJob(jobId))!.uploadBlob;
    await blobs.put(key, body('other,file\n1,2\n'));
    assert.equal(await service.acceptStoredUpload({ jobId, key, bytes: 16, arrivedAt: T0 + 2 }), 'ignored');
    assert.equal((await jobStore.getJob(jobId))!.uploadBlob, first);
    assert.equal(await readFile(join(dataDir, first!), 'utf8'), CSV);
    assert.equal(await blobs.stat(key), null);
    assert.equal(queueRows().length, 1, 'processing was started once');
  });

  it('an upload over the cap fails the job with a Validation Error and is deleted', async () => {
    const big = 'x'.repeat(SETTINGS.maxUploadBytes + 1);
    const { jobId, key } = await registerWithArrival(big);
    assert.equal(
      await service.acceptStoredUpload({ jobId, key, bytes: big.length, arrivedAt: T0 + 1 }),
      'too_large',
    );
    const job = (await jobStore.getJob(jobId))!;
    assert.equal(job.state, 'failed');
    assert.match(job.error!, /^Validation Error: the upload exceeds the maximum of 64 bytes/);
    assert.equal(await blobs.stat(key), null);
    assert.deepEqual(queueRows(), []);
  });

  it('an upload that arrived after the URL expired is ignored, whenever it is seen', async () => {
    const { jobId, key } = await registerWithArrival(CSV);
    const late = T0 + SETTINGS.uploadUrlTtlSeconds * 1000 + 1;
    assert.equal(
      await service.acceptStoredUpload({ jobId, key, bytes: CSV.length, arrivedAt: late }),
      'ignored',
    );
    assert.equal((await jobStore.getJob(jobId))!.state, 'registered');
    assert.equal(await blobs.stat(key), null);
  });

  it('one that arrived in time is taken even when it is seen after the window closed', async () => {
    const { jobId, key } = await registerWithArrival(CSV);
    const seen = T0 + SETTINGS.uploadUrlTtlSeconds * 1000 + 60_000;
    assert.equal(
      await service.acceptStoredUpload({ jobId, key, bytes: CSV.length, arrivedAt: T0 + 10 }, () => seen),
      'accepted',
    );
  });

  it('an unknown job: the object is deleted', async () => {
    await blobs.put(incomingUploadKey('job_UNKNOWN'), body(CSV));
    assert.equal(
      await service.acceptStoredUpload({
        jobId: 'job_UNKNOWN',
        key: incomingUploadKey('job_UNKNOWN'),
        bytes: CSV.length,
        arrivedAt: T0,
      }),
      'ignored',
    );
    assert.equal(await blobs.stat(incomingUploadKey('job_UNKNOWN')), null);
  });

  it('a storage error leaves the incoming object for the next pass', async () => {
    const { jobId, key } = await registerWithArrival(CSV);
    const failing = new JobService({
      jobs: jobStore,
      blobs: Object.assign(Object.create(blobs), {
        put: async () => {
          throw new Error('disk full');
        },
      }),
      signer,
      keys,
      settings: SETTINGS,
    });
    await assert.rejects(
      failing.acceptStoredUpload({ jobId, key, bytes: CSV.length, arrivedAt: T0 + 1 }),
      /disk full/,
    );
    assert.deepEqual(await blobs.stat(key), { bytes: CSV.length });
    assert.equal((await jobStore.getJob(jobId))!.state, 'registered');
  });
});

describe('JobService.poll', () => {
  async function register(key: ApiKeyRecord, filename = 'list_1', now = T0): Promise<string> {
    return (await service.registerSmartmatch(key, { filename, params: PARAMS }, now)).jobId;
  }

  async function complete(jobId: string, resultName = 'list_1.csv'): Promise<void> {
    assert.equal(
      await jobStore.markUploaded(jobId, { blob: `uploads/${jobId}/u.csv`, bytes: 1, at: T0 + 1 }, []),
      true,
    );
    assert.equal(await jobStore.transition(jobId, ['uploaded'], 'processing', {}, T0 + 2), true);
    assert.equal(
      await jobStore.transition(
        jobId,
        ['processing'],
        'complete',
        { resultBlob: `results/${jobId}/r.csv`, resultName },
        T0 + 3,
      ),
      true,
    );
  }

  /** Poll's progress before anything was matched; `bytes_total` once uploaded. */
  const noProgress = (bytesTotal: number | null = null) => ({
    rows_matched: 0,
    rows_total: null,
    bytes_read: 0,
    bytes_total: bytesTotal,
  });

  it('answers a blank url and no error while registered', async () => {
    const key = await createKey('client');
    await register(key);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 1), {
      url: '',
      error: null,
      status: 'registered',
      progress: noProgress(),
    });
  });

  it('answers a blank url and no error while uploaded and processing', async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.markUploaded(jobId, { blob: 'uploads/x/u.csv', bytes: 1, at: T0 + 1 }, []);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 2), {
      url: '',
      error: null,
      status: 'uploaded',
      progress: noProgress(1),
    });
    await jobStore.transition(jobId, ['uploaded'], 'processing', {}, T0 + 3);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 4), {
      url: '',
      error: null,
      status: 'processing',
      progress: noProgress(1),
    });
  });

  it("answers the worker's last recorded progress while processing, the totals once complete", async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.markUploaded(jobId, { blob: 'uploads/x/u.csv', bytes: 1_000, at: T0 + 1 }, []);
    const progress = { rowsMatched: 40, bytesRead: 600, bytesTotal: 1_000, at: T0 + 5 };
    assert.equal(await jobStore.recordProgress(jobId, progress), false, 'only a processing job records');
    await jobStore.transition(jobId, ['uploaded'], 'processing', {}, T0 + 3);
    assert.equal(await jobStore.recordProgress(jobId, progress), true);
    assert.deepEqual((await service.poll(key, 'list_1', T0 + 6)).progress, {
      rows_matched: 40,
      rows_total: null,
      bytes_read: 600,
      bytes_total: 1_000,
    });
    const summary = { rows: 70, warnings: { total: 0, byKind: {}, first: [] } } as unknown as JobSummary;
    await jobStore.transition(
      jobId,
      ['processing'],
      'complete',
      { resultBlob: `results/${jobId}/r.csv`, resultName: 'list_1.csv', summary },
      T0 + 7,
    );
    assert.deepEqual((await service.poll(key, 'list_1', T0 + 8)).progress, {
      rows_matched: 70,
      rows_total: 70,
      bytes_read: 1_000,
      bytes_total: 1_000,
    });
  });

  it("answers a list split over shards by its chunks' rows, as a share of the list's", async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.markUploaded(jobId, { blob: 'uploads/x/u.csv', bytes: 1_000, at: T0 + 1 }, []);
    await jobStore.transition(jobId, ['uploaded'], 'processing', {}, T0 + 3);
    // 400 rows, matched as 1,000 shard-rows (dated rows go to every shard).
    const split = { listRows: 400, shardRows: 1_000, shardRowsMatched: 0 };
    await jobStore.recordProgress(jobId, {
      rowsMatched: 0,
      bytesRead: 1_000,
      bytesTotal: 1_000,
      at: T0 + 4,
      chunks: split,
    });
    const pollAt = async (at: number) => (await service.poll(key, 'list_1', at)).progress;
    assert.deepEqual(await pollAt(T0 + 5), {
      rows_matched: 0,
      rows_total: 400,
      bytes_read: 1_000,
      bytes_total: 1_000,
    });
    await jobStore.addChunkRows(jobId, 250);
    await jobStore.addChunkRows(jobId, 251);
    assert.deepEqual(await pollAt(T0 + 6), {
      rows_matched: 200,
      rows_total: 400,
      bytes_read: 1_000,
      bytes_total: 1_000,
    });
    // A chunk run again after a crash counts twice: never more than the list.
    await jobStore.addChunkRows(jobId, 900);
    assert.equal((await pollAt(T0 + 7)).rows_matched, 400);
  });

  it("answers the job's error once failed", async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.transition(
      jobId,
      ['registered'],
      'failed',
      { error: 'Validation Error: the uploaded file is empty' },
      T0 + 1,
    );
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 2), {
      url: '',
      error: 'Validation Error: the uploaded file is empty',
      status: 'failed',
      progress: noProgress(),
    });
  });

  it('answers a generic internal error for a failed job without a stored reason', async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.transition(jobId, ['registered'], 'failed', {}, T0 + 1);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 2), {
      url: '',
      error: 'Internal Error: the job failed',
      status: 'failed',
      progress: noProgress(),
    });
  });

  it('answers an expired-URL error for a registered job past its upload window', async () => {
    const key = await createKey('client');
    await register(key);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 3_600_000), {
      url: '',
      error: null,
      status: 'registered',
      progress: noProgress(),
    });
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 3_600_001), {
      url: '',
      error: 'Validation Error: no file was uploaded before the upload URL expired; register again',
      status: 'expired',
      progress: noProgress(),
    });
  });

  it('answers the same error after housekeeping expired the job', async () => {
    const key = await createKey('client');
    await register(key);
    assert.equal(await service.expireUnuploaded(T0 + 3_600_001), 1);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 3_600_002), {
      url: '',
      error: 'Validation Error: no file was uploaded before the upload URL expired; register again',
      status: 'expired',
      progress: noProgress(),
    });
  });

  it('answers a GET URL of the result once complete', async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await complete(jobId);
    const answer = await service.poll(key, 'list_1', T0 + 10);
    assert.equal(answer.error, null);
    assert.equal(answer.status, 'complete');
    assert.equal(verifyUrl(answer.url, 'GET', T0 + 10).name, 'list_1.csv');
    assert.equal(verifyUrl(answer.url, 'GET', T0 + 10).jobId, jobId);
  });

  it('answers the reader warnings of a complete job, rows it could not return first', async () => {
    const key = await createKey('client');
    const jobId = await register(key);
    await jobStore.transition(jobId, ['registered'], 'processing', {}, T0 + 1);
    const warnings = {
      total: 3,
      byKind: { row_too_long: 2, ragged_row: 1 },
      first: ['line 7: row is 2000000 bytes, more than the limit of 1048576 bytes; skipped'],
    };
    const summary = { warnings } as unknown as JobSummary;
    await jobStore.transition(
      jobId,
      ['processing'],
      'complete',
      { resultBlob: `results/${jobId}/r.csv`, resultName: 'list_1.csv', summary },
      T0 + 3,
    );
    const answer = await service.poll(key, 'list_1', T0 + 10);
    assert.deepEqual(answer.warnings, {
      total: 3,
      rows_skipped: 2,
      by_kind: { row_too_long: 2, ragged_row: 1 },
      first: warnings.first,
    });
  });

  it("answers NOT_FOUND for another key's filename", async () => {
    const owner = await createKey('owner');
    const other = await createKey('other');
    await register(owner);
    await assertThrowsAppError(
      async () => await service.poll(other, 'list_1', T0 + 1),
      'NOT_FOUND',
      'no list-matching job named "list_1" was registered with this API key',
    );
  });

  it('answers NOT_FOUND for a filename never registered', async () => {
    const key = await createKey('client');
    await assertThrowsAppError(
      async () => await service.poll(key, 'never', T0),
      'NOT_FOUND',
      'no list-matching job named "never" was registered with this API key',
    );
  });

  it('follows the newest registration of a filename', async () => {
    const key = await createKey('client');
    const first = await register(key, 'list_1', T0);
    await complete(first);
    await register(key, 'list_1', T0 + 5_000);
    assert.deepEqual(await service.poll(key, 'list_1', T0 + 6_000), {
      url: '',
      error: null,
      status: 'registered',
      progress: noProgress(),
    });
  });
});

describe('JobService.openResult', () => {
  async function completedWithResult(content: string): Promise<string> {
    const key = await createKey('client');
    const { jobId } = await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0);
    await blobs.put(`results/${jobId}/r.csv`, body(content));
    await jobStore.markUploaded(jobId, { blob: 'uploads/u.csv', bytes: 1, at: T0 + 1 }, []);
    await jobStore.transition(jobId, ['uploaded'], 'processing', {}, T0 + 2);
    await jobStore.transition(
      jobId,
      ['processing'],
      'complete',
      { resultBlob: `results/${jobId}/r.csv`, resultName: 'list_1.csv' },
      T0 + 3,
    );
    return jobId;
  }

  it('opens the result of a complete job under its result name', async () => {
    const jobId = await completedWithResult('a,b\n1,2\n');
    const result = await service.openResult(jobId, 'list_1.csv');
    assert.equal(result.bytes, 8);
    assert.equal(result.name, 'list_1.csv');
    assert.equal(Buffer.concat(await result.stream.toArray()).toString(), 'a,b\n1,2\n');
  });

  it('refuses another name, an unfinished job and an unknown job (NOT_FOUND)', async () => {
    const jobId = await completedWithResult('x');
    await assertAppError(
      service.openResult(jobId, 'other.csv'),
      'NOT_FOUND',
      'no result is available at this URL',
    );
    await assertAppError(
      service.openResult('job_NOPE', 'list_1.csv'),
      'NOT_FOUND',
      'no result is available at this URL',
    );
    const key = await createKey('second');
    const pending = (await service.registerSmartmatch(key, { filename: 'list_2', params: PARAMS }, T0)).jobId;
    await assertAppError(
      service.openResult(pending, 'list_1.csv'),
      'NOT_FOUND',
      'no result is available at this URL',
    );
  });

  it('says when the result file is gone', async () => {
    const jobId = await completedWithResult('x');
    await blobs.delete(`results/${jobId}/r.csv`);
    await assertAppError(
      service.openResult(jobId, 'list_1.csv'),
      'NOT_FOUND',
      'the result file is no longer available',
    );
  });
});

describe('JobService.downloadUrl', () => {
  const HALF_MS = 1_800_000;
  const WINDOW_START = Math.ceil(T0 / HALF_MS) * HALF_MS;

  async function completedJob(): Promise<Job> {
    const key = await createKey('client');
    const { jobId } = await service.registerSmartmatch(key, { filename: 'list_1', params: PARAMS }, T0);
    return {
      ...(await jobStore.getJob(jobId))!,
      state: 'complete',
      resultName: 'list_1.csv',
      resultBlob: 'r',
    };
  }

  it('is identical for two calls within the same half-TTL window', async () => {
    const job = await completedJob();
    const first = await service.downloadUrl(job, WINDOW_START);
    assert.equal(await service.downloadUrl(job, WINDOW_START + 1), first);
    assert.equal(await service.downloadUrl(job, WINDOW_START + HALF_MS - 1), first);
  });

  it('changes in the next half-TTL window', async () => {
    const job = await completedJob();
    assert.notEqual(
      await service.downloadUrl(job, WINDOW_START + HALF_MS),
      await service.downloadUrl(job, WINDOW_START),
    );
  });

  it('stays valid for at least half the TTL and at most the TTL', async () => {
    const job = await completedJob();
    for (const now of [WINDOW_START, WINDOW_START + HALF_MS - 1]) {
      const { expiresAt } = verifyUrl(await service.downloadUrl(job, now), 'GET', now);
      assert.ok(expiresAt * 1000 - now > HALF_MS, `expires too soon: ${expiresAt * 1000 - now} ms`);
      assert.ok(expiresAt * 1000 - now <= 2 * HALF_MS, `expires too late: ${expiresAt * 1000 - now} ms`);
    }
    assert.equal(
      verifyUrl(await service.downloadUrl(job, WINDOW_START), 'GET', WINDOW_START).expiresAt,
      WINDOW_START / 1000 + 3600,
    );
  });

  it('signs a GET-only URL for the result name', async () => {
    const job = await completedJob();
    const url = await service.downloadUrl(job, WINDOW_START);
    assert.deepEqual(verifyUrl(url, 'GET', WINDOW_START), {
      op: 'get',
      jobId: job.id,
      name: 'list_1.csv',
      expiresAt: WINDOW_START / 1000 + 3600,
    });
    assert.throws(() => verifyUrl(url, 'PUT', WINDOW_START), { code: 'URL_INVALID' });
  });
});
