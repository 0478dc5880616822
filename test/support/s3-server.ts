/**
 * The S3-compatible server of the integration tests: OpenStack Swift with its s3api middleware,
 * as `.ci/swift.sh` sets it up (127.0.0.1:18080, region us-east-1, path-style, access key
 * `test:tester`, secret `testing`), or any other S3 store named by `TEST_S3_ENDPOINT`,
 * `TEST_S3_REGION`, `TEST_S3_ACCESS_KEY_ID` and `TEST_S3_SECRET_ACCESS_KEY`. Every test file gets
 * its own bucket and deletes it, with whatever is left in it, at the end.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3StoreConfig } from '../../src/adapters/blobs/s3-client.ts';

const run = promisify(execFile);
const DEFAULT_ENDPOINT = 'http://127.0.0.1:18080';
const SWIFT_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '../../.ci/swift.sh');
const SWIFT_PROXY = '/usr/bin/swift-proxy-server';
const INSTALL_HINT = 'bash .ci/swift.sh (installs Debian swift + s3api and starts it)';

/** Endpoint and credentials of the test server; the bucket is per test file. */
export const TEST_S3 = {
  endpoint: process.env['TEST_S3_ENDPOINT'] ?? DEFAULT_ENDPOINT,
  region: process.env['TEST_S3_REGION'] ?? 'us-east-1',
  accessKeyId: process.env['TEST_S3_ACCESS_KEY_ID'] ?? 'test:tester',
  secretAccessKey: process.env['TEST_S3_SECRET_ACCESS_KEY'] ?? 'testing',
  forcePathStyle: true,
} as const;

/** A client of the test server for setting up and checking, with the service's checksum policy. */
export function testS3Client(
  credentials: { accessKeyId: string; secretAccessKey: string } = TEST_S3,
): S3Client {
  return new S3Client({
    endpoint: TEST_S3.endpoint,
    region: TEST_S3.region,
    forcePathStyle: TEST_S3.forcePathStyle,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: { connectionTimeout: 3000 },
  });
}

/** Why the S3 server cannot be used, or null. Signed request, so wrong credentials count too. */
async function serverProblem(): Promise<string | null> {
  const client = testS3Client();
  try {
    await client.send(new ListBucketsCommand({}), { abortSignal: AbortSignal.timeout(5000) });
    return null;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    return status === undefined ? (error as Error).message || (error as Error).name : `HTTP ${status}`;
  } finally {
    client.destroy();
  }
}

let availability: Promise<string | null> | undefined;
let skipReported = false;

/**
 * Checks the server once per process. When the default endpoint does not answer but Swift is
 * installed here and we are root, starts it with `.ci/swift.sh` first (about 7 s; 15 s the first
 * time, when it builds its rings).
 */
function s3Problem(): Promise<string | null> {
  availability ??= (async () => {
    const problem = await serverProblem();
    if (problem === null) return null;
    const canStart =
      TEST_S3.endpoint === DEFAULT_ENDPOINT &&
      existsSync(SWIFT_PROXY) &&
      existsSync(SWIFT_SCRIPT) &&
      process.getuid?.() === 0;
    if (!canStart) return problem;
    try {
      await run('bash', [SWIFT_SCRIPT], { timeout: 180_000 });
    } catch (error) {
      return `${problem}; starting it with .ci/swift.sh failed: ${(error as Error).message.split('\n')[0]}`;
    }
    return serverProblem();
  })();
  return availability;
}

/**
 * True when the test must skip (and has): no S3 server on a developer's machine. Under CI=true a
 * missing server fails the test instead.
 */
export async function skipWithoutS3(t: TestContext): Promise<boolean> {
  const problem = await s3Problem();
  if (problem === null) return false;
  const reason = `no S3-compatible server at ${TEST_S3.endpoint} (${problem}; start one with: ${INSTALL_HINT})`;
  if (process.env['CI'] === 'true') assert.fail(`${reason}; CI must have it`);
  if (!skipReported) console.log(`skipping the S3 tests: ${reason}`);
  skipReported = true;
  t.skip(reason);
  return true;
}

export interface TestBucket {
  name: string;
  /** Store config for this bucket (add `keyPrefix` as needed). */
  config: S3StoreConfig;
  /** A client of the test server, closed by `drop`. */
  client: S3Client;
  /** Keys of multipart uploads still in progress in the bucket. */
  pendingUploads(): Promise<string[]>;
  /** Aborts pending uploads, deletes every object, then the bucket. */
  drop(): Promise<void>;
}

/** Creates an empty bucket `listmatch-test-<random>` (DNS-compliant, so any S3 store takes it). */
export async function createTestBucket(): Promise<TestBucket> {
  const name = `listmatch-test-${randomBytes(6).toString('hex')}`;
  const client = testS3Client();
  await client.send(new CreateBucketCommand({ Bucket: name }));
  const pendingUploads = async (): Promise<string[]> => {
    const answer = await client.send(new ListMultipartUploadsCommand({ Bucket: name }));
    return (answer.Uploads ?? []).map((upload) => upload.Key ?? '');
  };
  return {
    name,
    client,
    config: { ...TEST_S3, bucket: name },
    pendingUploads,
    async drop() {
      try {
        const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: name }));
        for (const upload of uploads.Uploads ?? []) {
          await client.send(
            new AbortMultipartUploadCommand({ Bucket: name, Key: upload.Key, UploadId: upload.UploadId }),
          );
        }
        // One DELETE per object: Swift's multi-object delete wants a Content-MD5 the SDK no longer sends.
        let token: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }),
          );
          for (const object of page.Contents ?? []) {
            await client.send(new DeleteObjectCommand({ Bucket: name, Key: object.Key }));
          }
          token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
        } while (token !== undefined);
        await client.send(new DeleteBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
    },
  };
}
