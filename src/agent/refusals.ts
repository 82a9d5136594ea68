import type { Decision } from '../approval/decision.ts';
import { callHash, type DecisionSink } from '../approval/gate.ts';
import { classifyRisk } from '../policy/classify-risk.ts';
import type { ToolFacts } from '../policy/effective-tools.ts';
import { contextForCall, type ToolExecutionContext } from '../tools/context.ts';

/**
 * Records a call refused before the gate's steps (its arguments are invalid, or it is over a
 * per-response limit) the way the gate records its own decisions: a `gate.decision` at step 0 with
 * the rule and the reason, the call's hash and risk, in the run's scope (I8). The reason carries no
 * "do not retry" advice: the model may well send the call again, put right.
 */
export async function auditRefusal(
  sink: DecisionSink, lookupTool: (name: string) => ToolFacts | undefined, ctx: ToolExecutionContext,
  call: { tool: string; args: Record<string, unknown> }, callIndex: number, refusal: { rule: string; reason: string },
): Promise<Decision> {
  const callCtx = contextForCall(ctx, { tool: call.tool, callIndex, params: call.args });
  const facts = lookupTool(call.tool);
  const decision: Decision = {
    outcome: 'deny', step: 0, rule: refusal.rule, reason: refusal.reason, tool: call.tool, flagged: [],
    call_hash: callHash(call, callCtx),
    // as the gate does for a name it does not know: the strictest
    risk: facts ? classifyRisk(facts, call.args) : 'dangerous',
  };
  await sink.record(decision, call, callCtx);
  return decision;
}
