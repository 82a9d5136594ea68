import type { Logger } from 'pino';
import { createApprovalGate } from '../approval/gate.ts';
import type { Decision } from '../approval/decision.ts';
import type { HumanApprover } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import { allowlistStore } from '../store/allowlist.ts';
import type { Executor } from '../store/db.ts';
import { auditDecisionSink } from '../store/decision-sink.ts';
import { contextForCall, type ToolExecutionContext } from '../tools/context.ts';
import { executeTool } from '../tools/executor.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { fail, type ToolResult } from '../tools/types.ts';
import { validateParams } from '../tools/validate.ts';

export interface AttendedDeps {
  readonly db: Executor;
  readonly config: Config;
  readonly tools: ToolRegistry;
  readonly guard: Guard;
  readonly approver: HumanApprover | null;
  readonly logger?: Logger;
}

export interface AttendedOutcome {
  readonly decision: Decision | null;
  readonly result: ToolResult;
}

/**
 * One tool call in an attended context: validate, the gate (its human step may
 * ask), then the tool with the approval the gate gave. The same gate as the daemon's.
 */
export async function attendedCall(deps: AttendedDeps, call: { tool: string; args: Record<string, unknown> }, ctx: ToolExecutionContext, callIndex = 0): Promise<AttendedOutcome> {
  const tool = deps.tools.get(call.tool);
  const invalid = tool ? validateParams(tool.parameters, call.args) : null;
  if (invalid) return { decision: null, result: fail('validation', `invalid arguments for ${call.tool}: ${invalid}`) };
  const callCtx = contextForCall(ctx, { tool: call.tool, callIndex, params: call.args });
  const gate = createApprovalGate(deps.config, {
    guard: deps.guard, allowlist: allowlistStore(deps.db), lookupTool: (n) => deps.tools.facts(n),
    sink: auditDecisionSink(deps.db), humanApprover: deps.approver, smartReviewer: null,
  });
  const decision = await gate.check(call, callCtx);
  if (decision.outcome !== 'allow' || !tool) return { decision, result: fail('denied', decision.reason) };
  const approval = {
    approval_source: decision.approval_source ?? 'auto',
    ...(decision.approval_id ? { approval_id: decision.approval_id } : {}),
    ...(decision.approver ? { approver: decision.approver } : {}),
  } as const;
  const result = await executeTool(tool, call.args, contextForCall(ctx, { tool: call.tool, callIndex, params: call.args }, { approval_source: approval.approval_source }), { approval });
  return { decision, result };
}
