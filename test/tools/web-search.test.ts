import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { webSearchTool } from '../../src/tools/catalog/web-search.ts';
import { buildContext } from '../../src/tools/context.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';
import { fakeInternet, json, lookupOf, scriptedServer, type ScriptedServer } from '../support/fake-internet.ts';

const PUBLIC_A = '93.184.216.34';
const KEY = 'search-key-0123456789-SECRET';

let search: ScriptedServer;
beforeAll(async () => {
  search = await scriptedServer();
});
afterAll(() => search.close());
afterEach(() => search.reset());

const net = (): NetDeps => ({
  lookup: lookupOf({ 'search.test': [PUBLIC_A] }),
  transport: undiciTransport({ connector: fakeInternet({ [`${PUBLIC_A}:80`]: search.port }).connector }),
});

const configured = (over: ConfigInput['services'] = {}): ConfigInput => ({ services: { web_search: { url: 'http://search.test/api/search', api_key: KEY }, ...over } });
const searchWith = (params: Record<string, unknown>, config: ConfigInput = configured(), deps: NetDeps = net()) =>
  executeTool(webSearchTool(defaultConfig(config), deps), params, buildContext());

describe('web_search', () => {
  it('asks the service with q and limit and a bearer key, and normalises the snippet fields', async () => {
    search.answer((_q, r) => json(r, 200, {
      results: [
        { title: 'One', url: 'https://one.example/', snippet: 's1' },
        { title: 'Two', url: 'https://two.example/', content: 's2' },
        { title: 'Three', url: 'https://three.example/', description: 's3' },
        { title: 'no url', snippet: 'dropped' },
        { url: 'https://untitled.example/' },
      ],
    }));
    const r = await searchWith({ query: 'cats & dogs', limit: 7 });
    expect(r).toEqual({
      success: true,
      output: {
        query: 'cats & dogs',
        results: [
          { title: 'One', url: 'https://one.example/', snippet: 's1' },
          { title: 'Two', url: 'https://two.example/', snippet: 's2' },
          { title: 'Three', url: 'https://three.example/', snippet: 's3' },
          { title: 'https://untitled.example/', url: 'https://untitled.example/', snippet: '' },
        ],
      },
    });
    const seen = new URL(`http://x${search.requests[0]!.url}`);
    expect([seen.pathname, seen.searchParams.get('q'), seen.searchParams.get('limit')]).toEqual(['/api/search', 'cats & dogs', '7']);
    expect(search.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('returns at most limit results, 10 by default', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ title: `t${i}`, url: `https://r${i}.example/`, snippet: '' }));
    search.answer((_q, r) => json(r, 200, { results: many }));
    expect(((await searchWith({ query: 'q', limit: 3 })).output as { results: unknown[] }).results).toHaveLength(3);
    expect(((await searchWith({ query: 'q' })).output as { results: unknown[] }).results).toHaveLength(10);
  });

  it.each([
    ['not JSON', (r: ServerResponse) => r.end('<html>'), 'did not answer JSON'],
    ['JSON without results', (r: ServerResponse) => json(r, 200, { hits: [] }), '"results"'],
  ])('fails on a service answer that is %s', async (_label, answer, message) => {
    search.answer((_q, r) => answer(r));
    const r = await searchWith({ query: 'q' });
    expect(r).toMatchObject({ success: false, errorKind: 'internal' });
    expect(r.error).toContain(message);
  });

  it('never shows the api key, even when the service echoes it in a 401', async () => {
    search.answer((q, r) => json(r, 401, { error: `bad key ${q.headers.authorization}` }));
    const r = await searchWith({ query: 'q' });
    expect(r).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(r.error).toContain('HTTP 401');
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('is refused by the SSRF guard when the service URL is on this machine', async () => {
    const config = configured({ web_search: { url: `http://127.0.0.1:${search.port}/search`, api_key: KEY } });
    const r = await searchWith({ query: 'q' }, config, {});
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('ssrf.ip.loopback');
    expect(search.connections).toBe(0);
  });

  it('is refused under network_policy restricted when the service host is not allowlisted', async () => {
    const r = await searchWith({ query: 'q' }, { ...configured(), execution: { network_policy: 'restricted', network_allowlist: ['elsewhere.test'] } });
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('network.restricted');
    expect(search.connections).toBe(0);
  });

  it('is not ready without services.web_search.url, and says so if called anyway', async () => {
    const tool = webSearchTool(defaultConfig({}), net());
    expect(tool.isReady()).toBe(false);
    expect(tool.readinessDetail()[1]).toContain('services.web_search.url');
    const r = await executeTool(tool, { query: 'q' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'unavailable' });
    expect(r.error).toContain('services.web_search.url');
    expect(search.connections).toBe(0);
  });

  it.each([
    [{}, 'query: is required'],
    [{ query: '' }, 'query'],
    [{ query: 'q', limit: 0 }, 'limit'],
    [{ query: 'q', limit: 51 }, 'limit'],
  ])('refuses %j naming the field', async (params, message) => {
    const r = await searchWith(params);
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });
});
