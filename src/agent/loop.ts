import type { Decision } from '../approval/decision.ts';
import { ARGS_INVALID, OVER_CALL_LIMIT, type StepZeroRefusal } from '../approval/gate.ts';
import type { ToolResult } from '../tools/types.ts';
import { printable } from '../util/printable.ts';
import { pairSafeEnd } from '../tools/spill.ts';
import { redactText } from '../util/redact.ts';
import type { ChatClient, ChatMessage, OfferedFunction, ToolCallRequest } from './model-client.ts';
import { ModelEndpointError } from './model-errors.ts';
import { fittedToolMessage, type MessageSpill } from './tool-message.ts';
import { abortReason } from '../util/abort-reason.ts';

export interface AgentLimits {
  readonly maxTurns: number;
  /** Per model response. */
  readonly maxTokens: number;
  /** Over the whole loop; the loop stops once the model has used this many. */
  readonly tokenBudget: number;
  readonly maxDenials: number;
  readonly temperature: number;
  /** Tool calls one model response may make; the rest are refused unrun (model.max_tool_calls_per_turn). */
  readonly maxToolCallsPerTurn?: number;
}

/** As model.max_tool_calls_per_turn's default. */
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 16;
/** How much of a tool name the model sent the records keep (function names are at most 64 characters). */
export const TOOL_NAME_MAX_CHARS = 128;
/** How much of a failed call's error a run's output keeps. */
export const CALL_ERROR_MAX_CHARS = 500;

export interface CallOutcome {
  readonly decision: Pick<Decision, 'outcome' | 'step' | 'rule' | 'reason'> | null;
  readonly result: ToolResult;
}

/** Runs one tool call the model asked for; the caller owns the gate and the executor. */
export type ToolCaller = (call: { tool: string; args: Record<string, unknown> }, callIndex: number, signal: AbortSignal) => Promise<CallOutcome>;

export type AgentStatus = 'completed' | 'denied' | 'max_turns' | 'token_budget' | 'cancelled' | 'model_error';

export interface CallRecord {
  readonly index: number;
  readonly tool: string;
  readonly decision: CallOutcome['decision'];
  readonly success: boolean;
  readonly errorKind?: string;
  /** Why it failed, redacted and at most CALL_ERROR_MAX_CHARS: what `runs show` tells an admin. */
  readonly error?: string;
}

export interface AgentOutcome {
  readonly status: AgentStatus;
  readonly final: string | null;
  readonly messages: ChatMessage[];
  readonly calls: CallRecord[];
  readonly denials: number;
  readonly turns: number;
  readonly tokens: number;
  readonly error: string | null;
  /** A model_error that may pass on another attempt (endpoint down, timeout, 429, 5xx); false for a refusal or a bad answer. */
  readonly transient?: boolean;
}

/** A call refused before the gate (arguments invalid, over the per-response limit); returns what was audited (I8). */
export type BeforeGateRefusal = (call: { tool: string; args: Record<string, unknown> }, callIndex: number, refusal: StepZeroRefusal) => Promise<CallOutcome['decision']>;

export interface AgentTurnInput {
  readonly prompt: string;
  readonly system: string;
  readonly model: string;
  /** Exactly the context's effective tool set (I10). */
  readonly tools: readonly OfferedFunction[];
  readonly chat: ChatClient;
  readonly call: ToolCaller;
  readonly limits: AgentLimits;
  readonly signal: AbortSignal;
  readonly onDenial?: () => Promise<number>;
  /** What the whole run has used, shared by a loop and its sub-agents: one budget for all of them. */
  readonly spent?: RunSpending;
  /** Audits calls refused before the gate; without it they are only in the outcome. */
  readonly refuse?: BeforeGateRefusal;
  /** Where results too long for one message go (read_spill reads them); without it the cut part is only described. */
  readonly spill?: Omit<MessageSpill, 'tool'>;
}

/** A run's running totals; sub-agent loops add to their parent's. */
export interface RunSpending {
  tokens: number;
  denials: number;
}

