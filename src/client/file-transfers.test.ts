import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { closeAfterLingering } from '../http/lingering-close.ts';
import { ListmatchClient, ListmatchError } from './listmatch-client.ts';

/** A local server that answers `handle`; what each PUT carried is kept. */
let handle: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;
let early: ((request: IncomingMessage, response: ServerResponse) => boolean) | null = null;
let url = '';
const server = createServer((request, response) => {
  if (early?.(request, response)) return;
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => handle(request, response, Buffer.concat(chunks)));
});
const dir = mkdtempSync(join(tmpdir(), 'file-transfers-'));
const client = new ListmatchClient({ server: 'http://unused', apiKey: 'lm_k' });

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload/abc`;
});
after(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('uploadFile sends a file of several buffers byte for byte, with its length and progress', async () => {
  // Three reads of its 1 MiB buffers, the last one short: each buffer is used twice.
  const bytes = randomBytes(2.5 * 2 ** 20 + 17);
  const path = join(dir, 'list.csv');
  writeFileSync(path, bytes);
  let received: { body: Buffer; length: string | undefined; method: string | undefined } | null = null;
  handle = (request, response, body) => {
    received = { body, length: request.headers['content-length'], method: request.method };
    response.writeHead(200).end();
  };
  const progress: number[] = [];
  await client.uploadFile(url, path, { onBytes: (sent) => progress.push(sent) });
  assert.ok(received !== null);
  const got = received as { body: Buffer; length: string | undefined; method: string | undefined };
  assert.equal(got.method, 'PUT');
  assert.equal(got.length, String(bytes.length));
  const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
  assert.equal(md5(got.body), md5(bytes));
  assert.deepEqual(progress, [2 ** 20, 2 * 2 ** 20, bytes.length]);
});

test('uploadFile sends an empty file', async () => {
  const path = join(dir, 'empty.csv');
  writeFileSync(path, '');
  let length: string | undefined;
  handle = (request, response, body) => {
    length = request.headers['content-length'];
    assert.equal(body.length, 0);
    response.writeHead(200).end();
  };
  await client.uploadFile(url, path);
  assert.equal(length, '0');
});

test('a refusal answered before the body is read is what uploadFile throws', async () => {
  const path = join(dir, 'big.csv');
  writeFileSync(path, randomBytes(8 * 2 ** 20));
  early = (request, response) => {
    // As the service refuses an upload: JSON with `error`, answered without reading the body,
    // the connection closed after lingering (src/http/lingering-close.ts).
    closeAfterLingering(request.socket);
    response
      .writeHead(403, { connection: 'close', 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'Authorization Error: this upload URL has expired' }));
    return true;
  };
  try {
    await assert.rejects(client.uploadFile(url, path), (error: unknown) => {
      assert.ok(error instanceof ListmatchError);
      assert.equal(error.status, 403);
      assert.equal(error.kind, 'authorization');
      assert.match(error.message, /^Authorization Error: this upload URL has expired/);
      return true;
    });
  } finally {
    early = null;
  }
});

test('downloadFile writes the answer to a file byte for byte and answers its length', async () => {
  const bytes = randomBytes(3 * 2 ** 20 + 5);
  handle = (_request, response) => {
    response.writeHead(200, { 'content-length': String(bytes.length) }).end(bytes);
  };
  const path = join(dir, 'result.csv');
  assert.equal(await client.downloadFile(url, path), bytes.length);
  assert.ok(readFileSync(path).equals(bytes));
});

test('a refused download throws the service text and writes no file', async () => {
  handle = (_request, response) => {
    response
      .writeHead(403, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 'Authorization Error: this download URL has expired' }));
  };
  await assert.rejects(client.downloadFile(url, join(dir, 'refused.csv')), (error: unknown) => {
    assert.ok(error instanceof ListmatchError);
    assert.equal(error.status, 403);
    assert.match(error.message, /^Authorization Error: this download URL has expired/);
    return true;
  });
  assert.equal(existsSync(join(dir, 'refused.csv')), false);
});
