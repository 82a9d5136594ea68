import type { Decision } from '../approval/decision.ts';
import type { DecisionSink, ToolCall } from '../approval/gate.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import { jobNamedByCall } from './audit.ts';
import { directAppend, type AuditAppend } from './audit-writer.ts';
import type { Executor } from './db.ts';
import { processIdentity } from '../util/process-identity.ts';
import { redactWith } from '../util/redact.ts';

/**
 * I8: every gate decision becomes a `gate.decision` audit record with its step,
 * rule, reason, risk and context ids. Arguments, findings and the reason are redacted on the way
 * in (I11): the patterns, and this context's own credentials literally, whatever their shape.
 */
export function auditDecisionSink(exec: Executor, ids: { job_id?: string; run_id?: string } = {}, append: AuditAppend = directAppend(exec)): DecisionSink {
  // the account and host that decided: actor and channel are what the caller says (`--as`, `run --channel`)
  const decidedBy = processIdentity();
  return {
    async record(d: Decision, call: ToolCall, ctx: ToolExecutionContext) {
      // a hard block's reason quotes the matched text, which may hold what the call was given;
      // the append redacts the patterns anyway, so a context without credentials costs no second pass
      const raw = { args: call.args, flagged: d.flagged, reason: d.reason };
      const secrets = Object.values(ctx.credentials);
      const said = secrets.length > 0 ? redactWith(raw, secrets) : raw;
      await append({
        kind: 'gate.decision',
        // an unattended decision is the daemon's: the job's owner did nothing then, and is named as whom it ran for
        actor: ctx.unattended ? 'daemon' : ctx.user_id || null,
        // only a daemon run speaks for a job: an attended session named cron:<id> does not file its decisions under it;
        // a call about a job (a cronjob update of it) does
        job_id: ids.job_id ?? (ctx.unattended ? jobOfSession(ctx.session_key) : jobNamedByCall(call.tool, call.args)),
        run_id: ids.run_id ?? null,
        execution_id: ctx.execution_id,
        trace_id: ctx.trace_id,
        step: d.step,
        rule: d.rule,
        outcome: d.outcome,
        risk: d.risk,
        reason: said.reason,
        data: {
          tool: call.tool, args: said.args, call_hash: d.call_hash, flagged: said.flagged,
          approval_source: d.approval_source ?? null, approval_id: d.approval_id ?? null, approver: d.approver ?? null, ...(d.grant_id ? { grant_id: d.grant_id } : {}),
          channel: ctx.channel, unattended: ctx.unattended, ...(ctx.unattended ? { on_behalf_of: ctx.user_id || null } : {}), cron_authorized: ctx.cron_authorized,
          parent_execution_id: ctx.parent_execution_id, session_key: ctx.session_key, attempt_index: ctx.attempt_index,
          decided_by: decidedBy,
        },
      });
    },
  };
}

/** Daemon runs use session_key `cron:<job id>`. */
function jobOfSession(sessionKey: string): string | null {
  return sessionKey.startsWith('cron:') ? sessionKey.slice(5) || null : null;
}
