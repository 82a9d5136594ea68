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

async function untilState(db: ReturnType<typeof database>['db'], runId: string, states: string[], ms = 30_000): Promise<string> {
  const start = performance.now();
  for (;;) {
    const state = (await getRun(db, runId))!.state;
    if (states.includes(state)) return state;
    if (performance.now() - start > ms) return state;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Until the run's lease has been renewed `times` times from now, or the run is no longer running; its state then. */
async function untilRenewed(db: ReturnType<typeof database>['db'], runId: string, times: number, ms = 30_000): Promise<string> {
  const start = performance.now();
  let last = (await getRun(db, runId))!;
  for (let seen = 0; ;) {
    await new Promise((r) => setTimeout(r, 100));
    const now = (await getRun(db, runId))!;
    if (now.state !== 'running') return now.state;
    if (now.lease_expires_at!.getTime() !== last.lease_expires_at!.getTime() && ++seen >= times) return now.state;
    if (performance.now() - start > ms) throw new Error(`the lease was renewed only ${seen} time(s) in ${ms / 1000} s`);
    last = now;
  }
}

describe('a step of the host wall clock (NTP) under a running daemon', () => {
  it('an hour forward does not abort runs in flight as if their lease were lost', async () => {
    const { db, url, schema } = database();
    const job = await slowJob(db, 'clock-forward');
    const held = heldTool();
    // a lease far shorter than the step (an hour), yet long enough that one slow renewal under load does not end the run
    const config = defaultConfig({ ...crashTestConfig(`test-clock-${randomBytes(3).toString('hex')}`), daemon: { lease_seconds: 10, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q1` }, http: false, extraTools: [held.tool] });
    try {
      const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
      await held.started;
      stepHostClock(HOUR);
      // two renewals (every lease/3 s) go through while the step works: at the second, at least one check of the
      // lease was made on the stepped clock, and one reckoned on the wall clock would have aborted the run there
      const state = await untilRenewed(db, run.id, 2);
      held.release();
      expect(state, 'the run ended while the clock was stepped').toBe('running');
      expect(await untilState(db, run.id, ['succeeded', 'interrupted', 'failed'])).toBe('succeeded');
    } finally {
      vi.useRealTimers();
      await daemon.stop();
    }
  }, 90_000);

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
      // a run held back for the hour never comes in this time; one fired at once does, however loaded the machine
      while (performance.now() - start < 60_000) {
        runs = await listRuns(db, { job_id: job.id });
        if (runs.some((r) => r.state === 'succeeded')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(runs.map((r) => r.state)).toContain('succeeded');
    } finally {
      vi.useRealTimers();
      await daemon.stop();
    }
  }, 90_000);
});
