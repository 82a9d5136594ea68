import { classifyRisk } from './classify-risk.ts';
import type { ToolFacts } from './effective-tools.ts';
import type { RuleId } from './rules.ts';
import { SECURITY_PROFILE_RULES } from './security-profiles.ts';

/**
 * Why no daemon run can ever make this call, whatever the configuration says: the daemon profile
 * removes the tool (I4), or the call is DANGEROUS and so never runs unattended (I1). Null: the call
 * may run, depending on the grant, the policy and the guard. A job step this names can never work.
 */
export function neverInDaemonRun(tool: Pick<ToolFacts, 'name' | 'riskLevel' | 'capabilities'>, args: Readonly<Record<string, unknown>>): RuleId | null {
  const daemon = SECURITY_PROFILE_RULES.daemon;
  if (tool.capabilities.some((c) => (daemon.denyCapabilities as readonly string[]).includes(c))) return daemon.rule;
  return classifyRisk(tool, args) === 'dangerous' ? 'unattended.dangerous' : null;
}
