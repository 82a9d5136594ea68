import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Drops every connection and refuses new ones. */
  cut(): Promise<void>;
  /** Listens again after cut(). */
  restore(): Promise<void>;
  /** Keeps connections open and lets nothing through either way: a service that hangs. */
  freeze(): void;
  /**
   * Once the client sends something containing `marker` (case-insensitive), the service still gets it
   * but no answer comes back: a request carried out whose reply is lost.
   */
  holdRepliesAfter(marker: string): void;
  /** Whether replies are being held: holdRepliesAfter's marker has gone through. */
  holdingReplies(): boolean;
  /** Drops the live connections; new ones get through as normal. */
  drop(): void;
  close(): Promise<void>;
}

/** A TCP proxy to a local service that a test can break in the ways a network does. */
export async function tcpProxy(targetPort: number, host = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let held: 'none' | 'both' | 'replies' = 'none';
  let marker: string | null = null;
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
      client.on('data', (d: Buffer) => {
        if (held === 'both') return;
        upstream.write(d);
        if (marker && d.toString('latin1').toLowerCase().includes(marker)) {
          held = 'replies';
          marker = null;
        }
      });
      upstream.on('data', (d: Buffer) => { if (held === 'none') client.write(d); });
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
  const drop = () => {
    for (const s of sockets) s.destroy();
    held = 'none';
    marker = null;
  };
  const stop = () => new Promise<void>((r) => {
    drop();
    server.close(() => r());
  });
  return {
    port, cut: stop, restore: listen, close: stop, drop,
    freeze: () => { held = 'both'; },
    holdRepliesAfter: (m) => { marker = m.toLowerCase(); },
    holdingReplies: () => held === 'replies',
  };
}
