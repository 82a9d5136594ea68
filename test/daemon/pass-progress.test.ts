import { sql } from 'drizzle-orm';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { fireUntilDone } from '../../src/daemon/firing.ts';
import { watchPasses } from '../../src/daemon/hung-passes.ts';
import { reconcile } from '../../src/daemon/reconciler.ts';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { insertRuns } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { latencyProxy } from '../support/latency-proxy.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase({ poolMax: 6 });
const prefix = useRedisPrefix('test-progress');
const queue = openRunQueue({ kind: 'redis', url: TEST_REDIS_URL }, `${prefix}-direct`);
afterAll(() => queue.close());

const newJob = (name: string, extra: { next_fire_at?: Date; max_runs?: number } = {}) => createJob(database().db, {
  // a yearly schedule: the daemon's firing loop leaves this file's jobs alone unless a test makes them due
  name, owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', overlap_policy: 'allow',
  payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, max_retries: 0, ...extra,
});

/** `n` runs waiting in PostgreSQL that the queue never got: what a Redis flush leaves. */
async function lostRuns(jobId: string, n: number, year = 2030) {
  return insertRuns(database().db, Array.from({ length: n }, (_, i) => ({ job_id: jobId, nominal_at: new Date(Date.UTC(year, 0, 1) + i * 60_000) })));
}

// each test counts the waiting runs it made: none of another's may be left
afterEach(async () => {
  await database().db.execute(sql`update runs set state = 'cancelled' where state in ('queued', 'retrying', 'running')`);
});

/** What a pass told its watch, added up by what it did. */
function progressRecorder() {
  const done = new Map<string, number>();
  return { done, progress: (what: string, n = 1) => { done.set(what, (done.get(what) ?? 0) + n); } };
}

describe('the passes tell the hung-pass watch of their progress', () => {
  it('the reconcile pass reports each queued run checked and re-enqueued, and each expired lease ended', async () => {
    const db = database().db;
    const job = await newJob('reconcile-progress');
    await lostRuns(job.id, 25);
    const [held] = await lostRuns(job.id, 1, 2031);
    await claimRun(db, { run_id: held!.id, owner: 'dead-host:4', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${held!.id}`);
    const { done, progress } = progressRecorder();
    const report = await reconcile(db, queue, silentLogger, { progress, pageSize: 10 });
    expect(report.requeued).toBe(25);
    expect(Object.fromEntries(done)).toEqual({ 'expired leases ended': 1, 'queued runs checked': 25, 'runs re-enqueued': 25 });
  });

  it('the firing pass reports each committed batch and the runs it fired', async () => {
    const db = database().db;
    const due = new Date(Date.now() - 60_000);
    for (let i = 0; i < 5; i++) await newJob(`firing-progress-${i}`, { next_fire_at: due, max_runs: 1 });
    const { done, progress } = progressRecorder();
    const fired = await fireUntilDone(db, { batch: 2, progress, onFired: async () => {} });
    expect(fired).toBe(5);
    // 5 due jobs in batches of 2: at least three commits, and the last pass finds none left
    expect(done.get('firing batches committed')).toBeGreaterThanOrEqual(3);
    expect(done.get('runs fired')).toBe(5);
  });
});

describe('a reconcile pass over a backlog that outlasts daemon.hung_pass_seconds (Redis flushed, every run to re-enqueue)', () => {
  it('completes without the watch stopping the daemon, since every run it re-enqueues is progress', async () => {
    const { url, schema } = database();
    // every Redis reply 100 ms late: re-enqueuing 40 runs (3 round trips each) takes 12 s at least
    const proxy = await latencyProxy(6379, 100);
    const redisUrl = `redis://127.0.0.1:${proxy.port}`;
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    }));
    const hungPassMs = 2_500;
    const config = defaultConfig({ queue: { prefix, redis_url: redisUrl }, daemon: { reconcile_seconds: 1, stop_timeout_seconds: 1 } });
    let fatal: string | null = null;
    const daemon = await startDaemon(config, {
      logger, http: false, work: false, hungPassMs, onFatal: (why) => { fatal = why; },
      database: { url, schema }, queue: { kind: 'redis', url: redisUrl },
    });
    try {
      const job = await newJob('flushed-backlog');
      const lost = 40;
      // a watch never told of progress, timing the backlog's re-enqueuing from its start as the old watch did
      let outlasted = false;
      const fromStart = watchPasses({ logger: silentLogger, warnAfterMs: hungPassMs, exitAfterMs: hungPassMs, checkEveryMs: 50, onHung: () => { outlasted = true; } });
      try {
        await fromStart.around('reconcile', async () => {
          await lostRuns(job.id, lost);
          await expect.poll(() => daemon.queue.depth(), { timeout: 120_000, interval: 500 }).toBe(lost);
        })();
      } finally {
        fromStart.stop();
      }
      // the scenario holds: the old watch would have taken re-enqueuing them for a hang
      expect(outlasted, 'the backlog was re-enqueued within the limit: the test proves nothing').toBe(true);
      expect(lines.some((l) => l.msg === 'reconciler re-enqueued runs missing from the queue' && l.requeued === lost), 'one pass re-enqueued them all').toBe(true);
      expect(fatal).toBeNull();
      expect(lines.filter((l) => String(l.msg).includes('has made no progress'))).toEqual([]);
    } finally {
      await daemon.stop();
      await proxy.close();
    }
  }, 180_000);
});
