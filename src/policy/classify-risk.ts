import { CATALOG_BY_NAME } from '../tools/catalog-table.ts';
import { STATIC_RISK_MAP } from './static-maps.ts';
import { strictest, type RiskLevel } from './risk.ts';
import type { Capability } from './capabilities.ts';

/** Capabilities that make a tool EXEC or worse whatever it declares (I7: never lowered). */
const CAPABILITY_FLOOR: ReadonlyArray<readonly [Capability, RiskLevel]> = [
  ['process.exec', 'exec'],
  ['process.manage', 'exec'],
  ['code.exec', 'exec'],
  ['scheduler.write', 'dangerous'],
  ['skill.install', 'dangerous'],
];

export interface RiskInput {
  readonly name: string;
  readonly riskLevel?: RiskLevel | undefined;
  readonly capabilities?: readonly string[] | undefined;
}

/**
 * Effective risk: the stricter of the static map, the tool's declaration, its
 * capabilities and what its arguments ask for. Every source can only raise it.
 */
export function classifyRisk(tool: RiskInput, args: Readonly<Record<string, unknown>> = {}): RiskLevel {
  // a tool outside the static map (an external tool) is what it declares, write when it declares nothing
  const sources: RiskLevel[] = [STATIC_RISK_MAP.get(tool.name) ?? tool.riskLevel ?? 'write'];
  if (tool.riskLevel) sources.push(tool.riskLevel);
  for (const [cap, floor] of CAPABILITY_FLOOR) if (tool.capabilities?.includes(cap)) sources.push(floor);
  // a tool whose arguments name the tools it will run (delegate_task's `tools`) is as risky as the worst of them
  const listArg = CATALOG_BY_NAME.get(tool.name)?.toolListArg;
  const named = listArg ? args[listArg] : undefined;
  if (Array.isArray(named)) {
    for (const n of named) if (typeof n === 'string') sources.push(STATIC_RISK_MAP.get(n) ?? 'write');
  }
  return strictest(...sources);
}
