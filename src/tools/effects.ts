import type { ToolResult } from './types.ts';

/**
 * What side-effecting calls recorded, by idempotency key, so a replay returns
 * the first result instead of repeating the effect.
 */
export interface EffectLedger {
  recall(idempotencyKey: string): Promise<ToolResult | null>;
  remember(idempotencyKey: string, tool: string, result: ToolResult): Promise<void>;
}

export class MemoryEffectLedger implements EffectLedger {
  private readonly results = new Map<string, ToolResult>();
  async recall(key: string) {
    return this.results.get(key) ?? null;
  }
  async remember(key: string, _tool: string, result: ToolResult) {
    this.results.set(key, result);
  }
}
