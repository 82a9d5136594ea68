/**
 * Red team: is the call a person approves the call that runs? Duplicate JSON keys and `__proto__` keys from
 * the model, the same tricks in a job file, and an answer replayed for another call. The attended session
 * (src/session/*) runs against a scripted model; every prompt is answered by a scripted person who records
 * what they were shown. Nothing dangerous is executed: the person answers "n" wherever a command would run.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentChatClient } from '../../src/agent/model-config.ts';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig, type Config } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { attendedContext, attendedTurn } from '../../src/session/attended-session.ts';
import { listJobs } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { recordingTerminal, schemaConfigYaml } from '../support/approval-screens.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { startFakeModel } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-rt-binding-'));

/** The raw `arguments` string each scripted turn's tool call carries, by the session's prompt. */
const RAW: Record<string, { tool: string; raw: string }> = {
  'duplicate command': { tool: 'exec', raw: '{"command":"ls","command":"kubectl delete namespace production"}' },
  'proto shell': { tool: 'exec', raw: '{"command":"ls; kubectl delete namespace production","__proto__":{"shell":true}}' },
  'proto path': { tool: 'write_file', raw: '{"content":"x","__proto__":{"path":"/etc/cron.d/owned"},"path":"notes.txt"}' },
};

let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  model = await startFakeModel((body) => {
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const sent = body.messages.some((m) => m.role === 'tool');
    const call = RAW[prompt];
    return !sent && call ? { tool_calls: [{ name: call.tool, arguments: call.raw }] } : { content: 'done' };
  });
});
afterAll(() => model.close());

const config = (): Config => defaultConfig({ tools: { profile: 'full', workspace }, model: { base_url: model.url, name: 'scripted', api_key: 'sk-binding-test-0001' } });

async function session(prompt: string, reply: (screen: string) => string) {
  const db = database().db;
  const cfg = config();
  const tools = builtinTools(cfg, { db });
  const t = recordingTerminal(db, cfg, tools, reply);
  const deps = { config: cfg, db, tools, guard: createGuard(cfg, systemGuardDeps({ dns: false })), chat: agentChatClient(cfg), approver: t.approver, smartReviewer: null };
  const turn = await attendedTurn(deps, prompt, attendedContext('alice', 'cli'), new AbortController().signal);
  return { turn, t };
}

describe('what the model sends is what the person is shown', () => {
  it('held: duplicate keys in the model\'s JSON: the person is shown the value that would run (the last), not the first', async () => {
    const { turn, t } = await session('duplicate command', () => 'n');
    expect(t.requests).toHaveLength(1);
    expect(t.requests[0]!.args).toEqual({ command: 'kubectl delete namespace production' });
    expect(t.screens[0]).toContain('"command": "kubectl delete namespace production"');
    expect(t.screens[0]).not.toContain('"command": "ls"');
    expect(turn.outcome.calls[0]).toMatchObject({ tool: 'exec', success: false, decision: { outcome: 'deny', step: 11 } });
  });

  it('held: a `__proto__` key cannot slip `shell: true` past the prompt: the arguments are refused before anyone is asked', async () => {
    const { turn, t } = await session('proto shell', () => 'y');
    expect(t.screens).toHaveLength(0);
    expect(turn.outcome.calls[0]).toMatchObject({ tool: 'exec', success: false, errorKind: 'validation' });
  });

  it('held: a `__proto__` key cannot give write_file a second, unshown path', async () => {
    const { turn } = await session('proto path', () => 'n');
    expect(turn.outcome.calls[0]).toMatchObject({ tool: 'write_file', success: false, errorKind: 'validation' });
  });
});

describe('an answer belongs to one call', () => {
  it('held: an answer replayed for a later, identical call (same id and hash as the first) is refused as a mismatch', async () => {
    const db = database().db;
    const cfg = config();
    const tools = builtinTools(cfg, { db });
    let first: ApprovalAnswer | null = null;
    const replaying: HumanApprover = {
      async ask(req: ApprovalRequest) {
        first ??= { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
        return first;
      },
    };
    const deps = { db, config: cfg, tools, guard: createGuard(cfg, systemGuardDeps({ dns: false })), approver: replaying };
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
    const call = { tool: 'cronjob', args: { action: 'create', name: 'replayed', schedule: '0 3 * * *', payload: { kind: 'agent', prompt: 'tidy notes' } } };
    const a = await attendedCall(deps, call, ctx, 0);
    expect(a.decision).toMatchObject({ outcome: 'allow', step: 11, approval_source: 'human' });
    const b = await attendedCall(deps, { ...call, args: { ...call.args, name: 'replayed-2' } }, ctx, 1);
    expect(b.decision).toMatchObject({ outcome: 'deny', step: 11, rule: 'approval.human.mismatch' });
    expect((await listJobs(db)).map((j) => j.name)).not.toContain('replayed-2');
  });

  it('held: `__proto__` in a cronjob step\'s args is dropped from the stored job: the screen shows more than will run, never less', async () => {
    const db = database().db;
    const cfg = config();
    const tools = builtinTools(cfg, { db });
    const t = recordingTerminal(db, cfg, tools, () => 'y');
    const args = JSON.parse('{"action":"create","name":"proto-step","schedule":"0 3 * * *","options":{"tools":["write_file"]},"payload":{"kind":"steps","steps":[{"tool":"write_file","args":{"content":"x","path":"notes.txt","__proto__":{"path":"/etc/cron.d/owned"}}}]}}');
    const out = await attendedCall({ db, config: cfg, tools, guard: createGuard(cfg, systemGuardDeps({ dns: false })), approver: t.approver }, { tool: 'cronjob', args }, buildContext({ channel: 'cli', user_id: 'alice' }));
    expect(out.result.success, out.result.error).toBe(true);
    expect(t.screens[0]).toContain('"__proto__"');
    const job = (await listJobs(db)).find((j) => j.name === 'proto-step')!;
    const stored = (job.payload as { steps: { args: Record<string, unknown> }[] }).steps[0]!.args;
    expect(Object.keys(stored).sort()).toEqual(['content', 'path']);
    expect(stored.path).toBe('notes.txt');
  });
});

describe('a hostile job file', () => {
  const cli = () => {
    const dir = mkdtempSync(join(tmpdir(), 'echo-rt-jobfile-'));
    const cfg = join(dir, 'echo-agent.yaml');
    writeFileSync(cfg, schemaConfigYaml(database().schema));
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    return { env: { ECHO_AGENT_CONFIG: cfg }, file };
  };

  it('held: a duplicated key (the second prompt is the one a YAML loader keeps) is refused before anyone is asked', async () => {
    const c = cli();
    const path = c.file('dup.yaml', 'name: dup\nschedule: "0 3 * * *"\npayload:\n  kind: agent\n  prompt: summarise the logs\n  prompt: delete the logs\n');
    const r = await runCli(['jobs', 'create', '--file', path], { env: c.env });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/not valid YAML/);
    expect(r.stderr).not.toContain('Approval needed');
  });

  it('held: a `__proto__` mapping in a job file is refused, not merged under what is shown', async () => {
    const c = cli();
    const path = c.file('proto.yaml', 'name: proto\nschedule: "0 3 * * *"\n__proto__:\n  tools: [write_file]\npayload:\n  kind: agent\n  prompt: summarise the logs\n');
    const r = await runCli(['jobs', 'create', '--file', path], { env: c.env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('__proto__');
    expect((await listJobs(database().db)).map((j) => j.name)).not.toContain('proto');
  });
});
