import { classifyRisk } from './classify-risk.ts';
import { securityRule, type ToolFacts } from './effective-tools.ts';
import type { RuleId } from './rules.ts';

/**
 * Why no daemon run can ever make this call, whatever the configuration says: the daemon profile
 * removes the tool (I4), or the call is DANGEROUS and so never runs unattended (I1). Null: the call
 * may run, depending on the grant, the policy and the guard. A job step this names can never work.
 */
export function neverInDaemonRun(tool: Pick<ToolFacts, 'name' | 'riskLevel' | 'capabilities'>, args: Readonly<Record<string, unknown>>): RuleId | null {
  // the same check that removes the tool from a daemon run's set (SPEC §4 step 2), at the least strict profile a daemon runs under
  return securityRule(tool, 'daemon') ?? (classifyRisk(tool, args) === 'dangerous' ? 'unattended.dangerous' : null);
}
