import { hostname, userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createApprovalGate } from '../../src/approval/gate.ts';
import { systemGatePorts } from '../../src/util/system-ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { allowlistStore } from '../../src/store/allowlist.ts';
import { listAudit } from '../../src/store/audit.ts';
import { verifyAudit } from '../../src/store/audit-verify.ts';
import { auditDecisionSink } from '../../src/store/decision-sink.ts';
import { buildContext } from '../../src/tools/context.ts';
import { catalogLookup } from '../../src/tools/facts.ts';
import { RecordingApprover, ScriptedGuard, instantClock } from '../support/gate-harness.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

function gateWith(approver: RecordingApprover, ids: { job_id?: string; run_id?: string } = {}) {
  const config = defaultConfig();
  const guard = new ScriptedGuard();
  guard.commands = [{ program: 'git', subcommand: 'status' }];
  const { db } = database();
  return createApprovalGate(config, {
    ...systemGatePorts,
    guard, allowlist: allowlistStore(db), lookupTool: catalogLookup(config), smartReviewer: null, humanApprover: approver,
    clock: instantClock, sink: auditDecisionSink(db, ids),
  });
}

describe('the gate over the PostgreSQL store', () => {
  it('a human "always" becomes an allowlist record that step 9 matches on the next call', async () => {
    const approver = new RecordingApprover('always');
    const gate = gateWith(approver);
    const call = { tool: 'exec', args: { command: 'git status' } };
    const first = await gate.check(call, buildContext({ channel: 'telegram', user_id: 'alice' }));
    expect(first).toMatchObject({ outcome: 'allow', step: 11, rule: 'approval.human.always', approval_source: 'human' });
    const second = await gate.check(call, buildContext({ channel: 'telegram', user_id: 'alice' }));
    expect(second).toMatchObject({ outcome: 'allow', step: 9, rule: 'approval.allowlist', approval_source: 'auto', approver: 'alice' });
    expect(approver.asked).toHaveLength(1);
    const [rec] = await allowlistStore(database().db).list({ tool: 'exec' });
    expect(rec).toMatchObject({ scope: 'git status', created_by: 'alice', approval_id: first.approval_id });
  });

  it('every decision, allow or deny, is an audit record with step, rule, reason, risk and context ids (I8)', async () => {
    const gate = gateWith(new RecordingApprover('deny'), { job_id: 'job_abc', run_id: 'run_abc' });
    const ctx = buildContext({ unattended: true, session_key: 'cron:job_abc', user_id: 'owner-carl', credentials: { github: 'ghp_abcdefghijklmnopqrstuvwxyz0123' } });
    await gate.check({ tool: 'cronjob', args: { action: 'list' } }, ctx);
    await gate.check({ tool: 'read_file', args: { path: 'README.md', api_key: 'sk-abcdefghijklmnopqrstuvwx' } }, ctx);
    const rows = await listAudit(database().db, { run_id: 'run_abc', kind: 'gate.decision', order: 'asc' });
    expect(rows.map((r) => [r.outcome, r.step, r.rule, r.risk])).toEqual([
      ['deny', 4, 'unattended.dangerous', 'dangerous'],
      ['allow', 4, 'unattended.read_only', 'read_only'],
    ]);
    expect(rows[0]).toMatchObject({ job_id: 'job_abc', execution_id: ctx.execution_id, trace_id: ctx.trace_id, actor: 'daemon', data: { on_behalf_of: 'owner-carl' } });
    expect(rows[0]!.reason).toMatch(/Do not retry/);
    expect(rows[1]!.data).toMatchObject({ tool: 'read_file', unattended: true, cron_authorized: false, args: { path: 'README.md', api_key: '[REDACTED]' } });
    const raw = await database().pool.query('select t::text as t from audit_events t');
    expect(raw.rows.map((r) => r.t).join('\n')).not.toMatch(/ghp_abcdefghij|sk-abcdefghij/);
    expect((await verifyAudit(database().db)).ok).toBe(true);
  });

  it('records the OS account and host that decided, beside the user id the caller claimed', async () => {
    const gate = gateWith(new RecordingApprover('deny'), { run_id: 'run_claimed' });
    await gate.check({ tool: 'read_file', args: { path: 'README.md' } }, buildContext({ channel: 'slack', user_id: 'admin', session_key: 'slack:admin' }));
    const [row] = await listAudit(database().db, { run_id: 'run_claimed', kind: 'gate.decision' });
    expect(row).toMatchObject({ actor: 'admin' });
    expect(row!.data).toMatchObject({ channel: 'slack', decided_by: { os_account: userInfo().username, host: hostname() } });
  });

  it('files a decision under the job of its cron: session only for an unattended run: an attended session cannot name itself after a job', async () => {
    const gate = gateWith(new RecordingApprover('deny'));
    await gate.check({ tool: 'read_file', args: { path: 'README.md' } }, buildContext({ channel: 'cron', user_id: 'mallory', session_key: 'cron:job_forged', trace_id: 'trace_forged' }));
    await gate.check({ tool: 'read_file', args: { path: 'README.md' } }, buildContext({ unattended: true, channel: 'cron', user_id: 'carl', session_key: 'cron:job_real', trace_id: 'trace_real' }));
    expect(await listAudit(database().db, { job_id: 'job_forged' })).toEqual([]);
    expect((await listAudit(database().db, { job_id: 'job_real', kind: 'gate.decision' })).map((r) => r.trace_id)).toEqual(['trace_real']);
  });
});
