import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface LatencyProxy {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy to a local service whose every reply arrives `delayMs` late: a slow link that still answers.
 * Each round trip then takes at least `delayMs`, so a pass of N round trips takes at least N × delayMs
 * whatever the machine's speed.
 */
export async function latencyProxy(targetPort: number, delayMs: number, host = '127.0.0.1'): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (d: Buffer) => upstream.write(d));
    // timers of one duration fire in the order they were set: the replies keep their order
    upstream.on('data', (d: Buffer) => { setTimeout(() => { if (!client.destroyed) client.write(d); }, delayMs); });
    client.on('end', () => upstream.end());
    upstream.on('end', () => setTimeout(() => client.end(), delayMs));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    }),
  };
}
