import { createServer } from 'node:net';

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
