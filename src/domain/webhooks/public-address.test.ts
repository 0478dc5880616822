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

describe('isPublicAddress: IANA special-purpose ranges and IPv4 tunnelled in IPv6 (issue 35, finding 3)', () => {
  const refused: [address: string, why: string][] = [
    // IPv4 special-purpose registry
    ['0.0.0.1', '0.0.0.0/8 "this network"'],
    ['100.64.0.1', '100.64.0.0/10 shared (CGNAT)'],
    ['100.127.255.254', '100.64.0.0/10 shared (CGNAT), top'],
    ['192.0.0.9', '192.0.0.0/24 IETF protocol assignments'],
    ['192.0.2.1', '192.0.2.0/24 documentation'],
    ['192.88.99.1', '192.88.99.0/24 6to4 relay anycast'],
    ['192.88.99.255', '192.88.99.0/24 6to4 relay anycast, top'],
    ['198.18.0.1', '198.18.0.0/15 benchmarking'],
    ['198.19.255.255', '198.18.0.0/15 benchmarking, top'],
    ['198.51.100.1', '198.51.100.0/24 documentation'],
    ['203.0.113.1', '203.0.113.0/24 documentation'],
    ['239.255.255.250', '224.0.0.0/4 multicast'],
    ['240.0.0.1', '240.0.0.0/4 reserved'],
    // 6to4 (2002::/16): an IPv4 address inside, whichever
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
    ['2002:808:808::1', '6to4 of 8.8.8.8 (6to4 is deprecated and relayed anywhere)'],
    ['2002::', '6to4, bare prefix'],
    // Teredo (2001::/32) and the rest of the IETF protocol block 2001::/23
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo (server 65.54.227.120, client 127.0.0.1)'],
    ['2001::1', 'Teredo, short'],
    ['2001:0:a9fe:a9fe::1', 'Teredo'],
    ['2001:2::1', '2001:2::/48 benchmarking'],
    ['2001:10::1', '2001:10::/28 ORCHID (deprecated)'],
    ['2001:1f:ffff::1', '2001:10::/28 ORCHID, top'],
    ['2001:20::1', '2001:20::/28 ORCHIDv2'],
    ['2001:1ff:ffff::1', '2001::/23, top'],
    // NAT64: the well-known prefix judged by its IPv4 address; local-use prefixes refused whole
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::127.0.0.1', 'NAT64 of 127.0.0.1, dotted'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::10.1.2.3', 'NAT64 of 10.1.2.3'],
    ['64:ff9b::c0a8:101', 'NAT64 of 192.168.1.1'],
    ['64:ff9b:1::1', '64:ff9b:1::/48 local-use NAT64'],
    ['64:ff9b:1:ffff::8.8.8.8', '64:ff9b:1::/48 local-use NAT64 (embedding format is local)'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', '64:ff9b:1::/48 local-use NAT64, top'],
    // IPv4-mapped and IPv4-compatible: judged as their IPv4 address, in any spelling
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['0:0:0:0:0:ffff:a9fe:a9fe', 'IPv4-mapped metadata, long'],
    ['::ffff:c612:1', 'IPv4-mapped 198.18.0.1'],
    ['::ffff:c058:6301', 'IPv4-mapped 192.88.99.1'],
    ['::ffff:f000:1', 'IPv4-mapped 240.0.0.1'],
    ['::10.0.0.1', 'IPv4-compatible 10.0.0.1'],
    ['::a00:1', 'IPv4-compatible 10.0.0.1, hex'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:0:7f00:1', '::ffff:0:0:0/96 IPv4-translated'],
    ['::ffff:0:808:808', '::ffff:0:0:0/96 IPv4-translated, public IPv4 inside'],
    // IPv6 special-purpose registry, and everything outside global unicast 2000::/3
    ['100::1', '100::/64 discard-only'],
    ['100:0:0:1::1', '100:0:0:1::/64 dummy prefix'],
    ['2001:db8::1', '2001:db8::/32 documentation'],
    ['2001:db8:ffff:ffff::1', '2001:db8::/32 documentation, top'],
    ['3fff::1', '3fff::/20 documentation'],
    ['3fff:fff:ffff::1', '3fff::/20 documentation, top'],
    ['5f00::1', '5f00::/16 SRv6 SIDs'],
    ['fc00::1', 'fc00::/7 unique-local'],
    ['fdff:ffff::1', 'fc00::/7 unique-local, top'],
    ['fe80::1', 'fe80::/10 link-local'],
    ['fe80::1%eth0', 'fe80::/10 link-local with a zone'],
    ['febf::1', 'fe80::/10 link-local, top'],
    ['fec0::1', 'fec0::/10 site-local (deprecated)'],
    ['ff02::1', 'ff00::/8 multicast'],
    ['ff0e::1', 'ff00::/8 multicast, global scope'],
    ['4000::1', 'not allocated (outside 2000::/3)'],
    ['1::1', 'not allocated (outside 2000::/3)'],
    ['[2002:7f00:1::1]', '6to4, bracketed'],
  ];
  for (const [address, why] of refused) {
    test(`refuses ${address} (${why})`, () => {
      assert.equal(isPublicAddress(address), false);
    });
  }

  const accepted: [address: string, why: string][] = [
    ['8.8.8.8', 'public IPv4'],
    ['192.88.98.1', 'just below 192.88.99.0/24'],
    ['192.88.100.1', 'just above 192.88.99.0/24'],
    ['198.20.0.1', 'just above 198.18.0.0/15'],
    ['100.128.0.1', 'just above 100.64.0.0/10'],
    ['223.255.255.254', 'just below multicast'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['2a00:1450:4001:80b::200e', 'public IPv6'],
    ['2001:200::1', 'just above 2001::/23'],
    ['2003::1', 'just above 2002::/16'],
    ['2001:db9::1', 'just above 2001:db8::/32'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public'],
    ['::ffff:808:808', 'IPv4-mapped public, hex'],
    ['64:ff9b::8.8.8.8', 'NAT64 of a public address (DNS64 networks)'],
    ['64:ff9b::808:808', 'NAT64 of a public address, hex'],
  ];
  for (const [address, why] of accepted) {
    test(`accepts ${address} (${why})`, () => {
      assert.equal(isPublicAddress(address), true);
    });
  }

  test('registration refuses webhooks on tunnelled and special-purpose literals', () => {
    for (const target of [
      'http://[2002:7f00:1::1]/x',
      'http://[2002:a9fe:a9fe::1]/latest/meta-data',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x',
      'http://[64:ff9b::7f00:1]/x',
      'http://[64:ff9b:1::a9fe:a9fe]/x',
      'http://192.88.99.1/x',
      'http://[100::1]/x',
      'http://[2001:10::1]/x',
    ]) {
      assert.equal(
        refuseWebhookTarget(target, []),
        'webhook must be a public address, not a private, loopback or link-local one',
        target,
      );
    }
    assert.equal(refuseWebhookTarget('http://[64:ff9b::808:808]/x', []), null);
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
