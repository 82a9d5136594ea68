import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { updateJobFromCall, manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { listAudit } from '../../src/store/audit.ts';
import { issueGrant, revokeGrant, authorizationFor } from '../../src/store/grants.ts';
import { createJob as storeJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const workspace = mkdtempSync(join(tmpdir(), 'echo-mission-'));
const config = defaultConfig({ tools: { workspace, restrict_to_workspace: true }, permissions: { approval: { trusted_channels: ['telegram'], max_denials_per_run: 5 } } });

/** The person at the other end of step 11; answers every request with `once`. */
class HumanAtTerminal implements HumanApprover {
  asked: ApprovalRequest[] = [];
  async ask(req: ApprovalRequest): Promise<ApprovalAnswer> {
    this.asked.push(req);
    return { answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash };
  }
}

const steps = [
  { tool: 'write_file', args: { path: 'report.txt', content: 'nightly report' } },
  { tool: 'read_file', args: { path: 'report.txt' } },
];
const createArgs = (name: string, extra: { tool: string; args: Record<string, unknown> }[] = []) => ({
  action: 'create', name, schedule: '0 3 * * *', timezone: 'Europe/Berlin', payload: { kind: 'steps', steps: [...steps, ...extra] },
});

function deps(approver: HumanApprover | null) {
  const db = database().db;
  return { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), approver };
}

async function createJob(name: string, approver: HumanApprover | null, channel = 'cli', extra: { tool: string; args: Record<string, unknown> }[] = []) {
  const ctx = buildContext({ channel, user_id: 'alice', session_key: 'cli:alice' });
  const out = await attendedCall(deps(approver), { tool: 'cronjob', args: createArgs(name, extra) }, ctx);
  expect(out.result.success, out.result.error).toBe(true);
  return (out.result.output as { job: { id: string }; cron_authorized: boolean });
}

async function runNow(jobId: string) {
  const db = database().db;
  const run = await manualRun({ db }, jobId, 'test');
  const tools = builtinTools(config, { db });
  await executeRun({ db, config, tools, guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1' }, run!.id);
  return (await getRun(db, run!.id))!;
}

describe('the mission: human-approved jobs run unattended with cron_authorized', () => {
  it('a job created with a human approval runs with cron_authorized and its write steps succeed', async () => {
    const human = new HumanAtTerminal();
    const created = await createJob('nightly', human);
    expect(human.asked).toHaveLength(1);
    expect(created.cron_authorized).toBe(true);
    // an attended decision is the person's
    const [asked] = (await listAudit(database().db, { kind: 'gate.decision' })).filter((d) => (d.data as { tool: string }).tool === 'cronjob' && d.job_id === null);
    expect(asked).toMatchObject({ actor: 'alice', data: { unattended: false } });
    expect(asked!.data).not.toHaveProperty('on_behalf_of');
    const run = await runNow(created.job.id);
    expect(run).toMatchObject({ state: 'succeeded', cron_authorized: true, denials: 0 });
    expect(readFileSync(join(workspace, 'report.txt'), 'utf8')).toBe('nightly report');
  });

  it('a job created without a human approval runs without cron_authorized, so its writes are refused', async () => {
    // called straight through the tool executor with an auto approval (what a policy pass would give)
    const db = database().db;
    const tool = builtinTools(config, { db }).get('cronjob')!;
    const ctx = buildContext({ channel: 'telegram', user_id: 'bob', approval_source: 'auto' });
    const out = await tool.execute(createArgs('auto-approved'), ctx, { signal: new AbortController().signal, approval: { approval_source: 'auto' } });
    const jobId = (out.output as { job: { id: string } }).job.id;
    expect((out.output as { cron_authorized: boolean }).cron_authorized).toBe(false);
    const run = await runNow(jobId);
    expect(run.cron_authorized).toBe(false);
    expect(run.state).toBe('denied');
    const refusals = await listAudit(db, { run_id: run.id, kind: 'gate.decision' });
    expect(refusals.find((r) => r.outcome === 'deny')).toMatchObject({ step: 4, rule: 'unattended.policy_deny' });
  });

  it('refuses cronjob, skill_install and exec inside a run, each audited with step and rule (I1, I4)', async () => {
    // such steps are refused when the job is defined (below); these jobs were stored without that check
    // (before it existed, or by hand), with a human grant for exactly their definition. A steps run stops at its
    // first refused step, so each escalation is tried in a run of its own, after the steps that are allowed
    const db = database().db;
    const escalations = [
      { step: { tool: 'cronjob', args: { action: 'create', name: 'child', schedule: '* * * * *', payload: { kind: 'steps', steps } } }, gate: 4, rule: 'unattended.dangerous' },
      { step: { tool: 'skill_install', args: { source: './evil-skill' } }, gate: 0, rule: 'security.daemon.capability' },
      { step: { tool: 'exec', args: { command: 'id' } }, gate: 0, rule: 'security.daemon.capability' },
    ];
    for (const { step, gate, rule } of escalations) {
      const job = await storeJob(db, {
        name: `escalation-${step.tool}`, owner: 'alice', created_by: 'alice', schedule: '0 3 * * *', timezone: 'Europe/Berlin', paused: false, tools: [],
        payload: { kind: 'steps', steps: [...steps, step] },
      });
      await issueGrant(db, { job_id: job.id, approval_id: 'apr_stored_by_hand', approver: 'alice', channel: 'cli', tool_scope: ['write_file', 'read_file', 'cronjob', 'skill_install', 'exec'] });
      const run = await runNow(job.id);
      expect(run.cron_authorized).toBe(true);
      expect(run).toMatchObject({ state: 'denied', denials: 1 });
      const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision', order: 'asc' });
      const byTool = Object.fromEntries(decisions.map((d) => [(d.data as { tool: string }).tool, d]));
      expect(byTool[step.tool], step.tool).toMatchObject({ outcome: 'deny', step: gate, rule });
      expect(run.error).toContain(`step 3 (${step.tool}) refused at gate step ${gate}: ${rule}`);
      expect(byTool.write_file).toMatchObject({ outcome: 'allow', step: 4, rule: 'unattended.cron_authorized' });
      // the daemon decided, for the job's owner, who did nothing at the time
      for (const d of decisions) expect(d).toMatchObject({ actor: 'daemon', data: { on_behalf_of: 'alice', unattended: true } });
      if (step.tool === 'cronjob') {
        // the decision record keeps the gate's words; the run's output is read by people (no model in a steps job): no advice never to retry
        expect(byTool.cronjob!.reason).toMatch(/Do not retry/);
        const shown = (run.output as { steps: { tool: string; decision: { reason: string } }[] }).steps.find((s) => s.tool === 'cronjob');
        expect(shown?.decision.reason).toMatch(/dangerous/i);
        expect(shown?.decision.reason).not.toMatch(/retry/i);
      }
    }
    expect(existsSync(join(workspace, 'evil-skill'))).toBe(false);
  });

  it('refuses to define a step that no run can make, or one with invalid arguments, before anyone is asked', async () => {
    const cases: [{ tool: string; args: Record<string, unknown> }, RegExp][] = [
      [{ tool: 'cronjob', args: { action: 'list' } }, /payload\.steps\[2\] \(cronjob\): no daemon run can make this call \(unattended\.dangerous/],
      [{ tool: 'exec', args: { command: 'id' } }, /payload\.steps\[2\] \(exec\): no daemon run can make this call \(security\.daemon\.capability/],
      // DANGEROUS by its arguments: a sub-agent handed cronjob (I7)
      [{ tool: 'delegate_task', args: { prompt: 'p', tools: ['cronjob'] } }, /payload\.steps\[2\] \(delegate_task\): no daemon run can make this call \(unattended\.dangerous/],
      [{ tool: 'list_dir', args: { pathh: '.' } }, /payload\.steps\[2\] \(list_dir\): invalid arguments: .*pathh: is not a known parameter/],
    ];
    for (const [step, message] of cases) {
      const human = new HumanAtTerminal();
      const out = await attendedCall(deps(human), { tool: 'cronjob', args: createArgs(`never-${step.tool}`, [step]) }, buildContext({ channel: 'cli', user_id: 'alice', session_key: 'cli:alice' }));
      expect(out.result.success).toBe(false);
      expect(out.result.error).toMatch(message);
      expect(human.asked).toHaveLength(0);
    }
  });

  it('a definition change without a human clears the grant (I2)', async () => {
    const created = await createJob('changes', new HumanAtTerminal());
    const db = database().db;
    expect((await authorizationFor(db, created.job.id))?.cron_authorized).toBe(true);
    const ctx = buildContext({ channel: 'telegram', user_id: 'mallory', approval_source: 'auto' });
    await updateJobFromCall({ db, checks: { knownTool: (n) => CATALOG_BY_NAME.has(n), notifyTargets: [] }, grantScope: () => [] }, created.job.id, { payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: 'x.txt', content: 'pwned' } }] } }, ctx, { approval_source: 'auto' });
    expect(await authorizationFor(db, created.job.id)).toMatchObject({ cron_authorized: false, rule: 'grant.none' });
    expect((await runNow(created.job.id)).cron_authorized).toBe(false);
    expect((await listAudit(db, { job_id: created.job.id, kind: 'grant.cleared' })).length).toBe(1);
  });

  it('a human-approved definition change issues a new grant for the new definition', async () => {
    const human = new HumanAtTerminal();
    const created = await createJob('reapproved', human);
    const out = await attendedCall(deps(human), { tool: 'cronjob', args: { action: 'update', id: created.job.id, schedule: '30 4 * * *' } }, buildContext({ channel: 'cli', user_id: 'alice' }));
    expect(out.decision).toMatchObject({ step: 11, approval_source: 'human' });
    expect(await authorizationFor(database().db, created.job.id)).toMatchObject({ cron_authorized: true, rule: 'grant.valid' });
  });

  it('a revoked grant stops authorising the next run', async () => {
    const created = await createJob('revoked', new HumanAtTerminal());
    const db = database().db;
    await revokeGrant(db, { job_id: created.job.id, by: 'admin', why: 'incident 42' });
    const run = await runNow(created.job.id);
    expect(run.cron_authorized).toBe(false);
    expect((await listAudit(db, { job_id: created.job.id, kind: 'grant.revoked' }))[0]).toMatchObject({ actor: 'admin' });
  });

  it('a cronjob call from a trusted channel still needs a human; without one it is refused and no job exists', async () => {
    const ctx = buildContext({ channel: 'telegram', user_id: 'bob' });
    const out = await attendedCall(deps(null), { tool: 'cronjob', args: createArgs('trusted') }, ctx);
    expect(out.decision).toMatchObject({ outcome: 'deny', step: 11 });
    expect(out.result.success).toBe(false);
  });
});
