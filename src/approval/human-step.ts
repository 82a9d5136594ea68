import type { ToolExecutionContext } from '../tools/context.ts';
import { allow, deny, type Decision, type DecisionBase } from './decision.ts';
import type { ToolCall } from './gate.ts';
import type { AllowlistStore, ApprovalAnswer, Clock, GivenAnswer, HumanApprover } from './ports.ts';
import type { RuleId } from '../policy/rules.ts';

export interface HumanStepInput {
  readonly call: ToolCall;
  readonly ctx: ToolExecutionContext;
  readonly base: DecisionBase;
  readonly scopes: readonly string[];
  readonly allowAlways: boolean;
  readonly approver: HumanApprover | null;
  readonly allowlist: AllowlistStore;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly requestId: string;
  /** The session or run was stopped: stop asking. */
  readonly signal?: AbortSignal;
}

/** The reason on the approver's signal when the gate stops waiting, so a prompt can tell the person why. */
export type WaitEnded = 'timeout' | 'cancelled';

type Received = ApprovalAnswer | { readonly answer: 'cancelled' };

const UNANSWERED_RULES = {
  timeout: 'approval.human.timeout', cancelled: 'approval.human.cancelled', unavailable: 'approval.human.unavailable', unverified: 'approval.human.unverified',
} as const satisfies Record<Exclude<Received['answer'], GivenAnswer['answer']>, RuleId>;

/**
 * How long the approver may take, once the wait is over, to settle the request: it
 * expires it unless an answer was recorded first, and an answer recorded counts.
 */
const SETTLE_GRACE_MS = 2_000;

/**
 * Step 11. The only place `approval_source: "human"` is produced (I3), and only
 * for an answer bound to this request id and this call's hash.
 */
export async function askHuman(input: HumanStepInput): Promise<Decision> {
  const { base, approver, requestId } = input;
  if (!approver) return deny(base, 11, 'approval.human.unavailable', undefined, { approval_id: requestId });
  const controller = new AbortController();
  const expires = new Date(input.clock.now().getTime() + input.timeoutMs);
  const timeout = input.clock.sleep(input.timeoutMs).then((): ApprovalAnswer => ({ answer: 'timeout' }));
  let onStop = () => {};
  const stopped = new Promise<Received>((resolve) => {
    onStop = () => resolve({ answer: 'cancelled' });
    if (input.signal?.aborted) onStop();
    else input.signal?.addEventListener('abort', onStop, { once: true });
  });
  let received: Received;
  // a port that throws at once is an unavailable approver, and the refusal is still decided (and audited) here
  const asked = Promise.resolve().then(() => approver.ask({
    request_id: requestId, call_hash: base.call_hash, tool: input.call.tool, args: input.call.args,
    risk: base.risk, flags: base.flagged, scopes: input.scopes, allow_always: input.allowAlways,
    ctx: input.ctx, expires_at: expires,
  }, controller.signal)).catch((): ApprovalAnswer => ({ answer: 'unavailable' }));
  try {
    received = await Promise.race<Received>([asked, timeout, stopped]);
    const settled = () => Promise.race<ApprovalAnswer>([asked, input.clock.sleep(SETTLE_GRACE_MS).then((): ApprovalAnswer => ({ answer: 'timeout' }))]);
    if (received.answer === 'timeout') {
      // an answer the store took just before the deadline must not be refused as "nobody answered"
      controller.abort('timeout' satisfies WaitEnded);
      received = await settled();
    } else if (received.answer === 'cancelled') {
      // stopping stays stopping, but only once the request is withdrawn: a process about to exit would leave it answerable
      controller.abort('cancelled' satisfies WaitEnded);
      await settled();
    }
  } finally {
    // the approver stops asking (and expires the persisted request)
    controller.abort();
    input.signal?.removeEventListener('abort', onStop);
  }
  const answer = received;
  const ids = { approval_id: requestId };
  if (!('request_id' in answer)) {
    const rule = UNANSWERED_RULES[answer.answer];
    return deny(base, 11, rule, undefined, ids);
  }
  if (answer.request_id !== requestId || answer.call_hash !== base.call_hash) {
    return deny(base, 11, 'approval.human.mismatch', undefined, ids);
  }
  const who = { ...ids, approver: answer.approver };
  if (answer.answer === 'deny') return deny(base, 11, 'approval.human.deny', undefined, who);
  if (answer.answer === 'always' && input.allowAlways && input.scopes.length > 0) {
    for (const scope of input.scopes) {
      await input.allowlist.add({
        tool: input.call.tool, scope, created_by: answer.approver, approval_id: requestId,
        reason: `"always" answered for ${input.call.tool} (${scope})`,
      });
    }
    return allow(base, 11, 'approval.human.always', 'human', who);
  }
  return allow(base, 11, 'approval.human.once', 'human', who);
}
