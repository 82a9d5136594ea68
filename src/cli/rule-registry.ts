/**
 * Every rule id the product can write, with its reason and the file that defines it, read from the tables
 * themselves (nothing copied): `echo-agent rules` takes an admin from an audit line's rule to its meaning and code.
 * It sits beside audit-vocabulary.ts, not in src/policy: it gathers tables from store/, daemon/, scheduler/ and
 * guard/, and the pure policy core must not depend on those. No database, no config: it only imports tables.
 */

/** One place an id is defined: the exported table holding its reason (null: written as a literal), and its file. */
export interface RuleDefinition {
  readonly reason: string;
  readonly source: string;
  readonly table: string | null;
}

export interface RuleEntry extends RuleDefinition {
  readonly id: string;
  /** Further tables defining the same id (network.deny in the gate's and the URL guard's; an IPv4 and an IPv6 range). */
  readonly also: readonly RuleDefinition[];
  /** What a job's builder can do about the refusal (policy/rules.ts remedyFor), if there is such advice. */
  readonly remedy: string | null;
  /** The configuration key a policy pass answers to (policy/rules.ts RULE_CONFIG_KEYS). */
  readonly config_key: string | null;
}

/**
 * Rule ids written as literals where there is no table: runs.pruned, audit.archived. `source` is the file that
 * writes each (`echo-agent rules` shows it); the reason is what the rule means, not the record's own sentence.
 */
const LITERAL_RULES: readonly { readonly id: string; readonly reason: string; readonly source: string }[] = [
  { id: 'retention.runs', source: 'src/store/retention.ts',
    reason: 'Ended runs past the run retention (daemon.run_retention_days, or runs prune --older-than-days) were deleted with their transcripts; the audit log keeps their records.' },
  { id: 'audit.archive', source: 'src/store/audit-archive.ts',
    reason: 'Audit records stamped before an instant were moved to a file by audit archive, which records the file and its hash.' },
];

type Rows = readonly { readonly id: string; readonly reason: string }[];
const fromRecord = (r: Readonly<Record<string, string>>): Rows => Object.entries(r).map(([id, reason]) => ({ id, reason }));
const fromRuleRows = (r: readonly { readonly rule: string; readonly reason: string }[]): Rows => r.map((x) => ({ id: x.rule, reason: x.reason }));

/**
 * The tables, each imported from the file that defines it (not a re-export), so `source` names that file;
 * test/cli/rules-command.test.ts checks each file declares its table and holds its ids.
 */
