import type { Capability } from './capabilities.ts';
import type { RiskLevel } from './risk.ts';
import type { RuleId } from './rules.ts';

/** Listed least to most strict: the order defines max(a, b) (stricterProfile). */
export const SECURITY_PROFILES = ['personal_cli', 'daemon', 'public_gateway'] as const;
export type SecurityProfile = (typeof SECURITY_PROFILES)[number];

export interface SecurityProfileRule {
  /** Tools declaring any of these capabilities are removed. */
  readonly denyCapabilities: readonly Capability[];
  /** Tools whose effective risk is above this are removed. */
  readonly maxRisk: RiskLevel;
  /** null: the profile removes nothing, so no rule can name it. */
  readonly rule: RuleId | null;
}

/** What the daemon never runs (I4); every stricter profile keeps these denials. */
const DAEMON_DENIED: readonly Capability[] = ['process.exec', 'process.manage', 'code.exec', 'skill.install'];

/** SPEC §4 step 2, as data. */
export const SECURITY_PROFILE_RULES: Readonly<Record<SecurityProfile, SecurityProfileRule>> = {
  personal_cli: { denyCapabilities: [], maxRisk: 'dangerous', rule: null },
  daemon: {
    denyCapabilities: DAEMON_DENIED,
    maxRisk: 'dangerous',
    rule: 'security.daemon.capability',
  },
  public_gateway: {
    // read_only only, and never looser than the daemon
    denyCapabilities: DAEMON_DENIED,
    maxRisk: 'read_only',
    rule: 'security.public_gateway.risk',
  },
};

/** The stricter of two profiles: how the daemon combines config with `daemon` (I4). */
export function stricterProfile(a: SecurityProfile, b: SecurityProfile): SecurityProfile {
  return SECURITY_PROFILES.indexOf(a) >= SECURITY_PROFILES.indexOf(b) ? a : b;
}
