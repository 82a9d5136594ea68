import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { notifyTool } from '../../src/tools/catalog/notify.ts';
import { buildContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';
import { fakeInternet, lookupOf, scriptedServer, type ScriptedServer } from '../support/fake-internet.ts';

const PUBLIC = '93.184.216.34';
const TOKEN = 'Bearer notify-secret-token-000111';
let hooks: ScriptedServer;
beforeAll(async () => {
  hooks = await scriptedServer((_q, r) => r.writeHead(200).end());
});
afterAll(() => hooks.close());
afterEach(() => hooks.reset());

const net = (): NetDeps => ({ lookup: lookupOf({ 'hooks.test': [PUBLIC] }), transport: undiciTransport({ connector: fakeInternet({ [`${PUBLIC}:80`]: hooks.port }).connector }) });
const config = (url = 'http://hooks.test/ops', extra: ConfigInput = {}) => defaultConfig({ ...extra, notify: { targets: { ops: { url, headers: { authorization: TOKEN } } } } });

describe('notify', () => {
  it('posts title and text to the configured target', async () => {
    const r = await executeTool(notifyTool(config(), net()), { target: 'ops', title: 'Nightly', text: 'all green' }, buildContext());
    expect(r).toEqual({ success: true, output: { target: 'ops', status: 200 } });
    expect(JSON.parse(hooks.requests[0]!.body.toString())).toEqual({ title: 'Nightly', text: 'all green' });
    expect(hooks.requests[0]!.headers.authorization).toBe(TOKEN);
  });

  it('is sent once across a first call and its replay', async () => {
    const params = { target: 'ops', text: 'once' };
    const ledger = new MemoryEffectLedger();
    const base = { trace_id: 'trace-notify', tool: 'notify', params };
    const first = await executeTool(notifyTool(config(), net()), params, buildContext(base), { ledger });
    const replay = await executeTool(notifyTool(config(), net()), params, buildContext({ ...base, is_replay: true }), { ledger });
    expect(replay).toEqual(first);
    expect(hooks.requests).toHaveLength(1);
  });

  it('refuses a target on an internal address without connecting or echoing its token', async () => {
    const r = await executeTool(notifyTool(config('http://169.254.169.254/hook'), {}), { target: 'ops', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(JSON.stringify(r)).not.toContain('notify-secret-token');
    expect(hooks.connections).toBe(0);
  });

  it('reports a target whose host does not resolve as a transient failure naming the host, and retries it', async () => {
    let lookups = 0;
    const failing = (code: string): NetDeps => ({ ...net(), lookup: async (host) => {
      lookups++;
      throw Object.assign(new Error(`getaddrinfo ${code} ${host}`), { code });
    } });
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
      lookups = 0;
      const r = await executeTool(notifyTool(config('http://hooks.test/services/T0/B0/path-token-123456'), failing(code)), { target: 'ops', text: 'x' }, buildContext());
      expect(r).toMatchObject({ success: false, errorKind: 'internal' });
      expect(r.error).toContain(`notify: target "ops": its host hooks.test could not be resolved (${code})`);
      expect(r.error).not.toMatch(/refused|denied/);
      expect(r.error).not.toContain('path-token-123456');
      // notify's maxRetries is 2: the first try and two retries
      expect(lookups).toBe(3);
    }
    expect(hooks.connections).toBe(0);
  });

  it('still refuses a target whose name resolves to a forbidden address, without retrying', async () => {
    let lookups = 0;
    const internal: NetDeps = { ...net(), lookup: async () => (lookups++, [{ address: '10.0.0.7', family: 4 as const }]) };
    const r = await executeTool(notifyTool(config(), internal), { target: 'ops', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'denied', error: expect.stringMatching(/refused by the network guard/) });
    expect(lookups).toBe(1);
    expect(hooks.connections).toBe(0);
  });

  it.each([
    [{ text: 'x' }, /target/],
    [{ target: 'ops' }, /text/],
    [{ target: 'nope', text: 'x' }, /target: "nope"/],
  ])('names the bad argument in %j', async (params, field) => {
    const r = await executeTool(notifyTool(config(), net()), params as Record<string, unknown>, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toMatch(field);
  });

  it('does not follow a redirect, so the configured headers never reach another origin', async () => {
    hooks.answer((_q, r) => r.writeHead(307, { location: 'http://elsewhere.test/steal' }).end());
    const r = await executeTool(notifyTool(config('http://hooks.test/services/T0/B0/path-token-123456'), net()), { target: 'ops', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, error: expect.stringMatching(/redirect, which is not followed/) });
    expect(hooks.requests).toHaveLength(1);
    expect(r.error).not.toContain('path-token-123456');
  });

  it('keeps a token in the target URL\'s path out of the error of a slow target, and posts once', async () => {
    hooks.answer(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('timeout')), 300);
    const r = await executeTool(notifyTool(config('http://hooks.test/services/T0/B0/path-token-123456'), net()), { target: 'ops', text: 'x' }, buildContext(), { signal: controller.signal, graceMs: 2_000 });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r)).not.toContain('path-token-123456');
    expect(hooks.requests).toHaveLength(1);
  });

  it('cancelled once its request went out, counts as sent: recorded as an effect, so a replay of the run does not post it again', async () => {
    hooks.answer(() => {});
    const params = { target: 'ops', text: 'maybe twice' };
    const ledger = new MemoryEffectLedger();
    const base = { trace_id: 'trace-notify-cancelled', tool: 'notify', params };
    const controller = new AbortController();
    const first = executeTool(notifyTool(config(), net()), params, buildContext(base), { ledger, signal: controller.signal, graceMs: 2_000 });
    await expect.poll(() => hooks.requests.length, { timeout: 30_000 }).toBe(1);
    controller.abort(new Error('shutdown'));
    expect(await first).toMatchObject({ success: false, errorKind: 'timeout', effectful: true });
    expect((await first).error).toContain('it may have been delivered');
    hooks.answer((_q, r) => r.writeHead(200).end());
    const replay = await executeTool(notifyTool(config(), net()), params, buildContext({ ...base, is_replay: true }), { ledger });
    expect(replay).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(hooks.requests).toHaveLength(1);
  });

  it('cancelled before its request went out, is not an effect: it may be sent on a later attempt', async () => {
    const controller = new AbortController();
    // the name is still being resolved when the call is cancelled
    const slowDns: NetDeps = { ...net(), lookup: () => new Promise((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Error('lookup cancelled')), { once: true });
    }) };
    const pending = executeTool(notifyTool(config(), slowDns), { target: 'ops', text: 'x' }, buildContext(), { signal: controller.signal, graceMs: 2_000 });
    setTimeout(() => controller.abort(new Error('shutdown')), 100);
    const r = await pending;
    expect(r).toMatchObject({ success: false, errorKind: 'timeout' });
    expect(r.effectful).toBeUndefined();
    expect(hooks.connections).toBe(0);
  });
});
