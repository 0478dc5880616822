/** The BlobStore contract against the embedded store (a temporary folder) and S3 (Swift's s3api). */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { FsBlobStore } from '../../../src/adapters/blobs/fs-blob-store.ts';
import { openS3BlobStore } from '../../../src/adapters/blobs/s3-blob-store.ts';
import { blobStoreContract } from '../../contracts/blob-store.contract.ts';
import { createTestBucket, skipWithoutS3 } from '../../support/s3-server.ts';

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
