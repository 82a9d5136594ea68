import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { manualRun, updateJobFromCall, type JobChangeDeps } from '../../src/jobs/service.ts';
import { createJob, getJob, type NewJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { insertRun, listRuns } from '../../src/store/runs.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';
import { cronAt, thisMinute } from '../support/pinned-schedule.ts';

const database = useTestDatabase();
const minute = 60_000;
const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'auto' });
const deps = (now?: Date): JobChangeDeps => ({ db: database().db, checks: { knownTool: (n) => CATALOG_BY_NAME.has(n), notifyTargets: [] }, grantScope: () => [], ...(now ? { now: () => now } : {}) });

async function job(over: Partial<NewJob>) {
  // only this test's job is due
  await database().db.execute(sql`update jobs set paused = true`);
  return createJob(database().db, {
    name: 'e', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] }, ...over,
  });
}
const setFired = (id: string, n: number) => database().db.execute(sql`update jobs set fired_count = ${n} where id = ${id}`);

describe('editing a job moves its schedule only as the edit means', () => {
  it('a one-shot that has come does not come again when only its timezone changes', async () => {
    // 09:00 read in UTC has passed at 10:00Z; read in New York it is 14:00Z, still ahead
    const now = new Date('2099-12-01T10:00:00Z');
    const j = await job({ schedule: 'at 2099-12-01T09:00:00', next_fire_at: null });
    await setFired(j.id, 1);
    const changed = await updateJobFromCall(deps(now), j.id, { timezone: 'America/New_York' }, ctx, { approval_source: 'auto' });
    expect(changed?.job.timezone).toBe('America/New_York');
    expect(changed?.job.next_fire_at).toBeNull();
  });

  it('a one-shot whose instant is still ahead follows its new timezone', async () => {
    const now = new Date('2099-12-01T08:00:00Z');
    const j = await job({ schedule: 'at 2099-12-01T09:00:00', next_fire_at: new Date('2099-12-01T09:00:00Z') });
    const changed = await updateJobFromCall(deps(now), j.id, { timezone: 'America/New_York' }, ctx, { approval_source: 'auto' });
    expect(changed?.job.next_fire_at?.toISOString()).toBe('2099-12-01T14:00:00.000Z');
  });

  it('a one-shot that has come can still have other fields edited', async () => {
    const j = await job({ schedule: 'at 2020-01-01T00:00:00Z', next_fire_at: null });
    const changed = await updateJobFromCall(deps(), j.id, { tools: ['list_dir'] }, ctx, { approval_source: 'auto' });
    expect(changed?.job.tools).toEqual(['list_dir']);
    expect(changed?.job.next_fire_at).toBeNull();
  });

  it('raising max_runs on a job that reached it starts its schedule again', async () => {
    const now = new Date('2099-12-01T10:00:30Z');
    const j = await job({ max_runs: 3, next_fire_at: null });
    await setFired(j.id, 3);
    const changed = await updateJobFromCall(deps(now), j.id, { max_runs: 10 }, ctx, { approval_source: 'auto' });
    expect(changed?.job.next_fire_at?.toISOString()).toBe('2099-12-01T10:01:00.000Z');
  });

  it('lowering max_runs to what has already run ends the schedule', async () => {
    const j = await job({ max_runs: 10, next_fire_at: new Date(Date.now() + minute) });
    await setFired(j.id, 4);
    const changed = await updateJobFromCall(deps(), j.id, { max_runs: 4 }, ctx, { approval_source: 'auto' });
    expect(changed?.job.next_fire_at).toBeNull();
  });

  it('a new schedule for a job that reached max_runs does not restart it', async () => {
    const j = await job({ max_runs: 2, next_fire_at: null });
    await setFired(j.id, 2);
    const changed = await updateJobFromCall(deps(), j.id, { schedule: '*/5 * * * *' }, ctx, { approval_source: 'auto' });
    expect(changed?.job.next_fire_at).toBeNull();
  });
});

