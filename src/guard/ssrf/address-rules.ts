import { isIP } from '../../util/ip-syntax.ts';
import ipaddr from 'ipaddr.js';

/**
 * Every non-public address range, as data. A range blocks an address for SSRF purposes: such a target is
 * flagged (guard `ask`) because it reaches the host itself, its LAN, a cloud metadata service or nothing public.
 * Order matters: the first matching entry names the rule, so narrow entries come before wide ones.
 */
export interface RangeRule {
  readonly rule: string;
  readonly cidrs: readonly string[];
  readonly reason: string;
}

export const IPV4_RULES: readonly RangeRule[] = [
  // 168.63.129.16: Azure's WireServer, which hands a VM its extension settings and certificates;
  // 192.0.0.192: Oracle Cloud (Classic) metadata, otherwise only an IETF protocol address
  { rule: 'ssrf.ip.metadata', cidrs: ['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '168.63.129.16/32', '192.0.0.192/32'], reason: 'The address is a cloud instance metadata service, which hands out credentials.' },
  { rule: 'ssrf.ip.this_network', cidrs: ['0.0.0.0/8'], reason: 'Addresses in 0.0.0.0/8 mean "this host" and reach local services.' },
  { rule: 'ssrf.ip.loopback', cidrs: ['127.0.0.0/8'], reason: 'The address is loopback (127.0.0.0/8), i.e. this machine.' },
  { rule: 'ssrf.ip.private', cidrs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], reason: 'The address is in a private network range (RFC 1918).' },
  { rule: 'ssrf.ip.cgnat', cidrs: ['100.64.0.0/10'], reason: 'The address is in the carrier-grade NAT range (100.64.0.0/10), not publicly routed.' },
  { rule: 'ssrf.ip.link_local', cidrs: ['169.254.0.0/16'], reason: 'The address is link-local (169.254.0.0/16), where metadata services live.' },
  { rule: 'ssrf.ip.ietf_protocol', cidrs: ['192.0.0.0/24'], reason: 'The address is in the IETF protocol assignments range (192.0.0.0/24), not public.' },
  { rule: 'ssrf.ip.documentation', cidrs: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'], reason: 'The address is in a documentation range (TEST-NET), never a real public host.' },
  { rule: 'ssrf.ip.relay_anycast', cidrs: ['192.88.99.0/24'], reason: 'The address is in the deprecated 6to4 relay anycast range (192.88.99.0/24).' },
  { rule: 'ssrf.ip.benchmark', cidrs: ['198.18.0.0/15'], reason: 'The address is in the benchmarking range (198.18.0.0/15), not public.' },
  { rule: 'ssrf.ip.multicast', cidrs: ['224.0.0.0/4'], reason: 'The address is multicast (224.0.0.0/4), not a single public host.' },
  { rule: 'ssrf.ip.broadcast', cidrs: ['255.255.255.255/32'], reason: 'The address is the limited broadcast address.' },
  { rule: 'ssrf.ip.reserved', cidrs: ['240.0.0.0/4'], reason: 'The address is in the reserved range 240.0.0.0/4.' },
];

/** IPv6 ranges that are blocked outright. Ranges that embed an IPv4 address are handled by EMBEDDINGS instead. */
export const IPV6_RULES: readonly RangeRule[] = [
  { rule: 'ssrf.ip.unspecified', cidrs: ['::/128'], reason: 'The address is the unspecified address (::), which reaches this host.' },
  { rule: 'ssrf.ip.loopback', cidrs: ['::1/128'], reason: 'The address is IPv6 loopback (::1), i.e. this machine.' },
  // unique-local, but credential services all the same: AWS IMDS and EKS Pod Identity, GCP, Scaleway; an
  // approved name must never reach them (guarded-fetch.ts NEVER_BY_NAME), so they need their own rule
  { rule: 'ssrf.ip.metadata', cidrs: ['fd00:ec2::254/128', 'fd00:ec2::23/128', 'fd20:ce::254/128', 'fd00:42::42/128'], reason: 'The address is a cloud instance metadata service, which hands out credentials.' },
  { rule: 'ssrf.ip.nat64_local', cidrs: ['64:ff9b:1::/48'], reason: 'The address is in the local-use NAT64 prefix (64:ff9b:1::/48), which leads into a private network.' },
  { rule: 'ssrf.ip.discard', cidrs: ['100::/64'], reason: 'The address is in the discard-only prefix (100::/64).' },
  { rule: 'ssrf.ip.benchmark', cidrs: ['2001:2::/48'], reason: 'The address is in the IPv6 benchmarking prefix (2001:2::/48), not public.' },
  { rule: 'ssrf.ip.documentation', cidrs: ['2001:db8::/32', '3fff::/20'], reason: 'The address is in an IPv6 documentation prefix, never a real public host.' },
  { rule: 'ssrf.ip.orchid', cidrs: ['2001:10::/28'], reason: 'The address is in the deprecated ORCHID prefix (2001:10::/28), not routable.' },
  { rule: 'ssrf.ip.srv6', cidrs: ['5f00::/16'], reason: 'The address is a segment-routing SID (5f00::/16), internal to an operator network.' },
  { rule: 'ssrf.ip.unique_local', cidrs: ['fc00::/7'], reason: 'The address is IPv6 unique-local (fc00::/7), a private network.' },
  { rule: 'ssrf.ip.link_local', cidrs: ['fe80::/10'], reason: 'The address is IPv6 link-local (fe80::/10).' },
  { rule: 'ssrf.ip.site_local', cidrs: ['fec0::/10'], reason: 'The address is IPv6 site-local (fec0::/10), a deprecated private range.' },
  { rule: 'ssrf.ip.multicast', cidrs: ['ff00::/8'], reason: 'The address is IPv6 multicast (ff00::/8), not a single public host.' },
];

/** Public IPv6 unicast lives in 2000::/3; anything else that is not an IPv4 embedding is not public. */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const IPV6_NOT_GLOBAL = {
  rule: 'ssrf.ip.reserved',
  reason: 'The address is outside IPv6 global unicast (2000::/3), so it is reserved or special-purpose.',
};

/** How an IPv4 address hides inside an IPv6 one; each returns the embedded IPv4 addresses to check. */
interface Embedding {
  readonly name: string;
  readonly cidr: [ipaddr.IPv6, number];
  readonly extract: (parts: readonly number[]) => number[][];
}

const v4 = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
const last32 = (p: readonly number[]): number[][] => [v4(p[6]!, p[7]!)];

const EMBEDDINGS: readonly Embedding[] = [
  { name: 'IPv4-mapped', cidr: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), extract: last32 },
  { name: 'IPv4-translated', cidr: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), extract: last32 },
  { name: 'NAT64', cidr: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), extract: last32 },
  // ::/96 minus :: and ::1, which IPV6_RULES names first
  { name: 'IPv4-compatible', cidr: ipaddr.IPv6.parseCIDR('::/96'), extract: last32 },
  { name: '6to4', cidr: ipaddr.IPv6.parseCIDR('2002::/16'), extract: (p) => [v4(p[1]!, p[2]!)] },
  // Teredo: server IPv4 in bits 32..63, client IPv4 bit-inverted in the last 32 bits
  { name: 'Teredo', cidr: ipaddr.IPv6.parseCIDR('2001::/32'), extract: (p) => [v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)] },
];

