import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { JobInputError } from '../../src/jobs/definition.ts';
import { EDIT_SKIP_LIMIT, instantsDroppedByRemoval, instantsDueAtPause, instantsMissedWhilePaused } from '../../src/jobs/next-fire.ts';
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
  await pauseJob(database().db, j.id, { actor: 'ops', note: 'db maintenance' }, instantsDueAtPause);
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
    // a backlog of millions: not this file's to record
    await database().db.execute(sql`update jobs set next_fire_at = null where id = ${j.id}`);
  });

  it('a resume after no daemon ran records each missed instant as misfire.paused and goes on from the next one, catching none up', async () => {
    const db = database().db;
    const j = await pausedJob();
    await dueSince(j.id, new Date(floorMinute(Date.now()) - 30 * minute));
    const before = Date.now();
    const resumed = await resumeJob(db, j.id, { actor: 'ops' }, instantsMissedWhilePaused);
    expect(resumed?.job.next_fire_at!.getTime()).toBeGreaterThan(before);
    const missed = await reasons(j.id);
    expect(missed.length).toBeGreaterThanOrEqual(30);
    expect(new Set(missed)).toEqual(new Set(['skipped misfire.paused']));
    const [record] = (await listAudit(db, { job_id: j.id })).filter((e) => e.kind === 'job.resumed');
    expect(record?.data).toMatchObject({ due_instants_skipped_as_paused: missed.length });
    // the misfire policy (run_all) would have queued a catch-up; after the resume nothing of the past is due
    const report = await fireDueJobs(db);
    expect(report.queued.filter((r) => r.job_id === j.id && r.nominal_at.getTime() < floorMinute(Date.now()))).toEqual([]);
  });

  it('a resume with more unrecorded instants than it may record is refused with nothing changed; once recorded, it resumes', async () => {
    const db = database().db;
    const j = await pausedJob({ schedule: '* * * * * *' });
    const since = new Date(Math.floor(Date.now() / 1000) * 1000 - (EDIT_SKIP_LIMIT + 600) * 1000);
    await dueSince(j.id, since);
    const resume = resumeJob(db, j.id, { actor: 'ops' }, instantsMissedWhilePaused);
    await expect(resume).rejects.toThrow(JobInputError);
    await expect(resume).rejects.toThrow(/start the daemon \(the job stays paused while its firing loop records them\), then resume/);
    expect(await getJob(db, j.id)).toMatchObject({ paused: true, next_fire_at: since });
    expect(await reasons(j.id)).toEqual([]);
    // the daemon's firing loop records them, the job still paused; then the resume goes through
    while ((await fireDueJobs(db, { batch: 5000 })).more);
    expect(new Set(await reasons(j.id))).toEqual(new Set(['skipped misfire.paused']));
    const before = Date.now();
    expect(await resumeJob(db, j.id, { actor: 'ops' }, instantsMissedWhilePaused)).toMatchObject({ changed: true, job: { paused: false } });
    expect((await getJob(db, j.id))!.next_fire_at!.getTime()).toBeGreaterThan(before - 5_000);
    await db.execute(sql`update jobs set next_fire_at = null where id = ${j.id}`);
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

  it('pausing an overdue job records the instants already due as misfire.paused_while_due, not as paused at their instant', async () => {
    const db = database().db;
    const j = await createJob(db, {
      name: 'overdue', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, next_fire_at: new Date(floorMinute(Date.now()) - 10 * minute),
    });
    const before = Date.now();
    const paused = await pauseJob(db, j.id, { actor: 'ops', note: 'incident' }, instantsDueAtPause);
    expect(paused?.job.next_fire_at!.getTime()).toBeGreaterThan(before);
    const recorded = await reasons(j.id);
    expect(recorded.length).toBeGreaterThanOrEqual(11);
    expect(new Set(recorded)).toEqual(new Set(['skipped misfire.paused_while_due']));
    const [record] = (await listAudit(db, { job_id: j.id })).filter((e) => e.kind === 'job.paused');
    expect(record?.data).toMatchObject({ due_instants_skipped_at_pause: recorded.length });
    // a new note on the paused job takes nothing more
    await pauseJob(db, j.id, { actor: 'ops', note: 'incident, day 2' }, instantsDueAtPause);
    expect(await reasons(j.id)).toHaveLength(recorded.length);
    await db.execute(sql`update jobs set next_fire_at = null where id = ${j.id}`);
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
