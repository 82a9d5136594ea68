import { describe, expect, it } from 'vitest';
import { manualRun, RunRefusedError } from '../../src/jobs/service.ts';
import { createJob, type NewJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun, insertRun, listRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

async function jobWithRunningRun(over: Partial<NewJob>) {
  const db = database().db;
  const job = await createJob(db, {
    name: 'm', owner: 'test', created_by: 'test', schedule: '0 3 * * *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: {} }] }, ...over,
  });
  const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date('2026-12-01T03:00:00Z') }))!;
  await claimRun(db, { run_id: run.id, owner: 'w', lease_seconds: 60 });
  return { job, running: run };
}

describe('a manual run follows the job\'s overlap policy', () => {
  it('skip: refused while another run is active, with the rule, and nothing is queued', async () => {
    const { job } = await jobWithRunningRun({ overlap_policy: 'skip' });
    await expect(manualRun({ db: database().db }, job.id, 'alice')).rejects.toThrow(RunRefusedError);
    expect(await listRuns(database().db, { job_id: job.id })).toHaveLength(1);
  });

  it('cancel_other: the running run is cancelled and the manual one queued', async () => {
    const { job, running } = await jobWithRunningRun({ overlap_policy: 'cancel_other' });
    const run = await manualRun({ db: database().db }, job.id, 'alice');
    expect(run).toMatchObject({ state: 'queued', trigger: 'manual' });
    expect(await getRun(database().db, running.id)).toMatchObject({ state: 'cancelled', error: expect.stringContaining('replaced by a manual run requested by alice') });
  });

  it('allow: runs beside it', async () => {
    const { job } = await jobWithRunningRun({ overlap_policy: 'allow' });
    expect(await manualRun({ db: database().db }, job.id, 'alice')).toMatchObject({ state: 'queued' });
  });

  it('a manual instant equal to an existing one moves by a millisecond instead of vanishing', async () => {
    const { job } = await jobWithRunningRun({ overlap_policy: 'allow' });
    const at = new Date('2026-12-01T03:00:00Z');
    const run = await manualRun({ db: database().db, now: () => at }, job.id, 'alice');
    expect(run?.nominal_at.getTime()).toBe(at.getTime() + 1);
  });
});
