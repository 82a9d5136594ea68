import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { configSchema, defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type Script } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-call-limit-'));
writeFileSync(join(workspace, 'a.txt'), 'a\n');
let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function setup(script: Script, model: ConfigInput['model'] = {}) {
  const fake = await startFakeModel(script);
  servers.push(fake);
  const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, model: { base_url: fake.url, api_key: 'sk-call-limit-key-0000000', name: 'scripted', ...model } });
  const db = database().db;
  return { fake, runtime: createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) }) };
}

const fifty: Script = (_b, n) => (n === 0 ? { tool_calls: Array.from({ length: 50 }, () => ({ name: 'read_file', arguments: { path: 'a.txt' } })) } : { content: 'done' });

describe('tool calls per model response', () => {
  it('runs at most model.max_tool_calls_per_turn (16 by default) of one response; the rest are answered unrun, with the limit, and recorded', async () => {
    const { fake, runtime } = await setup(fifty);
    const ctx = buildContext({ unattended: true, channel: 'cron', session_key: 'cron:job_limit' });
    const out = await runtime.run('read a lot', ctx, { signal: new AbortController().signal, scope: { job_id: 'job_limit', run_id: 'run_limit' } });
    expect(out).toMatchObject({ status: 'completed', final: 'done', denials: 0 });
    expect(out.calls).toHaveLength(50);
    expect(out.calls.filter((c) => c.success)).toHaveLength(16);
    const skipped = out.calls.slice(16);
    expect(skipped.every((c) => !c.success && c.decision?.rule === 'model.max_tool_calls_per_turn')).toBe(true);
    expect(skipped[0]!.error).toMatch(/at most 16 \(model\.max_tool_calls_per_turn\)/);
    // every call of the response is answered, as the API requires
    const told = fake.toolMessages();
    expect(told).toHaveLength(50);
    expect(told[20]).toMatchObject({ ok: false, refused_by: 'model.max_tool_calls_per_turn', error: expect.stringMatching(/asked for 50 tool calls/) });
    const audit = await listAudit(database().db, { run_id: 'run_limit', kind: 'gate.decision' });
    expect(audit.filter((a) => a.rule === 'unattended.read_only')).toHaveLength(16);
    expect(audit.filter((a) => a.rule === 'model.max_tool_calls_per_turn' && a.step === 0 && a.outcome === 'deny')).toHaveLength(34);
  });

  it('follows the configured limit', async () => {
    const { runtime } = await setup(fifty, { max_tool_calls_per_turn: 4 });
    const out = await runtime.run('read a lot', buildContext({ channel: 'cli', user_id: 'alice' }), { signal: new AbortController().signal });
    expect(out.calls.filter((c) => c.success)).toHaveLength(4);
  });

  it('is a model setting with a default of 16 that must be a positive whole number', () => {
    expect(defaultConfig().model.max_tool_calls_per_turn).toBe(16);
    expect(configSchema.safeParse({ model: { max_tool_calls_per_turn: 0 } }).success).toBe(false);
    expect(configSchema.safeParse({ model: { max_tool_calls_per_turn: 2.5 } }).success).toBe(false);
  });
});
