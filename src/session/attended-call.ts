import type { Logger } from 'pino';
import { createApprovalGate } from '../approval/gate.ts';
import type { HumanApprover, SmartReviewer } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import { allowlistStore } from '../store/allowlist.ts';
import type { Executor } from '../store/db.ts';
import { auditDecisionSink } from '../store/decision-sink.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { gatedCall, type GatedCallOptions, type GatedOutcome } from './gated-call.ts';

export interface AttendedDeps {
  readonly db: Executor;
  readonly config: Config;
  readonly tools: ToolRegistry;
  readonly guard: Guard;
  readonly approver: HumanApprover | null;
  readonly smartReviewer?: SmartReviewer | null;
  readonly logger?: Logger;
}

export type AttendedOutcome = GatedOutcome;

/** The gate of an attended context: the config's security profile, its human step may ask. */
export function attendedGate(deps: AttendedDeps) {
  return createApprovalGate(deps.config, {
    guard: deps.guard, allowlist: allowlistStore(deps.db), lookupTool: (n) => deps.tools.facts(n),
    sink: auditDecisionSink(deps.db), humanApprover: deps.approver, smartReviewer: deps.smartReviewer ?? null,
  });
}

/** One tool call in an attended context: the same gate and executor as the daemon's. */
export function attendedCall(deps: AttendedDeps, call: { tool: string; args: Record<string, unknown> }, ctx: ToolExecutionContext, callIndex = 0, opts: GatedCallOptions = {}): Promise<AttendedOutcome> {
  return gatedCall(attendedGate(deps), deps.tools, call, ctx, callIndex, opts);
}
