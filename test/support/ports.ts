import { createServer, type AddressInfo } from 'node:net';

/**
 * A free port for a server a test starts (the embedded PostgreSQL), below the kernel's range for outgoing
 * connections (32768–60999), where a port a client connection holds (or left in TIME_WAIT) cannot be bound by the
 * server; 10000–19999 stays clear of embedded-start's ports.
 */
export async function freeServerPort(): Promise<number> {
  const listens = (port: number) => new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
  for (let i = 0; i < 50; i++) {
    const port = 10000 + Math.floor(Math.random() * 10000);
    if (await listens(port)) return port;
  }
  throw new Error('no free port found in 10000–19999 after 50 tries');
}

/** A loopback port nothing listens on (it was free a moment ago): a connection to it is refused. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * A loopback server that resets every connection at once, counting them: a dependency that is down, whose
 * clients' reconnect attempts a test can wait for instead of sleeping a guessed while.
 */
export async function resettingServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const s = createServer((socket) => { connections++; socket.resetAndDestroy(); });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  return { port, connections: () => connections, close: () => new Promise((r) => s.close(() => r())) };
}
