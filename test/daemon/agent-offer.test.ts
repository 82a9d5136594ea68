import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig, type ConfigInput } from '../../src/config/schema.ts';
import { LateAgentHost } from '../../src/agent/host.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { listAudit } from '../../src/store/audit.ts';
import { liveGrant, revokeGrant } from '../../src/store/grants.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { byPromptTurn, startFakeModel, type ChatBody } from '../support/fake-model.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-agent-offer-'));

/** The call a job's model makes first, offered or not, by a word of its prompt; then it stops. */
const firstCall = (prompt: string): { name: string; arguments: Record<string, unknown> } => {
  if (prompt.includes('outside')) return { name: 'write_file', arguments: { path: '/etc/echo-agent-offer-test', content: 'x' } };
  if (prompt.includes('delegates')) return { name: 'delegate_task', arguments: { prompt: 'sub: anything', tools: ['cronjob'] } };
  return { name: 'write_file', arguments: { path: `${prompt.replace(/\W+/g, '-')}.txt`, content: 'x' } };
};
let model: Awaited<ReturnType<typeof startFakeModel>>;
beforeAll(async () => {
  model = await startFakeModel(byPromptTurn((prompt, n) => (n === 0 ? { tool_calls: [firstCall(prompt)] } : { content: 'done' })));
});
afterAll(() => model.close());

const config = (overrides: ConfigInput = {}) => defaultConfig({
  ...overrides,
  tools: { workspace, restrict_to_workspace: true, ...overrides.tools },
  model: { base_url: model.url, name: 'scripted', api_key: 'sk-agent-offer-key-1234' },
});

class Human implements HumanApprover {
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

/** Creates an agent job with the default tool set, approved by a person at a terminal whose configuration is `cfg`. */
async function createJob(prompt: string, cfg: ReturnType<typeof config>) {
  const db = database().db;
  const out = await attendedCall(
    { db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), approver: new Human() },
    { tool: 'cronjob', args: { action: 'create', name: prompt, schedule: '0 3 * * *', payload: { kind: 'agent', prompt } } },
    buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }),
  );
  expect(out.result.success, out.result.error).toBe(true);
  return (out.result.output as { job: { id: string } }).job.id;
}

async function revoked(jobId: string) {
  expect(await revokeGrant(database().db, { job_id: jobId, by: 'admin', why: 'test: a job without a grant' })).toBeTruthy();
  return jobId;
}

