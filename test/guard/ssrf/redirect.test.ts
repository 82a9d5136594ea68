import { describe, expect, it } from 'vitest';
import { guardedFetch, planRedirect, type HopRequest, type Lookup, type PinnedRequest, type Transport } from '../../../src/tools/net/index.ts';

const creds = { authorization: 'Bearer t0k3n', cookie: 'sid=1', 'proxy-authorization': 'Basic x', 'x-goog-api-key': 'k', 'private-token': 'p', accept: 'text/html' };
const post: HopRequest = { url: 'https://a.test/form', method: 'POST', headers: { ...creds, 'content-type': 'text/plain' }, body: 'hello' };

describe('planRedirect', () => {
  it.each([200, 204, 304, 404, 500])('status %i is final', (status) => {
    expect(planRedirect(post, status, 'https://b.test/')).toEqual({ kind: 'final' });
  });

  it('a 3xx without Location is final', () => {
    expect(planRedirect(post, 302, undefined)).toEqual({ kind: 'final' });
  });

  it.each<[number, string, string, boolean]>([
    [303, 'POST', 'GET', false],
    [302, 'POST', 'GET', false],
    [301, 'POST', 'GET', false],
    [307, 'POST', 'POST', true],
    [308, 'POST', 'POST', true],
    [303, 'PUT', 'GET', false],
    [302, 'PUT', 'PUT', true],
    [303, 'HEAD', 'HEAD', true],
  ])('%i after %s continues as %s (body kept: %s)', (status, method, next, keepsBody) => {
    const plan = planRedirect({ ...post, method, ...(method === 'HEAD' ? { body: undefined } : {}) }, status, '/next');
    expect(plan.kind).toBe('redirect');
    if (plan.kind !== 'redirect') return;
    expect(plan.next.method).toBe(next);
    expect(plan.next.body !== undefined).toBe(keepsBody && method !== 'HEAD');
    expect('content-type' in plan.next.headers).toBe(keepsBody);
  });

  it('resolves a relative Location against the current URL and drops the fragment', () => {
    const plan = planRedirect(post, 302, '../x?y=1#frag');
    expect(plan).toMatchObject({ kind: 'redirect', next: { url: 'https://a.test/x?y=1' } });
  });

  it.each([
    ['https://b.test/', 'another host'],
    ['http://a.test/form', 'a scheme downgrade'],
    ['https://a.test:8443/', 'another port'],
    ['//b.test/', 'a protocol-relative host'],
  ])('drops every header but the plain ones (credentials under any name) when redirected to %s (%s)', (location) => {
    const plan = planRedirect({ ...post, method: 'GET' }, 302, location);
    if (plan.kind !== 'redirect') throw new Error('expected a redirect');
    expect(plan.next.headers).toEqual({ accept: 'text/html', 'content-type': 'text/plain' });
  });

  it('keeps credentials on a same-origin redirect', () => {
    const plan = planRedirect({ ...post, method: 'GET' }, 302, '/elsewhere');
    if (plan.kind !== 'redirect') throw new Error('expected a redirect');
    expect(plan.next.headers).toMatchObject(creds);
  });

  it('reports a Location that is not a URL', () => {
    expect(planRedirect(post, 302, 'http://[::1')).toEqual({ kind: 'invalid', location: 'http://[::1' });
  });
});

/** A transport from a script of responses; it records what it was asked to send. */
function scripted(responses: Record<string, { status: number; location?: string }>): { transport: Transport; seen: PinnedRequest[] } {
  const seen: PinnedRequest[] = [];
  const transport: Transport = async (req) => {
    seen.push(req);
    const r = responses[req.url] ?? { status: 404 };
    const headers: Record<string, string> = r.location ? { location: r.location } : {};
    return { status: r.status, headers, body: Buffer.from(`at ${req.url}`) };
  };
  return { transport, seen };
}

const lookup: Lookup = async (host) => {
  const table: Record<string, string[]> = {
    'a.test': ['93.184.216.34'],
    'b.test': ['93.184.216.35'],
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.36', '10.0.0.1'],
  };
  const a = table[host];
  if (!a) throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
  return a.map((address) => ({ address, family: 4 as const }));
};

describe('guardedFetch checks every hop before the transport sees it', () => {
  it.each([
    ['http://127.0.0.1/', 'ssrf.ip.loopback'],
    ['http://rebind.test/', 'ssrf.ip.loopback'],
    ['http://mixed.test/', 'ssrf.ip.private'],
    ['http://169.254.169.254/latest/meta-data/', 'ssrf.ip.metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'ssrf.ip.metadata'],
    ['http://metadata.google.internal/', 'ssrf.name.metadata'],
    ['file:///etc/passwd', 'ssrf.scheme'],
    ['http://b.test/', 'network.restricted'],
  ])('a redirect to %s is refused with %s', async (target, rule) => {
    const { transport, seen } = scripted({ 'https://a.test/': { status: 302, location: target } });
    const err = await guardedFetch('https://a.test/', { transport, lookup, networkPolicy: 'restricted', allowlist: ['a.test', 'rebind.test', 'mixed.test', '127.0.0.1', '169.254.169.254', '::ffff:a9fe:a9fe', 'metadata.google.internal'] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule });
    expect(seen.map((r) => r.url)).toEqual(['https://a.test/']);
  });

  it('hands the transport the checked addresses of each hop', async () => {
    const { transport, seen } = scripted({ 'https://a.test/': { status: 301, location: 'https://b.test/x' }, 'https://b.test/x': { status: 200 } });
    const res = await guardedFetch('https://a.test/', { transport, lookup });
    expect(seen.map((r) => [r.url, r.addresses])).toEqual([['https://a.test/', ['93.184.216.34']], ['https://b.test/x', ['93.184.216.35']]]);
    expect(res).toMatchObject({ status: 200, url: 'https://b.test/x', redirects: ['https://b.test/x'] });
  });

  it('stops after maxRedirects', async () => {
    const { transport, seen } = scripted({ 'https://a.test/': { status: 302, location: '/' } });
    const err = await guardedFetch('https://a.test/', { transport, lookup, maxRedirects: 3 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FetchLimitError', rule: 'fetch.too_many_redirects' });
    expect(seen).toHaveLength(4);
  });

  it('never passes a Host header from the caller', async () => {
    const { transport, seen } = scripted({});
    await guardedFetch('https://a.test/', { transport, lookup, headers: { Host: '127.0.0.1', 'X-Ok': '1' } });
    expect(seen[0]?.headers).toEqual({ 'x-ok': '1' });
  });
});
