import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { fireUntilDone } from '../../src/daemon/firing.ts';
import { watchPasses } from '../../src/daemon/hung-passes.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { openDatabase } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { useTestDatabase } from '../support/db.ts';
import { latencyProxy } from '../support/latency-proxy.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-stuck-firing');

// a yearly schedule: nothing of this file falls due unless a test makes it
const newJob = (name: string, next_fire_at: Date) => createJob(database().db, {
  name, owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', overlap_policy: 'allow',
  payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, max_retries: 0, next_fire_at,
});

// a stuck row, for real: every update of a job named `stuck…` keeps its next_fire_at where it was
beforeAll(async () => {
  const { pool, schema } = database();
  await pool.query(`
    create function ${schema}.hold_next_fire() returns trigger language plpgsql as $$
    begin new.next_fire_at := old.next_fire_at; return new; end $$;
    create trigger hold_next_fire before update on ${schema}.jobs for each row
      when (new.name like 'stuck%' and new.removed_at is null) execute function ${schema}.hold_next_fire();`);
});

/** Takes a test's job out of the others' way: removed jobs are never due. */
const removeJob = (id: string) => database().pool.query(`update ${database().schema}.jobs set removed_at = now() where id = $1`, [id]);

describe('a firing loop whose due job never moves on (its next_fire_at cannot be advanced)', () => {
  it('trips daemon.hung_pass_seconds, naming the batches that changed nothing, though every pass returns', async () => {
    const { url, schema, pool } = database();
    const job = await newJob('stuck', new Date(Date.now() - 1_000));
    const { logger, lines } = capturedLog();
    let fatal: string | null = null;
    const daemon = await startDaemon(defaultConfig({ queue: { prefix }, daemon: { tick_seconds: 0.2, reconcile_seconds: 60, stop_timeout_seconds: 1 } }), {
      logger, http: false, work: false, hungPassMs: 2_000, onFatal: (why) => { fatal = why; },
      database: { url, schema }, queue: { kind: 'redis', url: TEST_REDIS_URL },
    });
    try {
      await expect.poll(() => fatal, { timeout: 30_000, interval: 100 })
        .toMatch(/^the firing pass has made no progress for \d+ s \(daemon\.hung_pass_seconds; running \d+ s, so far .*, then \d+ firing batches that changed nothing\): it repeats work that changes nothing$/);
      // the scenario held: the due instant fired once, and the job still stands at it
      const runs = await pool.query<{ n: number }>(`select count(*)::int as n from ${schema}.runs where job_id = $1`, [job.id]);
      expect(runs.rows[0]!.n).toBe(1);
      const stored = await pool.query<{ at: Date }>(`select next_fire_at as at from ${schema}.jobs where id = $1`, [job.id]);
      expect(stored.rows[0]!.at.getTime()).toBe(job.next_fire_at!.getTime());
      const stop = lines.find((l) => l.level === 'fatal' && String(l.msg).startsWith('the firing pass has made no progress'));
      expect(stop?.stalled).toEqual({ 'firing batches that changed nothing': expect.any(Number) });
    } finally {
      await daemon.stop();
      await removeJob(job.id);
    }
  }, 60_000);

  it('a batch that selected due jobs and moved none is reported as a stall, not as progress', async () => {
    const { db } = database();
    const job = await newJob('stuck-2', new Date(Date.now() - 1_000));
    try {
      const progress = Object.assign((what: string, n = 1) => { done.set(what, (done.get(what) ?? 0) + n); }, {
        stalled: (what: string, n = 1) => { stalls.set(what, (stalls.get(what) ?? 0) + n); },
      });
      const done = new Map<string, number>();
      const stalls = new Map<string, number>();
      // the first burst fires the instant; the second finds the job due at it still, and can change nothing
      expect(await fireUntilDone(db, { progress, onFired: async () => {} })).toBe(1);
      expect(Object.fromEntries(done)).toEqual({ 'firing batches committed': 1, 'runs fired': 1 });
      expect(stalls.size).toBe(0);
      done.clear();
      expect(await fireUntilDone(db, { progress, onFired: async () => {} })).toBe(0);
      expect(Object.fromEntries(done)).toEqual({});
      expect(Object.fromEntries(stalls)).toEqual({ 'firing batches that changed nothing': 1 });
    } finally {
      await removeJob(job.id);
    }
  });
});

describe('a firing pass over many due jobs on a slow database, longer than daemon.hung_pass_seconds', () => {
  it('completes without tripping the watch, since every batch it commits fires', async () => {
    const { url, schema } = database();
    // every reply of the database 50 ms late: a batch of one job takes several round trips
    const proxy = await latencyProxy(5432, 50);
    const slow = openDatabase({ url: url.replace(':5432', `:${proxy.port}`), schema, poolMax: 2 });
    const hung: string[] = [];
    const { logger, lines } = capturedLog();
    const exitAfterMs = 2_000;
    const ids: string[] = [];
    const watch = watchPasses({ logger, warnAfterMs: exitAfterMs, exitAfterMs, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      const due = new Date(Date.now() - 1_000);
      const n = 15;
      for (let i = 0; i < n; i++) ids.push((await newJob(`busy-${i}`, due)).id);
      // the same pass under a second watch that is never told of its progress: a watch timing the pass from its start
      const control: string[] = [];
      const fromStart = watchPasses({ logger: silentLogger, warnAfterMs: exitAfterMs, exitAfterMs, checkEveryMs: 20, onHung: (why) => control.push(why) });
      let fired: number;
      try {
        fired = await fromStart.around('firing', () => watch.around('firing', (progress) => fireUntilDone(slow.db, { batch: 1, progress, onFired: async () => {} }))())();
      } finally {
        fromStart.stop();
      }
      expect(fired).toBe(n);
      // the scenario held: the watch timing it from its start stopped it; the one counting progress did not
      expect(control, 'the pass did not outlast the limit: the test proves nothing').toHaveLength(1);
      expect(hung).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      watch.stop();
      await slow.close();
      await proxy.close();
      for (const id of ids) await removeJob(id);
    }
  }, 120_000);
});
