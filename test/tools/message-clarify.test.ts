import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { undiciTransport } from '../../src/tools/net/index.ts';
import { ttyClarifier } from '../../src/session/tty-clarifier.ts';
import { clarifyTool, type Clarifier } from '../../src/tools/catalog/clarify.ts';
import { messageTool } from '../../src/tools/catalog/message.ts';
import { buildContext, type ContextInput, type ToolExecutionContext } from '../../src/tools/context.ts';
import { MemoryEffectLedger } from '../../src/tools/effects.ts';
import { executeTool } from '../../src/tools/executor.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';
import { fakeInternet, lookupOf, scriptedServer, type ScriptedServer } from '../support/fake-internet.ts';

const PUBLIC_A = '93.184.216.34';
const HOOK_TOKEN = 'hook-token-0123456789-SECRET';

let hooks: ScriptedServer;
beforeAll(async () => {
  hooks = await scriptedServer((_q, r) => r.writeHead(202).end());
});
afterAll(() => hooks.close());
afterEach(() => hooks.reset());

const net = (): NetDeps => ({
  lookup: lookupOf({ 'hooks.test': [PUBLIC_A] }),
  transport: undiciTransport({ connector: fakeInternet({ [`${PUBLIC_A}:80`]: hooks.port }).connector }),
});
const targets = (url = 'http://hooks.test/chat'): ConfigInput => ({ notify: { targets: { chat: { url, headers: { 'x-hook-token': HOOK_TOKEN } } } } });
const conversation: ContextInput = { channel: 'telegram', chat_id: 'chat-42', reply_to_id: 'msg-7', session_key: 'sess-1' };

