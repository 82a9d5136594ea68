import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { buildConnector } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { undiciTransport, type Lookup } from '../../src/tools/net/index.ts';
import type { NetDeps } from '../../src/tools/net-deps.ts';

/**
 * Test stand-in for the internet: dials 127.0.0.1:<mapped port> for a public address and reports the public
 * address as the socket's peer, as a real route to that address would. Records every address it was asked for.
 */
export function fakeInternet(routes: Record<string, number>) {
  const dialled: string[] = [];
  const hostsSeen: (string | undefined)[] = [];
  const connector: buildConnector.connector = (opts, cb) => {
    const key = `${opts.hostname}:${opts.port || (opts.protocol === 'https:' ? 443 : 80)}`;
    dialled.push(key);
    hostsSeen.push(opts.host);
    const port = routes[key];
    if (port === undefined) {
      cb(Object.assign(new Error(`connect ECONNREFUSED ${key}`), { code: 'ECONNREFUSED' }), null);
      return;
    }
    const socket = connect({ host: '127.0.0.1', port });
    Object.defineProperty(socket, 'remoteAddress', { get: () => opts.hostname });
    socket.once('connect', () => cb(null, socket));
    socket.once('error', (e) => cb(e, null));
  };
  return { connector, dialled, hostsSeen };
}

/** A resolver answering from a table; unknown names are NXDOMAIN. */
export const lookupOf = (table: Record<string, string[]>): Lookup => async (host) => {
  const a = table[host];
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return a.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
};

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export type Script = (req: SeenRequest, res: ServerResponse) => void;

/** An HTTP server on 127.0.0.1 answering by a replaceable script; records every connection and request. */
export async function scriptedServer(script: Script = (_q, r) => r.end('ok')) {
  const requests: SeenRequest[] = [];
  const state = { connections: 0, script };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(seen);
      state.script(seen, res);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    get connections() {
      return state.connections;
    },
    answer(next: Script) {
      state.script = next;
    },
    reset() {
      requests.length = 0;
      state.connections = 0;
      state.script = script;
    },
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

export type ScriptedServer = Awaited<ReturnType<typeof scriptedServer>>;

export const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/** A public address (example.com's) that the fake internet routes to a local server. */
export const PUBLIC_ADDRESS = '93.184.216.34';

/**
 * A notify target for the calling test file: a scripted server answering 204, reached as http://hooks.test/
 * (a public name and address, as the SSRF guard requires) through `net()`; started before the file's tests,
 * closed after them.
 */
export function useHookServer(script: Script = (_q, r) => r.writeHead(204).end()): { readonly server: ScriptedServer; net: () => NetDeps } {
  let server: ScriptedServer | undefined;
  beforeAll(async () => { server = await scriptedServer(script); });
  afterAll(() => server?.close());
  const started = () => {
    if (!server) throw new Error('useHookServer: the server starts in beforeAll; use it inside a test');
    return server;
  };
  return {
    get server() { return started(); },
    net: () => ({ lookup: lookupOf({ 'hooks.test': [PUBLIC_ADDRESS] }), transport: undiciTransport({ connector: fakeInternet({ [`${PUBLIC_ADDRESS}:80`]: started().port }).connector }) }),
  };
}
