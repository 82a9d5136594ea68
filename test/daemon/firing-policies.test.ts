import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { instantsDueAtPause, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { jitterMs } from '../../src/scheduler/jitter.ts';
import { createJob, getJob, pauseJob, resumeJob } from '../../src/store/jobs.ts';
import { claimRun, claimRunWithJob } from '../../src/store/run-claim.ts';
import { listRuns } from '../../src/store/runs.ts';
import type { NewJob } from '../../src/store/jobs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const minute = 60_000;
const floorMinute = (t: number) => Math.floor(t / minute) * minute;

async function job(over: Partial<NewJob>) {
  return createJob(database().db, {
    name: 'j', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC',
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, ...over,
  });
}

describe('firing policies against the database', () => {
  it('misfire run_once after a 3 hour outage: one run, every other instant recorded as skipped with its reason', async () => {
    const now = Date.now();
    const j = await job({ schedule: '*/15 * * * *', misfire_policy: 'run_once', next_fire_at: new Date(Math.floor((now - 3 * 3600_000) / (15 * minute)) * 15 * minute) });
    await fireDueJobs(database().db);
    const runs = await listRuns(database().db, { job_id: j.id, limit: 100 });
    const queued = runs.filter((r) => r.state === 'queued');
    const skipped = runs.filter((r) => r.state === 'skipped');
    expect(queued).toHaveLength(1);
    expect(skipped.length).toBeGreaterThanOrEqual(11);
    for (const s of skipped) expect(s.skip_reason).toMatch(/^misfire\.run_once\.covered/);
    const after = await getJob(database().db, j.id);
    expect(after!.next_fire_at!.getTime()).toBeGreaterThan(now);
    // firing again does nothing: each instant is accounted for once
    await fireDueJobs(database().db);
    expect(await listRuns(database().db, { job_id: j.id, limit: 100 })).toHaveLength(runs.length);
  });

  it('overlap skip: instants due while a run is still running are recorded as skipped, a catch-up too', async () => {
    const db = database().db;
    const first = new Date(floorMinute(Date.now()) - 2 * minute);
    const j = await job({ overlap_policy: 'skip', misfire_policy: 'run_all', next_fire_at: null });
    const manual = await manualRun({ db }, j.id, 'admin');
    expect(await claimRun(db, { run_id: manual!.id, owner: 'w', lease_seconds: 60 })).not.toBeNull();
    await db.execute(sql`update jobs set next_fire_at = ${first} where id = ${j.id}`);
    const report = await fireDueJobs(db);
    expect(report.queued.filter((r) => r.job_id === j.id)).toEqual([]);
    const skipped = (await listRuns(db, { job_id: j.id })).filter((r) => r.state === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(3);
    for (const r of skipped) expect(r.skip_reason).toMatch(/^overlap\.skip\.busy: /);
  });

  it.each(['skip', 'buffer_one'] as const)('misfire run_all under overlap %s queues every instant of a catch-up, to run one after another in order', async (overlap_policy) => {
    const db = database().db;
    const j = await job({ overlap_policy, misfire_policy: 'run_all', next_fire_at: new Date(floorMinute(Date.now()) - 3 * minute) });
    const report = await fireDueJobs(db);
    const queued = report.queued.filter((r) => r.job_id === j.id).sort((a, b) => a.nominal_at.getTime() - b.nominal_at.getTime());
    expect(queued.length).toBeGreaterThanOrEqual(4);
    const claim = (id: string) => claimRun(db, { run_id: id, owner: 'w', lease_seconds: 60 });
    // a later instant waits for the earlier ones, queued or running, and says how many are ahead (its worker waits that many polls)
    expect(await claimRunWithJob(db, { run_id: queued[3]!.id, owner: 'w', lease_seconds: 60 })).toEqual({ behind: 3 });
    expect(await claim(queued[1]!.id)).toBeNull();
    expect(await claim(queued[0]!.id)).not.toBeNull();
    expect(await claim(queued[1]!.id)).toBeNull();
    await db.execute(sql`update runs set state = 'succeeded', finished_at = now() where id = ${queued[0]!.id}`);
    expect(await claim(queued[2]!.id)).toBeNull();
    expect(await claim(queued[1]!.id)).not.toBeNull();
  });

  it('overlap allow fires every instant of a catch-up', async () => {
    const j = await job({ overlap_policy: 'allow', misfire_policy: 'run_all', next_fire_at: new Date(floorMinute(Date.now()) - 4 * minute) });
    const report = await fireDueJobs(database().db);
    expect(report.queued.filter((r) => r.job_id === j.id).length).toBe(5);
  });

  it.each(['run_once', 'run_all', 'skip'] as const)('a paused job (misfire %s) runs nothing: its instants are recorded as misfire.paused as they fall due, and a resume catches none up', async (misfire_policy) => {
    const db = database().db;
    const j = await job({ misfire_policy, overlap_policy: 'allow', next_fire_at: new Date(floorMinute(Date.now()) + minute) });
    await pauseJob(db, j.id, { actor: 'admin', note: 'maintenance' }, instantsDueAtPause);
    // the instants fall due while paused (moved back rather than waited for)
    await db.execute(sql`update jobs set next_fire_at = ${new Date(floorMinute(Date.now()) - 10 * minute)} where id = ${j.id}`);
    const report = await fireDueJobs(db);
    expect(report.queued.filter((r) => r.job_id === j.id)).toEqual([]);
    const skipped = await listRuns(db, { job_id: j.id, limit: 100 });
    expect(skipped.length).toBeGreaterThanOrEqual(10);
    for (const r of skipped) expect(r).toMatchObject({ state: 'skipped', skip_reason: expect.stringMatching(/^misfire\.paused: /) });
    const paused = await getJob(db, j.id);
    expect(paused!.next_fire_at!.getTime()).toBeGreaterThan(Date.now() - 1000);
    expect(paused!.fired_count).toBe(0);
    const resumedAt = Date.now();
    await resumeJob(db, j.id, { actor: 'admin' }, instantsMissedWhilePaused);
    await fireDueJobs(db);
    // nothing missed while paused runs after the resume (instants of the minute still going on may)
    const ran = (await listRuns(db, { job_id: j.id, limit: 100 })).filter((r) => r.state !== 'skipped');
    expect(ran.filter((r) => r.nominal_at.getTime() < floorMinute(resumedAt))).toEqual([]);
  });

  it('queued runs start at the nominal instant plus a jitter that is stable per job and instant', async () => {
    const j = await job({ jitter_seconds: 30, overlap_policy: 'allow', next_fire_at: new Date(floorMinute(Date.now())) });
    const report = await fireDueJobs(database().db);
    const run = report.queued.find((r) => r.job_id === j.id)!;
    expect(run.not_before!.getTime() - run.nominal_at.getTime()).toBe(jitterMs(j.id, run.nominal_at, 30));
    expect(jitterMs(j.id, run.nominal_at, 30)).toBe(jitterMs(j.id, new Date(run.nominal_at), 30));
  });

  it('max_runs ends the schedule', async () => {
    const j = await job({ overlap_policy: 'allow', misfire_policy: 'run_all', max_runs: 2, next_fire_at: new Date(floorMinute(Date.now()) - 5 * minute) });
    await fireDueJobs(database().db);
    const after = await getJob(database().db, j.id);
    expect(after!.fired_count).toBe(2);
    expect(after!.next_fire_at).toBeNull();
  });

  it('manual runs do not count toward max_runs', async () => {
    const db = database().db;
    const j = await job({ overlap_policy: 'allow', max_runs: 1, next_fire_at: null });
    await manualRun({ db }, j.id, 'admin');
    await db.execute(sql`update jobs set next_fire_at = ${new Date(floorMinute(Date.now()))} where id = ${j.id}`);
    const report = await fireDueJobs(db);
    expect(report.queued.filter((r) => r.job_id === j.id)).toHaveLength(1);
    expect(await getJob(db, j.id)).toMatchObject({ fired_count: 1, next_fire_at: null });
  });

  it('a manual run uses the same runs table with trigger manual', async () => {
    const j = await job({ next_fire_at: null });
    const run = await manualRun({ db: database().db }, j.id, 'admin');
    expect(run).toMatchObject({ trigger: 'manual', state: 'queued', job_id: j.id });
  });
});
