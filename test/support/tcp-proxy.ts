import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to a local service that a test can cut (connections dropped, new ones refused) and restore,
 * or freeze (connections stay open and nothing gets through either way: a service that hangs).
 */
export async function tcpProxy(targetPort: number, host = '127.0.0.1'): Promise<{ port: number; cut(): Promise<void>; restore(): Promise<void>; freeze(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let frozen = false;
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
      client.on('data', (d) => { if (!frozen) upstream.write(d); });
      upstream.on('data', (d) => { if (!frozen) client.write(d); });
      client.on('end', () => upstream.end());
      upstream.on('end', () => client.end());
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
  return { port, cut: stop, restore: listen, freeze: () => { frozen = true; }, close: () => { frozen = false; return stop(); } };
}