/** Runs the job once the way the daemon's worker does, under the daemon's configuration `cfg`. */
async function runUnder(jobId: string, cfg: ReturnType<typeof config>) {
  const db = database().db;
  // bound to a runtime, as in the daemon, so delegate_task is ready
  const agentHost = new LateAgentHost();
  const base = { db, config: cfg, tools: builtinTools(cfg, { db, agentHost }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' };
  const run = await manualRun({ db }, jobId, 'test');
  const before = model.requests.length;
  const agent = daemonAgentRuntime(base);
  agentHost.bind(agent);
  await executeRun({ ...base, agent }, run!.id);
  const first: ChatBody = model.requests[before]!;
  return {
    run: (await getRun(db, run!.id))!,
    offered: (first.tools ?? []).map((t) => t.function.name),
    /** The daemon's effective tool set (SPEC §4), before step 4 is asked. */
    effective: agent.offered(buildContext({ unattended: true, channel: 'cron', session_key: `cron:${jobId}` })).map((t) => t.name),
    records: await listAudit(db, { run_id: run!.id, kind: 'gate.decision', order: 'asc' }),
    decisions: (await listAudit(db, { run_id: run!.id, kind: 'gate.decision', order: 'asc' })).map((d) => [(d.data as { tool: string }).tool, d.outcome, d.rule]),
  };
}

describe('what an unattended run\'s model is offered', () => {
  it('under a human grant: the tools its approval listed, not a write tool the configuration offers since', async () => {
    // approved where the minimal profile applied: reads, clarify, message, notify, todo
    const jobId = await createJob('minimal then coding', config({ tools: { profile: 'minimal', also_allow: ['cronjob'] } }));
    const scope = (await liveGrant(database().db, jobId))!.tool_scope!;
    expect(scope).toContain('clarify');
    expect(scope).not.toContain('write_file');

    const { run, offered, effective, decisions } = await runUnder(jobId, config({ tools: { profile: 'coding' } }));
    expect(run.cron_authorized).toBe(true);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'list_dir', 'todo']));
    // nobody can answer it in an unattended run
    expect(offered).not.toContain('clarify');
    for (const withheld of ['write_file', 'edit_file', 'patch', 'task']) {
      expect(effective).toContain(withheld);
      expect(offered).not.toContain(withheld);
    }
    // I10: a withheld tool called anyway is still refused, and the refusal is on the record
    expect(decisions).toEqual([['write_file', 'deny', 'unattended.outside_grant']]);
    expect(run.denials).toBe(1);
  });

  it('never a DANGEROUS tool, even under a grant from before tool scopes, which covers every tool', async () => {
    const cfg = config({ tools: { profile: 'full' } });
    const jobId = await createJob('full profile grant', cfg);
    await database().pool.query('UPDATE job_grants SET tool_scope = NULL WHERE job_id = $1', [jobId]);
    const { offered, effective, decisions } = await runUnder(jobId, cfg);
    for (const dangerous of ['cronjob', 'skill_manage']) {
      expect(effective).toContain(dangerous);
      expect(offered).not.toContain(dangerous);
    }
    expect(offered).toEqual(expect.arrayContaining(['write_file', 'task', 'todo']));
    expect(offered).not.toContain('clarify');
    expect(decisions).toEqual([['write_file', 'allow', 'unattended.cron_authorized']]);
  });

  it('without a grant, unattended_policy deny: reads only', async () => {
    const cfg = config({ tools: { profile: 'coding', also_allow: ['cronjob'] } });
    const jobId = await revoked(await createJob('revoked deny', cfg));
    const { run, offered, effective, decisions } = await runUnder(jobId, cfg);
    expect(run.cron_authorized).toBe(false);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'search_files', 'web_fetch']));
    for (const withheld of ['write_file', 'clarify', 'task', 'cronjob']) {
      expect(effective).toContain(withheld);
      expect(offered).not.toContain(withheld);
    }
    expect(decisions).toEqual([['write_file', 'deny', 'unattended.policy_deny']]);
    expect(run.denials).toBe(1);
  });

  it('without a grant, unattended_policy allow_safe: reads and file writes, no other write and no exec', async () => {
    const cfg = config({ tools: { profile: 'full' }, permissions: { approval: { unattended_policy: 'allow_safe' } } });
    const jobId = await revoked(await createJob('revoked allow safe', cfg));
    const { run, offered, effective, decisions } = await runUnder(jobId, cfg);
    expect(run.cron_authorized).toBe(false);
    expect(offered).toEqual(expect.arrayContaining(['read_file', 'write_file', 'edit_file', 'patch']));
    for (const withheld of ['clarify', 'task', 'workflow', 'cronjob']) {
      expect(effective).toContain(withheld);
      expect(offered).not.toContain(withheld);
    }
    expect(decisions).toEqual([['write_file', 'allow', 'unattended.allow_safe.write']]);
  });
});

describe('a call of a tool the model was not offered', () => {
  it('is judged on the arguments the model sent: a hard block still refuses it at step 1, with them on the record (I8, I9)', async () => {
    const cfg = config({ tools: { profile: 'coding', also_allow: ['cronjob'] } });
    const jobId = await revoked(await createJob('write outside', cfg));
    const { offered, records, run } = await runUnder(jobId, cfg);
    expect(offered).not.toContain('write_file');
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ outcome: 'deny', step: 1, rule: 'path.outside_workspace' });
    expect((records[0]!.data as { args: unknown }).args).toEqual(firstCall('write outside').arguments);
    expect(run.denials).toBe(1);
    // refused for good: the model is not told to resend its arguments
    expect(model.toolMessages().at(-1)).not.toHaveProperty('hint');
  });

  it('is judged at the risk its arguments give it (I7)', async () => {
    const cfg = config({ tools: { profile: 'full' } });
    const jobId = await revoked(await createJob('delegates to cronjob', cfg));
    const { offered, effective, records } = await runUnder(jobId, cfg);
    expect(effective).toContain('delegate_task');
    expect(offered).not.toContain('delegate_task');
    expect(records).toHaveLength(1);
    // a sub-agent handed cronjob is DANGEROUS, not the exec of delegate_task alone
    expect(records[0]).toMatchObject({ outcome: 'deny', step: 4, rule: 'unattended.dangerous', risk: 'dangerous' });
  });
});

describe('what an attended session\'s model is offered', () => {
  it('its whole effective set: a person answers for the calls that need one', async () => {
    const cfg = config({ tools: { profile: 'full' } });
    const db = database().db;
    const runtime = daemonAgentRuntime({ db, config: cfg, tools: builtinTools(cfg, { db }), guard: createGuard(cfg, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' });
    const ctx = buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' });
    const names = (await runtime.offeredToRun(ctx)).map((t) => t.name);
    expect(names).toEqual(runtime.offered(ctx).map((t) => t.name));
    expect(names).toEqual(expect.arrayContaining(['cronjob', 'exec', 'write_file']));
  });
});
