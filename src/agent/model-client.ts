import OpenAI from 'openai';
import { endpointName, ModelEndpointError, modelFailure, retryWaitMs, shapeProblem, sleep, type EndpointInfo } from './model-errors.ts';
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
  /** The limit for one model response, every attempt and the waits between them included. */
  readonly timeoutMs: number;
  /** Further attempts after a transient failure (connection, 408, 429, 5xx), within timeoutMs; smart approval wants none. */
  readonly maxRetries?: number;
}

/** An OpenAI-compatible chat-completions endpoint through the `openai` package. */
export function openAiChatClient(opts: OpenAiClientOptions): ChatClient {
  // local endpoints often need no key, but the SDK insists on one; the SDK's own retries are off:
  // ours count attempts and keep them inside timeoutMs, so a message can say what happened and when
  const client = new OpenAI({ baseURL: opts.baseURL, apiKey: opts.apiKey || 'unused', timeout: opts.timeoutMs, maxRetries: 0 });
  const endpoint = endpointName(opts.baseURL);
  const parsed = URL.canParse(opts.baseURL) ? new URL(opts.baseURL) : null;
  const userinfo = parsed !== null && (parsed.username !== '' || parsed.password !== '');
  const retries = opts.maxRetries ?? 2;
  return {
    async complete(req) {
      const where = { endpoint, model: req.model, timeoutMs: opts.timeoutMs };
      if (userinfo) throw new ModelEndpointError(`model.base_url for ${endpoint} holds a user name or password, which HTTP clients refuse to send; put the key in model.api_key`, 'unreachable', false);
      const deadline = performance.now() + opts.timeoutMs;
      for (let attempt = 1; ; attempt++) {
        // the SDK leaves a listener on the signal it is given, one per request: it gets one of its own, dropped after
        const request = new AbortController();
        const onAbort = () => request.abort(req.signal.reason);
        if (req.signal.aborted) onAbort();
        else req.signal.addEventListener('abort', onAbort, { once: true });
        try {
          const { data, response } = await client.chat.completions.create({
            model: req.model,
            messages: req.messages.map(toSdkMessage),
            temperature: req.temperature,
            max_tokens: req.max_tokens,
            ...(req.tools && req.tools.length > 0
              ? { tools: req.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> } })) }
              : {}),
          }, { signal: request.signal, timeout: Math.max(1, Math.round(deadline - performance.now())) }).withResponse();
          return chatResponse(data as unknown, response, req, where);
        } catch (err) {
          if (req.signal.aborted || err instanceof ModelEndpointError) throw err;
          const failure = modelFailure(err, where, attempt);
          const wait = retryWaitMs(err, attempt);
          if (!failure.retry || attempt > retries || performance.now() + wait >= deadline) throw failure.error;
          await sleep(wait, req.signal);
        } finally {
          req.signal.removeEventListener('abort', onAbort);
        }
      }
    },
  };
}

/** A 200 answer checked for what the loop needs; one that is no chat completion is a ModelEndpointError, not a crash or an empty success. */
function chatResponse(data: unknown, response: Response, req: ChatRequest, w: EndpointInfo): ChatResponse {
  const problem = shapeProblem(data);
  if (problem) {
    const type = response.headers.get('content-type') ?? 'no content type';
    throw new ModelEndpointError(`the model endpoint at ${w.endpoint} (model ${JSON.stringify(w.model)}) ${problem} (HTTP ${response.status}, ${type})`, 'bad_response', false);
  }
  const completion = data as OpenAI.Chat.Completions.ChatCompletion;
  const choice = completion.choices[0]!;
  const calls = (choice.message.tool_calls ?? []).flatMap((c, i) => (c.type === 'function' && typeof c.function?.name === 'string'
    ? [{ id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}) }]
    : []));
  const content = typeof choice.message.content === 'string' ? choice.message.content : null;
  return {
    content,
    tool_calls: calls,
    finish_reason: choice.finish_reason ?? 'unknown',
    // an endpoint that reports no usage is still held to the budget: about 4 characters a token
    total_tokens: completion.usage?.total_tokens ?? estimateTokens(req.messages, content ?? '', calls),
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
