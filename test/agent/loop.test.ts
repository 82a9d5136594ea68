import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type Script } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-loop-'));
writeFileSync(join(workspace, 'notes.txt'), 'the answer is 42\n');
let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function setup(script: Script, overrides: ConfigInput = {}) {
  const model = await startFakeModel(script);
  servers.push(model);
  const config = defaultConfig({
    ...overrides,
    tools: { workspace, restrict_to_workspace: true, ...overrides.tools },
    model: { base_url: model.url, api_key: 'sk-test-loop-key-000000', name: 'scripted', ...overrides.model },
  });
  const db = database().db;
  const runtime = createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) });
  return { model, runtime, config };
}

const attended = (extra: Parameters<typeof buildContext>[0] = {}) => buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice', ...extra });
const signal = () => new AbortController().signal;

describe('the agent loop over an OpenAI-compatible endpoint', () => {
  it('runs a tool call through the gate and the executor and feeds the result back to the model', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0
      ? { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }
      : { content: 'The file says 42.' }));
    const out = await runtime.run('What does notes.txt say?', attended(), { signal: signal() });
    expect(out.status).toBe('completed');
    expect(out.final).toBe('The file says 42.');
    expect(model.requests).toHaveLength(2);
    const fed = model.toolMessages();
    expect(fed[0]).toMatchObject({ ok: true, output: { content: expect.stringContaining('the answer is 42') } });
    expect(model.requests[0]!.temperature).toBe(0);
    expect(model.headers[0]!.authorization).toBe('Bearer sk-test-loop-key-000000');
    expect(out.calls).toEqual([expect.objectContaining({ tool: 'read_file', success: true, decision: expect.objectContaining({ outcome: 'allow', step: 5 }) })]);
  });

  it('offers the model exactly the effective tool set of the context (I10)', async () => {
    const { model, runtime } = await setup(() => ({ content: 'done' }), { tools: { profile: 'minimal', deny: ['list_dir'] } });
    await runtime.run('hi', attended(), { signal: signal() });
    const offered = (model.requests[0]!.tools ?? []).map((t) => t.function.name).sort();
    expect(offered).toContain('read_file');
    for (const hidden of ['list_dir', 'write_file', 'exec', 'cronjob', 'agents_list', 'agents_route']) expect(offered).not.toContain(hidden);
    // every offered tool is implemented and ready here
    expect(offered.every((n) => ['read_file', 'search_files', 'notify', 'message', 'todo', 'clarify', 'read_spill', 'knowledge_search', 'session_search', 'skills_list', 'skill_view', 'web_fetch'].includes(n))).toBe(true);
  });

  it('offers an unattended context only what the daemon profile leaves, narrowed by allowed_tools', async () => {
    const { model, runtime } = await setup(() => ({ content: 'done' }));
    // authorised, so that step 4 would let a write through: what is left out here is the profile's doing
    await runtime.run('hi', buildContext({ unattended: true, cron_authorized: true, channel: 'cron', allowed_tools: ['read_file', 'write_file', 'exec'] }), { signal: signal() });
    expect((model.requests[0]!.tools ?? []).map((t) => t.function.name).sort()).toEqual(['read_file', 'write_file']);
  });

  it('returns a refusal to the model as a tool error, audited with its step and rule', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0
      ? { tool_calls: [{ name: 'write_file', arguments: { path: 'inside.txt', content: 'x' } }] }
      : { content: 'I could not write there.' }));
    const ctx = attended({ unattended: true, channel: 'cron' });
    const out = await runtime.run('write inside.txt', ctx, { signal: signal(), scope: { job_id: 'job_loop', run_id: 'run_loop' } });
    expect(out.status).toBe('completed');
    const fed = model.toolMessages()[0]!;
    expect(fed).toMatchObject({ ok: false, error_kind: 'denied', refused_by: 'unattended.policy_deny' });
    expect(String(fed.error)).toMatch(/do not retry/i);
    const audit = await listAudit(database().db, { job_id: 'job_loop' });
    expect(audit.find((a) => a.kind === 'gate.decision' && a.rule === 'unattended.policy_deny')).toMatchObject({ step: 4, outcome: 'deny', execution_id: ctx.execution_id });
  });

  it('refuses a tool that is not offered even when the model calls it anyway (I10)', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'exec', arguments: { command: 'id' } }] } : { content: 'ok' }));
    const out = await runtime.run('run id', buildContext({ unattended: true, channel: 'cron' }), { signal: signal() });
    expect(model.toolMessages()[0]).toMatchObject({ ok: false, refused_by: 'security.daemon.capability' });
    expect(out.calls[0]!.decision).toMatchObject({ outcome: 'deny', step: 0 });
  });

  it('refuses a tool that is not offered, and audits it, even when its arguments are not JSON (I8, I10)', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'exec', arguments: '{"command": ' }] } : { content: 'ok' }));
    const out = await runtime.run('run id', buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_badjson' }), { signal: signal(), scope: { job_id: 'job_badjson' } });
    expect(model.toolMessages()[0]).toMatchObject({ ok: false, refused_by: 'security.daemon.capability' });
    expect(out.denials).toBe(1);
    const audit = await listAudit(database().db, { job_id: 'job_badjson', kind: 'gate.decision' });
    expect(audit.map((r) => [r.step, r.rule])).toEqual([[0, 'security.daemon.capability']]);
  });

  it('tells the model when its arguments are not JSON, without counting a refusal', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'read_file', arguments: '{"path": ' }] } : { content: 'ok' }));
    const out = await runtime.run('x', attended(), { signal: signal() });
    expect(model.toolMessages()[0]).toMatchObject({ ok: false, error_kind: 'validation' });
    expect(out.denials).toBe(0);
  });

  it('stops at max_turns when the model never stops calling tools', async () => {
    const { model, runtime } = await setup(() => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }), { model: { max_turns: 3 } });
    const out = await runtime.run('loop forever', attended(), { signal: signal() });
    expect(out.status).toBe('max_turns');
    expect(model.requests).toHaveLength(3);
    expect(out.error).toMatch(/max_turns/);
  });

  it('stops when the token budget is used up', async () => {
    const { model, runtime } = await setup(() => ({ tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }], tokens: 600 }), { model: { token_budget: 1000 } });
    const out = await runtime.run('spend', attended(), { signal: signal() });
    expect(out.status).toBe('token_budget');
    expect(model.requests).toHaveLength(2);
  });

  it('stops after max_denials_per_run refusals', async () => {
    const { model, runtime } = await setup(() => ({ tool_calls: [{ name: 'cronjob', arguments: { action: 'list' } }] }), { permissions: { approval: { max_denials_per_run: 2 } } });
    const out = await runtime.run('make jobs', buildContext({ unattended: true, channel: 'cron' }), { signal: signal() });
    expect(out.status).toBe('denied');
    expect(out.denials).toBe(2);
    expect(model.requests).toHaveLength(2);
  });

  it('reports a failing model endpoint without echoing its key', async () => {
    const { runtime } = await setup(() => ({ status: 500 }));
    const out = await runtime.run('x', attended(), { signal: signal() });
    expect(out.status).toBe('model_error');
    expect(out.error).not.toContain('sk-test-loop-key');
  });

  it('fails clearly when no model is configured', async () => {
    const config = defaultConfig({ tools: { workspace } });
    const db = database().db;
    const runtime = createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) });
    const out = await runtime.run('x', attended(), { signal: signal() });
    expect(out).toMatchObject({ status: 'model_error', error: expect.stringMatching(/model\.base_url/) });
  });

  it('cancels when the signal aborts mid-turn', async () => {
    const { runtime } = await setup(() => ({ content: 'late', delayMs: 5_000 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('timeout')), 200);
    // waiting the turn out would end 'completed' with the late reply
    const out = await runtime.run('x', attended(), { signal: controller.signal });
    expect(out.status).toBe('cancelled');
  }, 10_000);

  it('writes through the workspace when the gate allows it (attended WRITE)', async () => {
    const { runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'write_file', arguments: { path: 'out.txt', content: 'hello' } }] } : { content: 'written' }));
    const out = await runtime.run('write', attended(), { signal: signal() });
    expect(out.status).toBe('completed');
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('hello');
  });
});
