import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { DELIVER_WEBHOOK_JOB } from '../../src/domain/ports/job-catalog.ts';
import { isPublicAddress } from '../../src/domain/webhooks/public-address.ts';
import { jobIdOf } from '../support/delivery-archive.ts';
import {
  getJson,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

interface Call {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A real HTTP receiver on loopback that answers the given statuses in turn (then 200). A status
 * of 0 means no answer at all until the client gives up (a hanging receiver).
 */
async function receiver(
  statuses: number[] = [],
): Promise<{ url: string; calls: Call[]; hostPort: string; close(): Promise<void> }> {
  const calls: Call[] = [];
  const server: Server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    calls.push({ headers: req.headers, body });
    const status = statuses.shift() ?? 200;
    if (status === 0) return;
    res.statusCode = status;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    hostPort: `127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('webhook (clients.md 22)', () => {
  let hook: Awaited<ReturnType<typeof receiver>>;
  let t: TestService;
  let key: string;
  let keyId: string;
  let webhookSecret: string;

  before(async () => {
    hook = await receiver([500, 0]);
    t = await startTestService({
      RATE_LIMIT_POLL_SECONDS: '0',
      WEBHOOK_ALLOW_HOSTS: hook.hostPort,
      WEBHOOK_RETRY_BASE_SECONDS: '0.05',
      WEBHOOK_TIMEOUT_SECONDS: '1',
    });
    ({ key, id: keyId, webhookSecret } = await t.createKey());
  });
  after(async () => {
    await t.stop();
    await hook.close();
  });

  test('one signed JSON POST {"callback": <presigned GET url>} after completion, retried after a 500 and a timeout', async () => {
    const url = await register(t, key, `filename=hooked&webhook=${encodeURIComponent(hook.url)}`);
    await upload(url, 'voterbase_id\nNC-000000001\n');
    await until(() => hook.calls.length >= 1, 'the first webhook call');
    // While the webhook is failing the job is complete and its result reachable by poll.
    const polled = await waitForResult(t, key, 'hooked');
    assert.equal(polled.error, null);
    assert.equal(polled.status, 'complete');
    await until(() => hook.calls.length === 3, 'three webhook calls: 500, no answer, 200');
    const verifier = new Webhook(webhookSecret);
    for (const call of hook.calls) {
      assert.equal(call.headers['content-type'], 'application/json');
      assert.deepEqual(Object.keys(JSON.parse(call.body)), ['callback']);
      // The receiver checks the Standard Webhooks signature over the exact body it got.
      const signed = {
        'webhook-id': String(call.headers['webhook-id']),
        'webhook-timestamp': String(call.headers['webhook-timestamp']),
        'webhook-signature': String(call.headers['webhook-signature']),
      };
      assert.deepEqual(verifier.verify(call.body, signed), JSON.parse(call.body));
    }
    const ids = new Set(hook.calls.map((call) => call.headers['webhook-id']));
    assert.equal(ids.size, 1, 'one webhook-id for every attempt of the delivery');
    const callback = JSON.parse(hook.calls[2]!.body).callback as string;
    const download = await fetch(callback);
    assert.equal(download.status, 200);
    assert.match(
      await download.text(),
      /^voterbase_id,ts__input_row.*\nNC-000000001,1,1,Y,NC-000000001,DEM,1,1,Y,100,voterbase_id,voterbase_id=exact\n$/s,
    );
    // Done is recorded once the 200 came back: from then on the job has no webhook call left to make.
    const jobId = await jobIdOf(t, keyId, 'hooked');
    const webhooks = async () =>
      (await t.running.services.queue.messagesForJob(jobId)).filter((m) => m.type === DELIVER_WEBHOOK_JOB);
    await until(
      async () =>
        hook.calls.length > 3 || (await webhooks()).every((m) => m.state === 'done' || m.state === 'dead'),
      'the webhook delivery settled (or a fourth call)',
    );
    assert.deepEqual(
      (await webhooks()).map((m) => [m.state, m.attempts]),
      [['done', 3]],
      'one delivery, done on its third attempt: nothing pending after success',
    );
    assert.equal(hook.calls.length, 3, 'no further calls after success');
    const poll = await waitForResult(t, key, 'hooked');
    assert.equal(poll.error, null);
  });

  test('after a rotation a call verifies with the new secret and, for the overlap, with the old one', async () => {
    const client = await t.createKey({ name: 'rotating client' });
    const rotated = await t.running.services.keys.createWebhookSecret(client.id, { rotate: true });
    const before = hook.calls.length;
    const url = await register(t, client.key, `filename=rotated&webhook=${encodeURIComponent(hook.url)}`);
    await upload(url, 'voterbase_id\nNC-000000001\n');
    await until(() => hook.calls.length === before + 1, 'the webhook call');
    const call = hook.calls[before]!;
    const signed = {
      'webhook-id': String(call.headers['webhook-id']),
      'webhook-timestamp': String(call.headers['webhook-timestamp']),
      'webhook-signature': String(call.headers['webhook-signature']),
    };
    for (const secret of [rotated.webhookSecret, client.webhookSecret]) {
      assert.deepEqual(new Webhook(secret).verify(call.body, signed), JSON.parse(call.body));
    }
    assert.throws(() => new Webhook(webhookSecret).verify(call.body, signed), 'another key cannot verify it');
  });

  test('private, loopback and metadata targets are refused at registration unless allowlisted', async () => {
    for (const target of [
      'http://127.0.0.2/x',
      'http://localhost:9/x',
      'http://169.254.169.254/latest/meta-data',
      'http://10.1.2.3/x',
      'http://[::1]/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://192.168.1.1/x',
    ]) {
      const { status, body } = await getJson(
        `${t.base}/service/smartmatch?filename=ssrf&webhook=${encodeURIComponent(target)}`,
        key,
      );
      assert.equal(status, 200, target);
      assert.equal(body['url'], null, target);
      assert.match(String(body['error']), /^Validation Error: webhook must be a public address/, target);
    }
  });
});

describe('webhook SSRF guard at call time', () => {
  test('a host that is not allowlisted gets no call; the job still completes', async () => {
    const hook = await receiver();
    // No allowlist: the loopback receiver must never be called, even through a DNS name.
    const t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0', WEBHOOK_RETRY_BASE_SECONDS: '0.02' });
    try {
      const key = (await t.createKey()).key;
      const port = hook.hostPort.split(':')[1];
      // The machine's own name resolves to a loopback or private address (here through /etc/hosts):
      // it passes registration (no DNS there) and must be refused when the call is made.
      const name = hostname();
      const { address } = await lookup(name);
      assert.ok(
        !isPublicAddress(address),
        `precondition: ${name} resolves to a non-public address, got ${address}`,
      );
      const url = await register(
        t,
        key,
        `filename=guarded&webhook=${encodeURIComponent(`http://${name}:${port}/hook`)}`,
      );
      await upload(url, 'voterbase_id\nNC-000000001\n');
      const result = await waitForResult(t, key, 'guarded');
      assert.equal(result.error, null);
      await until(
        async () => (await t.running.services.queue.stats()).dead === 1,
        'the webhook dead-lettered',
      );
      assert.equal(hook.calls.length, 0);
      const dead = t.running.services
        .database!.db.prepare("SELECT last_error FROM queue WHERE state = 'dead'")
        .get() as { last_error: string };
      assert.match(dead.last_error, /resolves to a non-public address/);
      const attempts = t.running.services
        .database!.db.prepare("SELECT attempts FROM queue WHERE state = 'dead'")
        .get() as { attempts: number };
      assert.equal(attempts.attempts, 9, 'every retry was tried before giving up');
    } finally {
      await t.stop();
      await hook.close();
    }
  });
});