type Compiled = { readonly rule: RangeRule; readonly nets: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][] };
const compile = (rules: readonly RangeRule[]): Compiled[] =>
  rules.map((rule) => ({ rule, nets: rule.cidrs.map((c) => ipaddr.parseCIDR(c)) }));
const V4 = compile(IPV4_RULES);
const V6 = compile(IPV6_RULES);

/** Why an address is blocked. `via` names the IPv6 embedding the IPv4 was found in. */
export interface AddressBlock {
  readonly rule: string;
  readonly reason: string;
  readonly address: string;
  readonly via?: string;
}

export const UNPARSEABLE_ADDRESS = {
  rule: 'ssrf.ip.unparseable',
  reason: 'The address could not be parsed, so it cannot be shown to be public.',
};

function firstMatch(addr: ipaddr.IPv4 | ipaddr.IPv6, table: readonly Compiled[]): RangeRule | undefined {
  for (const entry of table) {
    if (entry.nets.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return entry.rule;
  }
  return undefined;
}

/** Parses a textual address strictly (dotted quad or IPv6, optional zone), or undefined. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  // an injected lookup is outside the type checker: a missing address is unparseable, not a crash
  if (typeof text !== 'string') return undefined;
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) === 0) return undefined;
  try {
    return ipaddr.parse(bare);
  } catch {
    return undefined;
  }
}

/** Canonical text of an address: dotted quad, or RFC 5952 IPv6 (IPv4-mapped stays mapped). */
export function canonicalAddress(text: string): string | undefined {
  const addr = parseAddress(text);
  if (!addr) return undefined;
  return addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
}

/** Identity of an address for comparison: an IPv4-mapped IPv6 address equals its IPv4 address. */
export function sameAddress(a: string, b: string): boolean {
  const key = (t: string): string | undefined => {
    const addr = parseAddress(t);
    if (!addr) return undefined;
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) return (addr as ipaddr.IPv6).toIPv4Address().toString();
    return addr.toNormalizedString();
  };
  const ka = key(a);
  return ka !== undefined && ka === key(b);
}

/** The canonical text of an address and every block on it (empty when public); one parse. */
export function judgeAddress(text: string): { address: string; blocks: AddressBlock[] } {
  const addr = parseAddress(text);
  if (!addr) return { address: text, blocks: [{ rule: UNPARSEABLE_ADDRESS.rule, reason: UNPARSEABLE_ADDRESS.reason, address: text }] };
  const address = addr.kind() === 'ipv4' ? addr.toString() : (addr as ipaddr.IPv6).toRFC5952String();
  return { address, blocks: blocksOf(addr, address) };
}

/** All blocks for one address (empty when public). Teredo can yield two (server and client). */
export function blockedAddress(text: string): AddressBlock[] {
  return judgeAddress(text).blocks;
}

function blocksOf(addr: ipaddr.IPv4 | ipaddr.IPv6, shown: string): AddressBlock[] {
  if (addr.kind() === 'ipv4') {
    const hit = firstMatch(addr, V4);
    return hit ? [{ rule: hit.rule, reason: hit.reason, address: shown }] : [];
  }
  const v6 = addr as ipaddr.IPv6;
  const direct = firstMatch(v6, V6);
  if (direct) return [{ rule: direct.rule, reason: direct.reason, address: shown }];
  for (const emb of EMBEDDINGS) {
    if (!v6.match(emb.cidr)) continue;
    return emb.extract(v6.parts).flatMap((octets) => {
      const inner = new ipaddr.IPv4(octets);
      return blocksOf(inner, inner.toString()).map((b) => ({
        rule: b.rule,
        reason: `${b.reason} (IPv4 ${b.address} embedded in ${emb.name} address ${shown})`,
        address: shown,
        via: emb.name,
      }));
    });
  }
  if (!v6.match(IPV6_GLOBAL_UNICAST)) return [{ rule: IPV6_NOT_GLOBAL.rule, reason: IPV6_NOT_GLOBAL.reason, address: shown }];
  return [];
}
