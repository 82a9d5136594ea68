import { CATALOG } from '../tools/catalog-table.ts';
import type { Capability } from './capabilities.ts';
import type { RiskLevel } from './risk.ts';

/** `_TOOL_RISK_MAP` of the seed, derived from the one catalog table. */
export const STATIC_RISK_MAP: ReadonlyMap<string, RiskLevel> = new Map(CATALOG.map((e) => [e.name, e.risk]));

/** `TOOL_CAPABILITIES` of the seed, derived from the one catalog table. */
export const STATIC_CAPABILITIES: ReadonlyMap<string, readonly Capability[]> = new Map(
  CATALOG.map((e) => [e.name, e.capabilities]),
);
