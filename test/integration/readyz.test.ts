/** `/readyz` with the local folder drop (DELIVERY=folder); the SFTP cases are in deliver-sftp.test.ts. */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { getJson, startTestService, type TestService } from '../support/test-service.ts';

let t: TestService;
before(async () => {
  t = await startTestService({}, { voters: false });
});
after(() => t.stop());

test('/readyz checks that the delivery folder can be written; a broken one fails the check only', async () => {
  const ready = await getJson(`${t.base}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, {
    status: 'ready',
    checks: { database: true, storage: true, voter_file: null, delivery: true },
  });

  // DATA_DIR/files replaced by a regular file: nothing can be delivered there.
  await rm(join(t.dataDir, 'files'), { recursive: true, force: true });
  await writeFile(join(t.dataDir, 'files'), 'not a folder');
  const broken = await getJson(`${t.base}/readyz`);
  assert.equal(broken.status, 200, 'the api and matching still work; deliveries wait in the queue');
  assert.deepEqual(broken.body, {
    status: 'ready',
    checks: { database: true, storage: true, voter_file: null, delivery: false },
  });
  assert.ok(!JSON.stringify(broken.body).includes(t.dataDir), 'no paths in the readiness output');
});
