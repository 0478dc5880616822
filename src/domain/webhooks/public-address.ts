import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook must never reach unless the operator allowlists the host: loopback,
 * private, carrier-grade NAT, link-local (which includes cloud metadata at 169.254.169.254),
 * unique-local, multicast, reserved and unspecified ranges.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d) in one range.
  ['::', 96],
  // IPv4-translated (::ffff:0:a.b.c.d) and the discard-only prefix.
  ['::ffff:0:0:0', 96],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, still routed on some networks).
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms are judged by their IPv4 address.
    const mapped = /^::(ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return isPublicAddress(mapped[2]!);
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(bare);
    if (hexMapped) {
      const high = Number.parseInt(hexMapped[1]!, 16);
      const low = Number.parseInt(hexMapped[2]!, 16);
      return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return !blocked.check(bare, 'ipv6');
  }
  return !blocked.check(bare, 'ipv4');
}

/** `host` or `host:port` entries; a URL is allowlisted when its host (and port, if given) match. */
export function isAllowlisted(url: URL, allowHosts: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowHosts.some((entry) => {
    const match = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(entry.trim().toLowerCase());
    return match !== null && match[1] === host && (match[2] === undefined || match[2] === port);
  });
}

/**
 * Refusal reason for a webhook URL that can be judged without DNS (an IP literal or localhost
 * that is not allowlisted), or null. DNS names are checked again when the call is made.
 */
export function refuseWebhookTarget(webhook: string, allowHosts: readonly string[]): string | null {
  const url = new URL(webhook);
  if (isAllowlisted(url, allowHosts)) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'webhook must be a public address, not localhost';
  if (isIP(host) !== 0 && !isPublicAddress(host))
    return 'webhook must be a public address, not a private, loopback or link-local one';
  return null;
}
