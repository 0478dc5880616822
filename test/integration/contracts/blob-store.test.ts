/** The BlobStore contract against the embedded store (a temporary folder) and S3 (Swift's s3api). */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { inspect } from 'node:util';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { FsBlobStore } from '../../../src/adapters/blobs/fs-blob-store.ts';
import {
  openS3BlobStore,
  type S3BlobStore,
  type S3BlobStoreConfig,
} from '../../../src/adapters/blobs/s3-blob-store.ts';
import type { AppError } from '../../../src/domain/errors.ts';
import { blobStoreContract } from '../../contracts/blob-store.contract.ts';
import { createTestBucket, skipWithoutS3, type TestBucket } from '../../support/s3-server.ts';

blobStoreContract({
  name: 'FsBlobStore',
  async open() {
    const root = await mkdtemp(join(tmpdir(), 'listmatch-blob-contract-'));
    return {
      store: new FsBlobStore(root),
      pendingWrites: async () => readdir(join(root, '.tmp')).catch(() => []),
      close: () => rm(root, { recursive: true, force: true }),
    };
  },
});

const PART = 5 * 1024 * 1024;
const PREFIX = 'listmatch/';

blobStoreContract({
  name: 'S3BlobStore (Swift s3api)',
  skip: skipWithoutS3,
  partSizeBytes: PART,
  // S3 keys may hold any UTF-8; these need careful encoding in paths and SigV4 canonical requests.
  extraKeys: [
    'odd/space in name.csv',
    'odd/plus+sign.csv',
    'odd/percent%20encoded.csv',
    'odd/équipe-ünïcödé-名前.csv',
    "odd/punctuation=&;:,@!$'()*~.csv",
    'odd/tilde~and#hash?query.csv',
    'odd//double-slash.csv',
  ],
  async open() {
    const bucket = await createTestBucket();
    const store = await openS3BlobStore({ ...bucket.config, keyPrefix: PREFIX, partSizeBytes: PART });
    return {
      store,
      pendingWrites: async () => (await bucket.pendingUploads()).map((key) => key.slice(PREFIX.length)),
      // A multipart object's ETag ends in -<parts>; a single PUT's is a plain MD5.
      async partCount(key) {
        const head = await bucket.client.send(
          new HeadObjectCommand({ Bucket: bucket.name, Key: PREFIX + key }),
        );
        return Number(/-(\d+)"?$/.exec(head.ETag ?? '')?.[1] ?? 1);
      },
      async close() {
        store.close();
        await bucket.drop();
      },
    };
  },
});

/** Beyond the contract: how the S3 store fails, without hanging and without leaking secrets. */
describe('S3BlobStore failures (Swift s3api)', () => {
  const WRONG_SECRET = 'wrong-secret-0f3a9c';
  let bucket: TestBucket | undefined;
  const stores: S3BlobStore[] = [];
  const open = async (overrides: Partial<S3BlobStoreConfig>) => {
    bucket ??= await createTestBucket();
    const store = await openS3BlobStore({ ...bucket.config, partSizeBytes: PART, ...overrides });
    stores.push(store);
    return store;
  };
  after(async () => {
    for (const store of stores) store.close();
    await bucket?.drop();
  });
  const noSecretsIn = (error: unknown) => {
    const everything = inspect(error, { depth: 10, showHidden: true });
    assert.ok(!everything.includes(WRONG_SECRET), 'the secret');
    assert.ok(!/X-Amz-Signature=[0-9a-f]/i.test(everything), 'a signature');
    return true;
  };

  test('a wrong secret: every operation is refused as INTERNAL, healthy is false', async (t) => {
    if (await skipWithoutS3(t)) return;
    const store = await open({ secretAccessKey: WRONG_SECRET });
    const refused = (error: unknown) => (error as AppError).code === 'INTERNAL' && noSecretsIn(error);
    await assert.rejects(store.put('k/small.csv', Readable.from([Buffer.from('x')])), refused);
    await assert.rejects(store.read('k/small.csv'), refused);
    await assert.rejects(store.stat('k/small.csv'), refused);
    await assert.rejects(store.delete('k/small.csv'), refused);
    await assert.rejects(store.list('k/'), refused);
    assert.equal(await store.healthy(), false);
  });

  test("a multi-part put into a missing bucket fails with the store's error at once, not at the end", async (t) => {
    if (await skipWithoutS3(t)) return;
    const store = await open({ bucket: `${bucket?.name ?? 'x'}-missing`, queueSize: 2 });
    // Far more parts than uploaders: a writer that did not fail when the upload failed would wait
    // forever for a drain, or read the whole source before failing at commit.
    const total = 20 * PART;
    let pulled = 0;
    async function* counted() {
      for (const chunk of bytes(total)) {
        pulled += chunk.length;
        yield chunk;
      }
    }
    await assert.rejects(store.put('k/large.csv', counted()), (error: AppError) => {
      assert.equal(error.code, 'INTERNAL');
      assert.match(String((error.cause as Error).name), /NoSuchBucket/);
      return true;
    });
    assert.ok(pulled < total / 2, `read ${pulled} of ${total} bytes before failing`);
    // A HEAD cannot say whether the key or the bucket is missing; healthy() can.
    assert.equal(await store.stat('k/large.csv'), null);
    assert.equal(await store.healthy(), false);
  });

  test('no server: UNAVAILABLE, and healthy answers false within its timeout', async (t) => {
    if (await skipWithoutS3(t)) return;
    const store = await open({ endpoint: 'http://127.0.0.1:9', healthTimeoutMs: 1000 });
    await assert.rejects(store.stat('k/a.csv'), { code: 'UNAVAILABLE' });
    const started = Date.now();
    assert.equal(await store.healthy(), false);
    assert.ok(Date.now() - started < 5000);
  });
});

function* bytes(total: number): Generator<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  for (let sent = 0; sent < total; sent += chunk.length)
    yield chunk.subarray(0, Math.min(chunk.length, total - sent));
}
