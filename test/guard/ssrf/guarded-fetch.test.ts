import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { buildConnector } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, pinnedConnector, undiciTransport, type Lookup } from '../../../src/tools/net/index.ts';
import { fakeInternet } from '../../support/fake-internet.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An HTTP server on 127.0.0.1 that records every connection and request it gets. */
async function startServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const requests: Seen[] = [];
  const state = { connections: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const close = () => new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });
  const reset = () => {
    requests.length = 0;
    state.connections = 0;
  };
  return { port, requests, state, close, reset };
}

/** A connector that delivers every connection to 127.0.0.1:port and reports the true peer. */
const misroute = (port: number, reportedPeer?: string): buildConnector.connector => (_opts, cb) => {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  if (reportedPeer) Object.defineProperty(socket, 'remoteAddress', { get: () => reportedPeer });
  socket.once('connect', () => cb(null, socket));
  socket.once('error', (e) => cb(e, null));
};

const PUBLIC_A = '93.184.216.34';
const PUBLIC_B = '93.184.216.35';

let internal: Awaited<ReturnType<typeof startServer>>;
let siteA: Awaited<ReturnType<typeof startServer>>;
let siteB: Awaited<ReturnType<typeof startServer>>;
let behaviourA: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, r) => r.end('a');

beforeAll(async () => {
  internal = await startServer((_q, r) => r.end('internal secret'));
  siteA = await startServer((q, r, b) => behaviourA(q, r, b));
  siteB = await startServer((q, r) => r.end(`b saw ${q.url}`));
});
afterAll(async () => {
  await Promise.all([internal.close(), siteA.close(), siteB.close()]);
});
afterEach(() => {
  internal.reset();
  siteA.reset();
  siteB.reset();
  behaviourA = (_q, r) => r.end('a');
});

const lookupOf = (table: Record<string, string[]>, calls: string[] = []): Lookup => async (host) => {
  calls.push(host);
  const a = table[host];
  if (!a) throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
  return a.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
};

const net = () => fakeInternet({ [`${PUBLIC_A}:80`]: siteA.port, [`${PUBLIC_B}:80`]: siteB.port });
const lookup = lookupOf({ 'public.test': [PUBLIC_A], 'other.test': [PUBLIC_B], 'rebind.test': ['127.0.0.1'] });

