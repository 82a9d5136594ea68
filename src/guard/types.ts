import type { ToolExecutionContext } from '../tools/context.ts';

export type GuardDecision = 'allow' | 'ask' | 'deny';

/** One rule match: `rule` is a stable id from the guard's rule tables, `matched` the text it matched. */
export interface GuardFinding {
  readonly rule: string;
  readonly severity: 'deny' | 'ask';
  readonly matched: string;
  readonly reason: string;
  /**
   * For a non-public network target: the address (or, for a name rule, the name) it is about.
   * A person's approval of the call covers these targets only, not what a later lookup returns.
   */
  readonly target?: string;
}

/** A command of a shell line after normalisation, used for allowlist scopes. */
export interface NormalisedCommand {
  /** The program's name; for a program word with a `/` (`./build.sh`, `/opt/x/run`), the file's absolute path. */
  readonly program: string;
  readonly subcommand?: string;
  /**
   * Set when the program word names a file rather than a name found on PATH: true when `program` is its path,
   * false when where it lies cannot be known (an unknown directory), so that nothing may match it.
   */
  readonly file?: boolean;
  /** `GIT_DIR=gd git status`: variables the line sets that are part of the scope (see shell/git-scope.ts). */
  readonly env?: readonly string[];
  /** `git -C sub status`: options before the sub-command that are part of the scope. */
  readonly options?: readonly string[];
  /** Set when such a variable or option has a value the guard cannot see: no record may match the command. */
  readonly unscoped?: boolean;
}

export interface GuardVerdict {
  readonly decision: GuardDecision;
  readonly findings: readonly GuardFinding[];
  /** For shell input: every command found, so approvals can be scoped to program + sub-command. */
  readonly commands?: readonly NormalisedCommand[];
}

export interface GuardedCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** Step 1 of the gate. Implementations hold their I/O (DNS, realpath) behind injected functions. */
export interface Guard {
  inspect(call: GuardedCall, ctx: ToolExecutionContext): Promise<GuardVerdict>;
  /** Where the call writes, for unattended allow_safe. */
  writeScope(call: GuardedCall): Promise<WriteScope>;
}

/**
 * `workspace`: every path the call writes stays inside it; `outside`: some path
 * leaves it or cannot be known; `not_files`: the tool's effect is not a file write
 * (a message, a job, memory), which no workspace policy can vouch for.
 */
export type WriteScope = 'workspace' | 'outside' | 'not_files';

export const ALLOW_VERDICT: GuardVerdict = Object.freeze({ decision: 'allow', findings: Object.freeze([]) as readonly GuardFinding[] });

/** The verdict of several findings: any deny wins, then any ask. */
export function verdictOf(findings: readonly GuardFinding[], commands?: readonly NormalisedCommand[]): GuardVerdict {
  const decision: GuardDecision = findings.some((f) => f.severity === 'deny') ? 'deny' : findings.length > 0 ? 'ask' : 'allow';
  return commands ? { decision, findings, commands } : { decision, findings };
}

/** A guard that finds nothing; for contexts where no guard applies. */
export const permissiveGuard: Guard = {
  inspect: async () => ALLOW_VERDICT,
  writeScope: async () => 'workspace',
};
