import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { sql } from 'drizzle-orm';
import { manualRun } from '../../src/jobs/service.ts';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun } from '../../src/store/runs.ts';
import { ROOT } from '../support/cli.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
let daemon: Daemon | undefined;
afterAll(async () => {
  await daemon?.stop();
});

describe('/healthz and /metrics', () => {
  it('report health and Prometheus metrics on a loopback port', async () => {
    const { url, schema } = database();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 0.5 }, queue: { prefix: `test-http-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` } });
    const base = `http://127.0.0.1:${daemon.httpPort}`;
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    // the depth counts running runs too: "waiting" said otherwise
    expect(await health.json()).toMatchObject({ status: 'ok', database: 'ok', queue: expect.stringMatching(/^postgres, \d+ queued or running$/) });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    for (const name of ['echo_agent_runs_total', 'echo_agent_fire_lateness_seconds', 'echo_agent_gate_decisions_total', 'echo_agent_queue_depth', 'echo_agent_run_duration_seconds']) {
      expect(metrics).toContain(name);
    }
    // Node's and the process's own series under the names dashboards and alerts look for
    expect(metrics).toMatch(/^process_cpu_seconds_total \d/m);
    expect(metrics).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(metrics).not.toContain('echo_agent_process_');
    expect(metrics).toMatch(new RegExp(`^echo_agent_build_info\\{version="${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version.replace(/\./g, '\\.')}"\\} 1$`, 'm'));
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    await daemon.database.close();
    const down = await fetch(`${base}/healthz`);
    expect(down.status).toBe(503);
    // not ready, but alive: a liveness probe must not restart a replica for its database's outage
    const live = await fetch(`${base}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'alive' });
  });

  it('fails /healthz when no firing pass has succeeded for a while', async () => {
    await daemon?.stop().catch(() => {});
    const { url, schema, pool } = database();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 0.1 }, queue: { prefix: `test-http-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q2` }, firingStaleMs: 800 });
    const base = `http://127.0.0.1:${daemon.httpPort}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table jobs in access exclusive mode');
      // every firing pass now waits on the lock: past firingStaleMs without a success the probe fails
      await expect.poll(async () => {
        const res = await fetch(`${base}/healthz`);
        return { status: res.status, body: await res.json() as unknown };
      }, { timeout: 15_000, interval: 200 }).toMatchObject({ status: 503, body: { error: expect.stringMatching(/no firing pass has succeeded/) } });
    } finally {
      await locker.query('rollback');
      locker.release();
    }
  }, 30_000);

  it('counts skipped instants by rule in echo_agent_instants_skipped_total', async () => {
    await daemon?.stop().catch(() => {});
    const { url, schema, db } = database();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 3600 }, queue: { prefix: `test-http-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q3` }, work: false });
    // missed by an hour under misfire skip: recorded as skipped, not run
    await createJob(db, {
      name: 'missed', owner: 'test', created_by: 'test', schedule: '0 * * * *', timezone: 'UTC', misfire_policy: 'skip',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false,
      next_fire_at: new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000),
    });
    await daemon.fireOnce();
    const text = await (await fetch(`http://127.0.0.1:${daemon.httpPort}/metrics`)).text();
    expect(text).toMatch(/echo_agent_instants_skipped_total\{reason="misfire\.skip\.late"\} [1-9]/);
  });

  it('reads the queue depth when scraped, and counts the runs the reconciler ends', async () => {
    await daemon?.stop().catch(() => {});
    const { url, schema, db } = database();
    // the earlier test's hourly job falls due again at the next hour: the daemon fires at start, which would queue it
    await db.execute(sql`update jobs set paused = true`);
    // no pass of its own during the test: a figure that moves came from the scrape
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 3600, reconcile_seconds: 3600 }, queue: { prefix: `test-http-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q4` }, work: false });
    const scrape = async () => (await fetch(`http://127.0.0.1:${daemon!.httpPort}/metrics`)).text();
    expect(await scrape()).toMatch(/^echo_agent_queue_depth 0$/m);
    expect(await scrape()).toMatch(/^echo_agent_queue_up 1$/m);
    await daemon.queue.enqueue('run_metrics_depth_probe');
    expect(await scrape()).toMatch(/^echo_agent_queue_depth 1$/m);

    const job = await createJob(db, {
      name: 'dead-worker-metrics', owner: 'test', created_by: 'test', schedule: '0 0 * * *', timezone: 'UTC', max_retries: 0,
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false,
    });
    const run = await manualRun({ db }, job.id, 'test');
    await claimRun(db, { run_id: run!.id, owner: 'dead-host:9', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run!.id}`);
    await daemon.reconcileOnce();
    expect(await scrape()).toMatch(/^echo_agent_runs_total\{state="interrupted"\} 1$/m);
  });
});

describe('run durations', () => {
  it('each finished attempt is observed in echo_agent_run_duration_seconds under its final state', async () => {
    await daemon?.stop().catch(() => {});
    const { url, schema, db } = database();
    await db.execute(sql`update jobs set paused = true`);
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 3600, reconcile_seconds: 3600 }, queue: { prefix: `test-http-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q5` } });
    const job = await createJob(db, {
      name: 'timed', owner: 'test', created_by: 'test', schedule: '0 0 * * *', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, tools: [], paused: false,
    });
    const run = await manualRun({ db, enqueue: (id) => daemon!.queue.enqueue(id) }, job.id, 'test');
    await expect.poll(async () => (await getRun(db, run!.id))?.state, { timeout: 20_000, interval: 100 }).toBe('succeeded');
    const scrape = async () => (await fetch(`http://127.0.0.1:${daemon!.httpPort}/metrics`)).text();
    await expect.poll(scrape, { timeout: 5_000, interval: 100, message: 'no duration was observed for the succeeded run' })
      .toMatch(/^echo_agent_run_duration_seconds_count\{state="succeeded"\} 1$/m);
  }, 40_000);
});

