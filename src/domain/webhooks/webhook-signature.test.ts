import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { completionWebhookId, newWebhookSecret, webhookSignatureHeaders } from './webhook-signature.ts';

describe('webhookSignatureHeaders', () => {
  const body = '{"callback":"https://lm.example/files/result?sig=abc"}';

  test('verifies with the standardwebhooks reference library', () => {
    const secret = newWebhookSecret();
    const headers = webhookSignatureHeaders({
      id: 'msg_job_1',
      timestamp: Date.now() / 1000,
      body,
      secrets: [secret],
    });
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  test('a changed body, another secret or a stale timestamp fail verification', () => {
    const secret = newWebhookSecret();
    const headers = webhookSignatureHeaders({
      id: 'msg_job_1',
      timestamp: Date.now() / 1000,
      body,
      secrets: [secret],
    });
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
    const stale = webhookSignatureHeaders({
      id: 'msg_job_1',
      timestamp: Date.now() / 1000 - 600,
      body,
      secrets: [secret],
    });
    assert.throws(() => new Webhook(secret).verify(body, stale), /timestamp/i);
  });

  test('the headers follow the standard: whole-second timestamp, v1 HMAC-SHA256 of id.timestamp.body', () => {
    const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
    const headers = webhookSignatureHeaders({
      id: 'msg_x',
      timestamp: 1_700_000_000.9,
      body,
      secrets: [secret],
    });
    assert.equal(headers['webhook-id'], 'msg_x');
    assert.equal(headers['webhook-timestamp'], '1700000000');
    const expected = createHmac('sha256', '0123456789abcdef0123456789abcdef')
      .update(`msg_x.1700000000.${body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);
  });

  test('secrets are whsec_ + base64 of 32 random bytes, and differ', () => {
    const a = newWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.notEqual(a, newWebhookSecret());
    assert.throws(() => webhookSignatureHeaders({ id: 'x', timestamp: 0, body, secrets: ['plain'] }));
    assert.throws(() => webhookSignatureHeaders({ id: 'x', timestamp: 0, body, secrets: [] }));
  });

  test('during a rotation a call carries both signatures and verifies with either secret', () => {
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    const headers = webhookSignatureHeaders({
      id: 'msg_job_1',
      timestamp: Date.now() / 1000,
      body,
      secrets: [current, previous],
    });
    assert.match(headers['webhook-signature'], /^v1,\S+ v1,\S+$/);
    assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });

  test('the completion delivery id depends only on the job', () => {
    assert.equal(completionWebhookId('job_1'), completionWebhookId('job_1'));
    assert.notEqual(completionWebhookId('job_1'), completionWebhookId('job_2'));
  });
});