/**
 * The agent loop: model → tool calls → gate and executor → results back →
 * model, until it answers without calls or a limit stops it. A refusal goes
 * back to the model as a tool error; max_denials refusals end the run.
 */
export async function runAgentLoop(input: AgentTurnInput): Promise<AgentOutcome> {
  const { limits, signal } = input;
  const messages: ChatMessage[] = [{ role: 'system', content: input.system }, { role: 'user', content: input.prompt }];
  const calls: CallRecord[] = [];
  const spent: RunSpending = input.spent ?? { tokens: 0, denials: 0 };
  let tokens = 0;
  let turns = 0;
  const done = (status: AgentStatus, final: string | null, error: string | null = null, transient = false): AgentOutcome =>
    ({ status, final, messages, calls, denials: spent.denials, turns, tokens, error, ...(status === 'model_error' ? { transient } : {}) });
  const maxCalls = limits.maxToolCallsPerTurn ?? DEFAULT_MAX_TOOL_CALLS_PER_TURN;
  const overBudget = () => (spent.denials >= limits.maxDenials ? done('denied', null, `stopped after ${spent.denials} refusals (max_denials_per_run)`)
    : spent.tokens >= limits.tokenBudget ? done('token_budget', null, `stopped after using ${spent.tokens} tokens (budget ${limits.tokenBudget})`) : null);

  while (turns < limits.maxTurns) {
    if (signal.aborted) return done('cancelled', null, abortReason(signal));
    // a sub-agent may have used up the run's refusals or tokens
    const spentOut = overBudget();
    if (spentOut) return spentOut;
    turns++;
    let res;
    try {
      res = await input.chat.complete({ model: input.model, messages, tools: input.tools, temperature: limits.temperature, max_tokens: limits.maxTokens, signal });
    } catch (err) {
      if (signal.aborted) return done('cancelled', null, abortReason(signal));
      // the client names the endpoint, the model and the cause; anything else it threw is a failure worth another try
      if (err instanceof ModelEndpointError) return done('model_error', null, redactText(err.message), err.transient);
      return done('model_error', null, redactText(`the model endpoint failed: ${(err as Error).message}`), true);
    }
    tokens += res.total_tokens;
    spent.tokens += res.total_tokens;
    messages.push({ role: 'assistant', content: res.content, ...(res.tool_calls.length > 0 ? { tool_calls: res.tool_calls } : {}) });
    if (res.tool_calls.length === 0) return done('completed', res.content);
    // the response that crossed the budget does not get its calls run
    const crossed = overBudget();
    if (crossed) return crossed;

    for (const [n, asked] of res.tool_calls.entries()) {
      const index = calls.length;
      // the name is model input that lands in audit records and run output: no line breaks or escapes there
      const request = { ...asked, name: printable(asked.name, TOOL_NAME_MAX_CHARS) };
      // every call of the response gets its answer; past the limit the answer is that it was not run
      const { outcome, malformed } = n < maxCalls
        ? await callOne(input, request, index, signal)
        : { malformed: false, outcome: await refused(input, request, index, OVER_CALL_LIMIT, `not run: this response asked for ${res.tool_calls.length} tool calls and one response may make at most ${maxCalls} (model.max_tool_calls_per_turn); ask again for the calls still needed, at most ${maxCalls} at a time`) };
      calls.push(callRecord(index, request.name, outcome));
      messages.push({ role: 'tool', tool_call_id: request.id, content: await toolMessage(input, request.name, outcome, !malformed, signal) });
      if (countsAsRefusal(outcome.decision)) {
        spent.denials = input.onDenial ? await input.onDenial() : spent.denials + 1;
      }
      // checked after every call, not once per response: a call past a limit never runs
      const stop = overBudget();
      if (stop) return stop;
      if (signal.aborted) return done('cancelled', null, abortReason(signal));
    }
  }
  return done('max_turns', null, `stopped after ${limits.maxTurns} model turns (max_turns)`);
}