describe('/healthz when a part fails', () => {
  it('says what failed with credentials in the message redacted: the port may be published beyond loopback', async () => {
    const { startHttp } = await import('../../src/daemon/http.ts');
    const { createMetrics } = await import('../../src/daemon/metrics.ts');
    const metrics = createMetrics({ queueDepth: async () => 0 });
    const http = await startHttp({
      host: '127.0.0.1', port: 0, metrics, logger: silentLogger,
      health: { check: async () => { throw new Error('connect ECONNREFUSED for postgres://echo:s3cr3t-pass@db.internal:5432/echo'); } },
    });
    try {
      const res = await fetch(`http://127.0.0.1:${http.port}/healthz`);
      expect(res.status).toBe(503);
      const body = await res.text();
      expect(body).toContain('ECONNREFUSED');
      expect(body).not.toContain('s3cr3t-pass');
    } finally {
      await http.close();
      metrics.close();
    }
  });
});

describe('/healthz and /metrics while a dependency hangs (answers nothing, refuses nothing)', () => {
  it('/healthz answers 503 within its limit, naming what did not finish, and /metrics still answers with the queue depth unknown', async () => {
    const { startHttp } = await import('../../src/daemon/http.ts');
    const { createMetrics } = await import('../../src/daemon/metrics.ts');
    const hangs = () => new Promise<never>(() => {});
    const metrics = createMetrics({ queueDepth: hangs });
    const http = await startHttp({ host: '127.0.0.1', port: 0, metrics, logger: silentLogger, healthLimitMs: 300, health: { check: hangs } });
    try {
      const health = await fetch(`http://127.0.0.1:${http.port}/healthz`, { signal: AbortSignal.timeout(2_000) });
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'unavailable', error: 'the health check (database, queue, firing loop) did not finish within 0.3 s' });
      const scrape = await fetch(`http://127.0.0.1:${http.port}/metrics`, { signal: AbortSignal.timeout(5_000) });
      expect(scrape.status).toBe(200);
      // no sample rather than NaN, which prom-client writes as `Nan` and strict OpenMetrics parsers refuse; queue_up says why
      const text = await scrape.text();
      expect(text).toContain('# TYPE echo_agent_queue_depth gauge');
      expect(text).not.toMatch(/^echo_agent_queue_depth /m);
      expect(text).toMatch(/^echo_agent_queue_up 0$/m);
    } finally {
      await http.close();
      metrics.close();
    }
  });

  it('a probe of a database that stopped answering closes that connection instead of keeping it from the pool', async () => {
    const { tcpProxy } = await import('../support/tcp-proxy.ts');
    const { databaseAnswers, openDatabase } = await import('../../src/store/db.ts');
    const t = database();
    const proxy = await tcpProxy(5432);
    const far = openDatabase({ url: t.url.replace(':5432', `:${proxy.port}`), schema: t.schema, poolMax: 3 });
    try {
      await databaseAnswers(far.pool, 5_000);
      proxy.freeze();
      await expect(databaseAnswers(far.pool, 200)).rejects.toThrow('Query read timeout');
      // the hung connection was closed: probes every few seconds do not fill the pool with them
      await expect.poll(() => far.pool.totalCount, { timeout: 5_000 }).toBe(0);
    } finally {
      await far.close();
      await proxy.close();
    }
  });

  it('a port already in use is named by its setting', async () => {
    const { startHttp } = await import('../../src/daemon/http.ts');
    const { createMetrics } = await import('../../src/daemon/metrics.ts');
    const metrics = createMetrics();
    const first = await startHttp({ host: '127.0.0.1', port: 0, metrics, logger: silentLogger, health: { check: async () => ({}) } });
    try {
      await expect(startHttp({ host: '127.0.0.1', port: first.port, metrics, logger: silentLogger, health: { check: async () => ({}) } }))
        .rejects.toThrow(`daemon.http (127.0.0.1:${first.port}): the port is already in use by another process`);
    } finally {
      await first.close();
      metrics.close();
    }
  });
});
