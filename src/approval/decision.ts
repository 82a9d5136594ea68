import type { GuardFinding } from '../guard/types.ts';
import type { RiskLevel } from '../policy/risk.ts';
import { RULES, type RuleId } from '../policy/rules.ts';
import type { ApprovalSource } from '../tools/context.ts';

/** `would_ask` only comes out of a dry run (`check call`): the step would ask someone. */
export type Outcome = 'allow' | 'deny' | 'would_ask';

/**
 * Step 0 is the availability check that precedes the 11 steps (I10: a filtered
 * tool is refused when called anyway); 1–11 are SPEC §5's steps.
 */
export type GateStep = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;

export interface Decision {
  readonly outcome: Outcome;
  readonly step: GateStep;
  /** A key of RULES, or a guard rule id (e.g. `shell.rm.recursive_root`). */
  readonly rule: string;
  readonly reason: string;
  readonly risk: RiskLevel;
  readonly flagged: readonly GuardFinding[];
  readonly approval_source?: ApprovalSource;
  readonly tool: string;
  readonly call_hash: string;
  readonly approval_id?: string;
  readonly approver?: string;
  /** Step 4 in a run with a grant: the grant the decision relied on, or found no longer covering the call. */
  readonly grant_id?: string;
}

const DO_NOT_RETRY = 'Do not retry or rephrase this action; it will be refused again.';

/** A refusal's reason for a person at a terminal: the advice to the model (never retry) is not theirs to follow. */
export function reasonForPeople(reason: string): string {
  return reason.replace(` ${DO_NOT_RETRY}`, '').replace(DO_NOT_RETRY, '').trim();
}

export interface DecisionBase {
  readonly tool: string;
  readonly call_hash: string;
  readonly risk: RiskLevel;
  readonly flagged: readonly GuardFinding[];
}

export function allow(
  base: DecisionBase, step: GateStep, rule: RuleId, source: ApprovalSource,
  extra: Pick<Decision, 'approval_id' | 'approver' | 'grant_id'> = {},
): Decision {
  return { ...base, outcome: 'allow', step, rule, reason: RULES[rule], approval_source: source, ...extra };
}

export function deny(base: DecisionBase, step: GateStep, rule: string, reason?: string, extra: Pick<Decision, 'approval_id' | 'approver' | 'grant_id'> = {}): Decision {
  const text = reason ?? (RULES as Record<string, string>)[rule] ?? rule;
  return { ...base, outcome: 'deny', step, rule, reason: `${text} ${DO_NOT_RETRY}`, ...extra };
}

export function wouldAsk(base: DecisionBase, step: GateStep, rule: 'approval.would_ask' | 'approval.would_ask_smart'): Decision {
  return { ...base, outcome: 'would_ask', step, rule, reason: RULES[rule] };
}