describe('message', () => {
  it('posts the text with the conversation ids from the context', async () => {
    const r = await executeTool(messageTool(defaultConfig(targets()), net()), { target: 'chat', text: 'done!' }, buildContext(conversation));
    expect(r).toEqual({ success: true, output: { target: 'chat', status: 202 } });
    expect(hooks.requests).toHaveLength(1);
    const req = hooks.requests[0]!;
    expect([req.method, req.url, req.headers['x-hook-token']]).toEqual(['POST', '/chat', HOOK_TOKEN]);
    expect(JSON.parse(req.body.toString())).toEqual({ text: 'done!', channel: 'telegram', chat_id: 'chat-42', reply_to_id: 'msg-7', session_key: 'sess-1' });
  });

  it('is sent once across a first call and its replay', async () => {
    const tool = messageTool(defaultConfig(targets()), net());
    const ledger = new MemoryEffectLedger();
    const params = { target: 'chat', text: 'only once' };
    const base = { ...conversation, trace_id: 'trace-msg', tool: 'message', call_index: 0, params };
    const first = await executeTool(tool, params, buildContext(base), { ledger });
    const replay = await executeTool(tool, params, buildContext({ ...base, is_replay: true }), { ledger });
    expect(first.success).toBe(true);
    expect(replay).toEqual(first);
    expect(hooks.requests).toHaveLength(1);
  });

  it('refuses an unknown target naming the field', async () => {
    const r = await executeTool(messageTool(defaultConfig(targets()), net()), { target: 'nope', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain('target: "nope"');
  });

  it('refuses a target on this machine without connecting, and shows neither its URL nor its headers', async () => {
    const r = await executeTool(messageTool(defaultConfig(targets(`http://127.0.0.1:${hooks.port}/chat`)), {}), { target: 'chat', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('ssrf.ip.loopback');
    expect(JSON.stringify(r)).not.toContain(HOOK_TOKEN);
    expect(hooks.connections).toBe(0);
  });

  it('refuses a target host outside the restricted allowlist', async () => {
    const r = await executeTool(messageTool(defaultConfig({ ...targets(), execution: { network_policy: 'restricted' } }), net()), { target: 'chat', text: 'x' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'denied' });
    expect(r.error).toContain('network.restricted');
    expect(hooks.connections).toBe(0);
  });

  it.each([
    [{ text: 'x' }, 'target: is required'],
    [{ target: 'chat', text: '' }, 'text'],
    [{ target: 'chat', text: 'x', chat_id: 'c' }, 'chat_id: is not a known parameter'],
  ])('refuses %j naming the field', async (params, message) => {
    const r = await executeTool(messageTool(defaultConfig(targets()), net()), params, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
    expect(hooks.connections).toBe(0);
  });

  it('is not ready without notify.targets', () => {
    const tool = messageTool(defaultConfig({}), net());
    expect(tool.readinessDetail()).toEqual([false, 'missing config: notify.targets']);
  });
});

/** A clarifier that records questions and answers from a script; `never` never answers. */
function scripted(answer: string | null | 'never') {
  const asked: { question: string; options: readonly string[]; ctx: ToolExecutionContext }[] = [];
  const clarifier: Clarifier = {
    ask: (question, options, ctx) => {
      asked.push({ question, options, ctx });
      return answer === 'never' ? new Promise(() => {}) : Promise.resolve(answer);
    },
  };
  return { clarifier, asked };
}

describe('clarify', () => {
  it('returns the answer of the person asked, with the question and options passed on', async () => {
    const { clarifier, asked } = scripted('blue');
    const ctx = buildContext({ session_key: 's1' });
    const r = await executeTool(clarifyTool(defaultConfig({}), clarifier), { question: 'Which colour?', options: ['red', 'blue'] }, ctx);
    expect(r).toEqual({ success: true, output: { answer: 'blue' } });
    expect(asked).toEqual([{ question: 'Which colour?', options: ['red', 'blue'], ctx }]);
  });

  it.each([
    ['an unattended run, even with a clarifier that would wait forever', { unattended: true }, true],
    ['no clarifier attached', {}, false],
  ])('fails at once for %s', async (_label, ctxInput, withClarifier) => {
    // The clarifier never answers, so asking it would hang past the test timeout; `asked` shows it was not called.
    const { clarifier, asked } = scripted('never');
    const r = await executeTool(clarifyTool(defaultConfig({}), withClarifier ? clarifier : null), { question: 'Proceed?' }, buildContext(ctxInput));
    expect(r).toEqual({ success: false, errorKind: 'business', error: 'clarify: no one to ask: this run is unattended' });
    expect(asked).toEqual([]);
  }, 2_000);

  it('a sub-agent (nested execution) does not ask the person (I5), and says so at once', async () => {
    const { clarifier, asked } = scripted('never');
    const r = await executeTool(clarifyTool(defaultConfig({}), clarifier), { question: 'Proceed?' }, buildContext({ parent_execution_id: 'exe-parent' }));
    expect(r).toMatchObject({ success: false, errorKind: 'business', error: expect.stringMatching(/sub-agent does not ask the person/) });
    expect(asked).toEqual([]);
  });

  it('fails when the question goes unanswered', async () => {
    const r = await executeTool(clarifyTool(defaultConfig({}), scripted(null).clarifier), { question: 'Proceed?' }, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'business', error: 'clarify: the question was not answered' });
  });

  it.each([
    [{}, 'question: is required'],
    [{ question: '' }, 'question'],
    [{ question: 'q', options: [1] }, 'options.0'],
  ])('refuses %j naming the field', async (params, message) => {
    const r = await executeTool(clarifyTool(defaultConfig({}), scripted('x').clarifier), params, buildContext());
    expect(r).toMatchObject({ success: false, errorKind: 'validation' });
    expect(r.error).toContain(message);
  });
});

describe('ttyClarifier', () => {
  const terminal = () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d: Buffer) => (shown += d.toString()));
    return { input, output, shown: () => shown };
  };

  it.each([
    ['a number picks that option', '2', 'blue'],
    ['a number out of range is taken as typed', '9', '9'],
    ['free text is taken as typed, trimmed', '  green please \n', 'green please'],
  ])('prints the question with numbered options; %s', async (_label, typed, expected) => {
    const t = terminal();
    const pending = ttyClarifier(t).ask('Which colour?', ['red', 'blue'], buildContext(), new AbortController().signal);
    t.input.write(typed.endsWith('\n') ? typed : `${typed}\n`);
    expect(await pending).toBe(expected);
    expect(t.shown()).toContain('Which colour?');
    expect(t.shown()).toContain('1) red');
    expect(t.shown()).toContain('2) blue');
  });

  it.each([
    ['the input ends', (t: ReturnType<typeof terminal>) => t.input.end()],
    ['the answer is empty', (t: ReturnType<typeof terminal>) => t.input.write('\n')],
  ])('gives no answer when %s', async (_label, act) => {
    const t = terminal();
    const pending = ttyClarifier(t).ask('Proceed?', [], buildContext(), new AbortController().signal);
    act(t);
    expect(await pending).toBeNull();
  });

  it('gives no answer when cancelled', async () => {
    const t = terminal();
    const ctl = new AbortController();
    const pending = ttyClarifier(t).ask('Proceed?', [], buildContext(), ctl.signal);
    setTimeout(() => ctl.abort(new Error('cancelled')), 20);
    expect(await pending).toBeNull();
  });
});
