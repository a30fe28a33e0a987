import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

/**
 * The address ranges a webhook may not reach (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): everything that is not
 * the public internet, from the IANA special-purpose registries. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by that IPv4 address.
 */
const RANGES: Array<[kind: string, network: string, prefix: number]> = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared (CGNAT)', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['reserved', '100::', 64],
  ['reserved', '2001::', 23],
  ['documentation', '2001:db8::', 32],
  ['private', '64:ff9b:1::', 48],
  ['private', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['private', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

const lists = new Map<string, BlockList>();
for (const [kind, network, prefix] of RANGES) {
  if (!lists.has(kind)) lists.set(kind, new BlockList());
  lists.get(kind)!.addSubnet(network, prefix, isIP(network) === 4 ? 'ipv4' : 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (which may end in a dotted IPv4 address). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((group) => parseInt(group, 16)) : [];
  const start = parse(head);
  const end = parse(tail);
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries, if it is of a form that carries one. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4Of(g[6], g[7]); // ::ffff:a.b.c.d, IPv4-mapped
  if (zeros(0, 6) && (g[6] !== 0 || g[7] > 1)) return ipv4Of(g[6], g[7]); // ::a.b.c.d, IPv4-compatible
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Of(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return ipv4Of(g[1], g[2]); // 6to4
  return undefined;
}

/**
 * What kind of non-public address `address` (an IP literal) is, e.g. 'loopback'; undefined for a public one.
 * Anything that is not an IP address at all counts as 'invalid'.
 */
export function nonPublicKind(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'invalid';
  if (family === 6) {
    const ipv4 = embeddedIpv4(address);
    if (ipv4 !== undefined) return nonPublicKind(ipv4);
  }
  for (const [kind, list] of lists) {
    if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return kind;
  }
  return undefined;
}

/** The host of a URL the WHATWG parser refused: an IPv6 literal in brackets, or the text up to the port. */
const URL_HOST = /^[a-z][a-z\d+.-]*:\/\/(?:[^/?#\\@]*@)?(\[[^\]/?#]*\]?|[^:/?#\\]*)/i;

/**
 * Why the WHATWG URL parser, which the deliveries use, refuses `url`; undefined when it reads it. A URL of the
 * webhook shape (http or https, no user name) can still fail there: an `xn--` label that does not decode
 * (`xn--localhost`), an IPv6 zone id (`[fe80::1%25eth0]`, a name for an interface of one machine), a name that
 * maps to nothing (a soft hyphen) or that ends in a number without being an IPv4 address (`shop.1`).
 */
export function unparsableUrlReason(url: string): string | undefined {
  if (URL.canParse(url)) return undefined;
  const host = URL_HOST.exec(url)?.[1] ?? '';
  if (host.startsWith('[') && host.includes('%')) {
    return `url host ${host} carries an IPv6 zone id, which a URL may not carry`;
  }
  const badLabel = host
    .split(/[.\u3002\uff0e\uff61]/)
    .find((label) => /^xn--/i.test(label) && domainToASCII(label) === '');
  if (badLabel !== undefined) {
    return `url host ${host} is not a valid internationalized domain name: ${badLabel} does not decode`;
  }
  return `url host ${host} is not a valid host name`;
}
