/**
 * Issue 35, finding 1: every request body is held to the body deadline (HTTP_BODY_TIMEOUT_SECONDS,
 * HTTP_BODY_MIN_BYTES_PER_SECOND), whatever the route: a POST answered without its body (unknown
 * path, a method the path does not take, no key) is answered at once and its connection closed;
 * one whose body is parsed (the sign-in form) is cut off with 408 at the deadline. Over real
 * sockets, each trickling a byte every 200 ms of a large declared body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseResponse, rawConnection, trickle } from '../support/raw-http.ts';
import { startTestService, type TestService } from '../support/test-service.ts';

/** The service's request timeout is left at its default (an hour): only the body deadline may end these. */
const WAIT_MS = 8_000;
/** 1 s grace, then 100 bytes/s: a byte every 200 ms is cut off a little after 1 s. */
const CLOSED_WITHIN_MS = 4_000;

describe('slow request bodies (issue 35, finding 1)', () => {
  let t: TestService;

  before(async () => {
    t = await startTestService(
      { HTTP_BODY_TIMEOUT_SECONDS: '1', HTTP_BODY_MIN_BYTES_PER_SECOND: '100' },
      { voters: false },
    );
  });
  after(async () => await t.stop());

  /** Sends the head and the first body bytes, trickles a byte every 200 ms, returns the answer. */
  const trickled = async (head: string, firstBytes: string) => {
    const connection = await rawConnection(t.base);
    connection.socket.write(`${head}\r\n\r\n${firstBytes}`);
    const sending = trickle(connection.socket, WAIT_MS / 200, 200);
    const exchange = await connection.exchange(WAIT_MS);
    connection.socket.destroy();
    await sending;
    return exchange;
  };

  const assertClosedQuickly = (closedAfterMs: number | null) =>
    assert.ok(
      closedAfterMs !== null && closedAfterMs < CLOSED_WITHIN_MS,
      `closed after ${closedAfterMs} ms (null: still open after ${WAIT_MS} ms)`,
    );

  test('POST /service/smartmatch with a trickling JSON body and no key is answered at once and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'POST /service/smartmatch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000',
      '{"filename":"',
    );
    assertClosedQuickly(closedAfterMs);
    const answer = parseResponse(text);
    assert.equal(answer.status, 405);
    assert.equal(answer.body['url'], null);
    assert.match(answer.headers, /\r\nconnection: close/i);
  });

  test('POST to an unknown path with a trickling JSON body is answered 404 at once and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'POST /no/such/endpoint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000',
      '{"a":"',
    );
    assertClosedQuickly(closedAfterMs);
    const answer = parseResponse(text);
    assert.equal(answer.status, 404);
    assert.match(String(answer.body['error']), /^Validation Error: no endpoint POST \/no\/such\/endpoint/);
    assert.match(answer.headers, /\r\nconnection: close/i);
  });

  test('POST /browse/sign-in with a trickling form body is cut off with 408 at the deadline and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'POST /browse/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4000',
      'token=',
    );
    assertClosedQuickly(closedAfterMs);
    assert.match(text, /^HTTP\/1\.1 408 /);
    assert.match(text, /\r\nconnection: close/i);
  });

  test('POST /browse/sign-in with a trickling JSON body is cut off with 408 at the deadline and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'POST /browse/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000',
      '{"token":"',
    );
    assertClosedQuickly(closedAfterMs);
    assert.match(text, /^HTTP\/1\.1 408 /);
  });

  test('POST /browse/sign-out with a trickling text body is cut off with 408 at the deadline and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'POST /browse/sign-out HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 60000',
      'x',
    );
    assertClosedQuickly(closedAfterMs);
    assert.match(text, /^HTTP\/1\.1 408 /);
  });

  test('the JSON-body GET without a key is answered 401 at once and closed', async () => {
    const { text, closedAfterMs } = await trickled(
      'GET /service/smartmatch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000',
      '{"filename":"',
    );
    assertClosedQuickly(closedAfterMs);
    const answer = parseResponse(text);
    assert.equal(answer.status, 401);
    assert.match(answer.headers, /\r\nconnection: close/i);
  });
});