describe('the firing loop accounts for every due instant', () => {
  it('an instant due after max_runs was reached is recorded as skipped under misfire.max_runs, not dropped', async () => {
    const { db } = database();
    // next_fire_at was set before max_runs was lowered by hand
    const j = await job({ max_runs: 5, next_fire_at: thisMinute() });
    await setFired(j.id, 5);
    await fireDueJobs(db);
    const runs = await listRuns(db, { job_id: j.id });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ state: 'skipped', skip_reason: expect.stringMatching(/^misfire\.max_runs:/) });
    expect((await getJob(db, j.id))?.next_fire_at).toBeNull();
  });

  it('last_fire_at names an instant that got a run, not one skipped for overlap', async () => {
    const { db } = database();
    const j = await job({ next_fire_at: new Date(thisMinute().getTime() - minute), misfire_policy: 'run_all', catchup_window_seconds: 3600 });
    // the first pass fires the earlier minute (and this one, under run_all)
    const first = await fireDueJobs(db);
    const fired = first.queued.filter((r) => r.job_id === j.id).map((r) => r.nominal_at.getTime());
    const after = await getJob(db, j.id);
    expect(after?.last_fire_at?.getTime()).toBe(Math.max(...fired));
  });

  it('overlap skip of a due instant leaves last_fire_at where the last run was', async () => {
    const { db } = database();
    // the clock read once: a minute turning before the pass only adds another skipped instant
    const now = thisMinute();
    const earlier = new Date(now.getTime() - 5 * minute);
    const j = await job({ next_fire_at: now });
    await db.execute(sql`update jobs set last_fire_at = ${earlier} where id = ${j.id}`);
    const running = (await insertRun(db, { job_id: j.id, nominal_at: earlier }))!;
    await claimRun(db, { run_id: running.id, owner: 'w', lease_seconds: 60 });
    await fireDueJobs(db);
    const runs = await listRuns(db, { job_id: j.id });
    expect(runs.find((r) => r.nominal_at.getTime() === now.getTime())).toMatchObject({ state: 'skipped' });
    expect((await getJob(db, j.id))?.last_fire_at?.getTime()).toBe(earlier.getTime());
  });
});

describe('a manual run never takes a scheduled instant', () => {
  it('a manual run requested at the very instant a scheduled run is due leaves that instant to the schedule', async () => {
    const { db } = database();
    // the schedule's only instant for a year: a minute turning before the pass adds no other
    const at = thisMinute();
    const j = await job({ schedule: cronAt(at), next_fire_at: at, overlap_policy: 'allow' });
    const manual = await manualRun({ db, now: () => at }, j.id, 'alice');
    expect(manual?.nominal_at.getTime()).not.toBe(at.getTime());
    await fireDueJobs(db);
    const cron = (await listRuns(db, { job_id: j.id })).filter((r) => r.trigger === 'cron');
    expect(cron.map((r) => [r.nominal_at.getTime(), r.state])).toEqual([[at.getTime(), 'queued']]);
  });
});

describe('a schedule is judged on the scheduler\'s clock, the database\'s, not this host\'s', () => {
  // the host runs five minutes ahead of the database: an `at` two minutes ahead of the database has passed here
  const dbNow = new Date(Date.now() - 5 * minute);
  const at = `at ${new Date(dbNow.getTime() + 2 * minute).toISOString()}`;
  const call = { name: 'skewed', action: 'create', schedule: at, payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] } };

  it('cronjob create takes an `at` still to come on the database clock', async () => {
    const { createJobFromCall } = await import('../../src/jobs/service.ts');
    const made = await createJobFromCall(deps(dbNow), { name: 'skewed', schedule: at, payload: call.payload } as never, ctx, undefined);
    expect(made.job.next_fire_at?.getTime()).toBe(dbNow.getTime() + 2 * minute);
  });

  it('the check made before anyone is asked to approve takes it too', async () => {
    const [{ cronjobTool }, { defaultConfig }] = await Promise.all([import('../../src/tools/catalog/cronjob.ts'), import('../../src/config/schema.ts')]);
    const tool = cronjobTool(defaultConfig(), deps(dbNow));
    expect(await tool.precheck!(call)).toBeNull();
  });
});
