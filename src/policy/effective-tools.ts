import type { Config } from '../config/schema.ts';
import type { Capability } from './capabilities.ts';
import { classifyRisk } from './classify-risk.ts';
import { NETWORK_POLICIES, type NetworkPolicy } from './network-policy.ts';
import type { RiskLevel } from './risk.ts';
import { severity } from './risk.ts';
import { RULES, type RuleId } from './rules.ts';
import { SECURITY_PROFILE_RULES, stricterProfile, type SecurityProfile } from './security-profiles.ts';
import { profileMembers, type ToolProfile } from './tool-profiles.ts';

/** What the policy needs to know of a tool; both catalog rows and live Tool objects fit. */
export interface ToolFacts {
  readonly name: string;
  readonly riskLevel: RiskLevel;
  readonly capabilities: readonly (Capability | string)[];
  readonly reserved?: boolean;
  readonly ready: boolean;
  readonly readinessDetail?: string;
  /** Reaches the network whatever its capabilities say (network policy deny removes it). */
  readonly network?: boolean;
}

export interface ToolSelection {
  readonly profile: ToolProfile;
  readonly allow: readonly string[];
  readonly also_allow: readonly string[];
  readonly deny: readonly string[];
  readonly security: SecurityProfile;
  readonly network: NetworkPolicy;
  /** ctx.allowed_tools: intersects when non-empty. */
  readonly allowedTools?: readonly string[];
}

export interface OfferedTool {
  readonly name: string;
  readonly risk: RiskLevel;
  readonly capabilities: readonly string[];
}

export interface RemovedTool {
  readonly name: string;
  readonly risk: RiskLevel;
  readonly rule: RuleId;
  readonly reason: string;
}

export interface EffectiveTools {
  readonly offered: readonly OfferedTool[];
  readonly removed: readonly RemovedTool[];
}

/** The security profile a context runs under: an unattended one never looser than `daemon`, max(config, daemon) (I4). */
export function securityFor(config: Pick<Config, 'security'>, ctx: { readonly unattended: boolean }): SecurityProfile {
  return ctx.unattended ? stricterProfile(config.security.profile, 'daemon') : config.security.profile;
}

/** What a selection takes besides the configuration: `profile` and `network` replace the config's (tools list's options). */
export interface SelectionChoices {
  readonly security: SecurityProfile;
  readonly allowedTools?: readonly string[];
  readonly profile?: ToolProfile;
  readonly network?: NetworkPolicy;
}

/** The configuration's tool selection (SPEC §4) under the given security profile. */
export function selectionFrom(config: Config, choices: SelectionChoices): ToolSelection {
  return {
    profile: choices.profile ?? config.tools.profile, allow: config.tools.allow, also_allow: config.tools.also_allow, deny: config.tools.deny,
    security: choices.security, network: choices.network ?? config.execution.network_policy,
    ...(choices.allowedTools ? { allowedTools: choices.allowedTools } : {}),
  };
}

/** The selection of a context: what its model is offered and what the gate's step 0 lets through are this one (I10). */
export function selectionFor(config: Config, ctx: { readonly unattended: boolean; readonly allowed_tools?: readonly string[] }): ToolSelection {
  return selectionFrom(config, { security: securityFor(config, ctx), ...(ctx.allowed_tools ? { allowedTools: ctx.allowed_tools } : {}) });
}

/** The security profile's own removal (SPEC §4 step 2): a denied capability, or a risk above its ceiling; null when it keeps the tool. */
export function securityRule(tool: Pick<ToolFacts, 'name' | 'riskLevel' | 'capabilities'>, security: SecurityProfile): RuleId | null {
  const sec = SECURITY_PROFILE_RULES[security];
  if (!sec.rule) return null;
  if (tool.capabilities.some((c) => (sec.denyCapabilities as readonly string[]).includes(c))) return sec.rule;
  const risk = classifyRisk({ name: tool.name, riskLevel: tool.riskLevel, capabilities: tool.capabilities });
  return severity(risk) > severity(sec.maxRisk) ? sec.rule : null;
}

/** Why a tool is not offered in this selection, or null when it is (SPEC §4, in order). */
export function removalRule(tool: ToolFacts, sel: ToolSelection): RuleId | null {
  // whatever else would remove it, a reserved name answers as reserved (SPEC §3)
  if (tool.reserved) return 'tools.reserved';
  if (sel.allow.length > 0) {
    if (!sel.allow.includes(tool.name) && !sel.also_allow.includes(tool.name)) return 'tools.allow';
  } else if (!profileMembers(sel.profile).has(tool.name) && !sel.also_allow.includes(tool.name)) {
    return 'tools.profile';
  }
  if (sel.deny.includes(tool.name)) return 'tools.deny';
  const security = securityRule(tool, sel.security);
  if (security) return security;
  if (sel.network === 'deny' && (tool.network === true || tool.capabilities.includes('network.outbound'))) return 'network.deny';
  if (sel.allowedTools && sel.allowedTools.length > 0 && !sel.allowedTools.includes(tool.name)) return 'context.allowed_tools';
  if (!tool.ready) return 'tools.not_ready';
  return null;
}

/** Why a tool is not offered, for a person: the rule's sentence, and for a tool not ready what it lacks. */
export function removalReason(rule: RuleId, tool: Pick<ToolFacts, 'readinessDetail'>): string {
  return rule === 'tools.not_ready' && tool.readinessDetail ? `${RULES[rule].replace(/\.$/, '')} (${tool.readinessDetail}).` : RULES[rule];
}

export function effectiveTools(tools: readonly ToolFacts[], sel: ToolSelection): EffectiveTools {
  const offered: OfferedTool[] = [];
  const removed: RemovedTool[] = [];
  for (const tool of tools) {
    const risk = classifyRisk({ name: tool.name, riskLevel: tool.riskLevel, capabilities: tool.capabilities });
    const rule = removalRule(tool, sel);
    if (rule === null) offered.push({ name: tool.name, risk, capabilities: tool.capabilities });
    else {
      removed.push({ name: tool.name, risk, rule, reason: removalReason(rule, tool) });
    }
  }
  return { offered, removed };
}

export function isNetworkPolicy(v: string): v is NetworkPolicy {
  return (NETWORK_POLICIES as readonly string[]).includes(v);
}
