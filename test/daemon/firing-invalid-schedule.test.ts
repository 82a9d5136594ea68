import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { appendInTransaction, listAudit } from '../../src/store/audit.ts';
import { createJob, getJob, type NewJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun, insertRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase({ poolMax: 5 });
const minute = 60_000;

async function dueJob(over: Partial<NewJob> = {}) {
  return createJob(database().db, {
    name: 'j', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC',
    payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false,
    next_fire_at: new Date(Math.floor(Date.now() / minute) * minute), ...over,
  });
}

/** A job whose stored schedule no longer parses, as after a tz data change. */
async function brokenJob() {
  const j = await dueJob();
  await database().db.execute(sql`update jobs set schedule = 'every fortnight-ish' where id = ${j.id}`);
  return j;
}

async function waitForLockWait(): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const waiting = await database().pool.query(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`);
    if (waiting.rowCount! >= 1) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the firing pass never waited on the run row');
}

describe('a stored schedule that no longer parses', () => {
  it('stops firing, is recorded with its reason, and does not hold back the other due jobs', async () => {
    const { db } = database();
    await db.execute(sql`update jobs set paused = true`);
    const broken = await brokenJob();
    const healthy = await dueJob();
    const report = await fireDueJobs(db);
    expect(report.queued.map((r) => r.job_id)).toEqual([healthy.id]);
    expect((await getJob(db, broken.id))?.next_fire_at).toBeNull();
    const [record] = await listAudit(db, { job_id: broken.id, kind: 'job.schedule_invalid' });
    expect(record).toMatchObject({ actor: 'scheduler', data: { schedule: 'every fortnight-ish', timezone: 'UTC' } });
    expect(record!.reason).toBeTruthy();
  });

  it('records the due instant it could not plan as skipped, and a value no schedule can use (negative jitter) is caught per job', async () => {
    const { db } = database();
    await db.execute(sql`update jobs set paused = true`);
    const bad = await dueJob();
    await db.execute(sql`update jobs set jitter_seconds = -1 where id = ${bad.id}`);
    const healthy = await dueJob();
    const report = await fireDueJobs(db);
    expect(report.queued.map((r) => r.job_id)).toEqual([healthy.id]);
    const rows = await db.execute<{ state: string; skip_reason: string }>(sql`select state, skip_reason from runs where job_id = ${bad.id}`);
    expect(rows.rows).toEqual([{ state: 'skipped', skip_reason: expect.stringMatching(/^job\.schedule_invalid: .*jitter/) }]);
    expect((await getJob(db, bad.id))?.next_fire_at).toBeNull();
  });

  it('a pass that records one and cancels a run does not deadlock with that run finishing at the same moment', async () => {
    const { db } = database();
    await db.execute(sql`update jobs set paused = true`);
    await brokenJob();
    const replaced = await dueJob({ overlap_policy: 'cancel_other' });
    const running = (await insertRun(db, { job_id: replaced.id, nominal_at: new Date(Date.now() - 10 * minute) }))!;
    await claimRun(db, { run_id: running.id, owner: 'w', lease_seconds: 60 });
    let pass: Promise<unknown> | undefined;
    // the finish as the audit writer sends it: the run's row first, the chain lock after
    await db.transaction(async (tx) => {
      await tx.execute(sql`update runs set lease_expires_at = now() where id = ${running.id}`);
      pass = fireDueJobs(db);
      pass.catch(() => {}); // awaited below; observed now so a deadlock fails the test, not the process
      await waitForLockWait();
      await appendInTransaction(tx, [{ kind: 'run.finished', actor: 'worker', run_id: running.id }]);
    });
    await expect(pass).resolves.toMatchObject({ queued: [expect.objectContaining({ job_id: replaced.id })] });
    expect((await getRun(db, running.id))?.state).toBe('cancelled');
  });
});
