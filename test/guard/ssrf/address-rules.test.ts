import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { blockedAddress, checkRemoteAddress, IPV4_RULES, IPV6_RULES, redactUrl } from '../../../src/tools/net/index.ts';

const edges = (cidr: string): string[] => {
  const [net, bits] = ipaddr.parseCIDR(cidr);
  const first = net.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  const last = net.kind() === 'ipv4' ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr) : ipaddr.IPv6.broadcastAddressFromCIDR(cidr);
  return bits === (net.kind() === 'ipv4' ? 32 : 128) ? [first.toString()] : [first.toString(), last.toString()];
};

describe('every range in the rule tables blocks its first and last address', () => {
  const cases = [...IPV4_RULES, ...IPV6_RULES].flatMap((r) => r.cidrs.flatMap((c) => edges(c).map((a) => [r.rule, c, a] as const)));
  it.each(cases)('%s %s: %s', (_rule, _cidr, address) => {
    expect(blockedAddress(address)).not.toEqual([]);
  });
});

describe('blockedAddress', () => {
  it.each(['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8', '2001:4860:4860::8888'])('%s is public', (a) => {
    expect(blockedAddress(a)).toEqual([]);
  });

  it.each(['127.1', '0x7f000001', 'localhost', '', '1.2.3.4.5', 'fe80::1%eth0%', '::ffff:999.0.0.1'])('fails closed on unparseable %j', (a) => {
    expect(blockedAddress(a)[0]?.rule).toBe('ssrf.ip.unparseable');
  });

  it('judges a zone-scoped link-local answer as link-local', () => {
    expect(blockedAddress('fe80::1%eth0')[0]?.rule).toBe('ssrf.ip.link_local');
  });
});

describe('checkRemoteAddress (the connected socket re-check)', () => {
  it.each<[string | undefined, string[], string | undefined]>([
    ['93.184.216.34', ['93.184.216.34'], undefined],
    ['::ffff:93.184.216.34', ['93.184.216.34'], undefined],
    ['2606:4700:0:0:0:0:0:1111', ['2606:4700::1111'], undefined],
    ['127.0.0.1', ['93.184.216.34'], 'ssrf.ip.loopback'],
    ['::ffff:127.0.0.1', ['93.184.216.34'], 'ssrf.ip.loopback'],
    ['10.1.2.3', ['10.1.2.3'], 'ssrf.ip.private'],
    ['::1', ['2606:4700::1111'], 'ssrf.ip.loopback'],
    ['1.1.1.1', ['93.184.216.34'], 'ssrf.socket.mismatch'],
    [undefined, ['93.184.216.34'], 'ssrf.socket.no_remote'],
  ])('peer %s, pinned %j -> %s', (remote, pinned, rule) => {
    expect(checkRemoteAddress(remote, pinned)?.rule).toBe(rule);
  });
});

describe('redactUrl', () => {
  it.each([
    ['http://user:pw@example.com/a?token=x#f', 'http://***@example.com/a?…'],
    ['https://example.com:8443/p', 'https://example.com:8443/p'],
    ['http://user:pw@[::1/x?y', 'http://***@[::1/x?…'],
    ['file:///etc/passwd', 'file:///etc/passwd'],
  ])('%s -> %s', (raw, shown) => {
    expect(redactUrl(raw)).toBe(shown);
  });
});
