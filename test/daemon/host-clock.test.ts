import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun, listRuns } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { heldTool } from '../support/held-tool.ts';

const database = useTestDatabase();
const HOUR = 3_600_000;
afterEach(() => { vi.useRealTimers(); });

/** The host's wall clock, moved; timers and the monotonic clock keep going as they were. */
function stepHostClock(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(Date.now() + ms);
}

async function untilState(db: ReturnType<typeof database>['db'], runId: string, states: string[], ms = 20_000): Promise<string> {
  const start = performance.now();
  for (;;) {
    const state = (await getRun(db, runId))!.state;
    if (states.includes(state)) return state;
    if (performance.now() - start > ms) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a step of the host wall clock (NTP) under a running daemon', () => {
  it('an hour forward does not abort runs in flight as if their lease were lost', async () => {
    const { db, url, schema } = database();
    const job = await slowJob(db, 'clock-forward');
    const held = heldTool();
    const config = defaultConfig({ ...crashTestConfig(`test-clock-${randomBytes(3).toString('hex')}`), daemon: { lease_seconds: 3, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q1` }, http: false, extraTools: [held.tool] });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      stepHostClock(HOUR);
      // several renewal intervals (1 s) pass while the step works
      await new Promise((r) => setTimeout(r, 3_000));
      held.release();
      expect(await untilState(db, run.id, ['succeeded', 'interrupted', 'failed'])).toBe('succeeded');
    } finally {
      vi.useRealTimers();
      await daemon.stop();
    }
  }, 40_000);

  it('a host clock an hour behind the database does not hold fired runs back for that hour', async () => {
    const { db, url, schema } = database();
    const config = defaultConfig({ ...crashTestConfig(`test-clock-${randomBytes(3).toString('hex')}`), daemon: { tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q2` }, http: false });
    try {
      stepHostClock(-HOUR);
      const job = await createJob(db, {
        name: 'clock-behind', owner: 'test', created_by: 'test', schedule: 'every 1h', timezone: 'UTC', tools: [], paused: false,
        next_fire_at: new Date(Date.now() + HOUR - 1_000), payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] },
      });
      const start = performance.now();
      let runs: { id: string; state: string }[] = [];
      while (performance.now() - start < 15_000) {
        runs = await listRuns(db, { job_id: job.id });
        if (runs.some((r) => r.state === 'succeeded')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(runs.map((r) => r.state)).toContain('succeeded');
    } finally {
      vi.useRealTimers();
      await daemon.stop();
    }
  }, 40_000);
});
