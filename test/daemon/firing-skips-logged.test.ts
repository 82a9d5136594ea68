import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { watchFiringBehind, withJobName } from '../../src/daemon/firing-behind.ts';
import { createJob } from '../../src/store/jobs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// Skipped instants were in metrics and `runs list` only; the journal said nothing of them. One info line per job and
// pass (counts by rule, the range of instants), and the firing lines that name a job carry its name as well as its id.
const database = useTestDatabase();

describe('firing log lines', () => {
  it('a pass that skips missed instants logs one line per job, with counts by rule, the range and the job name', async () => {
    const { db } = database();
    const now = Math.floor(Date.now() / 10_000) * 10_000;
    // about a minute of downtime for an every-10 s job: run_once runs the latest and skips the rest
    const job = await createJob(db, aJob({ name: 'skippy', schedule: 'every 10s', timezone: 'UTC', misfire_policy: 'run_once', next_fire_at: new Date(now - 60_000), paused: false }));
    const { lines, logger } = capturedLog();
    const report = await fireDueJobs(db, { logger });
    const skipped = Object.values(report.skipped).reduce((a, b) => a + b, 0);
    expect(skipped).toBeGreaterThanOrEqual(5);
    const mine = lines.filter((l) => l.job_id === job.id && /skipped/.test(String(l.msg)));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 'info', job_name: 'skippy', first_at: new Date(now - 60_000).toISOString() });
    const counts = mine[0]!.skipped as Record<string, number>;
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(skipped);
    expect(Object.keys(counts).every((rule) => rule.startsWith('misfire.'))).toBe(true);
    expect(String(mine[0]!.msg)).toMatch(/^job skippy: \d+ instants skipped \(misfire\./);
  });

  it('"job cannot be planned" carries the job name', async () => {
    const { db, pool, schema } = database();
    const job = await createJob(db, aJob({ name: 'broken-tz', schedule: 'every 10s', timezone: 'UTC', next_fire_at: new Date(Date.now() - 1000), paused: false }));
    await pool.query(`update "${schema}".jobs set timezone = 'Mars/Olympus_Mons' where id = $1`, [job.id]);
    const { lines, logger } = capturedLog();
    await fireDueJobs(db, { logger });
    expect(lines.find((l) => l.msg === 'job cannot be planned; firing stopped')).toMatchObject({ level: 'error', job_id: job.id, job_name: 'broken-tz' });
  });

  it('firing-behind lines carry the job name read for a due instant', async () => {
    const { db } = database();
    const job = await createJob(db, aJob({ name: 'held-back', schedule: 'every 10s', timezone: 'UTC', next_fire_at: new Date(Date.UTC(2026, 0, 1, 0, 0, 10)), paused: true }));
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const { lines, logger } = capturedLog();
    const watch = watchFiringBehind({ logger, warnAfterMs: 60_000 });
    for (const s of [81, 82]) watch.noted(await withJobName(db, { now: at(s), next: at(10), job: job.id }));
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', job_id: job.id, job_name: 'held-back' })]);
    expect(String(lines[0]!.msg)).toContain(`job held-back (${job.id})'s instant`);
    watch.noted(await withJobName(db, { now: at(83), next: at(20), job: job.id }));
    expect(lines[1]).toMatchObject({ level: 'info', job_id: job.id, job_name: 'held-back' });
    // not due: nothing is read
    expect(await withJobName(db, { now: at(0), next: at(10), job: job.id })).toEqual({ now: at(0), next: at(10), job: job.id });
  });
});
