import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { platformRequest } from './platform-http.ts';

describe('platformRequest', () => {
  const server = createServer((_request, response) => setTimeout(() => response.end('ok'), 200));
  let url: URL;
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('rejects a call whose signal was aborted before it started, with nothing thrown past it', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const controller = new AbortController();
      controller.abort();
      await assert.rejects(
        platformRequest(url, { method: 'GET', headers: {}, timeoutMs: 5_000, signal: controller.signal }),
        (error: NodeJS.ErrnoException) => error.code === 'ABORT_ERR',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.deepEqual(uncaught, []);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('rejects a call aborted while it waits for the answer', async () => {
    const controller = new AbortController();
    const call = platformRequest(url, {
      method: 'GET',
      headers: {},
      timeoutMs: 5_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(call, (error: NodeJS.ErrnoException) => error.code === 'ABORT_ERR');
  });

  it('answers with the status and body', async () => {
    const answer = await platformRequest(url, { method: 'GET', headers: {}, timeoutMs: 5_000 });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'ok');
  });
});
