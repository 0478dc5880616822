import { BlockList, isIP } from 'node:net';

/**
 * IPv4 addresses a webhook must never reach unless the operator allowlists the host: the IANA
 * IPv4 special-purpose registry's ranges that are not globally reachable (loopback, private,
 * carrier-grade NAT, link-local with cloud metadata at 169.254.169.254, documentation,
 * benchmarking), the deprecated 6to4 relay anycast, multicast and the reserved block (broadcast
 * included).
 */
const blockedV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  // IETF protocol assignments (192.0.0.0/29 DS-Lite, NAT64 discovery, PCP and TURN anycast).
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  // 6to4 relay anycast (RFC 7526, deprecated): a relay that forwards into whatever IPv4 is inside.
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedV4.addSubnet(network, prefix, 'ipv4');
}

/**
 * IPv6 ranges refused inside global unicast 2000::/3 (everything outside it is refused anyway:
 * ::/8 with loopback and unspecified, 100::/64 discard, 5f00::/16 SRv6, 64:ff9b:1::/48 local-use
 * NAT64, fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local, ff00::/8 multicast).
 */
const blockedV6 = new BlockList();
for (const [network, prefix] of [
  // IETF protocol assignments: Teredo 2001::/32 (tunnels to an IPv4 address inside), benchmarking
  // 2001:2::/48, ORCHID 2001:10::/28 and ORCHIDv2 2001:20::/28, and a few protocol anycasts that
  // no webhook receiver lives on. Refused whole rather than entry by entry.
  ['2001::', 23],
  ['2001:db8::', 32],
  // 6to4 (RFC 7526, deprecated): 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD, internal ones
  // included (2002:7f00:1::1 is 127.0.0.1, 2002:a9fe:a9fe::1 the metadata service).
  ['2002::', 16],
  // Documentation (RFC 9637).
  ['3fff::', 20],
] as const) {
  blockedV6.addSubnet(network, prefix, 'ipv6');
}

/** True when `address` (an IP literal, brackets allowed) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return !blockedV4.check(bare, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(bare);
  const embeddedV4 = () => `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
  const zeroUpTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  // IPv4-compatible ::/96 (deprecated; :: and ::1 too) and IPv4-mapped ::ffff:0:0/96, in any
  // spelling (::7f00:1, ::127.0.0.1), are judged by their IPv4 address.
  if (zeroUpTo(5) && (groups[5] === 0 || groups[5] === 0xffff)) return isPublicAddress(embeddedV4());
  // The NAT64 well-known prefix 64:ff9b::/96 reaches the IPv4 address in its last 32 bits
  // (RFC 6052); DNS64 networks hand out such addresses for public hosts.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return isPublicAddress(embeddedV4());
  // Only global unicast 2000::/3 is public.
  if ((groups[0]! & 0xe000) !== 0x2000) return false;
  return !blockedV6.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
}

/**
 * The eight 16-bit groups of an IPv6 literal that isIP accepted: `::` expanded, a dotted IPv4
 * tail turned into two groups, a zone (`%eth0`) dropped.
 */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parts = (part: string | undefined) =>
    part === undefined || part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const [head, tail] = text.split('::');
  const left = parts(head);
  const right = parts(tail);
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<number>(missing).fill(0), ...right];
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
