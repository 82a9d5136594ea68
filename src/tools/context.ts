import { randomUUID } from 'node:crypto';
import { canonicalJson, sha256 } from '../util/canonical-json.ts';
import { deepFreeze } from '../util/deep-freeze.ts';

/** An allowed_tools entry that names no tool: the subset is empty, not unrestricted. */
export const NO_TOOLS = '(no tools)';

export type ApprovalSource = 'human' | 'auto';

/** The seed's ToolExecutionContext, field for field; deeply frozen once built. */
export interface ToolExecutionContext {
  readonly execution_id: string;
  readonly trace_id: string;
  readonly session_key: string;
  readonly memory_scope: string;
  readonly user_id: string;
  readonly agent_id: string;
  readonly attempt_index: number;
  readonly idempotency_key: string;
  readonly is_replay: boolean;
  readonly parent_execution_id: string | null;
  readonly credentials: Readonly<Record<string, string>>;
  readonly approved_actions: readonly string[];
  readonly approval_source: ApprovalSource;
  readonly allowed_tools: readonly string[];
  readonly channel: string;
  readonly chat_id: string;
  readonly reply_to_id: string;
  readonly unattended: boolean;
  readonly cron_authorized: boolean;
  readonly inbound_event_id: string;
}

export type ContextInput = Partial<Omit<ToolExecutionContext, 'idempotency_key'>> & {
  readonly tool?: string;
  readonly call_index?: number;
  readonly params?: unknown;
};

/** trace_id + tool + call index + canonical params: the same call in a retry keeps its key. */
export function idempotencyKey(traceId: string, tool: string, callIndex: number, params: unknown): string {
  return sha256([traceId, tool, String(callIndex), canonicalJson(params ?? {})].join('\u0000'));
}

export function buildContext(input: ContextInput = {}): ToolExecutionContext {
  const trace_id = input.trace_id ?? randomUUID();
  const ctx: ToolExecutionContext = {
    execution_id: input.execution_id ?? randomUUID(),
    trace_id,
    session_key: input.session_key ?? '',
    memory_scope: input.memory_scope ?? input.user_id ?? '',
    user_id: input.user_id ?? '',
    agent_id: input.agent_id ?? 'default',
    attempt_index: input.attempt_index ?? 0,
    idempotency_key: idempotencyKey(trace_id, input.tool ?? '', input.call_index ?? 0, input.params),
    is_replay: input.is_replay ?? false,
    parent_execution_id: input.parent_execution_id ?? null,
    credentials: { ...(input.credentials ?? {}) },
    approved_actions: [...(input.approved_actions ?? [])],
    approval_source: input.approval_source ?? 'auto',
    allowed_tools: [...(input.allowed_tools ?? [])],
    channel: input.channel ?? 'cli',
    chat_id: input.chat_id ?? '',
    reply_to_id: input.reply_to_id ?? '',
    unattended: input.unattended ?? false,
    cron_authorized: input.cron_authorized ?? false,
    inbound_event_id: input.inbound_event_id ?? '',
  };
  return deepFreeze(ctx);
}

/** The context of one tool call: same execution, key derived from this call. */
export function contextForCall(
  base: ToolExecutionContext,
  call: { tool: string; callIndex: number; params: unknown },
  overrides: Partial<Pick<ToolExecutionContext, 'approval_source' | 'attempt_index' | 'is_replay'>> = {},
): ToolExecutionContext {
  return deepFreeze({
    ...base,
    ...overrides,
    idempotency_key: idempotencyKey(base.trace_id, call.tool, call.callIndex, call.params),
  });
}

/** The next attempt of the same call: same idempotency key, attempt_index + 1. */
export function nextAttempt(ctx: ToolExecutionContext): ToolExecutionContext {
  return deepFreeze({ ...ctx, attempt_index: ctx.attempt_index + 1 });
}

/** The same execution held to exactly these tools; an empty list (which would mean "no restriction") says so explicitly. */
export function restrictedTo(ctx: ToolExecutionContext, tools: readonly string[]): ToolExecutionContext {
  return deepFreeze({ ...ctx, allowed_tools: tools.length > 0 ? [...tools] : [NO_TOOLS] });
}

/**
 * A nested execution (sub-agent, delegate_task, spawn_task). It inherits
 * unattended and cron_authorized and can only narrow the tool set (I5).
 */
export function nestedContext(
  parent: ToolExecutionContext,
  opts: { allowed_tools?: readonly string[]; agent_id?: string } = {},
): ToolExecutionContext {
  const narrowed = opts.allowed_tools && opts.allowed_tools.length > 0
    ? parent.allowed_tools.length > 0
      ? opts.allowed_tools.filter((t) => parent.allowed_tools.includes(t))
      : [...opts.allowed_tools]
    : [...parent.allowed_tools];
  return deepFreeze({
    ...parent,
    execution_id: randomUUID(),
    parent_execution_id: parent.execution_id,
    agent_id: opts.agent_id ?? parent.agent_id,
    attempt_index: 0,
    // a retried parent replays its sub-agent too: the child's recorded side effects are recalled, not repeated;
    // its keys live under the parent call's own key (stable across attempts), so they never collide with the parent's
    is_replay: parent.is_replay,
    trace_id: parent.idempotency_key ? `${parent.trace_id}/${parent.idempotency_key.slice(0, 16)}` : parent.trace_id,
    approval_source: 'auto' as const,
    // an empty list means "no restriction", so a narrowing that left nothing must say so explicitly
    allowed_tools: narrowed.length === 0 && (opts.allowed_tools?.length ?? 0) > 0 ? [NO_TOOLS] : narrowed,
    unattended: parent.unattended,
    cron_authorized: parent.cron_authorized,
  });
}

/**
 * The run (or attended turn) a context belongs to, whatever sub-agent or retry it is in: nested contexts extend the
 * trace id (`run/…`), and a run's attempts share it. Counting per execution let each sub-agent start a count of its own.
 */
export function runTrace(ctx: Pick<ToolExecutionContext, 'trace_id'>): string {
  return ctx.trace_id.split('/')[0]!;
}
