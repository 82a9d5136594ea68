import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { JobInputError } from '../../src/jobs/definition.ts';
import { EDIT_SKIP_LIMIT } from '../../src/jobs/next-fire.ts';
import { updateJobFromCall, type JobChangeDeps } from '../../src/jobs/service.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob, getJob, type NewJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { CATALOG_BY_NAME } from '../../src/tools/catalog-table.ts';
import { buildContext } from '../../src/tools/context.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
const ctx = buildContext({ channel: 'cli', user_id: 'alice', approval_source: 'auto' });
const deps = (now: Date): JobChangeDeps => ({ db: database().db, checks: { knownTool: (n) => CATALOG_BY_NAME.has(n), notifyTargets: [] }, grantScope: () => [], now: () => now });
const auto = { approval_source: 'auto' } as const;

const job = (over: Partial<NewJob>) => createJob(database().db, {
  name: 'due', owner: 'test', created_by: 'test', schedule: '0 * * * *', timezone: 'UTC', tools: [], paused: true,
  payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] }, ...over,
});
const hours = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `2099-12-01T${String(from + i).padStart(2, '0')}:00:00.000Z`);

describe('an edit that moves a due schedule accounts for the instants it takes (I13)', () => {
  it.each([
    [true, 'misfire.paused'],
    [false, 'misfire.schedule_edited'],
  ])('a job (paused: %s) whose schedule changes records each instant due and not taken as skipped under %s', async (paused, rule) => {
    const j = await job({ paused, next_fire_at: new Date('2099-12-01T10:00:00Z') });
    const changed = await updateJobFromCall(deps(new Date('2099-12-01T15:30:00Z')), j.id, { schedule: '30 * * * *' }, ctx, auto);
    expect(changed?.job.next_fire_at?.toISOString()).toBe('2099-12-01T16:30:00.000Z');
    const runs = await listRuns(database().db, { job_id: j.id });
    expect(runs.map((r) => r.nominal_at.toISOString()).sort()).toEqual(hours(10, 15));
    for (const r of runs) expect(r).toMatchObject({ state: 'skipped', skip_reason: expect.stringMatching(new RegExp(`^${rule.replace('.', '\\.')}: `)) });
    const [updated] = (await listAudit(database().db, { job_id: j.id })).filter((e) => e.kind === 'job.updated');
    expect(updated?.data).toMatchObject({ due_instants_skipped: 6 });
  });

  it('lowering max_runs to what has run on an overdue job records its due instants under misfire.max_runs', async () => {
    const j = await job({ paused: false, max_runs: 10, next_fire_at: new Date('2099-12-01T10:00:00Z') });
    await database().db.execute(sql`update jobs set fired_count = 4 where id = ${j.id}`);
    const changed = await updateJobFromCall(deps(new Date('2099-12-01T12:10:00Z')), j.id, { max_runs: 4 }, ctx, auto);
    expect(changed?.job.next_fire_at).toBeNull();
    const runs = await listRuns(database().db, { job_id: j.id });
    expect(runs.map((r) => r.nominal_at.toISOString()).sort()).toEqual(hours(10, 12));
    for (const r of runs) expect(r.skip_reason).toMatch(/^misfire\.max_runs: /);
  });

  it('an edit that leaves the schedule alone leaves the due instants to the firing loop and its misfire policy', async () => {
    const j = await job({ next_fire_at: new Date('2099-12-01T10:00:00Z') });
    const changed = await updateJobFromCall(deps(new Date('2099-12-01T15:30:00Z')), j.id, { tools: ['list_dir'] }, ctx, auto);
    expect(changed?.job.next_fire_at?.toISOString()).toBe('2099-12-01T10:00:00.000Z');
    expect(await listRuns(database().db, { job_id: j.id })).toEqual([]);
  });

  it('a backlog longer than one edit may record is refused with nothing changed', async () => {
    const j = await job({ schedule: '* * * * * *', next_fire_at: new Date('2099-12-01T10:00:00Z') });
    const late = new Date(Date.parse('2099-12-01T10:00:00Z') + (EDIT_SKIP_LIMIT + 5) * 1000);
    const edit = updateJobFromCall(deps(late), j.id, { schedule: '0 * * * *' }, ctx, auto);
    await expect(edit).rejects.toThrow(JobInputError);
    await expect(edit).rejects.toThrow(/start the daemon so its firing loop accounts for them/);
    expect((await getJob(database().db, j.id))).toMatchObject({ schedule: '* * * * * *', next_fire_at: new Date('2099-12-01T10:00:00Z') });
    expect(await listRuns(database().db, { job_id: j.id })).toEqual([]);
  });
});

describe('an edit is decided from the job as locked', () => {
  it('a firing pass that ends the schedule while the edit waits for the lock is not undone', async () => {
    const { pool, db } = database();
    const j = await job({ max_runs: 3, next_fire_at: new Date('2099-12-01T10:00:00Z') });
    await db.execute(sql`update jobs set fired_count = 2 where id = ${j.id}`);
    const firing = await pool.connect();
    try {
      await firing.query('begin');
      await firing.query('select id from jobs where id = $1 for update', [j.id]);
      const edit = updateJobFromCall(deps(new Date('2099-12-01T09:59:00Z')), j.id, { max_runs: 10 }, ctx, auto);
      // the edit is now waiting for the job's lock
      for (let i = 0; i < 200; i++) {
        const { rows } = await pool.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`);
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // the third run reaches max_runs and ends the schedule
      await firing.query('update jobs set fired_count = 3, next_fire_at = null where id = $1', [j.id]);
      await firing.query('commit');
      const changed = await edit;
      expect(changed?.job.max_runs).toBe(10);
      expect(changed?.job.next_fire_at?.toISOString()).toBe('2099-12-01T10:00:00.000Z');
    } finally {
      firing.release();
    }
  });
});
