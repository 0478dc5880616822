/**
 * Stopping the service while a client's request is still running: the request is answered in
 * full, and its keep-alive connection is closed as soon as it ends, so the stop does not wait for
 * the connection's keep-alive timeout (HTTP_KEEP_ALIVE_SECONDS, 65 s by default).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, get, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { describe, test } from 'node:test';
import { register, startTestService, upload, waitForResult } from '../support/test-service.ts';

describe('stopping the service', () => {
  test('a download running when the stop begins is answered in full, then its connection is closed', {
    timeout: 30_000,
  }, async () => {
    const service = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    try {
      const { key } = await service.createKey();
      const list = `matchback_id,first_name,last_name\n${'1,JOHN,SMITH\n'.repeat(2000)}`;
      assert.equal((await upload(await register(service, key, 'filename=x&format=csv'), list)).status, 200);
      const { url, error } = await waitForResult(service, key, 'x', 60_000);
      assert.equal(error, null);

      const agent = new Agent({ keepAlive: true });
      const request = get(url, { agent });
      const [response] = (await once(request, 'response')) as [IncomingMessage];
      const socket = request.socket as Socket;
      const closed = once(socket, 'close');
      // The stop begins while the response is still to be read.
      const stopping = service.running.stop();
      let bytes = 0;
      for await (const chunk of response) bytes += (chunk as Buffer).length;
      assert.equal(bytes, Number(response.headers['content-length']));
      assert.ok(bytes > 10_000, `${bytes} bytes`);
      // The server closes the connection once the download is done (the test's timeout fails
      // it otherwise: the connection would stay open for its keep-alive timeout).
      await closed;
      await stopping;
      agent.destroy();
    } finally {
      await service.stop();
    }
  });
});
