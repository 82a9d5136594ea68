import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { watchPasses } from '../../src/daemon/hung-passes.ts';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { useTestDatabase } from '../support/db.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';
import { slowJob } from '../support/crash-config.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { sql } from 'drizzle-orm';
import { createJob } from '../../src/store/jobs.ts';
import { insertRun } from '../../src/store/runs.ts';

const database = useTestDatabase();

/** A logger whose lines the test reads: level, message and the rest of each line. */
function capturingLogger() {
  const lines: ({ level: string; msg: string } & Record<string, unknown>)[] = [];
  const logger = createLogger('info', new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) {
        lines.push(JSON.parse(l) as { level: string; msg: string } & Record<string, unknown>);
      }
      cb();
    },
  }));
  return { logger, lines };
}

describe('a database connection that goes silent (a partition, a failover: no error, no answer)', () => {
  it('is logged, and then stops the daemon for its supervisor to restart, instead of leaving it firing nothing for ever', async () => {
    const { url, schema } = database();
    const proxy = await tcpProxy(5432);
    const { logger, lines } = capturingLogger();
    const config = defaultConfig({ queue: { prefix: `test-hung-${randomBytes(3).toString('hex')}` }, daemon: { tick_seconds: 0.2, reconcile_seconds: 60, stop_timeout_seconds: 1 } });
    let fatal: string | null = null;
    const daemon = await startDaemon(config, {
      logger, http: false, work: false, firingStaleMs: 600, hungPassMs: 2_000, onFatal: (why) => { fatal = why; },
      database: { url: url.replace(':5432', `:${proxy.port}`), schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` },
    });
    try {
      proxy.freeze();
      await expect.poll(() => fatal, { timeout: 15_000, interval: 100 }).toMatch(/^the firing pass has made no progress for \d+ s \(daemon\.hung_pass_seconds; running \d+ s, so far .+\): a database or queue connection hangs$/);
      const error = lines.find((l) => l.level === 'error' && l.msg.startsWith('the firing pass has made no progress'));
      const stop = lines.find((l) => l.level === 'fatal' && l.msg.includes('the daemon stops so that its supervisor starts it again'));
      expect(error?.msg).toMatch(/a database or queue connection may hang$/);
      expect(stop).toBeDefined();
      // which loop hung, readable: a field named `pass` was taken for a credential and masked
      expect(stop).toMatchObject({ loop: 'firing' });
      expect(lines.indexOf(error!)).toBeLessThan(lines.indexOf(stop!));
    } finally {
      proxy.drop();
      await daemon.stop();
      await proxy.close();
    }
  }, 60_000);
});

describe('a retention pass that makes no progress', () => {
  it('is watched like the others: a deletion stuck behind a lock is logged and stops the daemon, while firing goes on', async () => {
    const { url, schema, db, pool } = database();
    const { logger, lines } = capturingLogger();
    const config = defaultConfig({ queue: { prefix: `test-hung-${randomBytes(3).toString('hex')}` }, daemon: { tick_seconds: 0.2, run_retention_days: 1, stop_timeout_seconds: 1 } });
    const job = await createJob(db, {
      name: 'old-runs', owner: 'test', created_by: 'test', schedule: 'every 1h', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'list_dir', args: { path: '.' } }] }, next_fire_at: new Date(Date.now() + 3_600_000),
    });
    const old = (await insertRun(db, { job_id: job.id, nominal_at: new Date(Date.now() - 10 * 86_400_000) }))!;
    await insertRun(db, { job_id: job.id, nominal_at: new Date(Date.now() - 86_400_000 / 2) });
    await db.execute(sql`update runs set state = 'succeeded' where job_id = ${job.id}`);
    let fatal: string | null = null;
    const daemon = await startDaemon(config, {
      logger, http: false, work: false, hungPassMs: 2_000, onFatal: (why) => { fatal = why; },
      database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qr` },
    });
    // a session that holds the old run's row: the retention's delete waits on it, with no error
    const locker = await pool.connect();
    let pruning: Promise<void> | undefined;
    try {
      await locker.query('begin');
      await locker.query('select 1 from runs where id = $1 for update', [old.id]);
      pruning = daemon.pruneOnce();
      await expect.poll(() => fatal, { timeout: 15_000, interval: 100 }).toMatch(/^the retention pass has made no progress for \d+ s \(daemon\.hung_pass_seconds; running \d+ s, so far 1 jobs checked\)/);
      // the firing loop was not the one stuck
      expect(lines.filter((l) => l.level === 'fatal').map((l) => l.loop)).toEqual(['retention']);
    } finally {
      await locker.query('rollback');
      locker.release();
      await pruning;
      await daemon.stop();
    }
  }, 60_000);
});

