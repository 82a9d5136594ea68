import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/agent/loop.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { refusalSummary } from '../../src/daemon/payload.ts';
import { listAudit } from '../../src/store/audit.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { createJobThroughGate, Human, runNowAsWorker } from '../support/agent-jobs.ts';
import { runCli } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel, type Reply } from '../support/fake-model.ts';
import { schemaConfigYaml } from '../support/approval-screens.ts';

// An agent run whose model was refused calls and then finished: what did it not do, and can an admin find it?
const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-refused-agent-'));
let model: Awaited<ReturnType<typeof startFakeModel>>;
let env: NodeJS.ProcessEnv;

/** Two calls an unattended run is always refused (I1, I4), then an answer; or an answer alone. */
const scripts: Record<string, (turn: number) => Reply> = {
  escalate: (turn) => [
    { tool_calls: [{ name: 'exec', arguments: { command: 'id' } }] },
    { tool_calls: [{ name: 'cronjob', arguments: { action: 'create', name: 'backdoor', schedule: '* * * * *', payload: { kind: 'agent', prompt: 'x' } } }] },
    { content: 'done, as far as I could' },
  ][turn]!,
  quiet: () => ({ content: 'nothing to do' }),
};

beforeAll(async () => {
  model = await startFakeModel(byPromptTurn((prompt, n) => scripts[prompt.includes('escalate') ? 'escalate' : 'quiet']!(n)));
  const file = join(workspace, 'echo-agent.yaml');
  writeFileSync(file, schemaConfigYaml(database().schema));
  env = { ECHO_AGENT_CONFIG: file };
});
afterAll(() => model.close());

const config = (maxDenials: number) => defaultConfig({
  tools: { workspace, restrict_to_workspace: true },
  permissions: { approval: { max_denials_per_run: maxDenials } },
  model: { base_url: model.url, name: 'scripted' },
});

async function agentRun(prompt: string, maxDenials: number): Promise<RunRow> {
  const cfg = config(maxDenials);
  const jobId = await createJobThroughGate(database().db, cfg, new Human(), { name: prompt, payload: { kind: 'agent', prompt } });
  return runNowAsWorker(database().db, cfg, jobId);
}

/** The rules the run's refusals were audited with, in order: what its error must name. */
async function refusedRules(runId: string): Promise<string[]> {
  return (await listAudit(database().db, { run_id: runId, kind: 'gate.decision', order: 'asc' })).filter((d) => d.outcome === 'deny').map((d) => `${(d.data as { tool: string }).tool} (${d.rule})`);
}

describe('an agent run with refused calls', () => {
  let finished: RunRow;
  let quiet: RunRow;

  it('whose model finished keeps state succeeded, and its error names each refused call and rule', async () => {
    finished = await agentRun('escalate one', 5);
    expect(finished).toMatchObject({ state: 'succeeded', denials: 2 });
    const refused = await refusedRules(finished.id);
    expect(refused).toEqual(['exec (security.daemon.capability)', 'cronjob (unattended.dangerous)']);
    expect(finished.error).toBe(`2 calls refused: ${refused.join(', ')}`);
    quiet = await agentRun('quiet one', 5);
    expect(quiet).toMatchObject({ state: 'succeeded', denials: 0, error: null });
  });

  it('stopped at max_denials_per_run ends denied, naming the limit and the refused calls', async () => {
    const run = await agentRun('escalate two', 2);
    expect(run).toMatchObject({ state: 'denied', denials: 2 });
    expect(run.error).toBe(`stopped after 2 refusals (max_denials_per_run): 2 calls refused: ${(await refusedRules(run.id)).join(', ')}`);
  });

  it('runs list --refused finds it in any state, and not a run without refusals; runs list and runs show print the summary', async () => {
    const listed = await runCli(['runs', 'list', '--refused', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const ids = (JSON.parse(listed.stdout) as { id: string; denials: number }[]).map((r) => r.id);
    expect(ids).toContain(finished.id);
    expect(ids).not.toContain(quiet.id);
    // with --state both hold: a succeeded run with refusals, found among the succeeded ones
    const succeeded = await runCli(['runs', 'list', '--refused', '--state', 'succeeded'], { env });
    const line = succeeded.stdout.split('\n').find((l) => l.startsWith(finished.id));
    expect(line).toMatch(/ succeeded +2 +1 +cron_authorized +2 calls refused: exec \(security\.daemon\.capability\), cronjob \(unattended\.dangerous\)/);
    expect(succeeded.stdout).not.toContain(quiet.id);
    const shown = await runCli(['runs', 'show', finished.id], { env });
    expect(shown.stdout).toContain('\nerror: 2 calls refused: exec (security.daemon.capability), cronjob (unattended.dangerous)\n');
  });
});

describe('the refusal summary', () => {
  const call = (index: number, tool: string, rule: string, outcome = 'deny'): CallRecord => ({ index, tool, decision: { outcome: outcome as 'deny', step: 4, rule: rule as never, reason: 'r' }, success: outcome === 'allow' });

  it('counts the same call refused again, leaves out allowed calls and bad arguments, and names sub-agents\' refusals as theirs', () => {
    const calls = [call(0, 'exec', 'security.daemon.capability'), call(1, 'write_file', 'unattended.cron_authorized', 'allow'), call(2, 'exec', 'security.daemon.capability'), call(3, 'list_dir', 'args.invalid')];
    expect(refusalSummary(calls, 2)).toBe('2 calls refused: exec (security.daemon.capability) ×2');
    expect(refusalSummary(calls, 3)).toBe('3 calls refused: exec (security.daemon.capability) ×2, 1 by its sub-agents (their audit records name them)');
    expect(refusalSummary([call(0, 'write_file', 'unattended.cron_authorized', 'allow')], 0)).toBeNull();
  });
});
