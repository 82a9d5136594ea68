import type { ToolExecutionContext } from '../tools/context.ts';
import type { CallApproval } from '../tools/types.ts';

export const GRANT_POLICY_RULES = {
  'grant.human_approved': 'A human approved this exact definition in an attended context.',
  'grant.not_human': 'The call was approved by a policy, not by a human, so the job gets no cron authorisation.',
  'grant.unattended': 'An unattended call can never authorise a job.',
  'grant.nested': 'A nested execution can never authorise a job.',
} as const;

/**
 * Ids no build decides any more, kept so the audit records older builds wrote still read: a person approving
 * any update is now shown the whole job, so it authorises it.
 */
export const LEGACY_GRANT_POLICY_RULES = {
  'grant.definition_unchanged': 'A human approved a change outside the job definition; only a call that sets the definition could authorise a job that held no grant (builds before December 2026).',
} as const;

export type GrantPolicyRule = keyof typeof GRANT_POLICY_RULES;

export type GrantVerdict =
  | { readonly issue: true; readonly rule: 'grant.human_approved'; readonly approval_id: string; readonly approver: string; readonly channel: string }
  | { readonly issue: false; readonly rule: Exclude<GrantPolicyRule, 'grant.human_approved'> };

/**
 * I2: a create or definition change authorises the job only when this very
 * call was answered by a human (step 11) in an attended, non-nested context.
 */
export function grantForChange(ctx: ToolExecutionContext, approval: CallApproval | undefined): GrantVerdict {
  if (ctx.unattended) return { issue: false, rule: 'grant.unattended' };
  if (ctx.parent_execution_id !== null) return { issue: false, rule: 'grant.nested' };
  if (ctx.approval_source !== 'human' || approval?.approval_source !== 'human' || !approval.approval_id || !approval.approver) {
    return { issue: false, rule: 'grant.not_human' };
  }
  return { issue: true, rule: 'grant.human_approved', approval_id: approval.approval_id, approver: approval.approver, channel: ctx.channel };
}
