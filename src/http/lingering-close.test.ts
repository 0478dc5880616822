import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, test } from 'node:test';
import { closeAfterLingering } from './lingering-close.ts';

/**
 * A server that refuses every request at once, without reading its body, lingering `LINGER` ms.
 * That the refusal then reaches an upload client is shown over the service itself
 * (test/integration/presigned-upload.test.ts); here, that lingering is bounded and ends early.
 */
const LINGER = 300;
let server: Server;
let port = 0;
before(async () => {
  server = createServer((request, response) => {
    closeAfterLingering(request.socket, LINGER);
    response
      .writeHead(403, { connection: 'close', 'content-type': 'application/json', 'content-length': '14' })
      .end('{"error":"no"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

/**
 * Opens a PUT declaring `declared` bytes and keeps writing 64 KB blocks until the socket fails,
 * the server's end of its side notwithstanding (half-open, as a client busy uploading may be).
 * Answers the milliseconds until the connection closed.
 */
function pushingClient(declared: number): Promise<number> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const started = performance.now();
  socket.on('error', () => {});
  socket.write(`PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
  const block = Buffer.alloc(64 * 1024, 'x');
  const push = () => {
    while (!socket.destroyed && socket.write(block)) {}
    if (!socket.destroyed) socket.once('drain', push);
  };
  push();
  // Not events.once: the client's writes fail (EPIPE) when the server goes, which once() would throw.
  return new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - started)));
}

test('the connection is closed after lingering, however long the client would go on', async () => {
  const ms = await pushingClient(1 << 30);
  assert.ok(ms >= LINGER - 50 && ms < LINGER + 2_000, `closed after ${Math.round(ms)} ms`);
});

test('a client that ends its side after the answer closes the connection at once', async () => {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    // The answer is in: the client stops sending and ends its side, as uploadFile does.
    if (text.endsWith('{"error":"no"}')) socket.end();
  });
  const started = performance.now();
  socket.write('PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\nsome');
  await once(socket, 'close');
  assert.match(text, /^HTTP\/1\.1 403 /);
  assert.ok(performance.now() - started < LINGER, 'closed before the lingering ran out');
});