// The watch reads performance.now and checks on setInterval: faked here, its limits are counted exactly rather than
// raced against the machine's load (rule test.no_timing).
const fakeMonotonic = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });

describe('watching passes', () => {
  afterEach(() => { vi.useRealTimers(); });

  it('says nothing of passes that return, however many', async () => {
    fakeMonotonic();
    const { logger, lines } = capturingLogger();
    const hung: string[] = [];
    const watch = watchPasses({ logger, warnAfterMs: 1_000, exitAfterMs: 2_000, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      const pass = watch.around('firing', () => new Promise((r) => setTimeout(r, 30)));
      const passes = (async () => { for (let i = 0; i < 20; i++) await pass(); })();
      await vi.advanceTimersByTimeAsync(20 * 30);
      await passes;
      // past both limits: a returned pass left behind in the watch would be reported by now
      await vi.advanceTimersByTimeAsync(2_500);
      expect(hung).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('does not stop a pass that keeps making progress, however long past the limit it runs', async () => {
    fakeMonotonic();
    const { logger, lines } = capturingLogger();
    const hung: string[] = [];
    const watch = watchPasses({ logger, warnAfterMs: 1_000, exitAfterMs: 1_000, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      // a reconcile pass over a huge backlog: a page every 20 ms, for four times the limit
      const pass = watch.around('reconcile', async (progress) => {
        const start = performance.now();
        while (performance.now() - start < 4_000) {
          await new Promise((r) => setTimeout(r, 20));
          progress('queued runs checked', 1_000);
        }
      });
      const passed = pass();
      await vi.advanceTimersByTimeAsync(4_100);
      await passed;
      expect(hung).toEqual([]);
      expect(lines).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('stops a pass once it has made no progress for the limit, counted from its last progress, naming what it had done', async () => {
    fakeMonotonic();
    const { logger, lines } = capturingLogger();
    const hung: string[] = [];
    const watch = watchPasses({ logger, warnAfterMs: 750, exitAfterMs: 1_500, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      let hungWhileMoving = -1;
      // progress for longer than the limit (10 × 200 ms), then a query that never returns
      void watch.around('reconcile', async (progress) => {
        for (let page = 0; page < 10; page++) {
          await new Promise((r) => setTimeout(r, 200));
          progress('pages of queued runs');
          progress('runs re-enqueued', 1_000);
        }
        hungWhileMoving = hung.length;
        await new Promise(() => {});
      })();
      // the last progress is at 2 000 ms: not stopped one check before the limit counted from it, stopped at it
      await vi.advanceTimersByTimeAsync(2_000 + 1_500 - 20);
      expect(hungWhileMoving, 'not stopped while it was still making progress').toBe(0);
      expect(hung).toEqual([]);
      await vi.advanceTimersByTimeAsync(20);
      expect(hung).toHaveLength(1);
      expect(hung[0]).toMatch(/^the reconcile pass has made no progress for \d+ s \(daemon\.hung_pass_seconds; running \d+ s, so far 10 pages of queued runs, 10000 runs re-enqueued\): a database or queue connection hangs$/);
      const error = lines.find((l) => l.level === 'error');
      expect(error?.msg).toMatch(/^the reconcile pass has made no progress for \d+ s \(running \d+ s, so far 10 pages of queued runs, 10000 runs re-enqueued\): a database or queue connection may hang$/);
    } finally {
      watch.stop();
    }
  });

  it('does not take a wall clock stepped forward (NTP at boot, a resumed VM) for a hung pass', async () => {
    const hung: string[] = [];
    const watch = watchPasses({ logger: silentLogger, warnAfterMs: 30_000, exitAfterMs: 60_000, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      const pass = watch.around('firing', () => new Promise((r) => setTimeout(r, 300)));
      const running = pass();
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 3_600_000 });
      await running;
      expect(hung).toEqual([]);
    } finally {
      vi.useRealTimers();
      watch.stop();
    }
  });

  it('times a pass whose calls return having changed nothing across its calls, and stops it once the limit passes', async () => {
    const { logger, lines } = capturingLogger();
    const hung: string[] = [];
    const watch = watchPasses({ logger, warnAfterMs: 750, exitAfterMs: 1_500, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      // the firing loop over a job it cannot move: each call returns at once, 20 ms apart
      let calls = 0;
      const pass = watch.around('firing', async (progress) => {
        if (calls++ === 0) progress('runs fired');
        progress.stalled?.('firing batches that changed nothing');
      });
      while (hung.length === 0 && calls < 2_000) {
        await pass();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(hung[0]).toMatch(/^the firing pass has made no progress for \d+ s \(daemon\.hung_pass_seconds; running \d+ s, so far 1 runs fired, then \d+ firing batches that changed nothing\): it repeats work that changes nothing$/);
      expect(lines.find((l) => l.level === 'error')?.msg).toMatch(/: it repeats work that changes nothing$/);
    } finally {
      watch.stop();
    }
  });

  it('starts the clock of such a pass again once a call makes progress', async () => {
    fakeMonotonic();
    const hung: string[] = [];
    const watch = watchPasses({ logger: silentLogger, warnAfterMs: 3_000, exitAfterMs: 3_000, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      let moving = false;
      const pass = watch.around('firing', async (progress) => {
        if (moving) progress('runs fired');
        else progress.stalled?.('firing batches that changed nothing');
      });
      // stretches of stalled calls, each under the limit, with one call that fires between them; together
      // they outlast the limit (8 × 500 ms of the faked clock against 3 000 ms)
      const calls = (async () => {
        for (let stretch = 0; stretch < 8; stretch++) {
          const start = performance.now();
          while (performance.now() - start < 500) {
            await pass();
            await new Promise((r) => setTimeout(r, 20));
          }
          moving = true;
          await pass();
          moving = false;
        }
      })();
      await vi.advanceTimersByTimeAsync(8 * 520);
      await calls;
      expect(hung).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('tells the daemon to stop once, however many passes hang', async () => {
    fakeMonotonic();
    const hung: string[] = [];
    const watch = watchPasses({ logger: silentLogger, warnAfterMs: 50, exitAfterMs: 100, checkEveryMs: 20, onHung: (why) => hung.push(why) });
    try {
      void watch.around('firing', () => new Promise(() => {}))();
      void watch.around('reconcile', () => new Promise(() => {}))();
      await vi.advanceTimersByTimeAsync(100);
      expect(hung).toHaveLength(1);
      // three times the limit more: a second report would have come by now
      await vi.advanceTimersByTimeAsync(300);
      expect(hung).toHaveLength(1);
    } finally {
      watch.stop();
    }
  });
});

describe('a queue that refuses runs (Redis full under noeviction, a backend that fails writes)', () => {
  it('makes /healthz fail, naming the queue and its answer, until the runs it refused are in the queue again', async () => {
    const { db, url, schema, pool } = database();
    const config = defaultConfig({ queue: { prefix: `test-refusing-${randomBytes(3).toString('hex')}` }, daemon: { tick_seconds: 0.2, reconcile_seconds: 1, stop_timeout_seconds: 1, http: { port: 0 } } });
    const daemon = await startDaemon(config, { logger: silentLogger, work: false, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qr` } });
    const health = async () => {
      const res = await fetch(`http://127.0.0.1:${daemon.httpPort}/healthz`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, body: await res.json() as { status: string; error?: string } };
    };
    try {
      expect((await health()).status).toBe(200);
      // every new job row is refused, as a full Redis refuses every write
      await pool.query(`alter table ${schema}_qr.job add constraint refuse_new_jobs check (false) not valid`);
      const job = await slowJob(db, 'refused');
      let refusedRun: { id: string } | undefined;
      await expect(manualRun({ db, enqueue: async (id) => { refusedRun = { id }; await daemon.queue.enqueue(id); } }, job.id, 'test')).rejects.toThrow();
      const refused = await health();
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatch(/^the queue \(BullMQ's PostgreSQL backend, in the daemon's database\): .*refuse_new_jobs.*; runs wait in the database since \S+$/);
      // the reconciler tries the refused run again, and is refused too
      await daemon.reconcileOnce();
      expect((await health()).status).toBe(503);
      await pool.query(`alter table ${schema}_qr.job drop constraint refuse_new_jobs`);
      await expect.poll(async () => (await health()).status, { timeout: 20_000, interval: 250 }).toBe(200);
      expect(await daemon.queue.holds(refusedRun!.id)).toBe(true);
    } finally {
      await daemon.stop();
    }
  }, 60_000);
});
