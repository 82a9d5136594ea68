import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { daemonSeen } from '../../src/cli/daemon-presence.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

// `jobs run` warns when no daemon will take the run. A daemon may hold no connection at the moment it looks
// (its pool closed one), so one empty look at pg_stat_activity must not be taken for "no daemon".
const database = useTestDatabase();

async function queuedRun() {
  const { db } = database();
  const job = await createJob(db, {
    name: `presence-${Math.random()}`, owner: 't', created_by: 't', schedule: 'every 1h', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
  });
  return (await insertRun(db, { job_id: job.id, nominal_at: new Date(), trigger: 'manual' }))!;
}

describe('whether a daemon is there to take a run just queued', () => {
  it('is yes when a daemon connection shows up on a later look', async () => {
    const run = await queuedRun();
    let looks = 0;
    expect(await daemonSeen(database().db, run.id, async () => (++looks >= 3 ? ['echo-agent-daemon x'] : []))).toBe(true);
    expect(looks).toBe(3);
  });

  it('is yes when no connection shows but the run was taken meanwhile', async () => {
    const run = await queuedRun();
    const { db } = database();
    expect(await daemonSeen(db, run.id, async () => {
      await db.execute(sql`update runs set state = 'running' where id = ${run.id}`);
      return [];
    })).toBe(true);
  });

  it('is no when no daemon shows and the run still waits, after looking a few times', async () => {
    const run = await queuedRun();
    let looks = 0;
    expect(await daemonSeen(database().db, run.id, async () => { looks++; return []; })).toBe(false);
    expect(looks).toBeGreaterThan(1);
  });
});
