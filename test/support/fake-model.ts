import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatBody {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  temperature?: number;
  max_tokens?: number;
}

export interface Reply {
  readonly content?: string | null;
  readonly tool_calls?: readonly { readonly name: string; readonly arguments: unknown }[];
  readonly delayMs?: number;
  /** The reply is held until this settles (then delayMs, if any): a test releases it once it has done its part. */
  readonly until?: Promise<unknown>;
  readonly status?: number;
  readonly tokens?: number;
}

export type Script = (body: ChatBody, n: number) => Reply;

/**
 * An OpenAI-compatible chat-completions server on 127.0.0.1 that answers from a
 * script, so tests make real HTTP round trips through the `openai` client.
 */
export async function startFakeModel(script: Script) {
  const requests: ChatBody[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw) as ChatBody;
      requests.push(body);
      headers.push(req.headers);
      const reply = script(body, requests.length - 1);
      const send = () => {
        if (res.destroyed) return;
        if (reply.status && reply.status !== 200) {
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'scripted failure' } }));
          return;
        }
        const calls = (reply.tool_calls ?? []).map((c, i) => ({
          id: `call_${requests.length}_${i}`, type: 'function',
          function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
        }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
          id: `chatcmpl-${requests.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
          choices: [{ index: 0, finish_reason: calls.length ? 'tool_calls' : 'stop', message: { role: 'assistant', content: reply.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) } }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: reply.tokens ?? 15 },
        }));
      };
      const afterDelay = () => (reply.delayMs ? void setTimeout(send, reply.delayMs) : send());
      if (reply.until) void reply.until.then(afterDelay, afterDelay);
      else afterDelay();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    /** The tool messages the model has been sent so far, parsed. */
    toolMessages(): Record<string, unknown>[] {
      const last = requests.at(-1);
      return (last?.messages ?? []).filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? '{}') as Record<string, unknown>);
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/**
 * A script that answers each conversation by its first user message and how many times that prompt has been
 * answered before: what a test of several jobs on one model needs (each job's prompt, its first turn, its next).
 */
export function byPromptTurn(reply: (prompt: string, turn: number, body: ChatBody) => Reply): Script {
  const turns = new Map<string, number>();
  return (body) => {
    const prompt = body.messages.find((m) => m.role === 'user')?.content ?? '';
    const n = turns.get(prompt) ?? 0;
    turns.set(prompt, n + 1);
    return reply(prompt, n, body);
  };
}
