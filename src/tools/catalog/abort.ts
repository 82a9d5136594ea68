import { abortReason } from '../../util/abort-reason.ts';
import { fail, type ToolResult } from '../types.ts';

/**
 * The result of a tool that stopped because its call's signal fired: `timeout`, as exec, web_fetch and
 * the executor report a cancelled call, and `state` says what was left behind (nothing written, ...).
 */
export function stoppedByAbort(tool: string, signal: AbortSignal, state: string): ToolResult {
  return fail('timeout', `${tool}: stopped (${abortReason(signal)}); ${state}`);
}
