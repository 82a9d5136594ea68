import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { createJob, getJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

/**
 * I13 across replicas: a firing pass takes each due job under its row lock and leaves alone one that
 * another transaction holds (another replica's pass, or an edit under way). A pass that planned from the
 * job as it was before that transaction committed would fire an instant the edit took away and put the
 * old schedule back.
 */
const database = useTestDatabase();
const minute = 60_000;

describe('I13: a firing pass never fires a job another transaction holds', () => {
  it('an edit under way moves a due job\'s schedule: the pass neither fires the old instant nor undoes the edit', async () => {
    const { db, pool } = database();
    const due = new Date(Math.floor(Date.now() / minute) * minute - minute);
    const job = await createJob(db, {
      name: 'i13-locked', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, next_fire_at: due,
    });
    const moved = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1));
    const edit = await pool.connect();
    try {
      await edit.query('begin');
      await edit.query('select id from jobs where id = $1 for update', [job.id]);
      await edit.query(`update jobs set schedule = '0 0 1 1 *', next_fire_at = $2 where id = $1`, [job.id, moved]);
      const pass = fireDueJobs(db);
      // give the pass every chance to plan from the job as it stood before the edit
      const early = await Promise.race([pass.then(() => 'done' as const), new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 1500))]);
      await edit.query('commit');
      const report = await pass;
      expect(early).toBe('done');
      expect(report.queued.filter((r) => r.job_id === job.id)).toEqual([]);
    } catch (err) {
      await edit.query('rollback').catch(() => {});
      throw err;
    } finally {
      edit.release();
    }
    expect(await listRuns(db, { job_id: job.id })).toEqual([]);
    expect((await getJob(db, job.id))!.next_fire_at).toEqual(moved);
    // the next pass sees the job as edited: nothing is due
    await fireDueJobs(db);
    expect(await listRuns(db, { job_id: job.id })).toEqual([]);
  }, 30_000);
});
