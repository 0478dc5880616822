/**
 * Native SigV4 presigned URLs against a real S3 server (Swift's s3api): what clients do with them
 * (docs/clients.md: PUT without Content-Type, chunked PUT, plain GET) works, and every altered,
 * expired or misused URL is refused by the store itself with 403.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { after, describe, type TestContext, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { openS3BlobStore, type S3BlobStore } from '../../src/adapters/blobs/s3-blob-store.ts';
import {
  openS3UrlSigner,
  type S3UrlSigner,
  type S3UrlSignerConfig,
} from '../../src/adapters/urls/s3-url-signer.ts';
import type { UrlGrant } from '../../src/domain/ports/url-signer.ts';
import { createTestBucket, skipWithoutS3, type TestBucket } from '../support/s3-server.ts';

const PREFIX = 'svc/';
/** The composition root's mapping, in small: a job's upload and its result. */
const blobKeyOf = (grant: UrlGrant) =>
  grant.op === 'put' ? `uploads/${grant.jobId}/${grant.name}` : `results/${grant.jobId}/${grant.name}`;

let bucket: TestBucket | undefined;
let store: S3BlobStore;
let signer: S3UrlSigner;
const extraSigners: S3UrlSigner[] = [];

async function signerWith(overrides: Partial<S3UrlSignerConfig>): Promise<S3UrlSigner> {
  const made = await openS3UrlSigner({ ...bucket!.config, keyPrefix: PREFIX, blobKeyOf, ...overrides });
  extraSigners.push(made);
  return made;
}

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
const putGrant = (jobId: string): UrlGrant => ({
  op: 'put',
  jobId,
  name: 'upload.csv',
  expiresAt: inAnHour(),
  maxBytes: 1024,
});
const getGrant = (jobId: string, name: string): UrlGrant => ({
  op: 'get',
  jobId,
  name,
  expiresAt: inAnHour(),
});
const newJob = () => `job_${randomBytes(8).toString('hex')}`;