async function callOne(input: AgentTurnInput, request: ToolCallRequest, index: number, signal: AbortSignal): Promise<{ outcome: CallOutcome; malformed: boolean }> {
  const args = parseArguments(request.arguments);
  // a tool this context does not offer is refused by the gate whatever its arguments; it still judges and
  // records the ones the model sent, so the record shows what was tried and the strictest rule it met (I7, I8, I10)
  if (!input.tools.some((t) => t.name === request.name)) {
    return { malformed: false, outcome: await input.call({ tool: request.name, args: typeof args === 'string' ? {} : args }, index, signal) };
  }
  if (typeof args === 'string') {
    const raw = request.arguments.length > 200 ? `${request.arguments.slice(0, 200)}…` : request.arguments;
    return { malformed: true, outcome: await refused(input, request, index, ARGS_INVALID, `the arguments of ${request.name} ${args}: ${JSON.stringify(raw)}`, `the arguments of ${request.name} ${args}`) };
  }
  return { malformed: false, outcome: await input.call({ tool: request.name, args }, index, signal) };
}

/** A call the loop refuses itself, before the gate: audited through `refuse` (I8), answered as a validation error. */
async function refused(input: AgentTurnInput, request: ToolCallRequest, index: number, rule: StepZeroRefusal['rule'], reason: string, told = reason): Promise<CallOutcome> {
  const args = parseArguments(request.arguments);
  const decision = input.refuse ? await input.refuse({ tool: request.name, args: typeof args === 'string' ? {} : args }, index, { rule, reason }) : null;
  return { decision, result: { success: false, errorKind: 'validation', error: told } };
}

/** Refusals the model cannot put right by itself count towards max_denials_per_run; bad arguments and surplus calls do not. */
function countsAsRefusal(d: CallOutcome['decision']): boolean {
  return d !== null && d.outcome !== 'allow' && d.rule !== ARGS_INVALID && d.rule !== OVER_CALL_LIMIT;
}

function callRecord(index: number, tool: string, o: CallOutcome): CallRecord {
  const r = o.result;
  const error = r.success ? undefined : capped(redactText(r.error ?? r.errorKind ?? 'failed'), CALL_ERROR_MAX_CHARS);
  return { index, tool, decision: o.decision, success: r.success, ...(r.errorKind ? { errorKind: r.errorKind } : {}), ...(error !== undefined ? { error } : {}) };
}

function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, pairSafeEnd(text, max - 1))}…`;
}

/** Past these, arguments are refused unread: every later step (hashing, redaction, the guard) walks them. */
const MAX_ARGUMENT_CHARS = 1_048_576;
const MAX_ARGUMENT_DEPTH = 64;

/** How deep brackets nest in JSON text, strings skipped; counted without parsing, so any depth is safe to measure. */
function nesting(raw: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') deepest = Math.max(deepest, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return deepest;
}

/** The call's arguments as an object, or what is wrong with them. */
function parseArguments(raw: string): Record<string, unknown> | string {
  if (raw.length > MAX_ARGUMENT_CHARS) return `are longer than ${MAX_ARGUMENT_CHARS} characters`;
  if (nesting(raw) > MAX_ARGUMENT_DEPTH) return `nest deeper than ${MAX_ARGUMENT_DEPTH} levels`;
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return 'are not valid JSON';
  }
  return args === null || typeof args !== 'object' || Array.isArray(args) ? 'must be a JSON object' : args as Record<string, unknown>;
}

function toolMessage(input: AgentTurnInput, tool: string, o: CallOutcome, parsed: boolean, signal: AbortSignal): Promise<string> {
  const r = o.result;
  const body = r.success
    ? { ok: true, output: r.output ?? null }
    : { ok: false, error_kind: r.errorKind ?? 'internal', error: r.error ?? 'failed', ...(o.decision && o.decision.outcome !== 'allow' ? { refused_by: o.decision.rule } : {}), ...(parsed ? {} : { hint: 'send the arguments as one JSON object' }) };
  // a spill is only worth making when the model can read it back, and a cancelled turn never will
  const readable = input.spill && !signal.aborted && input.tools.some((t) => t.name === 'read_spill');
  return fittedToolMessage(body, readable ? { ...input.spill!, tool } : undefined);
}

