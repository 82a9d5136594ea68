import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { fireUntilDone, type FiringReport } from '../../src/daemon/firing.ts';
import { createJob } from '../../src/store/jobs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase({ poolMax: 6 });
const minute = 60_000;

async function dueJobs(n: number, tag: string) {
  // earlier tests' jobs come due again at the next minute (and paused ones are recorded): only this test's jobs may fire
  await database().db.execute(sql`update jobs set next_fire_at = null`);
  const due = new Date(Math.floor(Date.now() / minute) * minute);
  for (let i = 0; i < n; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => createJob(database().db, {
      name: `${tag}-${i + k}`, owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, overlap_policy: 'allow', next_fire_at: due,
      // one instant each: a burst that crosses a minute boundary would otherwise fire the next minute's too
      max_runs: 1,
    })));
  }
}

describe('a firing burst', () => {
  it('with passes in parallel, fires every due instant exactly once and hands every run on', async () => {
    await dueJobs(230, 'burst');
    const reports: FiringReport[] = [];
    const total = await fireUntilDone(database().db, { batch: 20, parallel: 3, onFired: async (r) => { reports.push(r); } });
    const handed = reports.flatMap((r) => r.queued.map((q) => q.id));
    expect(total).toBe(230);
    expect(new Set(handed).size).toBe(230);
    // 230 jobs in batches of 20
    expect(reports.length).toBeGreaterThanOrEqual(12);
    const counts = await database().db.execute<{ n: string; jobs: string }>(sql`select count(*) as n, count(distinct job_id) as jobs from runs where state = 'queued'`);
    expect(counts.rows[0]).toEqual({ n: '230', jobs: '230' });
  });

  it('a quiet tick is one pass', async () => {
    await database().db.execute(sql`update jobs set next_fire_at = null`);
    const reports: FiringReport[] = [];
    await fireUntilDone(database().db, { parallel: 4, onFired: async (r) => { reports.push(r); } });
    expect(reports).toHaveLength(1);
    expect(reports[0]!.queued).toHaveLength(0);
  });

  it('waits for the runs it handed on before it returns', async () => {
    await dueJobs(5, 'handoff');
    let enqueued = 0;
    await fireUntilDone(database().db, {
      parallel: 2,
      onFired: async (r) => {
        await new Promise((done) => setTimeout(done, 50));
        enqueued += r.queued.length;
      },
    });
    expect(enqueued).toBe(5);
  });

  it('stops starting passes once the daemon is stopping', async () => {
    await dueJobs(60, 'stopping');
    let passes = 0;
    await fireUntilDone(database().db, { batch: 10, parallel: 2, stopping: () => passes >= 1, onFired: async () => { passes++; } });
    expect(passes).toBe(1);
  });
});

describe('a firing burst that fails', () => {
  it('reports a failed hand-off only after every pass and hand-off has settled', async () => {
    await dueJobs(40, 'failing');
    let settledHandoffs = 0;
    const error = await fireUntilDone(database().db, {
      batch: 10, parallel: 2,
      onFired: async (r) => {
        await new Promise((done) => setTimeout(done, 20));
        settledHandoffs++;
        if (r.queued.length > 0 && settledHandoffs === 1) throw new Error('queue is down');
      },
    }).then(() => null, (err: Error) => err);
    expect(error?.message).toBe('queue is down');
    // every pass ran and its hand-off finished before the error came back: nothing left running unobserved
    const queued = await database().db.execute<{ n: string }>(sql`select count(*) as n from runs r join jobs j on j.id = r.job_id where j.name like 'failing-%'`);
    expect(queued.rows[0]?.n).toBe('40');
    expect(settledHandoffs).toBeGreaterThanOrEqual(4);
  });
});