async function text(key: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A PUT with exactly the given headers (fetch would add `Content-Type: text/plain` to a string
 * body); each part is written as it comes, so without a Content-Length the body goes chunked.
 */
function rawPut(
  url: string,
  parts: string[],
  headers: Record<string, string | number>,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const outgoing = request(url, { method: 'PUT', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        done({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
      response.on('error', fail);
    });
    outgoing.on('error', fail);
    for (const part of parts) outgoing.write(part);
    outgoing.end();
  });
}

/** Status and S3 error code of a refused request (the body is S3's XML error). */
async function refusal(response: Response): Promise<{ status: number; code: string | undefined }> {
  const body = await response.text();
  return { status: response.status, code: /<Code>([^<]+)<\/Code>/.exec(body)?.[1] };
}

describe('S3 presigned URLs (Swift s3api)', () => {
  let ready = false;
  /** The bucket, store and signer, made by the first test that runs (skipWithoutS3 needs a test). */
  const setUp = async (t: TestContext): Promise<boolean> => {
    if (await skipWithoutS3(t)) return false;
    if (!ready) {
      bucket = await createTestBucket();
      store = await openS3BlobStore({ ...bucket.config, keyPrefix: PREFIX });
      signer = await openS3UrlSigner({ ...bucket.config, keyPrefix: PREFIX, blobKeyOf });
      ready = true;
    }
    return true;
  };
  after(async () => {
    for (const made of extraSigners) made.close();
    if (!ready) return;
    signer.close();
    store.close();
    await bucket!.drop();
  });

  test('a PUT URL signs only the host and carries no checksum of an empty body', async (t) => {
    if (!(await setUp(t))) return;
    const url = new URL(await signer.sign(putGrant(newJob())));
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host');
    assert.equal(url.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    const checksumParams = [...url.searchParams.keys()].filter((name) => /checksum/i.test(name));
    assert.deepEqual(checksumParams, []);
  });

  test('a PUT with only Content-Length, no Content-Type, uploads, answered with exactly 200', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const csv = 'first_name,last_name,matchback_id\r\nAda,Lovelace,1\r\n';
    const answer = await rawPut(await signer.sign(putGrant(job)), [csv], {
      'content-length': Buffer.byteLength(csv),
    });
    assert.equal(answer.status, 200);
    assert.equal(await text(`uploads/${job}/upload.csv`), csv);
    assert.deepEqual(
      (await store.list(`uploads/${job}/`)).map((blob) => [blob.key, blob.bytes]),
      [[`uploads/${job}/upload.csv`, Buffer.byteLength(csv)]],
    );
  });

  test('a PUT with an empty Content-Type header uploads too', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const answer = await rawPut(await signer.sign(putGrant(job)), ['a,b\n1,2\n'], {
      'content-type': '',
      'content-length': 8,
    });
    assert.equal(answer.status, 200);
    assert.equal(await text(`uploads/${job}/upload.csv`), 'a,b\n1,2\n');
  });

  test('a chunked PUT (no Content-Length, no Content-Type) uploads the whole body', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const parts = Array.from({ length: 50 }, (_, i) => `${i},${'x'.repeat(1000)}\n`);
    const answer = await rawPut(await signer.sign(putGrant(job)), parts, { 'transfer-encoding': 'chunked' });
    assert.equal(answer.status, 200);
    assert.equal(await text(`uploads/${job}/upload.csv`), parts.join(''));
  });

  test('a GET URL downloads byte-identical, gzip without Content-Encoding, as an attachment', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const gz = gzipSync(Buffer.from('voterbase_id,matchback_id\nNC-1,7\n'.repeat(500)));
    await store.put(`results/${job}/list.csv.gz`, Readable.from([gz]));
    const response = await fetch(await signer.sign(getGrant(job, 'list.csv.gz')));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/gzip');
    assert.equal(response.headers.get('content-disposition'), 'attachment; filename="list.csv.gz"');
    assert.equal(response.headers.get('cache-control'), 'private, no-store');
    assert.equal(response.headers.get('content-encoding'), null);
    // fetch would have gunzipped a Content-Encoding: gzip body; these are the stored bytes.
    const body = Buffer.from(await response.arrayBuffer());
    assert.equal(
      createHash('sha256').update(body).digest('hex'),
      createHash('sha256').update(gz).digest('hex'),
    );

    const binary = randomBytes(200_000);
    await store.put(`results/${job}/list.zip`, Readable.from([binary]));
    const zip = await fetch(await signer.sign(getGrant(job, 'list.zip')));
    assert.equal(zip.headers.get('content-type'), 'application/zip');
    assert.ok(Buffer.from(await zip.arrayBuffer()).equals(binary));

    await store.put(`results/${job}/list.csv`, Readable.from([Buffer.from('a,b\n')]));
    const csv = await fetch(await signer.sign(getGrant(job, 'list.csv')));
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(await csv.text(), 'a,b\n');
  });

  test('the same grant signed again within minutes gives the same URL', async (t) => {
    if (!(await setUp(t))) return;
    const grant = getGrant(newJob(), 'list.csv');
    const at = Date.UTC(2026, 0, 1, 12, 0, 10);
    const early = await signerWith({ now: () => at });
    const later = await signerWith({ now: () => at + 120_000 });
    const grantThen = { ...grant, expiresAt: Math.floor(at / 1000) + 3600 };
    assert.equal(await early.sign(grantThen), await later.sign(grantThen));
  });

  test('a tampered signature, another key, a longer expiry or another response header: 403', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    await store.put(`results/${job}/list.csv`, Readable.from([Buffer.from('secret,result\n')]));
    await store.put(`results/${newJob()}/list.csv`, Readable.from([Buffer.from('another,job\n')]));
    const url = new URL(await signer.sign(getGrant(job, 'list.csv')));
    assert.equal((await fetch(url)).status, 200, 'the untouched URL works');

    const signature = url.searchParams.get('X-Amz-Signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', `${signature[0] === '0' ? '1' : '0'}${signature.slice(1)}`);
    assert.deepEqual(await refusal(await fetch(tampered)), { status: 403, code: 'SignatureDoesNotMatch' });

    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(job, newJob());
    assert.equal((await refusal(await fetch(otherKey))).status, 403);

    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    assert.deepEqual(await refusal(await fetch(longer)), { status: 403, code: 'SignatureDoesNotMatch' });

    const otherType = new URL(url);
    otherType.searchParams.set('response-content-type', 'text/html');
    assert.deepEqual(await refusal(await fetch(otherType)), { status: 403, code: 'SignatureDoesNotMatch' });

    const unsigned = new URL(url);
    unsigned.searchParams.delete('X-Amz-Signature');
    assert.equal((await refusal(await fetch(unsigned))).status, 403);
  });

  test('an expired URL: 403 (the same grant with a future expiry works)', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    await store.put(`results/${job}/list.csv`, Readable.from([Buffer.from('a,b\n')]));
    const twoHoursAgo = Date.now() - 2 * 3600_000;
    const past = await signerWith({ now: () => twoHoursAgo });
    const expired = await past.sign({
      ...getGrant(job, 'list.csv'),
      expiresAt: Math.floor(twoHoursAgo / 1000) + 60,
    });
    assert.deepEqual(await refusal(await fetch(expired)), { status: 403, code: 'AccessDenied' });
    // Signed two hours ago and still valid: only the expiry made the difference.
    const stillValid = await past.sign({ ...getGrant(job, 'list.csv'), expiresAt: inAnHour() });
    assert.equal((await fetch(stillValid)).status, 200);

    // An upload grant whose time is over gives an expired URL rather than an error.
    const lateUpload = await signer.sign({
      ...putGrant(newJob()),
      expiresAt: Math.floor(Date.now() / 1000) - 10,
    });
    assert.deepEqual(await refusal(await fetch(lateUpload, { method: 'PUT', body: 'x' })), {
      status: 403,
      code: 'AccessDenied',
    });
  });

  test('URLs signed with a wrong secret or an unknown access key: 403, nothing stored', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const wrongSecret = await signerWith({ secretAccessKey: 'not-the-secret' });
    assert.deepEqual(
      await refusal(await fetch(await wrongSecret.sign(putGrant(job)), { method: 'PUT', body: 'x' })),
      {
        status: 403,
        code: 'SignatureDoesNotMatch',
      },
    );
    const unknownKey = await signerWith({ accessKeyId: 'test:nobody' });
    assert.equal(
      (await refusal(await fetch(await unknownKey.sign(putGrant(job)), { method: 'PUT', body: 'x' }))).status,
      403,
    );
    assert.equal(await store.stat(`uploads/${job}/upload.csv`), null);
  });

  test('a GET URL cannot PUT (or DELETE), a PUT URL cannot GET', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    await store.put(`results/${job}/upload.csv`, Readable.from([Buffer.from('the result\n')]));
    // A grant for the same object both ways: only the signed method works.
    const both = await signerWith({ blobKeyOf: (grant) => `results/${grant.jobId}/${grant.name}` });
    const getUrl = await both.sign({ ...getGrant(job, 'upload.csv') });
    assert.equal((await refusal(await fetch(getUrl, { method: 'PUT', body: 'overwritten' }))).status, 403);
    assert.equal((await refusal(await fetch(getUrl, { method: 'DELETE' }))).status, 403);
    assert.equal(await text(`results/${job}/upload.csv`), 'the result\n');

    const putUrl = await both.sign(putGrant(job));
    assert.equal((await refusal(await fetch(putUrl))).status, 403);
  });

  test('what S3 cannot refuse: a body over maxBytes and a second PUT (the service checks at arrival)', async (t) => {
    if (!(await setUp(t))) return;
    const job = newJob();
    const grant = putGrant(job);
    const url = await signer.sign(grant);
    const oversize = 'x'.repeat(grant.maxBytes! + 1);
    assert.equal((await fetch(url, { method: 'PUT', body: oversize })).status, 200);
    assert.deepEqual(await store.stat(`uploads/${job}/upload.csv`), { bytes: grant.maxBytes! + 1 });
    assert.equal((await fetch(url, { method: 'PUT', body: 'second' })).status, 200);
    assert.equal(await text(`uploads/${job}/upload.csv`), 'second');
  });
});
