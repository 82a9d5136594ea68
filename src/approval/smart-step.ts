import type { ToolCall } from './gate.ts';
import type { DecisionBase } from './decision.ts';
import type { Clock, SmartReviewer, SmartVerdict } from './ports.ts';

/** Step 10: APPROVE and DENY decide; anything else, an error or the deadline escalates. */
export async function askSmartReviewer(
  reviewer: SmartReviewer, call: ToolCall, base: DecisionBase, timeoutMs: number, clock: Clock,
): Promise<SmartVerdict> {
  const controller = new AbortController();
  const deadline = clock.sleep(timeoutMs).then(() => {
    controller.abort();
    return 'ESCALATE' as const;
  });
  try {
    const verdict = await Promise.race([
      reviewer.review({ tool: call.tool, args: call.args, risk: base.risk, flags: base.flagged }, controller.signal),
      deadline,
    ]);
    return verdict === 'APPROVE' || verdict === 'DENY' ? verdict : 'ESCALATE';
  } catch {
    return 'ESCALATE';
  } finally {
    controller.abort();
  }
}
