import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** A TCP proxy to a local service that a test can cut (connections dropped, new ones refused) and restore. */
export async function tcpProxy(targetPort: number, host = '127.0.0.1'): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const listen = () => new Promise<void>((resolve, reject) => {
    server = createServer((client) => {
      const upstream = connect(targetPort, host);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      port = (server.address() as AddressInfo).port;
      resolve();
    });
  });
  await listen();
  const stop = () => new Promise<void>((r) => {
    for (const s of sockets) s.destroy();
    server.close(() => r());
  });
  return { port, cut: stop, restore: listen, close: stop };
}
