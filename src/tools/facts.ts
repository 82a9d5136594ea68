import type { Config } from '../config/schema.ts';
import type { ToolFacts } from '../policy/effective-tools.ts';
import { CATALOG, CATALOG_BY_NAME, type CatalogEntry } from './catalog-table.ts';
import { readiness } from './readiness.ts';
import type { Tool } from './types.ts';

export function catalogFacts(entry: CatalogEntry, config: Config): ToolFacts {
  const [ready, detail] = readiness(entry, config);
  return { name: entry.name, riskLevel: entry.risk, capabilities: entry.capabilities, reserved: entry.reserved ?? false, ready, readinessDetail: detail, network: entry.reachesNetwork === true };
}

/**
 * Policy facts of a live tool. Declared risk and capabilities join the
 * catalog's; neither can lower what the catalog says (I7).
 */
export function liveToolFacts(tool: Tool): ToolFacts {
  const entry = CATALOG_BY_NAME.get(tool.name);
  const [ready, detail] = tool.readinessDetail();
  // not in the catalog: an external (MCP-style) tool, which SPEC §3 marks with mcp.call
  const capabilities = [...new Set([...(entry?.capabilities ?? ['mcp.call' as const]), ...tool.capabilities])];
  return { name: tool.name, riskLevel: tool.riskLevel, capabilities, reserved: entry?.reserved ?? false, ready: ready && tool.isReady(), readinessDetail: detail, network: entry?.reachesNetwork === true };
}

/** Lookup over the catalog metadata, for contexts that judge calls without running them. */
export function catalogLookup(config: Config): (name: string) => ToolFacts | undefined {
  const facts = new Map(CATALOG.map((e) => [e.name, catalogFacts(e, config)]));
  return (name) => facts.get(name);
}
