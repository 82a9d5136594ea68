import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { createJob, type NewJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun, insertRun, listRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { cronAt, pinnedMinutes, thisMinute } from '../support/pinned-schedule.ts';

const database = useTestDatabase();
const minute = 60_000;
// a catch-up over instants pinned one to two hours ago
const catchUpWindow = 6 * 3600;

async function dueJob(over: Partial<NewJob> = {}) {
  // only this test's job may fire
  await database().db.execute(sql`update jobs set next_fire_at = null`);
  return createJob(database().db, {
    name: 'j', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC',
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, next_fire_at: thisMinute(), ...over,
  });
}

describe('re-planning an instant that already has a run', () => {
  it('cancel_other leaves the running run of that very instant alone and inserts nothing', async () => {
    const { db } = database();
    // the only instant for a year: a minute turning before the pass adds no newer one
    const at = thisMinute();
    const job = await dueJob({ overlap_policy: 'cancel_other', schedule: cronAt(at), next_fire_at: at });
    const run = (await insertRun(db, { job_id: job.id, nominal_at: at }))!;
    await claimRun(db, { run_id: run.id, owner: 'w', lease_seconds: 60 });
    // a schedule change wrote next_fire_at = the same instant again
    const report = await fireDueJobs(db);
    expect(report.queued).toEqual([]);
    expect((await getRun(db, run.id))?.state).toBe('running');
    expect(await listRuns(db, { job_id: job.id })).toHaveLength(1);
  });
});

describe('jitter', () => {
  it('stays below half the gap to the next instant, so a run starts before its successor is due', async () => {
    const { db } = database();
    const job = await dueJob({ jitter_seconds: 3600 });
    const [queued] = (await fireDueJobs(db)).queued;
    expect(queued?.job_id).toBe(job.id);
    const run = (await getRun(db, queued!.id))!;
    expect(run.not_before!.getTime() - run.nominal_at.getTime()).toBeLessThan(30_000);
  });
});

describe('max_runs with a catch-up', () => {
  it('says max_runs only when it was reached: instants overlap holds back carry the overlap reason and the schedule goes on', async () => {
    const { db } = database();
    // four due minutes, run_all, two runs left, overlap skip, and a run of the job still running: none can run now
    const { instants, schedule } = pinnedMinutes(4);
    const job = await dueJob({ misfire_policy: 'run_all', catchup_window_seconds: catchUpWindow, max_runs: 2, schedule, next_fire_at: null });
    const running = (await insertRun(db, { job_id: job.id, nominal_at: new Date(instants[0]!.getTime() - 10 * minute) }))!;
    await claimRun(db, { run_id: running.id, owner: 'w', lease_seconds: 60 });
    await db.execute(sql`update jobs set next_fire_at = ${instants[0]!} where id = ${job.id}`);
    await fireDueJobs(db);
    const rows = await db.execute<{ state: string; skip_reason: string | null }>(sql`select state, skip_reason from runs where job_id = ${job.id} and id <> ${running.id} order by nominal_at`);
    expect(rows.rows.map((r) => r.state)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(rows.rows.every((r) => r.skip_reason?.startsWith('overlap.skip.busy'))).toBe(true);
    const after = await db.execute<{ next_fire_at: Date | null }>(sql`select next_fire_at from jobs where id = ${job.id}`);
    expect(after.rows[0]!.next_fire_at).not.toBeNull();
  });

  it('a catch-up that reaches max_runs queues what is left of it, in order, and ends the schedule', async () => {
    const { db } = database();
    const { instants, schedule } = pinnedMinutes(4);
    const job = await dueJob({ misfire_policy: 'run_all', catchup_window_seconds: catchUpWindow, max_runs: 2, schedule, next_fire_at: instants[0]! });
    await fireDueJobs(db);
    const rows = await db.execute<{ nominal_at: Date; state: string; skip_reason: string | null; catch_up: boolean }>(sql`select nominal_at, state, skip_reason, catch_up from runs where job_id = ${job.id} order by nominal_at`);
    expect(rows.rows.map((r) => new Date(r.nominal_at).getTime())).toEqual(instants.map((i) => i.getTime()));
    expect(rows.rows.map((r) => [r.state, r.skip_reason?.split(':')[0] ?? null])).toEqual([
      ['queued', null], ['queued', null], ['skipped', 'misfire.max_runs'], ['skipped', 'misfire.max_runs'],
    ]);
    expect(rows.rows.slice(0, 2).every((r) => r.catch_up)).toBe(true);
    const after = await db.execute<{ next_fire_at: Date | null }>(sql`select next_fire_at from jobs where id = ${job.id}`);
    expect(after.rows[0]!.next_fire_at).toBeNull();
  });
});
