import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApprovalAnswer, ApprovalRequest, HumanApprover } from '../../src/approval/ports.ts';
import { authorities } from '../../src/cli/authority.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { daemonAgentRuntime, executeRun } from '../../src/daemon/run-executor.ts';
import { createGuard } from '../../src/guard/index.ts';
import { systemGuardDeps } from '../../src/util/system-ports.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { attendedCall } from '../../src/session/attended-call.ts';
import { listAudit } from '../../src/store/audit.ts';
import { groupCommitAppend } from '../../src/store/audit-writer.ts';
import { liveGrant } from '../../src/store/grants.ts';
import { pauseJob } from '../../src/store/jobs.ts';
import type { AuditRow } from '../../src/store/schema.ts';
import { buildContext, type ToolExecutionContext } from '../../src/tools/context.ts';
import { instantsDueAtPause } from '../../src/jobs/next-fire.ts';
import { useTestDatabase } from '../support/db.ts';

// From an audit line to the call behind it: a job change made through a tool call carries that call's
// execution and trace ids, so `audit list` leads from job.created or grant.issued to the gate decision
// (and the person's answer) that let it through; a daemon run's decision names the grant it relied on.
const database = useTestDatabase();
const config = defaultConfig({ tools: { workspace: mkdtempSync(join(tmpdir(), 'echo-call-trail-')) } });
const yes: HumanApprover = {
  ask: async (req: ApprovalRequest): Promise<ApprovalAnswer> => ({ answer: 'once', approver: 'alice', request_id: req.request_id, call_hash: req.call_hash }),
};
const deps = () => {
  const db = database().db;
  return { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), approver: yes };
};
const attended = () => buildContext({ channel: 'cli', user_id: 'alice' });
const create = (name: string) => ({
  action: 'create', name, schedule: '0 4 * * *',
  payload: { kind: 'steps', steps: [{ tool: 'write_file', args: { path: `${name}.txt`, content: 'x' } }, { tool: 'read_file', args: { path: `${name}.txt` } }] },
});

async function cronjobCall(args: Record<string, unknown>, ctx: ToolExecutionContext) {
  const out = await attendedCall(deps(), { tool: 'cronjob', args }, ctx);
  expect(out.decision.outcome, out.decision.reason).toBe('allow');
  expect(out.result?.success, JSON.stringify(out.result)).toBe(true);
  return out.result!.output as Record<string, unknown>;
}

async function recordsOf(jobId: string): Promise<AuditRow[]> {
  return listAudit(database().db, { job_id: jobId, order: 'asc', limit: 100 });
}

describe('a job change made through a tool call names the call', () => {
  it('a human-approved create: job.created and grant.issued carry the ids of the gate decision that asked alice', async () => {
    const ctx = attended();
    const out = await cronjobCall(create('trail-create'), ctx);
    const jobId = (out.job as { id: string }).id;
    const [decision] = (await listAudit(database().db, { kind: 'gate.decision', limit: 100 }))
      .filter((r) => r.execution_id === ctx.execution_id && r.data.tool === 'cronjob');
    expect(decision).toMatchObject({ step: 11, outcome: 'allow', trace_id: ctx.trace_id });
    const records = await recordsOf(jobId);
    for (const kind of ['job.created', 'grant.issued']) {
      expect(records.find((r) => r.kind === kind), kind).toMatchObject({ execution_id: ctx.execution_id, trace_id: ctx.trace_id });
    }
  });

  it('an update without a person, then pause, resume, run and remove through cronjob: each record names its own call', async () => {
    const jobId = ((await cronjobCall(create('trail-change'), attended())).job as { id: string }).id;
    // an auto-approved update in an attended context: no human answer, so the grant is cleared (I2)
    const tools = builtinTools(config, { db: database().db });
    const { executeTool } = await import('../../src/tools/executor.ts');
    const calls: [string, Record<string, unknown>, string[]][] = [
      ['update', { id: jobId, schedule: '30 5 * * *' }, ['job.updated', 'grant.cleared', 'grant.not_issued']],
      ['pause', { id: jobId, note: 'holiday' }, ['job.paused']],
      ['resume', { id: jobId }, ['job.resumed']],
      ['run', { id: jobId }, ['run.queued']],
      ['remove', { id: jobId, note: 'done' }, ['job.removed']],
    ];
    for (const [action, args, kinds] of calls) {
      const ctx = buildContext({ channel: 'cli', user_id: 'bob', approval_source: 'auto' });
      const out = await executeTool(tools.get('cronjob')!, { action, ...args }, ctx, { approval: { approval_source: 'auto' } });
      expect(out.success, `${action}: ${JSON.stringify(out)}`).toBe(true);
      const mine = (await recordsOf(jobId)).filter((r) => r.execution_id === ctx.execution_id);
      expect(mine.map((r) => r.kind).sort(), action).toEqual([...kinds].sort());
      for (const r of mine) expect(r.trace_id, `${action} ${r.kind}`).toBe(ctx.trace_id);
    }
  });

  it('a change from the command line names no call: its origin is the account behind --as', async () => {
    const jobId = ((await cronjobCall(create('trail-cli'), attended())).job as { id: string }).id;
    await pauseJob(database().db, jobId, { actor: 'frank', note: 'from a shell' }, instantsDueAtPause);
    const paused = (await recordsOf(jobId)).find((r) => r.kind === 'job.paused');
    expect(paused).toMatchObject({ actor: 'frank', execution_id: null, trace_id: null });
  });
});

describe('a daemon run\'s decisions name the grant they relied on', () => {
  it('the write allowed under alice\'s grant names it; the read, which needs no grant, names none', async () => {
    const { db } = deps();
    const jobId = ((await cronjobCall(create('trail-run'), attended())).job as { id: string }).id;
    const grant = (await liveGrant(db, jobId))!;
    const run = (await manualRun({ db }, jobId, 'scheduler'))!;
    const base = { db, config, tools: builtinTools(config, { db }), guard: createGuard(config, systemGuardDeps({ dns: false })), logger: silentLogger, workerId: 'test:1', audit: groupCommitAppend(db) };
    const result = await executeRun({ ...base, agent: daemonAgentRuntime(base) }, run.id);
    expect(result).toMatchObject({ state: 'succeeded' });
    const decisions = await listAudit(db, { run_id: run.id, kind: 'gate.decision', order: 'asc' });
    expect(decisions.map((d) => [d.data.tool, d.rule, d.data.grant_id ?? null])).toEqual([
      ['write_file', 'unattended.cron_authorized', grant.id],
      ['read_file', 'unattended.read_only', null],
    ]);
  });

  it('the AUTHORITY of a decision that names its grant needs neither its run nor its run.started record (both may be archived)', async () => {
    const { db } = deps();
    const jobId = ((await cronjobCall(create('trail-archived'), attended())).job as { id: string }).id;
    const grant = (await liveGrant(db, jobId))!;
    const row = {
      seq: 999_999, at: new Date(), kind: 'gate.decision', actor: 'daemon', job_id: jobId, run_id: 'run_archived_long_ago', execution_id: 'e', trace_id: 't',
      step: 4, rule: 'unattended.cron_authorized', outcome: 'allow', risk: 'write', reason: 'r', data: { tool: 'write_file', grant_id: grant.id }, prev_hash: 'p', hash: 'h',
    } as AuditRow;
    const authority = (await authorities(db, [row])).get(row.seq);
    expect(authority).toMatchObject({ kind: 'grant', ref: grant.id, by: 'alice' });
  });
});
