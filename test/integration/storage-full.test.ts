/**
 * A full disk is the service's fault: uploads and registrations answer 500 "Internal Error: the
 * service's storage is full" (never a Validation Error telling the client to retry), and /readyz
 * reports storage not ready once free space under DATA_DIR is below STORAGE_MIN_FREE_BYTES. The
 * disk is a small tmpfs filled for real (mounting one needs root: skipped without, except in CI).
 */
import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { mountSmallTmpfs } from '../support/small-tmpfs.ts';
import { getJson, register, startTestService, type TestService, upload } from '../support/test-service.ts';

const FULL = "Internal Error: the service's storage is full";

describe('a full disk under DATA_DIR', () => {
  test("answers uploads and registrations as the service's storage being full, and fails /readyz", async (t) => {
    const disk = await mountSmallTmpfs(t, 24 * 1024 * 1024);
    if (disk === null) return;
    let service: TestService | null = null;
    try {
      service = await startTestService(
        { RATE_LIMIT_POLL_SECONDS: '0', STORAGE_MIN_FREE_BYTES: String(512 * 1024) },
        { voters: false, dataDir: join(disk.path, 'data') },
      );
      const { key } = await service.createKey();
      const url = await register(service, key, 'filename=full_disk');
      const ready = await getJson(`${service.base}/readyz`);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));

      const filler = await disk.fill();
      const readyz = await getJson(`${service.base}/readyz`);
      assert.equal(readyz.status, 503);
      assert.equal((readyz.body['checks'] as Record<string, unknown>)['storage'], false);
      assert.equal((readyz.body['checks'] as Record<string, unknown>)['database'], true);

      // 16 MiB: most of it still on its way when the first write finds the disk full.
      const rows = Buffer.from(`voterbase_id\n${'NC-000000001\n'.repeat(1_300_000)}`);
      const put = await upload(url, rows);
      assert.equal(put.status, 500, put.text);
      const body = JSON.parse(put.text) as { url: unknown; error: string };
      assert.equal(body.url, null);
      assert.equal(body.error, FULL);
      assert.deepEqual(await readdir(join(service.dataDir, 'blobs', '.tmp')), [], 'no partial upload kept');

      const registration = await getJson(`${service.base}/service/smartmatch?filename=full_disk_2`, key);
      assert.equal(registration.status, 500, JSON.stringify(registration.body));
      assert.equal(registration.body['url'], null);
      assert.equal(registration.body['error'], FULL);

      // Room again: the same URL works, so does registering.
      await rm(filler);
      assert.equal((await upload(url, rows)).status, 200);
      assert.equal((await getJson(`${service.base}/readyz`)).status, 200);
      await register(service, key, 'filename=full_disk_3');
    } finally {
      await service?.running.stop();
      await disk.remove();
    }
  });
});

test('/readyz reports storage not ready below STORAGE_MIN_FREE_BYTES free under DATA_DIR', async () => {
  // No disk has this much free: the floor is above the free space.
  const service = await startTestService(
    { STORAGE_MIN_FREE_BYTES: String(Number.MAX_SAFE_INTEGER) },
    { voters: false },
  );
  try {
    const readyz = await getJson(`${service.base}/readyz`);
    assert.equal(readyz.status, 503);
    assert.deepEqual(readyz.body, {
      status: 'not_ready',
      checks: { database: true, storage: false, voter_file: null, delivery: true },
    });
  } finally {
    await service.stop();
  }
  const unlimited = await startTestService({ STORAGE_MIN_FREE_BYTES: '0' }, { voters: false });
  try {
    assert.equal((await getJson(`${unlimited.base}/readyz`)).status, 200);
  } finally {
    await unlimited.stop();
  }
});
