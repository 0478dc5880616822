import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAllowlisted, isPublicAddress, refuseWebhookTarget } from './public-address.ts';

describe('isPublicAddress', () => {
  test('refuses loopback, private, CGNAT, link-local, metadata and reserved IPv4', () => {
    for (const address of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  test('refuses IPv6 loopback, ULA, link-local, site-local and IPv4 embedded in IPv6', () => {
    for (const address of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fec0::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '[::1]',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  test('accepts public addresses and refuses names (only literals are judged here)', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPublicAddress(address), true, address);
    }
    assert.equal(isPublicAddress('example.com'), false);
  });
});

describe('refuseWebhookTarget and WEBHOOK_ALLOW_HOSTS', () => {
  test('IP literals (any spelling the URL parser accepts) and localhost are refused', () => {
    for (const target of [
      'http://127.0.0.1/x',
      'http://2130706433/x',
      'http://0x7f.1/x',
      'http://[::ffff:127.0.0.1]/x',
      'http://169.254.169.254/latest/meta-data',
      'http://localhost/x',
      'http://api.localhost/x',
    ]) {
      assert.notEqual(refuseWebhookTarget(target, []), null, target);
    }
    assert.equal(refuseWebhookTarget('https://hooks.example.com/x', []), null);
  });

  test('host or host:port entries allow exactly that host (and port)', () => {
    assert.equal(refuseWebhookTarget('http://127.0.0.1:8080/x', ['127.0.0.1:8080']), null);
    assert.notEqual(refuseWebhookTarget('http://127.0.0.1:8081/x', ['127.0.0.1:8080']), null);
    assert.equal(refuseWebhookTarget('http://127.0.0.1:8081/x', ['127.0.0.1']), null);
    assert.equal(isAllowlisted(new URL('http://[::1]:9/x'), ['[::1]:9']), true);
    assert.equal(isAllowlisted(new URL('https://Hooks.Internal/x'), ['hooks.internal:443']), true);
    assert.equal(isAllowlisted(new URL('http://hooks.internal/x'), ['hooks.internal:443']), false);
  });
});
