import type { ApprovalAnswer, ApprovalRequest, Clock, HumanApprover } from '../approval/ports.ts';
import { newAnswerCode, proofHolds, type AnswerCode } from './answer-code.ts';
import { createApproval, waitForAnswer, type AskingProcess, type NewApproval } from './approvals.ts';
import type { Executor } from './db.ts';
import type { ApprovalRow } from './schema.ts';
import { pidSpace, processIdentity, thisProcess } from '../util/process-identity.ts';
import { redactWith } from '../util/redact.ts';

export interface StoreApproverOptions {
  readonly pollMs?: number;
  readonly clock?: Clock;
  /** Tells the person where to answer, and the code the answer needs (typed at the approvals prompt, never on a command line). */
  readonly onPending?: (row: ApprovalRow, code: string) => void;
  /** For a cronjob create/update: the tools the grant would cover, stored with the request (see NewApproval.tool_scope). */
  readonly toolScope?: (req: ApprovalRequest) => Promise<readonly string[] | null>;
}

/** This process, which asks and waits: an answer from below it is refused (answerApproval). */
function askingProcess(): AskingProcess | null {
  const self = thisProcess();
  return self && { ...processIdentity(), ...self, ...(pidSpace() ?? {}) };
}

/**
 * The stored form of a gate's request, with what the person is shown about a job's tools. The call and
 * its findings lose this context's credentials here (I11): the store only knows the pattern redaction.
 */
export function approvalRecordOf(req: ApprovalRequest, toolScope: readonly string[] | null, code: AnswerCode): NewApproval {
  const said = redactWith({ args: { ...req.args }, flags: req.flags }, Object.values(req.ctx.credentials ?? {}));
  return {
    id: req.request_id, call_hash: req.call_hash, tool: req.tool, args: said.args, risk: req.risk,
    flags: said.flags, scopes: req.scopes, allow_always: req.allow_always, channel: req.ctx.channel,
    user_id: req.ctx.user_id, execution_id: req.ctx.execution_id, trace_id: req.ctx.trace_id, expires_at: req.expires_at, tool_scope: toolScope,
    asked_from: askingProcess(), code_hash: code.hash,
  };
}

/**
 * Step 11 for channels without a terminal: the request is persisted, then answered
 * through `echo-agent approvals approve|deny` (answerApproval) before it expires.
 */
export function storeApprover(exec: Executor, opts: StoreApproverOptions = {}): HumanApprover {
  return {
    async ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
      const code = newAnswerCode();
      const row = await createApproval(exec, approvalRecordOf(req, (await opts.toolScope?.(req)) ?? null, code));
      opts.onPending?.(row, code.text);
      const done = await waitForAnswer(exec, { id: row.id, deadline: req.expires_at, signal, pollMs: opts.pollMs, clock: opts.clock });
      return (done && recordedAnswer(done, code.text)) ?? { answer: 'timeout' };
    },
  };
}

/**
 * The answer a stored request holds, bound to its id and call hash; null while nobody has answered it. With the
 * request's code (the asking session's), an answer counts only if it was given with that code: a row written
 * with plain SQL, by a process that read the database password, is `unverified`.
 */
export function recordedAnswer(row: ApprovalRow, code: string | null): ApprovalAnswer | null {
  if ((row.state !== 'approved' && row.state !== 'denied') || !row.answer || !row.answered_by) return null;
  const given = { id: row.id, call_hash: row.call_hash, answer: row.answer, answered_by: row.answered_by };
  if (code !== null && !proofHolds(code, given, row.answer_proof)) return { answer: 'unverified' };
  return { answer: row.answer, approver: row.answered_by, request_id: row.id, call_hash: row.call_hash };
}
