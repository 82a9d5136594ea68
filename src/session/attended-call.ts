import type { Logger } from 'pino';
import { createApprovalGate, type DecisionSink } from '../approval/gate.ts';
import type { HumanApprover, SmartReviewer } from '../approval/ports.ts';
import type { Config } from '../config/schema.ts';
import type { Guard } from '../guard/types.ts';
import type { RuleId } from '../policy/rules.ts';
import { allowlistStore } from '../store/allowlist.ts';
import { endWait, type WaitEnding } from '../store/approvals.ts';
import type { Executor } from '../store/db.ts';
import { auditDecisionSink } from '../store/decision-sink.ts';
import type { ToolExecutionContext } from '../tools/context.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { gatedCall, type GatedCallOptions, type GatedOutcome } from './gated-call.ts';
import { systemGatePorts } from '../util/system-ports.ts';

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
    sink: endingUnanswered(deps.db, auditDecisionSink(deps.db)), humanApprover: deps.approver, smartReviewer: deps.smartReviewer ?? null,
    ...systemGatePorts,
  });
}

/** Step 11's refusals of a call nobody answered, and how its stored request ends. */
const UNANSWERED: Readonly<Partial<Record<string, WaitEnding>>> = {
  'approval.human.timeout': 'expired', 'approval.human.cancelled': 'withdrawn', 'approval.human.unavailable': 'withdrawn',
} satisfies Partial<Record<RuleId, WaitEnding>>;

/**
 * Records the decision, then ends its stored request if it still waits. The approver ends it itself, but
 * the gate gives it only a short grace: on a loaded machine, or in a process about to exit (Ctrl-C), a
 * request the gate refused could stay answerable with nobody waiting for the answer.
 */
export function endingUnanswered(db: Executor, sink: DecisionSink): DecisionSink {
  return {
    async record(d, call, ctx) {
      const ending = UNANSWERED[d.rule];
      try {
        await sink.record(d, call, ctx);
      } finally {
        // even when the record failed: the call is refused either way, so nobody may answer it any more
        if (ending && d.approval_id) await endWait(db, d.approval_id, ending);
      }
    },
  };
}

/** One tool call in an attended context: the same gate and executor as the daemon's. */
export function attendedCall(deps: AttendedDeps, call: { tool: string; args: Record<string, unknown> }, ctx: ToolExecutionContext, callIndex = 0, opts: GatedCallOptions = {}): Promise<AttendedOutcome> {
  return gatedCall(attendedGate(deps), deps.tools, call, ctx, callIndex, opts);
}
