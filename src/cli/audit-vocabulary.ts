/**
 * The rule ids and outcomes an audit record can carry, gathered from the tables that define them (not copied):
 * `audit list|export --rule/--outcome` take one with no records yet as an empty result, and refuse only a
 * value that is neither in these tables nor in the log (a typo). Loaded on demand: the guard's tables are large.
 */
import { APPROVAL_ANSWERS, RUN_STATES } from '../store/schema.ts';

/** Outcomes of a gate decision (approval/decision.ts `Outcome`, a type only). */
const DECISION_OUTCOMES = ['allow', 'deny', 'would_ask'] as const;

/** Written as literals where there is no table: runs.pruned (store/retention.ts), audit.archived (store/audit-archive.ts). */
const LITERAL_RULES = ['retention.runs', 'audit.archive'] as const;
const LITERAL_OUTCOMES = ['deleted', 'archived'] as const;

let rules: Promise<ReadonlySet<string>> | undefined;

/** Every rule id a record's `rule` column can hold: the gate's, the guard's, the grant, scheduler and delivery tables. */
export function knownRuleIds(): Promise<ReadonlySet<string>> {
  rules ??= (async () => {
    const [policy, grants, grantPolicy, delivery, misfire, overlap, shell, paths, ssrf, address, names] = await Promise.all([
      import('../policy/rules.ts'), import('../store/grants.ts'), import('../jobs/grant-policy.ts'), import('../daemon/delivery.ts'),
      import('../scheduler/misfire.ts'), import('../scheduler/overlap.ts'), import('../guard/shell/rules.ts'), import('../guard/paths/check-paths.ts'),
      import('../guard/ssrf/index.ts'), import('../guard/ssrf/address-rules.ts'), import('../guard/ssrf/name-rules.ts'),
    ]);
    return new Set<string>([
      ...Object.keys(policy.RULES), ...Object.keys(grants.AUTHORIZATION_RULES), ...Object.keys(grantPolicy.GRANT_POLICY_RULES),
      ...Object.keys(delivery.DELIVERY_RULES), ...Object.keys(misfire.MISFIRE_RULES), ...overlap.OVERLAP_RULES.map((r) => r.id),
      ...shell.SHELL_RULES.map((r) => r.id), ...Object.keys(paths.PATH_RULES),
      ...Object.keys(ssrf.URL_RULES), ...ssrf.NAME_RULES.map((r) => r.rule), names.SINGLE_LABEL_RULE.rule, ...[...ssrf.IPV4_RULES, ...ssrf.IPV6_RULES].map((r) => r.rule),
      address.UNPARSEABLE_ADDRESS.rule, ...Object.keys(ssrf.SOCKET_RULES), ...Object.keys(ssrf.FETCH_LIMIT_RULES),
      ...LITERAL_RULES,
    ]);
  })();
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
