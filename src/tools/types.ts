import type { Capability } from '../policy/capabilities.ts';
import type { RiskLevel } from '../policy/risk.ts';
import type { JsonSchema } from './catalog-table.ts';
import type { ToolExecutionContext } from './context.ts';

export const ERROR_KINDS = ['business', 'validation', 'timeout', 'denied', 'unavailable', 'internal'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface ToolResult {
  readonly success: boolean;
  readonly output?: unknown;
  readonly error?: string;
  readonly errorKind?: ErrorKind;
  /** A failure after the effect started (a command ran and exited non-zero): recorded so a replay does not repeat it. */
  readonly effectful?: true;
}

/** How the gate let this call through; tools that issue lasting grants read it (cronjob). */
export interface CallApproval {
  readonly approval_source: 'human' | 'auto';
  readonly approval_id?: string;
  readonly approver?: string;
  /** With a human approval: the non-public network targets the person saw flagged, and so approved (SPEC §6). */
  readonly approved_targets?: readonly string[];
}

/** What a tool's execute receives besides its params: a cancel signal and the call's approval. */
export interface ExecuteOptions {
  readonly signal: AbortSignal;
  readonly approval?: CallApproval;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
  readonly timeoutSeconds: number;
  readonly maxRetries: number;
  readonly streamCapable: boolean;
  readonly capabilities: readonly (Capability | string)[];
  readonly riskLevel: RiskLevel;
  isReady(): boolean;
  readinessDetail(): readonly [boolean, string];
  execute(params: Record<string, unknown>, ctx: ToolExecutionContext | undefined, opts: ExecuteOptions): Promise<ToolResult>;
  /**
   * Checks of schema-valid arguments that need the tool's own knowledge (a job
   * definition against the stored job): an error naming the field, or null. Runs before the gate.
   */
  precheck?(params: Record<string, unknown>): Promise<string | null>;
}

export const TOOL_DEFAULTS = {
  timeoutSeconds: 30,
  maxRetries: 0,
  streamCapable: false,
  riskLevel: 'write' as RiskLevel,
} as const;

export function ok(output?: unknown): ToolResult {
  return output === undefined ? { success: true } : { success: true, output };
}

export function fail(errorKind: ErrorKind, error: string): ToolResult {
  return { success: false, error, errorKind };
}
