import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/approval/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { builtinTools } from '../../src/daemon/daemon-tools.ts';
import { newAnswerCode } from '../../src/store/answer-code.ts';
import { answerApproval, createApproval } from '../../src/store/approvals.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { buildContext } from '../../src/tools/context.ts';
import { processIdentity, processStart } from '../../src/util/process-identity.ts';
import { recordingTerminal } from '../support/approval-screens.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

// "Who tried to approve this, and from where?": every answer record, refused or taken, says so under the job it is about.
const database = useTestDatabase();
const account = { os_account: 'bob', host: 'box' };

/** A pending `cronjob update` of `jobId`, asked by a process that is not this one (a sleeping child stands for it). */
async function updateRequest(jobId: string, code = newAnswerCode()) {
  const other = spawn('sleep', ['30']);
  const started = processStart(other.pid!);
  const row = await createApproval(database().db, {
    call_hash: `h-${jobId}-${code.text}`, tool: 'cronjob', args: { action: 'update', id: jobId, timeout_seconds: 60 }, risk: 'dangerous', channel: 'cli',
    user_id: 'root', expires_at: new Date(Date.now() + 300_000), code_hash: code.hash, asked_from: { ...processIdentity(), pid: other.pid!, started: started! },
  });
  return { row, code, done: () => other.kill() };
}

describe('approval.answer_refused', () => {
  it('a wrong or missing code for a job\'s request is filed under that job, with the tool and risk', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'morning-digest' }));
    const { row, code, done } = await updateRequest(job.id);
    try {
      const wrong = newAnswerCode().text;
      expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'mallory', origin: account, code: wrong })).toMatchObject({ ok: false, refusal: 'code_wrong' });
      expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'mallory', origin: account })).toMatchObject({ ok: false, refusal: 'code_missing' });
      expect(await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'once', answered_by: 'alice', origin: account, code: code.text })).toMatchObject({ ok: true });
      const trail = (await listAudit(db, { job_id: job.id, order: 'asc' })).filter((r) => r.kind.startsWith('approval.'));
      expect(trail.map((r) => `${r.kind}:${r.outcome ?? ''}`)).toEqual([
        'approval.requested:', 'approval.answer_refused:code_wrong', 'approval.answer_refused:code_missing', 'approval.answered:once',
      ]);
      for (const refused of trail.filter((r) => r.kind === 'approval.answer_refused')) {
        expect(refused).toMatchObject({ job_id: job.id, risk: 'dangerous', actor: 'mallory', data: { approval_id: row.id, tool: 'cronjob' } });
      }
    } finally {
      done();
    }
  });

  it('an answer to no request names no job', async () => {
    const db = database().db;
    expect(await answerApproval(db, { id: 'apr_none', call_hash: 'h', answer: 'once', answered_by: 'eve', origin: account })).toMatchObject({ ok: false, refusal: 'not_found' });
    const [refused] = await listAudit(db, { kind: 'approval.answer_refused', limit: 1 });
    expect(refused).toMatchObject({ job_id: null, outcome: 'not_found', data: { approval_id: 'apr_none' } });
  });
});

describe('where an answer came from', () => {
  it('the account is data.from, the key every other command record uses; data.origin is not written', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'from-key' }));
    const { row, code, done } = await updateRequest(job.id);
    try {
      await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'deny', answered_by: 'erin', origin: account, code: newAnswerCode().text });
      await answerApproval(db, { id: row.id, call_hash: row.call_hash, answer: 'deny', answered_by: 'erin', origin: account, code: code.text });
      const records = (await listAudit(db, { job_id: job.id })).filter((r) => r.kind === 'approval.answered' || r.kind === 'approval.answer_refused');
      expect(records).toHaveLength(2);
      for (const r of records) {
        expect(r.data.from).toEqual(account);
        expect(r.data).not.toHaveProperty('origin');
      }
    } finally {
      done();
    }
  });

  it('an answer through the approvals command says so; one from another process says that, not the asking prompt', async () => {
    const db = database().db;
    const job = await createJob(db, aJob({ name: 'via-other' }));
    const viaCommand = await updateRequest(job.id);
    const viaOther = await updateRequest(job.id);
    try {
      await answerApproval(db, { id: viaCommand.row.id, call_hash: viaCommand.row.call_hash, answer: 'once', answered_by: 'alice', origin: account, code: viaCommand.code.text, via: 'approvals_command' });
      await answerApproval(db, { id: viaOther.row.id, call_hash: viaOther.row.call_hash, answer: 'once', answered_by: 'alice', origin: account, code: viaOther.code.text });
      const answered = await listAudit(db, { job_id: job.id, kind: 'approval.answered' });
      const byRequest = Object.fromEntries(answered.map((r) => [r.data.approval_id as string, r.data.answered_via]));
      expect(byRequest).toEqual({ [viaCommand.row.id]: 'approvals_command', [viaOther.row.id]: 'other_process' });
    } finally {
      viaCommand.done();
      viaOther.done();
    }
  });

  it('an answer typed at the prompt of the session that asked says it came from there', async () => {
    const db = database().db;
    const config = defaultConfig();
    const terminal = recordingTerminal(db, config, builtinTools(config, { db }), () => 'y');
    const req: ApprovalRequest = {
      request_id: 'apr_at_prompt', call_hash: 'h-at-prompt', tool: 'exec', args: { command: 'make deploy' }, risk: 'exec', flags: [], scopes: ['make deploy'],
      allow_always: true, ctx: buildContext({ channel: 'cli', user_id: 'alice' }), expires_at: new Date(Date.now() + 300_000),
    };
    expect(await terminal.approver.ask(req, new AbortController().signal)).toMatchObject({ answer: 'once', request_id: 'apr_at_prompt' });
    const [answered] = (await listAudit(db, { kind: 'approval.answered', limit: 50 })).filter((r) => r.data.approval_id === 'apr_at_prompt');
    expect(answered?.data).toMatchObject({ answered_via: 'asking_session', channel: 'cli', from: processIdentity() });
  });
});
