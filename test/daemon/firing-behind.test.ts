import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { watchFiringBehind } from '../../src/daemon/firing-behind.ts';
import { createJob, nextDueReading } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
let daemon: Daemon | undefined;
afterAll(async () => {
  await daemon?.stop();
});

const gauge = async (port: number | null): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(/^echo_agent_firing_behind_seconds (\S+)$/m.exec(text)?.[1]);
};

describe('a job left behind by the firing passes', () => {
  it('reads the earliest due instant with the job it belongs to', async () => {
    const { db } = database();
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000);
    const job = await createJob(db, {
      name: 'earliest', owner: 'test', created_by: 'test', schedule: 'every 1h', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, tools: [], paused: false,
      next_fire_at: at,
    });
    const reading = await nextDueReading(db);
    expect(reading).toMatchObject({ job: job.id, next: at });
  });

  it('is named in the log, the gauge and /healthz while another session holds its row, and the daemon stays healthy', async () => {
    const { url, schema, db, pool } = database();
    const { lines, logger } = capturedLog();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 0.1 }, queue: { prefix: `test-behind-${randomBytes(3).toString('hex')}` } });
    const held = await createJob(db, {
      name: 'held', owner: 'test', created_by: 'test', schedule: 'every 1h', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, tools: [], paused: false,
      next_fire_at: new Date(Date.now() - 1_000),
    });
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from jobs where id = $1 for update', [held.id]);
      daemon = await startDaemon(config, { logger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, work: false, firingStaleMs: 1_500 });
      const warned = () => lines.find((l) => l.job_id === held.id && l.level === 'warn');
      await expect.poll(() => warned()?.msg, { timeout: 20_000, interval: 100 }).toMatch(/overdue and firing passes since have not taken it/);
      expect(await gauge(daemon.httpPort)).toBeGreaterThan(1.5);
      const health = await fetch(`http://127.0.0.1:${daemon.httpPort}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { firing: string }).firing).toContain(held.id);
      expect(await listRuns(db, { job_id: held.id })).toHaveLength(0);
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    await expect.poll(async () => (await listRuns(db, { job_id: held.id })).length, { timeout: 20_000, interval: 100 }).toBe(1);
    await expect.poll(() => lines.some((l) => l.job_id === held.id && /firing caught up/.test(String(l.msg))), { timeout: 20_000, interval: 100 }).toBe(true);
    expect(lines.some((l) => l.job_id === held.id && /firing caught up/.test(String(l.msg)))).toBe(true);
    expect(await gauge(daemon.httpPort)).toBeLessThan(1);
    expect(lines.filter((l) => l.job_id === held.id && l.level === 'warn')).toHaveLength(1);
  }, 30_000);

  it('is not blamed on a lock when the instant fell due while a pass was held up (a hung queue), only when passes since left it', () => {
    const { lines, logger } = capturedLog();
    const watch = watchFiringBehind({ logger, warnAfterMs: 60_000 });
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    // before the hang the instant was not due; the pass that ends 71 s after it is the first to see it
    watch.noted({ now: at(0), next: at(10), job: 'job_a' });
    watch.noted({ now: at(81), next: at(10), job: 'job_a' });
    expect(lines).toEqual([]);
    expect(watch.overdue()).toBeNull();
    // a further pass left it too: now it is named
    watch.noted({ now: at(82), next: at(10), job: 'job_a' });
    expect(lines.map((l) => [l.level, l.job_id])).toEqual([['warn', 'job_a']]);
    expect(watch.overdue()).toContain('job_a');
  });
});
