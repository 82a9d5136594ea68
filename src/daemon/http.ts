import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';
import { redactText } from '../util/redact.ts';
import { within } from '../util/time-limit.ts';

export interface HealthProbe {
  /** Resolves when the database and the queue answer; rejects with what is wrong. */
  check(): Promise<Record<string, string>>;
  /** While the daemon stops: what it still does (a load balancer takes it out of rotation on the 503); null otherwise. */
  stopping?(): Record<string, string> | null;
}

/** A probe waits a few seconds at most: a database that hangs (not refuses) must read as unhealthy, not as a probe timeout. */
export const HEALTH_LIMIT_MS = 3_000;

/**
 * `/healthz` (200 ok / 503 with the failing part, or while stopping), `/livez` and `/metrics` on a loopback port. HEAD
 * answers as GET without the body (Node leaves it out): load balancers and uptime probes ask that way.
 */
export async function startHttp(opts: {
  host: string; port: number; metrics: Metrics; health: HealthProbe; logger: Logger; healthLimitMs?: number;
}): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    // liveness apart from readiness: a Redis or database outage makes every replica unready (/healthz 503), and a
    // liveness probe built on that would restart them all for nothing; a hung loop stops the process itself
    if (path === '/livez') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'alive' }));
      return;
    }
    if (path === '/healthz') {
      const stopping = opts.health.stopping?.();
      if (stopping) {
        res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'stopping', ...stopping }));
        return;
      }
      within(opts.healthLimitMs ?? HEALTH_LIMIT_MS, opts.health.check(), 'the health check (database, queue, firing loop)').then(
        (parts) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', ...parts })),
        // a driver's message may quote a connection string; the port may be published beyond loopback (the image)
        (err: Error) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'unavailable', error: redactText(err.message) })),
      );
      return;
    }
    if (path === '/metrics') {
      opts.metrics.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': opts.metrics.registry.contentType }).end(body),
        () => res.writeHead(500).end(),
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    // the operator set the port: the error names the setting, not only the socket call
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(
      `daemon.http (${opts.host}:${opts.port}): ${err.code === 'EADDRINUSE' ? 'the port is already in use by another process (EADDRINUSE)' : err.code === 'EADDRNOTAVAIL' ? 'no such address on this machine (EADDRNOTAVAIL)' : err.message}`,
      { cause: err },
    )));
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  opts.logger.info({ host: opts.host, port }, 'health and metrics listening');
  return { server, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
