import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { listRuns } from '../../src/store/runs.ts';
import type { Tool } from '../../src/tools/types.ts';
import { authorise } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-catchup');
const minute = 60_000;

/** Takes a moment, so runs that overlapped would show it in their start and end times. */
const takesAMoment: Tool = {
  name: 'test_moment', description: 'waits 300 ms', parameters: { type: 'object' }, timeoutSeconds: 30, maxRetries: 0,
  streamCapable: false, capabilities: [], riskLevel: 'read_only', isReady: () => true, readinessDetail: () => [true, 'ready'],
  execute: () => new Promise((resolve) => setTimeout(() => resolve({ success: true, output: 'done' }), 300)),
};

describe('a misfire run_all catch-up under overlap skip, on a daemon with room for several runs at once', () => {
  it('runs every missed instant, one after another, in nominal order', async () => {
    const { db, url, schema } = database();
    // the four missed instants; the next minute may come while they run, and its instant is accounted for on its own
    const lastMissed = Math.floor(Date.now() / minute) * minute;
    const job = await createJob(db, {
      name: 'catch-up', owner: 'test', created_by: 'test', schedule: '* * * * *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'test_moment', args: {} }] }, misfire_policy: 'run_all', overlap_policy: 'skip',
      catchup_window_seconds: 3600, max_runs: 4, next_fire_at: new Date(lastMissed - 3 * minute),
    });
    await authorise(db, job);
    const daemon = await startDaemon(defaultConfig({
      tools: { also_allow: ['test_moment'] }, queue: { prefix },
      daemon: { tick_seconds: 0.2, reconcile_seconds: 0.5, stop_timeout_seconds: 2, concurrency: 4 },
    }), { logger: silentLogger, database: { url, schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false, workerId: 'catchup:1', extraTools: [takesAMoment] });
    try {
      const start = Date.now();
      while ((await listRuns(db, { job_id: job.id, states: ['succeeded'] })).length < 4) {
        if (Date.now() - start > 60_000) throw new Error(`catch-up did not finish: ${JSON.stringify((await listRuns(db, { job_id: job.id })).map((r) => [r.state, r.skip_reason]))}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await daemon.stop();
    }
    const runs = (await listRuns(db, { job_id: job.id })).filter((r) => r.nominal_at.getTime() <= lastMissed).sort((a, b) => a.nominal_at.getTime() - b.nominal_at.getTime());
    expect(runs.map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.finished_at!.getTime());
  }, 90_000);
});