const TABLES: readonly { readonly table: string; readonly source: string; readonly rows: () => Promise<Rows> }[] = [
  { table: 'RULES', source: 'src/policy/rules.ts', rows: async () => fromRecord((await import('../policy/rules.ts')).RULES) },
  { table: 'AUTHORIZATION_RULES', source: 'src/store/grants.ts', rows: async () => fromRecord((await import('../store/grants.ts')).AUTHORIZATION_RULES) },
  { table: 'GRANT_POLICY_RULES', source: 'src/jobs/grant-policy.ts', rows: async () => fromRecord((await import('../jobs/grant-policy.ts')).GRANT_POLICY_RULES) },
  // ids older builds wrote: still in their audit records, so `audit list --rule` and `rules show` know them
  { table: 'LEGACY_GRANT_POLICY_RULES', source: 'src/jobs/grant-policy.ts', rows: async () => fromRecord((await import('../jobs/grant-policy.ts')).LEGACY_GRANT_POLICY_RULES) },
  { table: 'TABLE_CHECK_RULES', source: 'src/store/audit-verify-tables.ts', rows: async () => fromRecord((await import('../store/audit-verify-tables.ts')).TABLE_CHECK_RULES) },
  { table: 'OPERATOR_RULES', source: 'src/log/operator-rules.ts', rows: async () => fromRecord((await import('../log/operator-rules.ts')).OPERATOR_RULES) },
  { table: 'DELIVERY_RULES', source: 'src/daemon/delivery.ts', rows: async () => fromRecord((await import('../daemon/delivery.ts')).DELIVERY_RULES) },
  { table: 'MISFIRE_RULES', source: 'src/scheduler/misfire.ts', rows: async () => fromRecord((await import('../scheduler/misfire.ts')).MISFIRE_RULES) },
  { table: 'OVERLAP_RULES', source: 'src/scheduler/overlap.ts', rows: async () => (await import('../scheduler/overlap.ts')).OVERLAP_RULES },
  { table: 'SHELL_RULES', source: 'src/guard/shell/rules.ts', rows: async () => (await import('../guard/shell/rules.ts')).SHELL_RULES },
  { table: 'PATH_RULES', source: 'src/guard/paths/check-paths.ts', rows: async () => fromRecord((await import('../guard/paths/check-paths.ts')).PATH_RULES) },
  { table: 'URL_RULES', source: 'src/guard/ssrf/check-url.ts', rows: async () => fromRecord((await import('../guard/ssrf/check-url.ts')).URL_RULES) },
  { table: 'NAME_RULES', source: 'src/guard/ssrf/name-rules.ts', rows: async () => fromRuleRows((await import('../guard/ssrf/name-rules.ts')).NAME_RULES) },
  { table: 'SINGLE_LABEL_RULE', source: 'src/guard/ssrf/name-rules.ts', rows: async () => fromRuleRows([(await import('../guard/ssrf/name-rules.ts')).SINGLE_LABEL_RULE]) },
  { table: 'IPV4_RULES', source: 'src/guard/ssrf/address-rules.ts', rows: async () => fromRuleRows((await import('../guard/ssrf/address-rules.ts')).IPV4_RULES) },
  { table: 'IPV6_RULES', source: 'src/guard/ssrf/address-rules.ts', rows: async () => fromRuleRows((await import('../guard/ssrf/address-rules.ts')).IPV6_RULES) },
  { table: 'UNPARSEABLE_ADDRESS', source: 'src/guard/ssrf/address-rules.ts', rows: async () => fromRuleRows([(await import('../guard/ssrf/address-rules.ts')).UNPARSEABLE_ADDRESS]) },
  { table: 'SOCKET_RULES', source: 'src/tools/net/transport.ts', rows: async () => fromRecord((await import('../tools/net/transport.ts')).SOCKET_RULES) },
  { table: 'FETCH_LIMIT_RULES', source: 'src/guard/ssrf/errors.ts', rows: async () => fromRecord((await import('../guard/ssrf/errors.ts')).FETCH_LIMIT_RULES) },
];

let registry: Promise<readonly RuleEntry[]> | undefined;

/** Every rule id, sorted, each once: its first table (in TABLES order) gives reason and source, the rest go to `also`. */
export function ruleRegistry(): Promise<readonly RuleEntry[]> {
  registry ??= (async () => {
    const [loaded, { remedyFor, RULE_CONFIG_KEYS }] = await Promise.all([
      Promise.all(TABLES.map(async (t) => ({ ...t, rows: await t.rows() }))), import('../policy/rules.ts'),
    ]);
    const defs = new Map<string, RuleDefinition[]>();
    const add = (id: string, d: RuleDefinition): void => void (defs.get(id) ?? defs.set(id, []).get(id)!).push(d);
    for (const t of loaded) for (const r of t.rows) add(r.id, { reason: r.reason, source: t.source, table: t.table });
    for (const r of LITERAL_RULES) add(r.id, { reason: r.reason, source: r.source, table: null });
    const own = (table: Readonly<Record<string, string | undefined>>, id: string): string | null => (Object.hasOwn(table, id) ? table[id] ?? null : null);
    return [...defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, [first, ...also]]) => Object.freeze({
      id, ...first!, also, config_key: own(RULE_CONFIG_KEYS, id),
      // the guard's refusals are the gate's step 1, whose advice depends on the rule family
      remedy: remedyFor({ rule: id, step: first!.source.startsWith('src/guard/') ? 1 : 0 }) ?? null,
    }));
  })();
  return registry;
}
