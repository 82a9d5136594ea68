import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CALL_ERROR_MAX_CHARS } from '../../src/agent/loop.ts';
import { agentChatClient } from '../../src/agent/model-config.ts';
import { createAgentRuntime } from '../../src/agent/runtime.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { listAudit } from '../../src/store/audit.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel, type Script } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-calls-'));
let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function setup(script: Script) {
  const model = await startFakeModel(script);
  servers.push(model);
  const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, model: { base_url: model.url, api_key: 'sk-call-records-key-000000', name: 'scripted' } });
  const db = database().db;
  return { model, runtime: createAgentRuntime({ config, db, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), chat: agentChatClient(config) }) };
}

const unattended = (job: string) => buildContext({ unattended: true, channel: 'cron', session_key: `cron:${job}` });
const signal = () => new AbortController().signal;

describe('what a run records of its calls', () => {
  it('a failed call keeps why it failed in calls[], redacted and at most CALL_ERROR_MAX_CHARS long', async () => {
    const long = `${'deep/'.repeat(150)}missing.txt`;
    const { runtime } = await setup((_b, n) => (n === 0
      ? { tool_calls: [
        { name: 'read_file', arguments: { path: 'nope.txt' } },
        { name: 'read_file', arguments: { path: 'token=hunter2hunter2.txt' } },
        { name: 'read_file', arguments: { path: long } },
        { name: 'write_file', arguments: { path: 'x.txt', content: 'x' } },
      ] }
      : { content: 'done' }));
    const out = await runtime.run('read', unattended('job_calls'), { signal: signal(), scope: { job_id: 'job_calls' } });
    const [missing, secret, tooLong, refused] = out.calls;
    expect(missing).toMatchObject({ tool: 'read_file', success: false, errorKind: 'business', error: `read_file: nope.txt does not exist in the workspace ${workspace}` });
    expect(secret!.error).toMatch(/does not exist/);
    expect(secret!.error).not.toContain('hunter2hunter2');
    expect(tooLong!.error!.length).toBe(CALL_ERROR_MAX_CHARS);
    expect(tooLong!.error!.endsWith('…')).toBe(true);
    expect(refused).toMatchObject({ tool: 'write_file', success: false, errorKind: 'denied', error: expect.stringMatching(/unattended policy is deny/) });
    expect(out.calls.filter((c) => c.success)).toEqual([]);
  });

  it('arguments that are not JSON leave an audit record: step 0, args.invalid, the tool and why (I8); not counted as a refusal', async () => {
    const { model, runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'read_file', arguments: '{"path": ' }] } : { content: 'ok' }));
    const ctx = unattended('job_badargs');
    const out = await runtime.run('x', ctx, { signal: signal(), scope: { job_id: 'job_badargs', run_id: 'run_badargs' } });
    expect(out.denials).toBe(0);
    expect(model.toolMessages()[0]).toMatchObject({ ok: false, error_kind: 'validation', refused_by: 'args.invalid', hint: expect.any(String) });
    const audit = await listAudit(database().db, { run_id: 'run_badargs', kind: 'gate.decision' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ step: 0, rule: 'args.invalid', outcome: 'deny', execution_id: ctx.execution_id, reason: expect.stringMatching(/read_file are not valid JSON/) });
    expect((audit[0]!.data as { tool: string }).tool).toBe('read_file');
    expect(out.calls[0]).toMatchObject({ tool: 'read_file', decision: { outcome: 'deny', step: 0, rule: 'args.invalid' }, errorKind: 'validation' });
  });

  it.each([
    ['nested 2,500 deep (it overflowed redaction\'s stack and crashed the run)', `{"path":${'['.repeat(2500)}${']'.repeat(2500)}}`, /read_file nest deeper than 64 levels/],
    ['longer than 1 MiB', JSON.stringify({ path: 'a'.repeat(1_100_000) }), /read_file are longer than 1048576 characters/],
  ])('arguments %s are refused as args.invalid and audited, and the run goes on to its next turn', async (_what, raw, why) => {
    const { model, runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'read_file', arguments: raw }] } : { content: 'carried on' }));
    const out = await runtime.run('x', unattended('job_deep'), { signal: signal(), scope: { job_id: 'job_deep', run_id: `run_deep_${raw.length}` } });
    expect(out).toMatchObject({ status: 'completed', final: 'carried on' });
    expect(model.toolMessages()[0]).toMatchObject({ ok: false, error_kind: 'validation', refused_by: 'args.invalid' });
    const audit = await listAudit(database().db, { run_id: `run_deep_${raw.length}`, kind: 'gate.decision' });
    expect(audit.map((a) => [a.step, a.rule])).toEqual([[0, 'args.invalid']]);
    expect(audit[0]!.reason).toMatch(why);
  });

  it('arguments the tool\'s schema refuses leave an audit record too, as args.invalid with the field named', async () => {
    const { runtime } = await setup((_b, n) => (n === 0 ? { tool_calls: [{ name: 'read_file', arguments: { path: 5 } }] } : { content: 'ok' }));
    const out = await runtime.run('x', unattended('job_schema'), { signal: signal(), scope: { job_id: 'job_schema', run_id: 'run_schema' } });
    expect(out.denials).toBe(0);
    const audit = await listAudit(database().db, { run_id: 'run_schema', kind: 'gate.decision' });
    expect(audit.map((a) => [a.step, a.rule, a.outcome])).toEqual([[0, 'args.invalid', 'deny']]);
    expect(audit[0]!.reason).toMatch(/invalid arguments for read_file: .*path/);
    expect(out.calls[0]).toMatchObject({ decision: { rule: 'args.invalid' }, error: expect.stringMatching(/path/) });
  });
});
