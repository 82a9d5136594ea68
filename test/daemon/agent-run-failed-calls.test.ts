import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/agent/loop.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { undoneSummary } from '../../src/daemon/payload.ts';
import { listAudit } from '../../src/store/audit.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { createJobThroughGate, Human, runNowAsWorker } from '../support/agent-jobs.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel, type Reply } from '../support/fake-model.ts';

// An agent run whose calls failed or had bad arguments, and whose model then finished: it did less than it was
// asked, and `runs list` must say so, as it names refused calls, without changing its state.
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-failed-calls-'));
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;

const loopbackNotify = { name: 'notify', arguments: { target: 'ops', text: 'hello' } };
// `message` for `text`: refused before the gate's steps (args.invalid), not counted as a refusal
const misnamedNotify = { name: 'notify', arguments: { target: 'ops', message: 'hello' } };

/** The calls each job's model makes in its first response, by a word of its prompt; then it answers. */
const firstCalls = (prompt: string): Reply['tool_calls'] => {
  if (prompt.includes('mixed')) return [{ name: 'exec', arguments: { command: 'id' } }, loopbackNotify, misnamedNotify];
  if (prompt.includes('misnamed')) return [misnamedNotify];
  if (prompt.includes('loopback')) return [loopbackNotify];
  return [];
};

beforeAll(async () => {
  model = await startFakeModel(byPromptTurn((prompt, n) => {
    const calls = firstCalls(prompt)!;
    return n === 0 && calls.length > 0 ? { tool_calls: calls } : { content: 'done' };
  }));
  const file = join(workspace, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});
afterAll(() => model.close());

// a webhook on a loopback address: the notify tool's network guard refuses it when the call runs (errorKind denied)
const config = () => defaultConfig({
  tools: { workspace, restrict_to_workspace: true },
  notify: { targets: { ops: { url: 'http://127.0.0.1:9/hook' } } },
  model: { base_url: model.url, name: 'scripted' },
});

async function agentRun(prompt: string): Promise<RunRow> {
  const cfg = config();
  const jobId = await createJobThroughGate(database().db, cfg, new Human(), { name: prompt, payload: { kind: 'agent', prompt } });
  return runNowAsWorker(database().db, cfg, jobId);
}

const LOOPBACK = 'notify (denied: target "ops" is refused by the network guard (ssrf.ip.loopback))';
const MISNAMED = 'notify (text: is required; message: is not a known parameter)';

describe('an agent run whose model finished after calls that did nothing', () => {
  const runs: Record<string, RunRow> = {};

  it('a call that failed keeps the run succeeded with no refusal counted, and its error names the call and why', async () => {
    runs.loopback = await agentRun('notify loopback');
    expect(runs.loopback).toMatchObject({ state: 'succeeded', denials: 0, error: `1 call failed: ${LOOPBACK}` });
  });

  it('a call with bad arguments likewise: named, not counted toward max_denials_per_run', async () => {
    runs.misnamed = await agentRun('notify misnamed');
    expect(runs.misnamed).toMatchObject({ state: 'succeeded', denials: 0, error: `1 call had bad arguments: ${MISNAMED}` });
    // the audit log has it as a refusal before the steps: that is what the error's "bad arguments" stands for
    const records = await listAudit(database().db, { run_id: runs.misnamed.id, kind: 'gate.decision' });
    expect(records.map((r) => [r.outcome, r.step, r.rule])).toEqual([['deny', 0, 'args.invalid']]);
  });

  it('named after the refusals, which alone count (DENIALS)', async () => {
    runs.mixed = await agentRun('mixed calls');
    expect(runs.mixed).toMatchObject({ state: 'succeeded', denials: 1 });
    expect(runs.mixed.error).toBe(`1 call refused: exec (security.daemon.capability); 1 call failed: ${LOOPBACK}; 1 call had bad arguments: ${MISNAMED}`);
    runs.quiet = await agentRun('quiet');
    expect(runs.quiet).toMatchObject({ state: 'succeeded', denials: 0, error: null });
  });

  it('runs list and runs show print it; runs list --refused finds the runs with a refusal, bad arguments included, not those whose calls only failed', async () => {
    const listed = await runCli(['runs', 'list', '--state', 'succeeded'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const line = (id: string) => listed.stdout.split('\n').find((l) => l.startsWith(id)) ?? '';
    expect(line(runs.loopback!.id)).toMatch(/ succeeded +0 +1 +cron_authorized +1 call failed: notify \(denied: target "ops" is refused/);
    expect(line(runs.misnamed!.id)).toMatch(/ succeeded +0 +1 +cron_authorized +1 call had bad arguments: notify \(text: is required/);
    const shown = await runCli(['runs', 'show', runs.mixed!.id], { env });
    expect(shown.stdout).toContain(`\nerror: ${runs.mixed!.error}\n`);
    const refused = await runCli(['runs', 'list', '--refused', '--json'], { env });
    const ids = (JSON.parse(refused.stdout) as { id: string }[]).map((r) => r.id);
    expect(ids).toContain(runs.mixed!.id);
    // a call with bad arguments is refused at gate step 0 (args.invalid), as audit list --outcome deny shows it
    expect(ids).toContain(runs.misnamed!.id);
    for (const r of [runs.loopback!, runs.quiet!]) expect(ids).not.toContain(r.id);
  });
});

describe('the summary of calls that did nothing', () => {
  const call = (index: number, tool: string, over: Partial<CallRecord>): CallRecord => ({
    index, tool, decision: { outcome: 'allow', step: 5, rule: 'unattended.cron_authorized' as never, reason: 'r' }, success: false, ...over,
  });
  const failedNotify = (i: number) => call(i, 'notify', { errorKind: 'internal', error: 'notify: target "ops" could not be reached: ECONNREFUSED' });

  it('leaves out successes and refusals, counts the same failure again, and names calls not run', () => {
    const calls = [
      failedNotify(0), call(1, 'read_file', { success: true }), failedNotify(2),
      call(3, 'exec', { decision: { outcome: 'deny', step: 4, rule: 'security.daemon.capability' as never, reason: 'r' }, errorKind: 'denied' }),
      call(4, 'todo', { decision: { outcome: 'deny', step: 0, rule: 'model.max_tool_calls_per_turn' as never, reason: 'r' }, errorKind: 'validation' }),
    ];
    expect(undoneSummary(calls)).toBe('2 calls failed: notify (internal: target "ops" could not be reached: ECONNREFUSED) ×2; 1 call not run: todo (model.max_tool_calls_per_turn)');
    expect(undoneSummary([call(0, 'read_file', { success: true })])).toBeNull();
  });

  it('names at most five different failures and cuts a long reason', () => {
    const calls = Array.from({ length: 7 }, (_, i) => call(i, `tool_${i}`, { errorKind: 'business', error: `tool_${i}: ${'x'.repeat(300)}` }));
    const summary = undoneSummary(calls)!;
    expect(summary).toMatch(/^7 calls failed: tool_0 \(business: x{99}…\), .*tool_4 .*, 2 more \(runs show: output\.calls\)$/);
    expect(summary).not.toContain('tool_5');
  });
});
