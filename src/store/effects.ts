import { eq } from 'drizzle-orm';
import type { EffectLedger } from '../tools/effects.ts';
import type { ToolResult } from '../tools/types.ts';
import { redact } from '../util/redact.ts';
import { jsonSafe } from './audit.ts';
import type { Executor } from './db.ts';
import { toolEffects } from './schema.ts';

/** The effect ledger in PostgreSQL; survives restarts, so a redelivered run does not repeat a side effect. */
export function effectLedger(exec: Executor): EffectLedger {
  return {
    async recall(key) {
      const [row] = await exec.select().from(toolEffects).where(eq(toolEffects.idempotency_key, key));
      return (row?.result as ToolResult | undefined) ?? null;
    },
    async remember(key, tool, result) {
      await exec.insert(toolEffects).values({ idempotency_key: key, tool, result: jsonSafe(redact(result)) as unknown as Record<string, unknown> }).onConflictDoNothing();
    },
  };
}
