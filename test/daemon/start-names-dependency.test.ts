import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../agent/raw-endpoint.ts';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { DependencyUnavailableError, StoppedWhileStartingError } from '../../src/util/dependency-error.ts';
import { BIN, ROOT } from '../support/cli.ts';
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

  it('gives up at once when told to stop meanwhile, instead of waiting out the readiness limit', async () => {
    const port = await closedPort();
    const { url, schema } = database();
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort('SIGTERM'), 500);
    await expect(startDaemon(redisConfig(port), { logger: silentLogger, http: false, database: { url, schema }, stopSignal: stop.signal })).rejects.toBeInstanceOf(StoppedWhileStartingError);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);

  it('the daemon command stopped by SIGTERM while Redis is down exits 0 within seconds, saying so', async () => {
    const port = await closedPort();
    const dir = mkdtempSync(join(tmpdir(), 'echo-start-stop-'));
    const config = join(dir, 'echo-agent.yaml');
    writeFileSync(config, [
      'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${database().schema}`,
      'queue:', `  redis_url: redis://127.0.0.1:${port}`, `  prefix: start-stop-${process.pid}`,
      'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    const child = spawn(process.execPath, [BIN, 'daemon'], { cwd: ROOT, env: { ...process.env, ECHO_AGENT_CONFIG: config }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    for (const t = Date.now(); !log.includes('database ready'); await new Promise((r) => setTimeout(r, 100))) {
      if (child.exitCode !== null || Date.now() - t > 30_000) throw new Error(`the daemon did not get to its queue:\n${log}`);
    }
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await exited, log).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(log).toContain('stopped while starting');
    expect(log).not.toContain('"level":60');
  }, 60_000);
});
