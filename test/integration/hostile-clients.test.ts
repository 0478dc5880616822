/**
 * Clients that stall, trickle, overflow or speak broken HTTP, over real sockets: each gets an
 * answer in the contract's shape, is cut off in bounded time, and holds nothing afterwards.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseResponse, rawConnection, trickle } from '../support/raw-http.ts';
import {
  register,
  startTestService,
  type TestService,
  upload,
  waitForResult,
} from '../support/test-service.ts';

/** Pino's numeric levels: 50 is error. */
const ERROR_LEVEL = 50;

const pathOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describe('hostile clients', () => {
  let t: TestService;
  let key: string;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    t = await startTestService(
      {
        RATE_LIMIT_POLL_SECONDS: '0',
        // debug: per-request lines too, as an operator chasing a problem would run it.
        LOG_LEVEL: 'debug',
        // A body gets 1 s, then must keep up 100 bytes/s; idle keep-alive connections close after 1 s.
        HTTP_BODY_TIMEOUT_SECONDS: '1',
        HTTP_BODY_MIN_BYTES_PER_SECOND: '100',
        HTTP_KEEP_ALIVE_SECONDS: '1',
        MAX_CONCURRENT_UPLOADS_PER_KEY: '2',
      },
      { logStream: { write: (line) => logLines.push(JSON.parse(line) as Record<string, unknown>) } },
    );
    key = (await t.createKey()).key;
  });
  after(async () => await t.stop());

  test('a PUT that trickles a byte every 200 ms is cut off with 408 and closed; nothing is kept, the URL still works', async () => {
    const url = await register(t, key, 'filename=trickle');
    const connection = await rawConnection(t.base);
    connection.socket.write(
      `PUT ${pathOf(url)} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nvoterbase_id\n`,
    );
    const sending = trickle(connection.socket, 1000, 200);
    const { text, closedAfterMs } = await connection.exchange(10_000);
    await sending;
    assert.ok(closedAfterMs !== null && closedAfterMs < 6_000, `closed after ${closedAfterMs} ms`);
    const answer = parseResponse(text);
    assert.equal(answer.status, 408);
    assert.equal(answer.body['url'], null);
    assert.match(String(answer.body['error']), /^Validation Error: the request body stalled/);
    assert.match(answer.headers, /\r\nconnection: close/i);

    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    assert.deepEqual(
      await readdir(join(t.dataDir, 'blobs', '.tmp')).catch(() => []),
      [],
      'no temporary file',
    );
    assert.deepEqual(await readdir(join(t.dataDir, 'blobs', 'uploads', jobId)).catch(() => []), []);
    assert.equal((await upload(url, 'voterbase_id\nNC-000000001\n')).status, 200, 'the same URL works again');
  });

  test('a refused PUT (bad signature) closes its connection instead of reading a trickle on', async () => {
    const url = await register(t, key, 'filename=refused_trickle');
    const tampered = pathOf(url).replace(/sig=[^&]+/, `sig=${'A'.repeat(43)}`);
    const connection = await rawConnection(t.base);
    connection.socket.write(`PUT ${tampered} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nvoter`);
    const sending = trickle(connection.socket, 100, 100);
    const { text, closedAfterMs } = await connection.exchange(8_000);
    await sending;
    assert.equal(parseResponse(text).status, 403);
    assert.ok(closedAfterMs !== null && closedAfterMs < 3_000, `closed after ${closedAfterMs} ms`);
  });

  test('one key streams at most MAX_CONCURRENT_UPLOADS_PER_KEY uploads at once; another key is not held back', async () => {
    const slow = await Promise.all(
      ['busy_1', 'busy_2'].map(async (name) => {
        const url = await register(t, key, `filename=${name}`);
        const connection = await rawConnection(t.base);
        connection.socket.write(`PUT ${pathOf(url)} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
        return connection;
      }),
    );
    // Keep both alive above the minimum rate while the third one is tried.
    const feeding = slow.map((connection) => trickle(connection.socket, 15, 100, 'x'.repeat(50)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = await upload(await register(t, key, 'filename=busy_3'), 'voterbase_id\nNC-000000001\n');
    assert.equal(third.status, 429);
    assert.match(
      (JSON.parse(third.text) as { error: string }).error,
      /^Rate Limit Error: 2 uploads of this API key/,
    );
    const other = await t.createKey();
    const elsewhere = await upload(await register(t, other.key, 'filename=other_key'), 'voterbase_id\n');
    assert.equal(elsewhere.status, 200);
    await Promise.all(feeding);
    for (const connection of slow) connection.socket.destroy();
  });

  test('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_SECONDS', async () => {
    const connection = await rawConnection(t.base);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const { text, closedAfterMs } = await connection.exchange(10_000);
    assert.equal(parseResponse(text).status, 200);
    assert.ok(closedAfterMs !== null && closedAfterMs < 5_000, `closed after ${closedAfterMs} ms`);
  });

  test('a JSON-body registration the client abandons mid-body is no error-level log line', async () => {
    const before = logLines.length;
    const connection = await rawConnection(t.base);
    connection.socket.write(
      `GET /service/smartmatch HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"filename":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    connection.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const errors = logLines.slice(before).filter((line) => Number(line['level']) >= ERROR_LEVEL);
    assert.deepEqual(errors, []);
  });

  test('a JSON body over 64 KiB on the registration GET is answered (200, Validation Error), not dropped', async () => {
    const body = JSON.stringify({ filename: 'big_body', pad: 'x'.repeat(70_000) });
    for (const framing of [`Content-Length: ${Buffer.byteLength(body)}`, 'Transfer-Encoding: chunked']) {
      const connection = await rawConnection(t.base);
      const payload = framing.startsWith('Content')
        ? body
        : `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
      connection.socket.write(
        `GET /service/smartmatch HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n${payload}`,
      );
      const { text } = await connection.exchange(5_000);
      connection.socket.destroy();
      assert.ok(text !== '', `${framing}: an answer came`);
      const answer = parseResponse(text);
      assert.equal(answer.status, 200, framing);
      assert.equal(answer.body['url'], null);
      assert.match(String(answer.body['error']), /^Validation Error: parameters belong in the query string/);
    }
  });

  test('a query over 16 KB answers 431 in the contract shape', async () => {
    const response = await fetch(`${t.base}/service/smartmatch?filename=x&pad=${'y'.repeat(17_000)}`, {
      headers: { 'x-api-key': key },
    });
    assert.equal(response.status, 431);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body['url'], null);
    assert.match(String(body['error']), /^Validation Error: the request line and headers exceed 16 KB/);
  });

  test('malformed HTTP answers 400 in the contract shape', async () => {
    for (const request of [
      'GET /service/smartmatch HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n',
      'PUT /files/a/b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'GET / HTTP/9.9\r\n\r\n',
    ]) {
      const connection = await rawConnection(t.base);
      connection.socket.write(request);
      const { text } = await connection.exchange(3_000);
      const answer = parseResponse(text);
      assert.equal(answer.status, 400, JSON.stringify(request));
      assert.equal(answer.body['url'], null);
      assert.match(String(answer.body['error']), /^Validation Error: /);
    }
  });

  test('complete gzip downloads closed by the client at once log nothing about a premature close', async () => {
    const url = await register(t, key, 'filename=gz_logs&format=gzip');
    assert.equal((await upload(url, 'matchback_id,voter_id,state\n1,123456,NC\n')).status, 200);
    const result = await waitForResult(t, key, 'gz_logs');
    const before = logLines.length;
    for (let i = 0; i < 20; i++) {
      const connection = await rawConnection(t.base);
      connection.socket.write(`GET ${pathOf(result.url)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      // Read until the whole file is there, then hang up at once, as a client does.
      await new Promise<void>((resolve) => {
        let received = Buffer.alloc(0);
        connection.socket.on('data', (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          const split = received.indexOf('\r\n\r\n');
          const length = Number(/content-length: (\d+)/i.exec(received.toString('latin1'))?.[1]);
          if (split !== -1 && received.length - split - 4 >= length) {
            connection.socket.destroy();
            resolve();
          }
        });
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    const noisy = logLines
      .slice(before)
      .filter(
        (line) =>
          Number(line['level']) >= 30 && /prematurely|interrupted|terminated/.test(String(line['msg'])),
      );
    assert.deepEqual(noisy, []);
  });
});
