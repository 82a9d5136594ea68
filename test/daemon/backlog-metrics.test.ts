import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { createMetrics } from '../../src/daemon/metrics.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { backlogReading } from '../../src/store/backlog.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

// What an alert reads while runs wait in the database: the queue refusing them, the runs due and not taken, how far
// firing is behind, and loop passes failing. /healthz says it too, but a dashboard needs figures.
const database = useTestDatabase();
let daemon: Daemon | undefined;
afterAll(async () => {
  await daemon?.stop();
});

const job = () => createJob(database().db, {
  name: `backlog-${randomBytes(3).toString('hex')}`, owner: 't', created_by: 't', schedule: 'every 1h', timezone: 'UTC', tools: [], paused: false,
  payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, next_fire_at: new Date(Date.now() + 3_600_000),
});

describe('the backlog in the database', () => {
  it('counts runs due and not taken, not those held back or running, and how long the earliest instant has waited', async () => {
    const { db } = database();
    const j = await job();
    const due = await insertRun(db, { job_id: j.id, nominal_at: new Date(Date.now() - 60_000) });
    const later = await insertRun(db, { job_id: j.id, nominal_at: new Date(Date.now() - 50_000) });
    const running = await insertRun(db, { job_id: j.id, nominal_at: new Date(Date.now() - 40_000) });
    await db.execute(sql`update runs set not_before = now() + interval '1 hour' where id = ${later!.id}`);
    await db.execute(sql`update runs set state = 'running' where id = ${running!.id}`);
    expect(due).not.toBeNull();
    expect(await backlogReading(db)).toEqual({ behindSeconds: 0, waiting: 1 });
    await db.execute(sql`update jobs set next_fire_at = now() - interval '30 seconds' where id = ${j.id}`);
    const r = await backlogReading(db);
    expect(r.behindSeconds).toBeGreaterThanOrEqual(30);
    expect(r.behindSeconds).toBeLessThan(60);
  });

  it('shows the queue refusing runs as 1, and 0 once it takes them', async () => {
    let fault: object | null = { since: new Date() };
    const metrics = createMetrics({ queueFault: () => fault });
    try {
      expect(await metrics.registry.metrics()).toMatch(/^echo_agent_queue_refusing 1$/m);
      fault = null;
      expect(await metrics.registry.metrics()).toMatch(/^echo_agent_queue_refusing 0$/m);
    } finally {
      metrics.close();
    }
  });

  it('are scraped from a running daemon, with the failures of its firing passes counted', async () => {
    const { url, schema, pool } = database();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 0.1 }, queue: { prefix: `test-backlog-${randomBytes(3).toString('hex')}` } });
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, work: false });
    const scrape = async () => (await fetch(`http://127.0.0.1:${daemon!.httpPort}/metrics`)).text();
    const text = await scrape();
    expect(text).toMatch(/^echo_agent_runs_waiting \d+$/m);
    expect(text).toMatch(/^echo_agent_firing_behind_seconds [\d.]+$/m);
    expect(text).toMatch(/^echo_agent_queue_refusing 0$/m);
    // the firing pass's table gone for a moment: its passes fail, and say so in the counter
    await pool.query(`alter table "${schema}".jobs rename to jobs_away`);
    try {
      await expect.poll(async () => Number(/^echo_agent_loop_failures_total\{loop="firing"\} (\d+)$/m.exec(await scrape())?.[1] ?? 0), { timeout: 10_000, interval: 200 }).toBeGreaterThan(0);
    } finally {
      await pool.query(`alter table "${schema}".jobs_away rename to jobs`);
    }
  }, 30_000);
});
