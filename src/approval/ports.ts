import type { GuardFinding } from '../guard/types.ts';
import type { RiskLevel } from '../policy/risk.ts';
import type { ToolExecutionContext } from '../tools/context.ts';

/** Time for the gate's waits; injected (util/system-ports.ts has the system's). */
export interface Clock {
  now(): Date;
  /** Resolves after ms; rejects never. */
  sleep(ms: number): Promise<void>;
}

export interface ReviewRequest {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly risk: RiskLevel;
  readonly flags: readonly GuardFinding[];
}

export type SmartVerdict = 'APPROVE' | 'DENY' | 'ESCALATE';

/** Step 10: an LLM pre-screen. Anything but APPROVE/DENY, an error or a timeout means escalate. */
export interface SmartReviewer {
  review(req: ReviewRequest, signal: AbortSignal): Promise<SmartVerdict>;
}

export interface ApprovalRequest {
  readonly request_id: string;
  readonly call_hash: string;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly risk: RiskLevel;
  readonly flags: readonly GuardFinding[];
  /** Scopes an "always" answer would record. */
  readonly scopes: readonly string[];
  readonly allow_always: boolean;
  readonly ctx: ToolExecutionContext;
  readonly expires_at: Date;
}

/** An answer someone gave, bound to the request id and the call hash. */
export interface GivenAnswer { readonly answer: 'once' | 'always' | 'deny'; readonly approver: string; readonly request_id: string; readonly call_hash: string }

/** `unverified`: an answer is stored, but not one given with the request's code (answer-code.ts), so nobody shown the request gave it. */
export type ApprovalAnswer = GivenAnswer | { readonly answer: 'timeout' | 'unavailable' | 'unverified' };

/** Step 11: asks a human. Must persist the request before waiting (it survives a restart). */
export interface HumanApprover {
  ask(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/**
 * A daemon run's human grant, as the gate sees it. Injected by the daemon; attended
 * calls have none. A call of a tool the grant does not cover is judged as one without it.
 */
export interface RunGrant {
  /** The grant the run started with; a decision that relies on it or judges it names it, so its audit line says whose approval it was. */
  readonly id?: string | null;
  /** Whether the grant the run started with is still live and the same one; asked before a call relies on it. */
  inForce(): Promise<boolean>;
  /** Whether the person who approved the job was shown this tool as one its runs may use (I2). */
  covers(tool: string): boolean;
}

export interface AllowlistRecord {
  readonly id: string;
  readonly tool: string;
  readonly scope: string;
  readonly created_by: string;
  readonly created_at: Date;
  readonly reason: string;
}

/** Step 9: persistent approvals made by a human choosing "always". */
export interface AllowlistStore {
  find(tool: string, scope: string): Promise<AllowlistRecord | null>;
  add(record: { tool: string; scope: string; created_by: string; reason: string; approval_id: string }): Promise<AllowlistRecord>;
}

export const emptyAllowlist: AllowlistStore = {
  find: async () => null,
  add: async () => {
    throw new Error('this allowlist store cannot record approvals');
  },
};
