import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { EDIT_SKIP_LIMIT, instantsDroppedByRemoval, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob, getJob, nextDueReading, pauseJob, removeJob, resumeJob, type NewJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const minute = 60_000;
const floorMinute = (t: number) => Math.floor(t / minute) * minute;

const pausedJob = async (over: Partial<NewJob> = {}) => {
  const j = await createJob(database().db, {
    name: 'paused', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, overlap_policy: 'allow', misfire_policy: 'run_all',
    next_fire_at: new Date(floorMinute(Date.now()) + minute), ...over,
  });
  await pauseJob(database().db, j.id, { actor: 'ops', note: 'db maintenance' });
  return j;
};
/** The instants came while no daemon ran: next_fire_at stayed where the pause left it. */
const dueSince = (id: string, at: Date) => database().db.execute(sql`update jobs set next_fire_at = ${at} where id = ${id}`);
const reasons = async (id: string) => (await listRuns(database().db, { job_id: id, limit: 20_000 })).map((r) => `${r.state} ${r.skip_reason?.split(':')[0]}`);

describe('instants that fall due while a job is paused (I13)', () => {
  it('the firing loop wakes for a paused job: its next instant counts as due', async () => {
    const j = await pausedJob();
    await dueSince(j.id, new Date('2000-01-01T00:00:00Z'));
    expect((await nextDueReading(database().db)).next?.toISOString()).toBe('2000-01-01T00:00:00.000Z');
    await fireDueJobs(database().db);
  });

  it('a resume after no daemon ran records each missed instant as misfire.paused and goes on from the next one, catching none up', async () => {
    const db = database().db;
    const j = await pausedJob();
    await dueSince(j.id, new Date(floorMinute(Date.now()) - 30 * minute));
    const resumed = await resumeJob(db, j.id, { actor: 'ops' }, instantsMissedWhilePaused);
    expect(resumed?.job.next_fire_at!.getTime()).toBeGreaterThan(Date.now() - 1000);
    const missed = await reasons(j.id);
    expect(missed.length).toBeGreaterThanOrEqual(30);
    expect(new Set(missed)).toEqual(new Set(['skipped misfire.paused']));
    const [record] = (await listAudit(db, { job_id: j.id })).filter((e) => e.kind === 'job.resumed');
    expect(record?.data).toMatchObject({ due_instants_skipped_as_paused: missed.length });
    // the misfire policy (run_all) would have queued a catch-up; after the resume nothing of the past is due
    const report = await fireDueJobs(db);
    expect(report.queued.filter((r) => r.job_id === j.id && r.nominal_at.getTime() < floorMinute(Date.now()))).toEqual([]);
  });

  it('a resume is never refused for a long backlog: past the limit it records the rest as a range', async () => {
    const db = database().db;
    const j = await pausedJob({ schedule: '* * * * * *' });
    const since = new Date(Date.now() - (EDIT_SKIP_LIMIT + 600) * 1000);
    await dueSince(j.id, since);
    const resumed = await resumeJob(db, j.id, { actor: 'ops' }, instantsMissedWhilePaused);
    expect(resumed).toMatchObject({ changed: true, job: { paused: false } });
    expect(await reasons(j.id)).toHaveLength(EDIT_SKIP_LIMIT);
    const [record] = (await listAudit(db, { job_id: j.id })).filter((e) => e.kind === 'job.resumed');
    expect(record?.data).toMatchObject({ due_instants_skipped_as_paused: EDIT_SKIP_LIMIT, due_instants_not_recorded: { after: expect.any(String), until: expect.any(String) } });
    expect(resumed!.job.next_fire_at!.getTime()).toBeGreaterThan(Date.now() - 2000);
  });

  it('a paused backlog longer than one firing pass is recorded pass by pass', async () => {
    const db = database().db;
    const j = await pausedJob({ schedule: 'every 1s' });
    await dueSince(j.id, new Date(Date.now() - 2_500 * 1000));
    let passes = 0;
    while ((await fireDueJobs(db, { batch: 1000 })).more && passes < 10) passes++;
    const recorded = await reasons(j.id);
    expect(recorded.length).toBeGreaterThanOrEqual(2_500);
    expect(new Set(recorded)).toEqual(new Set(['skipped misfire.paused']));
    expect(passes).toBeGreaterThanOrEqual(2);
    expect((await getJob(db, j.id))?.fired_count).toBe(0);
  });

  it('removing a paused job records its unrecorded due instants as misfire.paused, the reason they did not run', async () => {
    const db = database().db;
    const j = await pausedJob();
    await dueSince(j.id, new Date(floorMinute(Date.now()) - 5 * minute));
    await removeJob(db, j.id, { actor: 'ops', why: 'obsolete' }, instantsDroppedByRemoval);
    const recorded = await reasons(j.id);
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    expect(new Set(recorded)).toEqual(new Set(['skipped misfire.paused']));
  });
});
