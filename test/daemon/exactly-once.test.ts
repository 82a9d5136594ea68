import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { fireDueJobs } from '../../src/daemon/firing.ts';
import { openDatabase } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('exactly-once firing across replicas (I13)', () => {
  it('three scheduler loops on separate connections fire 1,000 instants, each exactly once', async () => {
    const main = database();
    const now = new Date();
    // 10 jobs × 100 due instants each: every-second schedules that were due for the last 100 s
    for (let j = 0; j < 10; j++) {
      await createJob(main.db, {
        name: `fast-${j}`, owner: 'test', created_by: 'test', schedule: 'every 1s', timezone: 'UTC',
        payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [],
        overlap_policy: 'allow', misfire_policy: 'run_all', catchup_window_seconds: 3600, max_runs: 100,
        next_fire_at: new Date(Math.floor(now.getTime() / 1000) * 1000 - 99_000), paused: false,
      });
    }
    const replicas = [0, 1, 2].map(() => openDatabase({ url: main.url, schema: main.schema, poolMax: 3 }));
    try {
      const fired = await Promise.all(replicas.map(async (r) => {
        let total = 0;
        for (let pass = 0; pass < 50; pass++) total += (await fireDueJobs(r.db, { batch: 3 })).queued.length;
        return total;
      }));
      const counts = await main.db.execute<{ runs: string; distinct_instants: string; dupes: string }>(sql`
        select count(*) as runs, count(distinct (job_id, nominal_at)) as distinct_instants,
               (select count(*) from (select job_id, nominal_at from runs group by 1, 2 having count(*) > 1) d) as dupes
        from runs where state = 'queued'`);
      const row = counts.rows[0]!;
      expect(Number(row.runs)).toBe(1000);
      expect(Number(row.distinct_instants)).toBe(1000);
      expect(Number(row.dupes)).toBe(0);
      expect(fired.reduce((a, b) => a + b, 0)).toBe(1000);
      // work was actually shared: more than one replica fired something
      expect(fired.filter((n) => n > 0).length).toBeGreaterThan(1);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });
});
