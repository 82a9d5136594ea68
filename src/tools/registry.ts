import type { ToolFacts } from '../policy/effective-tools.ts';
import { CATALOG } from './catalog-table.ts';
import { liveToolFacts } from './facts.ts';
import type { Tool } from './types.ts';

/** The tools a process can run, plus the catalog rows it cannot (yet), which are never ready. */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const t of tools) {
      if (this.tools.has(t.name)) throw new Error(`tool ${t.name} registered twice`);
      this.tools.set(t.name, t);
    }
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...new Set([...CATALOG.map((e) => e.name), ...this.tools.keys()])];
  }

  /** Policy facts for the gate: a catalog tool without an implementation here is not ready. */
  facts(name: string): ToolFacts | undefined {
    const tool = this.tools.get(name);
    if (tool) return liveToolFacts(tool);
    const entry = CATALOG.find((e) => e.name === name);
    if (!entry) return undefined;
    return {
      name, riskLevel: entry.risk, capabilities: entry.capabilities, reserved: entry.reserved ?? false,
      ready: false, readinessDetail: entry.reserved ? 'reserved, not implemented' : 'not implemented in this build',
    };
  }

  allFacts(): ToolFacts[] {
    return this.names().map((n) => this.facts(n)!);
  }
}
