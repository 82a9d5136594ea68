/**
 * The rule ids and outcomes an audit record can carry, gathered from the tables that define them (not copied):
 * `audit list|export --rule/--outcome` take one with no records yet as an empty result, and refuse only a
 * value that is neither in these tables nor in the log (a typo). Loaded on demand: the guard's tables are large.
 */
import { APPROVAL_ANSWERS, RUN_STATES } from '../store/schema.ts';

/** Outcomes of a gate decision (approval/decision.ts `Outcome`, a type only). */
const DECISION_OUTCOMES = ['allow', 'deny', 'would_ask'] as const;

const LITERAL_OUTCOMES = ['deleted', 'archived'] as const;

let rules: Promise<ReadonlySet<string>> | undefined;

/** Every rule id a record's `rule` column can hold: the ids `echo-agent rules` lists (cli/rule-registry.ts). */
export function knownRuleIds(): Promise<ReadonlySet<string>> {
  rules ??= import('./rule-registry.ts').then(async ({ ruleRegistry }) => new Set((await ruleRegistry()).map((r) => r.id)));
  return rules;
}

let outcomes: Promise<ReadonlySet<string>> | undefined;

/** Every outcome a record can hold: decisions, run states, answers and refused answers, grants, deliveries. */
export function knownOutcomes(): Promise<ReadonlySet<string>> {
  outcomes ??= (async () => {
    const [approvals, grants, delivery] = await Promise.all([import('../store/approvals.ts'), import('../store/grants.ts'), import('../daemon/delivery.ts')]);
    return new Set<string>([
      ...DECISION_OUTCOMES, ...RUN_STATES, ...APPROVAL_ANSWERS, ...Object.keys(approvals.ANSWER_REFUSALS), ...grants.GRANT_ISSUED_OUTCOMES,
      // a delivery's outcome is its rule without the prefix (daemon/delivery.ts)
      ...Object.keys(delivery.DELIVERY_RULES).map((r) => r.slice('delivery.'.length)),
      ...LITERAL_OUTCOMES,
    ]);
  })();
  return outcomes;
}
