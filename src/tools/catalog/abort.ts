import { fail, type ToolResult } from '../types.ts';

/** Why a signal fired (the executor's `timeout`, the daemon's `shutdown`, a lost lease). */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : reason === undefined ? 'cancelled' : String(reason);
}

/**
 * The result of a tool that stopped because its call's signal fired: `timeout`, as exec, web_fetch and
 * the executor report a cancelled call, and `state` says what was left behind (nothing written, ...).
 */
export function stoppedByAbort(tool: string, signal: AbortSignal, state: string): ToolResult {
  return fail('timeout', `${tool}: stopped (${abortReason(signal)}); ${state}`);
}
