import type { Config } from '../config/schema.ts';
import { CATALOG_BY_NAME } from './catalog-table.ts';
import { readiness as catalogReadiness } from './readiness.ts';
import type { ToolExecutionContext } from './context.ts';
import { TOOL_DEFAULTS, type ExecuteOptions, type Tool, type ToolResult } from './types.ts';

export interface ToolImplementation {
  readonly execute: (params: Record<string, unknown>, ctx: ToolExecutionContext | undefined, opts: ExecuteOptions) => Promise<ToolResult>;
  readonly timeoutSeconds?: number;
  readonly maxRetries?: number;
  readonly precheck?: Tool['precheck'];
}

/**
 * A built-in tool: metadata and readiness come from the one catalog table and
 * the config; only behaviour is given here.
 */
export function defineTool(name: string, config: Config, impl: ToolImplementation): Tool {
  const entry = CATALOG_BY_NAME.get(name);
  if (!entry) throw new Error(`defineTool: ${name} is not in the catalog`);
  const ready = catalogReadiness(entry, config);
  const readiness = () => ready;
  return {
    name,
    description: entry.description,
    parameters: entry.parameters,
    timeoutSeconds: impl.timeoutSeconds ?? TOOL_DEFAULTS.timeoutSeconds,
    maxRetries: impl.maxRetries ?? TOOL_DEFAULTS.maxRetries,
    streamCapable: TOOL_DEFAULTS.streamCapable,
    capabilities: entry.capabilities,
    riskLevel: entry.risk,
    isReady: () => readiness()[0],
    readinessDetail: readiness,
    execute: impl.execute,
    ...(impl.precheck ? { precheck: impl.precheck } : {}),
  };
}
