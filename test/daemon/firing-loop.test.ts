import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { MIN_PASS_GAP_MS, sleepAfterPass, startFiringLoop, type DueReading } from '../../src/daemon/firing-loop.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const NOW = new Date('2026-12-04T12:00:00.000Z');
const at = (ms: number): DueReading => ({ now: NOW, next: new Date(NOW.getTime() + ms) });

describe('how long the firing loop sleeps after a pass', () => {
  const cases: [string, DueReading | null, number][] = [
    ['the reading failed: a tick', null, 1_000],
    ['no job is scheduled: a tick', { now: NOW, next: null }, 1_000],
    ['the next instant is within the tick: until just after it', at(300), 301],
    ['the next instant is past the tick: a tick, so a job created meanwhile is seen', at(5_000), 1_000],
    ['an instant is still due (another replica fires it): the shortest gap, not at once', at(-40), MIN_PASS_GAP_MS],
    ['instants a few ms apart: the shortest gap', at(3), MIN_PASS_GAP_MS],
  ];
  it.each(cases)('%s', (_what, reading, expected) => {
    expect(sleepAfterPass(reading, 1_000)).toBe(expected);
  });
});

describe('the firing loop', () => {
  afterEach(() => vi.useRealTimers());

  it('fires at start, then wakes when the next instant falls due rather than at its tick', async () => {
    vi.useFakeTimers();
    const passes: number[] = [];
    const loop = startFiringLoop({
      tickMs: 60_000,
      pass: async () => { passes.push(Date.now()); },
      nextDue: async () => ({ now: new Date(Date.now()), next: new Date(Date.now() + 700) }),
      onError: (err) => { throw err; },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(700);
    expect(passes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toHaveLength(2);
    expect(passes[1]! - passes[0]!).toBe(701);
    await loop.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes).toHaveLength(2);
  });

  it('reports a failed pass and tries again a tick later', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let calls = 0;
    const loop = startFiringLoop({
      tickMs: 1_000,
      pass: async () => { if (++calls === 1) throw new Error('database down'); },
      nextDue: async () => ({ now: new Date(Date.now()), next: new Date(Date.now() + 50) }),
      onError: (err) => errors.push(err),
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await loop.stop();
  });
});

describe('the daemon\'s firing loop', () => {
  const database = useTestDatabase();
  let daemon: Daemon | undefined;
  afterAll(async () => { await daemon?.stop(); });

  it('fires a job at its instant, long before the next tick', async () => {
    const { url, schema, db } = database();
    const config = defaultConfig({ daemon: { http: { port: 0 }, tick_seconds: 120, reconcile_seconds: 3600 }, queue: { prefix: `test-loop-${randomBytes(3).toString('hex')}` } });
    // one-shots due in 8, 30 and 60 s: the first the start's own pass did not fire shows the loop waking at an
    // instant, however long the start took under load (the next tick is two minutes after the start)
    const created = Date.now();
    const soon = await Promise.all([8_000, 30_000, 60_000].map(async (lead, i) => {
      const due = new Date(Math.ceil((created + lead) / 1000) * 1000);
      const job = await createJob(db, {
        name: `soon-${i}`, owner: 'test', created_by: 'test', schedule: `at ${due.toISOString()}`, timezone: 'UTC',
        payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, next_fire_at: due,
      });
      return { job, due };
    }));
    daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, work: false });
    const firedAtStart = new Set((await listRuns(db, {})).map((r) => r.job_id));
    const next = soon.find((s) => !firedAtStart.has(s.job.id));
    if (!next) throw new Error('the start took over a minute: its own pass fired every job');
    // well before the tick that follows the start's pass
    const ceiling = next.due.getTime() + 30_000;
    let runs = await listRuns(db, { job_id: next.job.id });
    while (runs.length === 0 && Date.now() < ceiling) {
      await new Promise((r) => setTimeout(r, 100));
      runs = await listRuns(db, { job_id: next.job.id });
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]!.nominal_at.getTime()).toBe(next.due.getTime());
  }, 120_000);
});
