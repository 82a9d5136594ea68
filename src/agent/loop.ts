import type { Decision } from '../approval/decision.ts';
import type { ToolResult } from '../tools/types.ts';
import { redactText } from '../util/redact.ts';
import type { ChatClient, ChatMessage, OfferedFunction, ToolCallRequest } from './model-client.ts';

export interface AgentLimits {
  readonly maxTurns: number;
  /** Per model response. */
  readonly maxTokens: number;
  /** Over the whole loop; the loop stops once the model has used this many. */
  readonly tokenBudget: number;
  readonly maxDenials: number;
  readonly temperature: number;
}

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
}

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
}

/** A run's running totals; sub-agent loops add to their parent's. */
export interface RunSpending {
  tokens: number;
  denials: number;
}

/** What the model gets back from one call; long outputs are cut (big files are spilled by the tools themselves). */
export const TOOL_MESSAGE_MAX_CHARS = 16_000;

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
  const done = (status: AgentStatus, final: string | null, error: string | null = null): AgentOutcome =>
    ({ status, final, messages, calls, denials: spent.denials, turns, tokens, error });
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
      return done('model_error', null, redactText(`the model endpoint failed: ${(err as Error).message}`));
    }
    tokens += res.total_tokens;
    spent.tokens += res.total_tokens;
    messages.push({ role: 'assistant', content: res.content, ...(res.tool_calls.length > 0 ? { tool_calls: res.tool_calls } : {}) });
    if (res.tool_calls.length === 0) return done('completed', res.content);
    // the response that crossed the budget does not get its calls run
    const crossed = overBudget();
    if (crossed) return crossed;

    for (const request of res.tool_calls) {
      const index = calls.length;
      const { outcome, malformed } = await callOne(input, request, index, signal);
      calls.push({ index, tool: request.name, decision: outcome.decision, success: outcome.result.success, ...(outcome.result.errorKind ? { errorKind: outcome.result.errorKind } : {}) });
      messages.push({ role: 'tool', tool_call_id: request.id, content: toolMessage(outcome, !malformed) });
      if (outcome.decision && outcome.decision.outcome !== 'allow') {
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
    return { malformed: true, outcome: { decision: null, result: { success: false, errorKind: 'validation', error: `the arguments of ${request.name} ${args}` } } };
  }
  return { malformed: false, outcome: await input.call({ tool: request.name, args }, index, signal) };
}

/** The call's arguments as an object, or what is wrong with them. */
function parseArguments(raw: string): Record<string, unknown> | string {
  let args: unknown;
  try {
    args = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return 'are not valid JSON';
  }
  return args === null || typeof args !== 'object' || Array.isArray(args) ? 'must be a JSON object' : args as Record<string, unknown>;
}

function toolMessage(o: CallOutcome, parsed: boolean): string {
  const r = o.result;
  const body = r.success
    ? { ok: true, output: r.output ?? null }
    : { ok: false, error_kind: r.errorKind ?? 'internal', error: r.error ?? 'failed', ...(o.decision && o.decision.outcome !== 'allow' ? { refused_by: o.decision.rule } : {}), ...(parsed ? {} : { hint: 'send the arguments as one JSON object' }) };
  const text = redactText(JSON.stringify(body));
  return text.length <= TOOL_MESSAGE_MAX_CHARS ? text : `${text.slice(0, TOOL_MESSAGE_MAX_CHARS)}… [cut: ${text.length} chars in all]`;
}

function abortReason(signal: AbortSignal): string {
  return String((signal.reason as Error | undefined)?.message ?? 'aborted');
}
