import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { webFetchTool } from '../../src/tools/catalog/web-fetch.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGatePorts, systemGuardDeps } from '../../src/util/system-ports.ts';
import { gatedCall } from '../../src/session/gated-call.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { instantClock, MemoryAllowlist, RecordingApprover } from '../support/gate-harness.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';
import { fakeInternet, lookupOf, scriptedServer, type ScriptedServer } from '../support/fake-internet.ts';

const PUBLIC_A = '93.184.216.34';

let site: ScriptedServer;
let internal: ScriptedServer;

beforeAll(async () => {
  site = await scriptedServer();
  internal = await scriptedServer((_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('internal secret'));
});
afterAll(async () => {
  await Promise.all([site.close(), internal.close()]);
});
afterEach(() => {
  site.reset();
  internal.reset();
});

/** public.test is the scripted site; a route to the internal server exists too, so only the guard stands in the way. */
const net = (): NetDeps => ({
  lookup: lookupOf({ 'public.test': [PUBLIC_A], 'other.test': ['93.184.216.35'] }),
  transport: undiciTransport({ connector: fakeInternet({ [`${PUBLIC_A}:80`]: site.port, [`127.0.0.1:${internal.port}`]: internal.port }).connector }),
});

const fetchWith = (params: Record<string, unknown>, config: ConfigInput = {}, deps: NetDeps = net()) =>
  executeTool(webFetchTool(defaultConfig(config), deps), params, buildContext());

describe('web_fetch returns pages as text', () => {
  it('converts HTML to text and reports the final URL after a redirect, query strings redacted', async () => {
    site.answer((q, r) => {
      if (q.url.startsWith('/start')) return void r.writeHead(302, { location: '/page?session=abc' }).end();
      r.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><head><style>p{}</style><script>steal()</script></head><body><h1>Title</h1><p>Hello <b>world</b></p></body></html>');
    });
    const r = await fetchWith({ url: 'http://public.test/start?token=t0ps3cret' });
    expect(r).toMatchObject({ success: true, output: { url: 'http://public.test/start?…', final_url: 'http://public.test/page?…', status: 200, content_type: 'text/html', truncated: false } });
    const text = (r.output as { text: string }).text;
    expect(text).toContain('Hello world');
    expect(text).not.toContain('steal');
    expect(text).not.toContain('<p>');
    expect(JSON.stringify(r)).not.toContain('t0ps3cret');
    expect(site.requests.map((q) => q.url)).toEqual(['/start?token=t0ps3cret', '/page?session=abc']);
  });

  it.each([
    ['text/plain', Buffer.from('plain words'), 'plain words'],
    ['application/json', Buffer.from('{"a":1}'), '{"a":1}'],
    ['application/problem+json', Buffer.from('{"title":"x"}'), '{"title":"x"}'],
    ['text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'café'],
  ])('returns %s as text', async (type, body, text) => {
    site.answer((_q, r) => r.writeHead(200, { 'content-type': type }).end(body));
    const r = await fetchWith({ url: 'http://public.test/x' });
    expect(r).toMatchObject({ success: true, output: { text, content_type: type.split(';')[0] } });
  });

  it.each(['application/pdf', 'image/png', 'application/octet-stream'])('refuses %s as a business error naming the type', async (type) => {
    site.answer((_q, r) => r.writeHead(200, { 'content-type': type }).end(Buffer.alloc(10)));
    const r = await fetchWith({ url: 'http://public.test/file' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain(type);
  });

  it('cuts the text at the max_bytes argument and says so', async () => {
    site.answer((_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(1000)));
    const r = await fetchWith({ url: 'http://public.test/long', max_bytes: 100 });
    expect(r).toMatchObject({ success: true, output: { truncated: true } });
    expect((r.output as { text: string }).text).toHaveLength(100);
  });

  it('caps the max_bytes argument at tools.web_fetch.max_bytes', async () => {
    site.answer((_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(300)));
    const r = await fetchWith({ url: 'http://public.test/long', max_bytes: 10_000 }, { tools: { web_fetch: { max_bytes: 200 } } });
    expect(r).toMatchObject({ success: false, errorKind: 'internal' });
    expect(r.error).toContain('fetch.too_large');
  });

  it('stops after tools.web_fetch.timeout_seconds with a timeout', async () => {
    site.answer(() => {});
    const r = await fetchWith({ url: 'http://public.test/slow' }, { tools: { web_fetch: { timeout_seconds: 0.3 } } });
    // the fetch's own deadline, not the executor's backstop (timeout_seconds + 5), which says "timed out after 5.3s"
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.error).toContain('fetch.timeout');
  }, 5_000);

  it('reports an error status as a failure naming it', async () => {
    site.answer((_q, r) => r.writeHead(404, { 'content-type': 'text/html' }).end('<p>nope</p>'));
    const r = await fetchWith({ url: 'http://public.test/missing' });
    expect(r).toMatchObject({ success: false, errorKind: 'business' });
    expect(r.error).toContain('HTTP 404');
  });
});

describe('web_fetch refuses what the guard refuses, before a byte is sent', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/iam/', 'ssrf.ip.metadata'],
    ['http://127.0.0.1:{port}/', 'ssrf.ip.loopback'],
    ['http://localhost:{port}/', 'ssrf.name'],
    ['http://[::1]:{port}/', 'ssrf.ip.loopback'],
  ])('%s over the real network', async (template, rule) => {
    const r = await fetchWith({ url: template.replace('{port}', String(internal.port)) }, {}, {});
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain(rule);
    expect(internal.connections).toBe(0);
  });

  it('a redirect from a public page to the local server', async () => {
    site.answer((_q, r) => r.writeHead(302, { location: `http://127.0.0.1:${internal.port}/admin` }).end());
    const r = await fetchWith({ url: 'http://public.test/jump' });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('ssrf.ip.loopback');
    expect(site.requests).toHaveLength(1);
    expect(internal.connections).toBe(0);
  });

  it('a host outside execution.network_allowlist under network_policy restricted', async () => {
    const r = await fetchWith({ url: 'http://public.test/' }, { execution: { network_policy: 'restricted', network_allowlist: ['other.test'] } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('network.restricted');
    expect(site.connections).toBe(0);
  });

  it('a host whose name does not resolve is a transient failure, not a refusal: nothing was judged or sent', async () => {
    const r = await fetchWith({ url: 'http://nowhere.test/feed' });
    expect(r).toMatchObject({ success: false, errorKind: 'internal' });
    expect(r.error).toMatch(/^web_fetch: the host could not be resolved, so nothing was sent: .*ENOTFOUND/);
    expect(site.connections).toBe(0);
  });

  it('fetches an allowlisted host under network_policy restricted', async () => {
    site.answer((_q, r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('allowed'));
    const r = await fetchWith({ url: 'http://public.test/' }, { execution: { network_policy: 'restricted', network_allowlist: ['public.test'] } });
    expect(r).toMatchObject({ success: true, output: { text: 'allowed' } });
  });
});

describe('web_fetch arguments', () => {
  it.each([
    [{}, 'url: is required'],
    [{ url: '' }, 'url'],
    [{ url: 'http://public.test/', max_bytes: 0 }, 'max_bytes'],
    [{ url: 'http://public.test/', extra: 1 }, 'extra: is not a known parameter'],
    [{ url: 'not a url' }, 'url: not a url is not an absolute URL'],
    [{ url: 'file:///etc/passwd' }, 'url: only http and https'],
  ])('%j is refused naming the field', async (params, message) => {
    const r = await fetchWith(params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
    expect(site.connections).toBe(0);
  });
});

describe('web_fetch of a non-public URL', () => {
  const url = () => `http://127.0.0.1:${internal.port}/`;
  it('is refused without a person, and fetched once a person approved the flagged call', async () => {
    const tool = webFetchTool(defaultConfig(), net());
    const auto = await executeTool(tool, { url: url() }, buildContext(), { approval: { approval_source: 'auto' } });
    expect(auto).toMatchObject({ success: false, errorKind: 'denied', error: expect.stringContaining('ssrf.ip.loopback') });
    expect(internal.requests).toEqual([]);
    const human = await executeTool(tool, { url: url() }, buildContext(), { approval: { approval_source: 'human', approval_id: 'apr_1', approver: 'alice', approved_targets: ['127.0.0.1'] } });
    expect(human, JSON.stringify(human)).toMatchObject({ success: true, output: { text: 'internal secret' } });
  });

  it('through the gate: the person is shown the address, and their approval reaches that address only', async () => {
    const config = defaultConfig();
    const deps = net();
    const approver = new RecordingApprover('once');
    const gate = createApprovalGate(config, {
      ...systemGatePorts,
      guard: createGuard(config, systemGuardDeps({ lookup: deps.lookup! })), allowlist: new MemoryAllowlist(), lookupTool: catalogLookup(config), smartReviewer: null,
      humanApprover: approver, clock: instantClock,
    }, { securityProfile: 'personal_cli' });
    const out = await gatedCall(gate, new ToolRegistry([webFetchTool(config, deps)]), { tool: 'web_fetch', args: { url: url() } }, buildContext({ channel: 'cli' }), 0);
    expect(out.decision).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human', flagged: [{ rule: 'ssrf.ip.loopback', target: '127.0.0.1' }] });
    expect(approver.asked).toHaveLength(1);
    expect(out.result, JSON.stringify(out.result)).toMatchObject({ success: true, output: { text: 'internal secret' } });
    // an approval for another address does not reach this one
    const tool = webFetchTool(config, deps);
    const elsewhere = await executeTool(tool, { url: url() }, buildContext(), { approval: { approval_source: 'human', approved_targets: ['10.0.0.9'] } });
    expect(elsewhere).toMatchObject({ success: false, errorKind: 'denied', error: expect.stringContaining('ssrf.approved_target_changed') });
  });
});
