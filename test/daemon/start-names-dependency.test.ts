import { describe, expect, it, vi } from 'vitest';
import { closedPort, resettingServer } from '../support/ports.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { DependencyUnavailableError, StoppedWhileStartingError } from '../../src/util/dependency-error.ts';
import { daemonConfigFile, spawnDaemon } from '../support/daemon-process.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

// "daemon: could not start: connect ECONNREFUSED 127.0.0.1:5999" left the operator to guess which of the
// daemon's dependencies that port belongs to; the error names it.
describe('a daemon start that fails on its database', () => {
  it('names database.url as what could not be reached', async () => {
    const port = await closedPort();
    const config = defaultConfig({ database: { url: `postgres://postgres@127.0.0.1:${port}/test` }, daemon: { http: { port: 0 } } });
    await expect(startDaemon(config, { logger: silentLogger, http: false })).rejects.toThrow(/^the database \(database\.url\): .*ECONNREFUSED/);
  }, 30_000);
});

describe('a daemon start that waits on its queue', () => {
  const redisConfig = (port: number) => defaultConfig({ database: {}, queue: { redis_url: `redis://127.0.0.1:${port}`, prefix: `start-q-${process.pid}` }, daemon: { http: { port: 0 } } });

  it('names queue.redis_url when Redis does not answer, as an operational failure (no stack needed)', async () => {
    const port = await closedPort();
    const { url, schema } = database();
    const failed = await startDaemon(redisConfig(port), { logger: silentLogger, http: false, database: { url, schema }, queueReadyMs: 1_500 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DependencyUnavailableError);
    expect((failed as Error).message).toMatch(/^the queue \(queue\.redis_url\): the queue's connection is not ready: not ready within 1500 ms/);
  }, 30_000);

  it('prints nothing outside the log meanwhile: every Redis connection\'s errors are heard (ioredis prints unheard ones on stderr)', async () => {
    const printed = vi.spyOn(console, 'error');
    // a Redis that is down, counting the connections tried: each one tried fails with an error somebody must hear
    const redis = await resettingServer();
    try {
      const { url, schema } = database();
      const stop = new AbortController();
      setTimeout(() => stop.abort('SIGTERM'), 300);
      await startDaemon(redisConfig(redis.port), { logger: silentLogger, http: false, database: { url, schema }, stopSignal: stop.signal }).catch(() => {});
      await startDaemon(redisConfig(redis.port), { logger: silentLogger, http: false, database: { url, schema }, queueReadyMs: 800 }).catch(() => {});
      // the starts did meet connection errors, so hearing none printed means something
      expect(redis.connections()).toBeGreaterThan(0);
      // a quiet window, not a timing assertion: a connection left behind would print after the start gave up, and
      // no hook says every connection of a failed start is closed (that would need one in src/daemon)
      await new Promise((r) => setTimeout(r, 2_500));
      expect(printed.mock.calls.map((c) => String(c[0])).filter((t) => t.includes('Unhandled error event'))).toEqual([]);
    } finally {
      printed.mockRestore();
      await redis.close();
    }
  }, 30_000);

  it('gives up at once when told to stop meanwhile, instead of waiting out the readiness limit', async () => {
    const port = await closedPort();
    const { url, schema } = database();
    const stop = new AbortController();
    setTimeout(() => stop.abort('SIGTERM'), 500);
    // waiting out the readiness limit (READY_TIMEOUT_MS, 30 s) would end in DependencyUnavailableError, past this test's timeout
    await expect(startDaemon(redisConfig(port), { logger: silentLogger, http: false, database: { url, schema }, stopSignal: stop.signal })).rejects.toBeInstanceOf(StoppedWhileStartingError);
  }, 20_000);

  it('the daemon command stopped by SIGTERM while Redis is down exits 0 within seconds, saying so', async () => {
    const port = await closedPort();
    const daemon = spawnDaemon(daemonConfigFile(database().schema, { redisUrl: `redis://127.0.0.1:${port}`, prefix: `start-stop-${process.pid}` }));
    await daemon.until('database ready', 30_000);
    daemon.child.kill('SIGTERM');
    // a start that waited out the queue's readiness limit would exit 69 saying the queue is unavailable
    expect(await daemon.exited, daemon.log()).toBe(0);
    expect(daemon.log()).toContain('stopped while starting');
    expect(daemon.log()).not.toContain('"level":60');
  }, 60_000);
});
