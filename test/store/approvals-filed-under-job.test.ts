import { describe, expect, it } from 'vitest';
import { deny } from '../../src/approval/decision.ts';
import { answerApproval, createApproval } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { auditDecisionSink } from '../../src/store/decision-sink.ts';
import { createJob } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase();

describe('a change asked for a job is filed under that job (audit list --job)', () => {
  it('the request, the answer and the gate decision of a cronjob update name the job it changes', async () => {
    const { db } = database();
    const job = await createJob(db, aJob({ name: 'filed' }));
    const call = { tool: 'cronjob', args: { action: 'update', id: job.id, schedule: '0 4 * * *' } };
    const row = await createApproval(db, { call_hash: 'h-filed', tool: call.tool, args: call.args, risk: 'dangerous', channel: 'cli', user_id: 'root', expires_at: new Date(Date.now() + 60_000) });
    await answerApproval(db, { id: row.id, call_hash: 'h-filed', answer: 'deny', answered_by: 'bob' });
    const ctx = buildContext({ channel: 'cli', user_id: 'root' });
    await auditDecisionSink(db).record(deny({ call_hash: 'h-filed', risk: 'dangerous', tool: 'cronjob', flagged: [] }, 11, 'approval.human.deny', undefined, { approver: 'bob' }), call, ctx);
    const kinds = (await listAudit(db, { job_id: job.id, order: 'asc' })).map((r) => `${r.kind}:${r.actor}`);
    expect(kinds).toEqual(['job.created:alice', 'approval.requested:root', 'approval.answered:bob', 'gate.decision:root']);
  });

  it('a call that names no job (a create, another tool) is filed under none', async () => {
    const { db } = database();
    const before = (await listAudit(db, { kind: 'approval.requested', limit: 1000 })).length;
    await createApproval(db, { call_hash: 'h-new', tool: 'cronjob', args: { action: 'create', name: 'x', schedule: '0 4 * * *' }, risk: 'dangerous', channel: 'cli', user_id: 'root', expires_at: new Date(Date.now() + 60_000) });
    await createApproval(db, { call_hash: 'h-w', tool: 'write_file', args: { id: 'job_lookalike', path: 'x' }, risk: 'write', channel: 'cli', user_id: 'root', expires_at: new Date(Date.now() + 60_000) });
    const records = await listAudit(db, { kind: 'approval.requested', limit: 1000 });
    expect(records.length - before).toBe(2);
    expect(records.slice(0, 2).map((r) => r.job_id)).toEqual([null, null]);
  });
});
