// Which addresses outbound requests may reach: public unicast only, unless the operator allows
// private networks (tests). Checked on every connection, after DNS, so rebinding cannot slip past.
//
// IPv6 is judged by allow-list first: only 2000::/3 is global unicast, so everything outside it
// (::/128, ::1, the IPv4-compatible ::/96, 64:ff9b::/96 and 64:ff9b:1::/48 NAT64, 100::/64 discard,
// 5f00::/16 SRv6, fc00::/7, fe80::/10, fec0::/10, ff00::/8, and any range reserved later) is refused
// without a table entry. IPv4-mapped addresses (::ffff:0:0/96) are judged by the IPv4 address they
// carry. Inside 2000::/3 the IANA special-purpose ranges below are refused.
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
/** Special-purpose ranges inside global unicast (2000::/3). */
const V6: Array<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo (2001::/32, embeds IPv4), benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds IPv4)
  ['3fff::', 20], // documentation
];
for (const [net, prefix] of V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) blocked.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 literal (a trailing dotted quad counts as two). */
function groups(address: string): number[] {
  let text = address;
  const quad = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(2).map(Number) as [number, number, number, number];
    text = `${quad[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(':').map((g) => Number.parseInt(g, 16)) : []);
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function isPublicV6(address: string): boolean {
  const g = groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const [hi, lo] = [g[6]!, g[7]!];
    return !blocked.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  if ((g[0]! & 0xe000) !== 0x2000) return false;
  return !blocked.check(address, 'ipv6');
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return !blocked.check(bare, 'ipv4');
  if (family === 6) return isPublicV6(bare);
  return false;
}
