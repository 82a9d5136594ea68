import OpenAI from 'openai';
import type { JsonSchema } from '../tools/catalog-table.ts';

export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  /** As the model sent it: JSON text that may not parse. */
  readonly arguments: string;
}

export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly ToolCallRequest[] }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string };

export interface OfferedFunction {
  readonly name: string;
  readonly description: string;
  readonly parameters: JsonSchema;
}

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly OfferedFunction[];
  readonly temperature: number;
  readonly max_tokens: number;
  readonly signal: AbortSignal;
}

export interface ChatResponse {
  readonly content: string | null;
  readonly tool_calls: readonly ToolCallRequest[];
  readonly finish_reason: string;
  readonly total_tokens: number;
}

/** The one seam between echo-agent and a language model (the agent loop and smart approval). */
export interface ChatClient {
  complete(req: ChatRequest): Promise<ChatResponse>;
}

export interface OpenAiClientOptions {
  readonly baseURL: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  /** The SDK's own retries; smart approval wants none (its deadline is hard). */
  readonly maxRetries?: number;
}

/** An OpenAI-compatible chat-completions endpoint through the `openai` package. */
export function openAiChatClient(opts: OpenAiClientOptions): ChatClient {
  // local endpoints often need no key, but the SDK insists on one
  const client = new OpenAI({ baseURL: opts.baseURL, apiKey: opts.apiKey || 'unused', timeout: opts.timeoutMs, maxRetries: opts.maxRetries ?? 2 });
  return {
    async complete(req) {
      const completion = await client.chat.completions.create({
        model: req.model,
        messages: req.messages.map(toSdkMessage),
        temperature: req.temperature,
        max_tokens: req.max_tokens,
        ...(req.tools && req.tools.length > 0
          ? { tools: req.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> } })) }
          : {}),
      }, { signal: req.signal });
      const choice = completion.choices[0];
      const calls = (choice?.message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : []));
      return {
        content: choice?.message.content ?? null,
        tool_calls: calls,
        finish_reason: choice?.finish_reason ?? 'unknown',
        // an endpoint that reports no usage is still held to the budget: about 4 characters a token
        total_tokens: completion.usage?.total_tokens ?? estimateTokens(req.messages, choice?.message.content ?? '', calls),
      };
    },
  };
}

function toSdkMessage(m: ChatMessage): OpenAI.Chat.Completions.ChatCompletionMessageParam {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
  if (m.role === 'assistant') {
    return {
      role: 'assistant',
      content: m.content,
      ...(m.tool_calls && m.tool_calls.length > 0
        ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
        : {}),
    };
  }
  return { role: m.role, content: m.content };
}

/** A rough count for endpoints without `usage`: prompt and answer at about 4 characters a token. */
export function estimateTokens(messages: readonly ChatMessage[], answer: string, calls: readonly { arguments: string }[]): number {
  const chars = JSON.stringify(messages).length + answer.length + calls.reduce((n, c) => n + c.arguments.length, 0);
  return Math.ceil(chars / 4);
}
