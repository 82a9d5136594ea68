import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun, listRuns } from '../../src/store/runs.ts';
import { pgSpillStore } from '../../src/store/spills.ts';
import { aJob } from '../store/fixtures.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();

describe('daemon housekeeping', () => {
  it('the reconcile pass removes spills older than tools.spill_retention_hours and keeps newer ones', async () => {
    const { url, schema, db } = database();
    const store = pgSpillStore(db);
    const old = await store.put('old output', { tool: 'read_file', execution_id: 'e1' });
    const fresh = await store.put('fresh output', { tool: 'read_file', execution_id: 'e2' });
    await db.execute(sql`update spills set created_at = now() - interval '3 hours' where id = ${old}`);
    const config = defaultConfig({ tools: { spill_retention_hours: 2 }, daemon: { http: { port: 0 } }, queue: { prefix: `test-house-${randomBytes(3).toString('hex')}` } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false });
    try {
      await daemon.reconcileOnce();
      expect(await store.get(old, 0, 10)).toBeNull();
      expect(await store.get(fresh, 0, 100)).toMatchObject({ content: 'fresh output' });
    } finally {
      await daemon.stop();
    }
  });

  it.each([
    [1, 1], // the run from 2 days ago stays as the job's newest
    [0, 2],
  ])('a retention pass with daemon.run_retention_days %i keeps %i of a job\'s two ended runs from 2 and 3 days ago', async (days, kept) => {
    const { url, schema, db } = database();
    const job = await createJob(db, aJob({ name: `retention ${days}` }));
    for (const ago of [2, 3]) {
      const run = (await insertRun(db, { job_id: job.id, nominal_at: new Date(Date.now() - ago * 86_400_000) }))!;
      await db.execute(sql`update runs set state = 'succeeded' where id = ${run.id}`);
    }
    const config = defaultConfig({ daemon: { run_retention_days: days, http: { port: 0 } }, queue: { prefix: `test-house-${randomBytes(3).toString('hex')}` } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, work: false });
    try {
      await daemon.pruneOnce();
      expect(await listRuns(db, { job_id: job.id })).toHaveLength(kept);
      expect((await daemon.metrics.runsPruned.get()).values[0]?.value ?? 0).toBe(2 - kept);
    } finally {
      await daemon.stop();
    }
  });
});
