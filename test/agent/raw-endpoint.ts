import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one request gets: a status, headers and a body as they are, or no answer at all. */
export type RawReply = { status?: number; type?: string; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * An HTTP server on 127.0.0.1 that answers chat-completion requests with whatever the test says,
 * well-formed or not (HTML, empty choices, 404s), or never: what a misconfigured or broken
 * endpoint does, which the scripted fake model does not.
 */
export async function startRawEndpoint(reply: (n: number) => RawReply) {
  let requests = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const r = reply(requests++);
      if (r === 'hang') return;
      res.writeHead(r.status ?? 200, { 'content-type': r.type ?? 'application/json', ...r.headers }).end(r.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago): connecting is refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A valid chat completion with one answer. */
export const completion = (content: string) => JSON.stringify({
  id: 'c1', object: 'chat.completion', created: 0, model: 'm',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
