import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Job } from '../domain/client-jobs/job-types.ts';
import type { BlobStore } from '../domain/ports/blob-store.ts';
import type { FileDrop } from '../domain/ports/file-drop.ts';
import type { JobStore } from '../domain/ports/job-store.ts';
import { deliverFolderJob, FOLDER_DELIVERY_MAX_ATTEMPTS } from './deliver-folder.job.ts';

const JOB_ID = 'job_01JD0000000000000000000000';
const KEY_ID = 'key_01JD0000000000000000000000';

function setup(state: Job['state'], archive: string | null, options: { revoked?: boolean } = {}) {
  const job = { id: JOB_ID, keyId: KEY_ID, kind: 'smartmatch', state, filename: 'members.csv' } as Job;
  const puts: { keyId: string; name: string; body: string }[] = [];
  const logs: string[] = [];
  const drop: FileDrop = {
    description: 'test',
    put: async (keyId, name, open) => {
      puts.push({ keyId, name, body: await text(await open()) });
      return { bytes: 1 };
    },
    list: async () => [],
    read: () => Promise.reject(new Error('unused')),
    forEachFolder: () => Promise.reject(new Error('unused')),
    remove: () => Promise.reject(new Error('unused')),
  };
  const blobs = {
    stat: async (key: string) =>
      archive !== null && key === `results/${JOB_ID}/delivery.zip` ? { bytes: 1 } : null,
    read: async () => Readable.from([Buffer.from(archive ?? '')]),
  } as unknown as BlobStore;
  const logger = {
    info: (_: unknown, message: string) => logs.push(message),
    warn: (_: unknown, message: string) => logs.push(message),
  } as unknown as FastifyBaseLogger;
  const module = deliverFolderJob({
    jobs: { getJob: (id: string) => (id === JOB_ID ? job : null) } as unknown as JobStore,
    blobs,
    keys: { activeKey: async (id) => (options.revoked === true || id !== KEY_ID ? null : ({ id } as never)) },
    drop,
    retryBaseMs: 30_000,
    logger: () => logger,
  });
  const context = { attempt: 1, isFinalAttempt: false, signal: new AbortController().signal };
  return { module, puts, logs, context };
}

test("a complete job's archive goes to its key folder as <filename without .csv>.zip", async () => {
  const { module, puts, context } = setup('complete', 'zip bytes');
  await module.handle({ v: 1, jobId: JOB_ID }, context);
  assert.deepEqual(puts, [{ keyId: KEY_ID, name: 'members.zip', body: 'zip bytes' }]);
});

test('a missing archive fails the attempt (retried); unknown, expired or unfinished jobs are skipped', async () => {
  const missing = setup('complete', null);
  await assert.rejects(missing.module.handle({ v: 1, jobId: JOB_ID }, missing.context), /archive .* missing/);
  for (const state of ['expired', 'failed', 'processing'] as const) {
    const other = setup(state, 'zip');
    await other.module.handle({ v: 1, jobId: JOB_ID }, other.context);
    assert.deepEqual(other.puts, [], state);
  }
  const unknown = setup('complete', 'zip');
  await unknown.module.handle({ v: 1, jobId: 'job_01JD0000000000000000000009' }, unknown.context);
  assert.deepEqual(unknown.puts, []);
});

test('retries back off from the base to 15 minutes, about an hour in all; a dead letter is logged', async () => {
  const { module, logs } = setup('complete', 'zip');
  const delays = Array.from({ length: FOLDER_DELIVERY_MAX_ATTEMPTS - 1 }, (_, i) => module.backoffMs(i + 1));
  assert.deepEqual(delays, [30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
  const total = delays.reduce((a, b) => a + b, 0) / 60_000;
  assert.ok(total > 55 && total < 65, `${total} minutes`);
  await module.onGiveUp?.({ v: 1, jobId: JOB_ID }, new Error('SFTP down'));
  assert.deepEqual(logs, ['folder delivery dead-lettered']);
});

test("a revoked key's result is not dropped into its folder (its URLs died with it)", async () => {
  const { module, puts, logs, context } = setup('complete', 'zip bytes', { revoked: true });
  await module.handle({ v: 1, jobId: JOB_ID }, context);
  assert.deepEqual(puts, []);
  assert.deepEqual(logs, ['folder delivery skipped: the API key of the job was revoked']);
});
