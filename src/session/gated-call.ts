import { ARGS_INVALID, type ApprovalGate, type ToolCall } from '../approval/gate.ts';
import type { Decision } from '../approval/decision.ts';
import { contextForCall, type ToolExecutionContext } from '../tools/context.ts';
import type { EffectLedger } from '../tools/effects.ts';
import { executeTool } from '../tools/executor.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { fail, type ToolResult } from '../tools/types.ts';
import { validateParams } from '../tools/validate.ts';

/** Refusals that mean "this tool does not exist here" rather than "this call is not allowed". */
const UNAVAILABLE_RULES = new Set(['tools.reserved', 'tools.not_ready']);

export interface GatedOutcome {
  /** Step 0's `args.invalid` when the arguments of an available tool were invalid: nothing reached the rest of the gate. */
  readonly decision: Decision;
  readonly result: ToolResult;
}

export interface GatedCallOptions {
  readonly signal?: AbortSignal;
  readonly ledger?: EffectLedger;
  /**
   * False for a call of a tool the model was not offered: it goes straight to the gate, which refuses it
   * whatever its arguments, so the refusal is audited and counted rather than answered by the tool's schema (I10).
   */
  readonly offered?: boolean;
}

/**
 * One tool call, whoever makes it (a step list, the agent loop, a terminal
 * session): validate, the gate, then the executor with the gate's approval.
 */
export async function gatedCall(
  gate: ApprovalGate, tools: ToolRegistry, call: ToolCall & { args: Record<string, unknown> }, ctx: ToolExecutionContext, callIndex: number,
  opts: GatedCallOptions = {},
): Promise<GatedOutcome> {
  const tool = tools.get(call.tool);
  const callCtx = contextForCall(ctx, { tool: call.tool, callIndex, params: call.args });
  // a tool's own checks (they may read the store) only where a person could be asked: elsewhere the gate refuses first, and audits it
  const mayAskSomeone = !callCtx.unattended && callCtx.parent_execution_id === null;
  const invalid = tool && opts.offered !== false ? validateParams(tool.parameters, call.args) ?? (mayAskSomeone ? await tool.precheck?.(call.args) : null) ?? null : null;
  if (invalid) {
    // a tool that is not offered here is refused as such, not described by its schema (I10)
    const refused = await gate.refuseBeforeSteps(call, callCtx, { rule: ARGS_INVALID, reason: `invalid arguments for ${call.tool}: ${invalid}` });
    return { decision: refused, result: refused.rule === ARGS_INVALID ? fail('validation', refused.reason) : refusal(refused) };
  }
  const decision = await gate.check(call, callCtx, opts.signal ? { signal: opts.signal } : {});
  if (decision.outcome !== 'allow' || !tool) return { decision, result: refusal(decision) };
  const approval = {
    approval_source: decision.approval_source ?? 'auto',
    ...(decision.approval_id ? { approval_id: decision.approval_id } : {}),
    ...(decision.approver ? { approver: decision.approver } : {}),
    ...(decision.approval_source === 'human' ? { approved_targets: approvedTargets(decision) } : {}),
  } as const;
  const result = await executeTool(tool, call.args, contextForCall(ctx, { tool: call.tool, callIndex, params: call.args }, { approval_source: approval.approval_source }), {
    approval, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.ledger ? { ledger: opts.ledger } : {}),
  });
  return { decision, result };
}

function refusal(decision: Decision): ToolResult {
  return fail(UNAVAILABLE_RULES.has(decision.rule) ? 'unavailable' : 'denied', decision.reason);
}

/** What the person was shown as non-public targets: their approval reaches those and no others. */
function approvedTargets(decision: Decision): string[] {
  return [...new Set(decision.flagged.flatMap((f) => (f.target !== undefined ? [f.target] : [])))];
}