describe('guardedFetch refuses to reach a server on 127.0.0.1', () => {
  it.each([
    (p: number) => `http://127.0.0.1:${p}/`,
    (p: number) => `http://localhost:${p}/`,
    (p: number) => `http://2130706433:${p}/`,
    (p: number) => `http://0x7f.1:${p}/`,
    (p: number) => `http://[::ffff:127.0.0.1]:${p}/`,
    (p: number) => `http://rebind.test:${p}/`,
  ])('directly: %s', async (urlOf) => {
    const err = await guardedFetch(urlOf(internal.port), { lookup }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', decision: 'ask' });
    expect(internal.state.connections).toBe(0);
  });

  it.each([
    (p: number) => `http://127.0.0.1:${p}/secret`,
    (p: number) => `http://localhost:${p}/`,
    (p: number) => `http://[::1]:${p}/`,
    (p: number) => `http://0x7f000001:${p}/`,
    (p: number) => `//127.0.0.1:${p}/`,
    (p: number) => `http://rebind.test:${p}/`,
    () => 'http://169.254.169.254/latest/meta-data/iam/',
  ])('via a redirect from an allowed origin: %s', async (locationOf) => {
    behaviourA = (_q, r) => r.writeHead(302, { location: locationOf(internal.port) }).end();
    const { connector } = net();
    const err = await guardedFetch('http://public.test/start', { lookup, transport: undiciTransport({ connector }) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', decision: 'ask' });
    expect(siteA.requests.map((r) => r.url)).toEqual(['/start']);
    expect(internal.state.connections).toBe(0);
  });

  it('when the DNS answer mixes public and private addresses', async () => {
    const { connector, dialled } = net();
    const mixed = lookupOf({ 'mixed.test': [PUBLIC_A, '127.0.0.1'] });
    const err = await guardedFetch('http://mixed.test/', { lookup: mixed, transport: undiciTransport({ connector }) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.ip.loopback' });
    expect(dialled).toEqual([]);
    expect(siteA.state.connections + internal.state.connections).toBe(0);
  });

  it('when a rebinding resolver answers public first and private after: one lookup, pinned to the public answer', async () => {
    const calls: string[] = [];
    let n = 0;
    const rebinding: Lookup = async (host) => {
      calls.push(host);
      return [{ address: n++ === 0 ? PUBLIC_A : '127.0.0.1', family: 4 }];
    };
    const { connector, dialled } = net();
    const res = await guardedFetch('http://rebind-me.test/', { lookup: rebinding, transport: undiciTransport({ connector }) });
    expect(res.body.toString()).toBe('a');
    expect(calls).toEqual(['rebind-me.test']);
    expect(dialled).toEqual([`${PUBLIC_A}:80`]);
    expect(internal.state.connections).toBe(0);
  });

  it('when the connected socket turns out to be on a private address (remote-address re-check)', async () => {
    const err = await guardedFetch('http://public.test/', { lookup, transport: undiciTransport({ connector: misroute(internal.port) }) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.ip.loopback' });
    expect(internal.requests).toEqual([]);
  });

  it('when the connected socket is on a public address other than the checked one', async () => {
    const err = await guardedFetch('http://public.test/', { lookup, transport: undiciTransport({ connector: misroute(siteA.port, '1.1.1.1') }) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.socket.mismatch' });
    expect(siteA.requests).toEqual([]);
  });
});

describe('guardedFetch on allowed targets', () => {
  it('keeps the name in the Host header while connecting to the checked address', async () => {
    const res = await guardedFetch('http://public.test/page?q=1', { lookup, transport: undiciTransport(net()) });
    expect(res).toMatchObject({ status: 200, url: 'http://public.test/page?q=1', redirects: [] });
    expect(siteA.requests[0]).toMatchObject({ url: '/page?q=1', headers: { host: 'public.test' } });
  });

  it('dials the address but hands the name on for TLS SNI and certificate checks', async () => {
    const { connector, dialled, hostsSeen } = fakeInternet({ [`${PUBLIC_A}:443`]: siteA.port });
    await guardedFetch('https://public.test/', { lookup, transport: undiciTransport({ connector }) });
    expect(dialled).toEqual([`${PUBLIC_A}:443`]);
    // undici's buildConnector derives servername (SNI, certificate name) from `host`
    expect(hostsSeen).toEqual(['public.test']);
  });

  it('tries the next checked address when one does not connect', async () => {
    const two = lookupOf({ 'two.test': ['93.184.216.99', PUBLIC_A] });
    const { connector, dialled } = net();
    const res = await guardedFetch('http://two.test/', { lookup: two, transport: undiciTransport({ connector }) });
    expect(res.body.toString()).toBe('a');
    expect(dialled).toEqual(['93.184.216.99:80', `${PUBLIC_A}:80`]);
  });

  it('on a cross-origin redirect keeps only plain headers (a credential may hide under any name); same-origin keeps all', async () => {
    behaviourA = (q, r) => (q.url === '/start' ? r.writeHead(302, { location: '/again' }).end() : r.writeHead(301, { location: 'http://other.test/landing' }).end());
    const headers = { Authorization: 'Bearer t0k3n', Cookie: 'sid=1', 'Proxy-Authorization': 'Basic eA==', 'X-Goog-Api-Key': 'k3y', Accept: 'text/html' };
    const res = await guardedFetch('http://public.test/start', { lookup, headers, transport: undiciTransport(net()) });
    expect(res).toMatchObject({ status: 200, url: 'http://other.test/landing', redirects: ['http://public.test/again', 'http://other.test/landing'] });
    expect(res.body.toString()).toBe('b saw /landing');
    expect(siteA.requests[1]?.headers).toMatchObject({ authorization: 'Bearer t0k3n', cookie: 'sid=1' });
    const atB = siteB.requests[0]!.headers;
    expect([atB.authorization, atB.cookie, atB['proxy-authorization'], atB['x-goog-api-key'], atB.accept]).toEqual([undefined, undefined, undefined, undefined, 'text/html']);
  });

  it('turns a POST into a GET without body after 303, keeps it after 307', async () => {
    behaviourA = (q, r) => {
      if (q.url === '/see-other') r.writeHead(303, { location: '/result' }).end();
      else if (q.url === '/temporary') r.writeHead(307, { location: '/result' }).end();
      else r.end('done');
    };
    await guardedFetch('http://public.test/see-other', { method: 'POST', body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, lookup, transport: undiciTransport(net()) });
    await guardedFetch('http://public.test/temporary', { method: 'POST', body: 'x=1', lookup, transport: undiciTransport(net()) });
    expect(siteA.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/see-other', 'x=1'],
      ['GET', '/result', ''],
      ['POST', '/temporary', 'x=1'],
      ['POST', '/result', 'x=1'],
    ]);
  });

  it('stops after five redirects by default', async () => {
    behaviourA = (_q, r) => r.writeHead(302, { location: '/loop' }).end();
    const err = await guardedFetch('http://public.test/', { lookup, transport: undiciTransport(net()) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FetchLimitError', rule: 'fetch.too_many_redirects' });
    expect(siteA.requests).toHaveLength(6);
  });

  it.each([
    ['with Content-Length', true],
    ['chunked', false],
  ])('refuses a body over maxBytes (%s)', async (_label, declared) => {
    behaviourA = (_q, r) => {
      const chunk = Buffer.alloc(64 * 1024, 97);
      if (declared) r.setHeader('content-length', String(chunk.length * 4));
      for (let i = 0; i < 4; i++) r.write(chunk);
      r.end();
    };
    const err = await guardedFetch('http://public.test/', { lookup, maxBytes: 100_000, transport: undiciTransport(net()) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FetchLimitError', rule: 'fetch.too_large' });
  });

  it('returns a body at the limit', async () => {
    behaviourA = (_q, r) => r.end(Buffer.alloc(1000, 98));
    const res = await guardedFetch('http://public.test/', { lookup, maxBytes: 1000, transport: undiciTransport(net()) });
    expect(res.body.length).toBe(1000);
  });

  it('gives up after timeoutMs when the server never answers', async () => {
    behaviourA = () => {};
    // the server never answers: only the timeoutMs deadline can end this, and it says so in its rule
    const err = await guardedFetch('http://public.test/', { lookup, timeoutMs: 300, transport: undiciTransport(net()) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FetchLimitError', rule: 'fetch.timeout' });
  }, 5_000);

  it('honours the caller signal', async () => {
    behaviourA = () => {};
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('cancelled by caller')), 100);
    const err = await guardedFetch('http://public.test/', { lookup, signal: ctl.signal, transport: undiciTransport(net()) }).catch((e) => e);
    expect(err).toMatchObject({ message: 'cancelled by caller' });
  });

  it('refuses under network policy deny and outside the restricted allowlist', async () => {
    const t = undiciTransport(net());
    await expect(guardedFetch('http://public.test/', { lookup, networkPolicy: 'deny', transport: t })).rejects.toMatchObject({ rule: 'network.deny', decision: 'deny' });
    behaviourA = (_q, r) => r.writeHead(302, { location: 'http://other.test/' }).end();
    await expect(guardedFetch('http://public.test/', { lookup, networkPolicy: 'restricted', allowlist: ['public.test'], transport: t })).rejects.toMatchObject({ rule: 'network.restricted' });
    expect(siteB.state.connections).toBe(0);
  });

  it('never puts credentials from the URL into the error', async () => {
    const err = await guardedFetch('http://admin:hunter2@public.test/', { lookup }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.userinfo' });
    expect(`${err.message} ${err.reason} ${err.url}`).not.toContain('hunter2');
  });
});

describe('pinnedConnector with undici\'s own connector', () => {
  it.each(['http:', 'https:'])('checks the peer at TCP connect, before any byte is sent (%s)', async (protocol) => {
    let received = 0;
    const tcp = createTcpServer((s) => s.on('data', (d) => (received += d.length)));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    const port = (tcp.address() as AddressInfo).port;
    try {
      // a pinned list can only hold checked addresses; a private one here stands for a route that went wrong
      const connector = pinnedConnector(['127.0.0.1'], buildConnector({}), `${protocol}//public.test/`);
      const err = await new Promise((resolve) => connector({ hostname: 'public.test', host: `public.test:${port}`, protocol, port: String(port) }, (...args) => resolve(args[0])));
      expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.ip.loopback' });
      await new Promise((r) => setTimeout(r, 50));
      expect(received).toBe(0);
    } finally {
      await new Promise((r) => tcp.close(r));
    }
  });

  it('refuses when given no checked address', async () => {
    const connector = pinnedConnector([], buildConnector({}), 'http://public.test/');
    const err = await new Promise((resolve) => connector({ hostname: 'public.test', host: 'public.test', protocol: 'http:', port: '' }, (...args) => resolve(args[0])));
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.socket.unpinned' });
  });
});

describe('a non-public target a person approved (SPEC §6: it is an ask, not a deny)', () => {
  it('is fetched on the first hop, pinned to the checked address', async () => {
    const res = await guardedFetch(`http://127.0.0.1:${internal.port}/`, { lookup, approvedTargets: ['127.0.0.1'] });
    expect(res.body.toString()).toBe('internal secret');
    expect(internal.state.connections).toBe(1);
  });

  it('covers only that hop: a redirect to a non-public address is still refused', async () => {
    behaviourA = (_q, r) => r.writeHead(302, { location: `http://127.0.0.1:${internal.port}/` }).end();
    const { connector } = net();
    const err = await guardedFetch('http://public.test/start', { lookup, approvedTargets: ['127.0.0.1'], transport: undiciTransport({ connector }) }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.ip.loopback' });
    expect(internal.state.connections).toBe(0);
  });

  it('reaches only the targets the person saw: a name that now answers another non-public address is refused', async () => {
    // approved as intranet.test -> 10.0.0.9; the lookup at fetch time says 127.0.0.1
    const rebound = lookupOf({ 'intranet.test': ['127.0.0.1'] });
    const err = await guardedFetch(`http://intranet.test:${internal.port}/`, { lookup: rebound, approvedTargets: ['10.0.0.9'] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.approved_target_changed' });
    expect(err.reason).toContain('approved: 10.0.0.9; now: 127.0.0.1');
    expect(internal.state.connections).toBe(0);
  });

  it('a call approved while its target was public is not let through to a non-public address it rebinds to', async () => {
    const err = await guardedFetch(`http://rebind.test:${internal.port}/`, { lookup, approvedTargets: [] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.approved_target_changed' });
    expect(internal.state.connections).toBe(0);
  });

  it.each([['169.254.169.254', 'IPv4 metadata'], ['fd00:ec2::254', 'IPv6 metadata'], ['169.254.10.1', 'link-local']])(
    'an approved name that resolves to %s (%s) is refused: the person saw a name, not that address', async (address) => {
      const err = await guardedFetch('http://printer.internal/', { lookup: async () => [{ address, family: address.includes(':') ? 6 : 4 }], approvedTargets: ['printer.internal'] }).catch((e) => e);
      expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.approved_name_metadata' });
      expect(err.reason).toContain('printer.internal');
    });

  it('an approved name (localhost) is resolved and reached once approved', async () => {
    const res = await guardedFetch(`http://localhost:${internal.port}/`, { lookup: async () => [{ address: '127.0.0.1', family: 4 }], approvedTargets: ['localhost'] });
    expect(res.body.toString()).toBe('internal secret');
  });

  it.each([
    ['nas.lan', '127.0.0.1'], ['fileserver', '127.0.0.2'], ['x.nip.io', '0.0.0.0'], ['printer.internal', '::1'], ['printer.internal', '::'],
    ['printer.internal', '::ffff:127.0.0.1'],
  ])('an approved name other than localhost (%s) that resolves to this machine (%s) is refused: the daemon\'s own services listen there', async (host, address) => {
    const err = await guardedFetch(`http://${host}:${internal.port}/`, { lookup: async () => [{ address, family: address.includes(':') ? 6 : 4 }], approvedTargets: [host] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.approved_name_loopback', decision: 'deny' });
    expect(err.reason).toContain(`${host} -> `);
    expect(internal.state.connections).toBe(0);
  });

  it('an approved name whose answers include this machine among private ones is refused as a whole', async () => {
    const lookup2: Lookup = async () => [{ address: '10.0.0.7', family: 4 }, { address: '127.0.0.1', family: 4 }];
    const err = await guardedFetch(`http://nas.lan:${internal.port}/`, { lookup: lookup2, approvedTargets: ['nas.lan'] }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule: 'ssrf.approved_name_loopback' });
    expect(internal.state.connections).toBe(0);
  });

  it.each([
    ['the network policy', `http://127.0.0.1:PORT/`, { networkPolicy: 'deny' as const }, 'network.deny'],
    ['a name that does not resolve', 'http://nowhere.test/', {}, 'ssrf.dns.failed'],
    ['a URL with credentials', 'http://u:p@127.0.0.1:PORT/', {}, 'ssrf.userinfo'],
  ])('does not override %s', async (_what, url, extra, rule) => {
    const err = await guardedFetch(url.replace('PORT', String(internal.port)), { lookup, approvedTargets: ['127.0.0.1', 'nowhere.test'], ...extra }).catch((e) => e);
    expect(err).toMatchObject({ name: 'SsrfBlockedError', rule });
    expect(internal.state.connections).toBe(0);
  });
});
