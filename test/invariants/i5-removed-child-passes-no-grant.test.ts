import { describe, expect, it } from 'vitest';
import { runAuthorization } from '../../src/jobs/run-authorization.ts';
import { instantsDroppedByRemoval } from '../../src/jobs/next-fire.ts';
import { liveGrant } from '../../src/store/grants.ts';
import { createJob, getJob, removeJob, type NewJob } from '../../src/store/jobs.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';

/**
 * I5 with I2: a child job (task, workflow, spawn_task) has no grant of its own; its runs, and those of the
 * jobs its runs create, hold the top job's grant only through every job between them. Removing (cancelling)
 * one of those ends the authority of everything below it, as revoking the top job's grant does.
 */
const database = useTestDatabase();
const steps = { kind: 'steps' as const, steps: [{ tool: 'read_file', args: { path: 'x' } }] };
const base = (name: string): NewJob => ({ name, owner: 'alice', created_by: 'alice', schedule: '0 4 * * *', timezone: 'UTC', tools: [], paused: false, payload: steps });

describe('I5: a removed child job passes no grant on', () => {
  it('the jobs its runs created are no longer cron_authorized once it is cancelled', async () => {
    const db = database().db;
    const top = await createJob(db, base('i5-top'));
    await authorise(db, top);
    const grant = (await liveGrant(db, top.id))!;
    const child = await createJob(db, {
      ...base('i5-child'), schedule: `at ${new Date(Date.now() + 3_600_000).toISOString()}`, origin: 'task',
      parent_job_id: top.id, parent_execution_id: 'exec-top-run', parent_grant_id: grant.id,
    });
    const grandchild = await createJob(db, {
      ...base('i5-grandchild'), schedule: `at ${new Date(Date.now() + 3_600_000).toISOString()}`, origin: 'spawn_task',
      parent_job_id: child.id, parent_execution_id: 'exec-child-run', parent_grant_id: grant.id,
    });
    expect(await runAuthorization(db, child)).toMatchObject({ cron_authorized: true, rule: 'grant.inherited' });
    expect(await runAuthorization(db, grandchild)).toMatchObject({ cron_authorized: true, rule: 'grant.inherited' });

    await removeJob(db, child.id, { actor: 'alice', why: 'cancelled through task' }, instantsDroppedByRemoval);
    const removed = (await getJob(db, child.id, { includeRemoved: true }))!;
    expect(await runAuthorization(db, removed)).toMatchObject({ cron_authorized: false });
    const below = (await getJob(db, grandchild.id))!;
    expect(await runAuthorization(db, below)).toMatchObject({ cron_authorized: false, rule: 'grant.parent_none' });
    // the top job's grant is untouched: only what hung below the cancelled child lost it
    expect((await runAuthorization(db, top)).cron_authorized).toBe(true);
  });
});
