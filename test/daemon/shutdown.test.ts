import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Pool } from 'pg';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob, untilRunning } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { slowTool } from '../support/slow-tool.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';

const database = useTestDatabase();
// above the sum of the stop's own limits (1 s stop timeout, 5 s cancel grace, 5 s per close and per step: about
// 36 s were every one to run out): a stop that waited on the hung thing would never end, so passing this
// ceiling is the failure; what bounded the stop is read from its log
const STOP_CEILING_MS = 60_000;

/** The messages of a logger, as they come. */
function capturedLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const logger = createLogger('info', new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) messages.push(String(JSON.parse(l).msg)); cb(); } }));
  return { logger, messages };
}

/** Stops the daemon, failing with what it logged if the stop does not end under the ceiling. */
async function stopWithinCeiling(daemon: { stop(): Promise<unknown> }, messages: readonly string[]): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stop did not end within ${STOP_CEILING_MS / 1000} s; logged: ${messages.join(' | ')}`)), STOP_CEILING_MS);
  });
  try {
    await Promise.race([daemon.stop(), ceiling]);
  } finally {
    clearTimeout(timer);
  }
}

/** Until some session of this schema waits for a lock on `table` (a pass or a run blocked on the test's lock). */
async function untilLockWaitOn(pool: Pool, schema: string, table: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await pool.query(
      `select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation
        join pg_namespace s on s.oid = c.relnamespace where not l.granted and c.relname = $2 and s.nspname = $1`, [schema, table]);
    if (res.rows[0].n > 0) return;
    if (Date.now() > deadline) throw new Error(`nothing waited on the lock on ${table} within 30 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('graceful shutdown', () => {
  it('lets running work go until the stop timeout, then cancels it and records it as interrupted', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-')), 'executions');
    const job = await slowJob(db, 'long');
    const config = defaultConfig({ ...crashTestConfig(`test-stop-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const { logger, messages } = capturedLogger();
    const daemon = await startDaemon(config, {
      logger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [slowTool(marker)],
    });
    const run = await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test');
    await untilRunning(db, run!.id);
    await daemon.stop();
    // the stop waited for the run and cancelled it because the stop timeout was reached (the tool only ends when cancelled)
    const waiting = messages.findIndex((m) => m.startsWith('stopping: no new firing; waiting for 1 running run(s)'));
    expect(waiting).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('stop timeout reached; cancelling running work')).toBeGreaterThan(waiting);
    const final = (await getRun(db, run!.id))!;
    expect(final.state).toBe('interrupted');
    expect(final.error).toContain('shutdown');
    expect((await listAudit(db, { run_id: run!.id, kind: 'run.state' }))[0]).toMatchObject({ outcome: 'interrupted' });
  }, 60_000);

  it('a run that cannot end even when cancelled (its row is locked) does not hold the stop for ever', async () => {
    const { db, url, schema, pool } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-')), 'executions');
    const job = await slowJob(db, 'stuck');
    const config = defaultConfig({ ...crashTestConfig(`test-stuck-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60, lease_seconds: 30 } });
    const { logger, messages } = capturedLogger();
    const daemon = await startDaemon(config, {
      logger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qs` }, http: false, extraTools: [slowTool(marker)],
    });
    const run = await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test');
    await untilRunning(db, run!.id);
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from runs where id = $1 for update', [run!.id]);
      // the row stays locked until the stop has returned: only giving up on the run can end it
      await stopWithinCeiling(daemon, messages);
      // the stop timeout cancelled the run, and the stop went on without it when it did not end
      expect(messages).toContain('stop timeout reached; cancelling running work');
      expect(messages).toContain('runs did not end when cancelled; their lease will expire and a replica will take them over');
      expect(messages).toContain('daemon stopped');
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    // the stop gave up on it, it did not finish it: once the row is free the cancelled attempt may still
    // record itself as interrupted, or the run stays running until its lease hands it on; never succeeded
    expect(['running', 'interrupted']).toContain((await getRun(db, run!.id))!.state);
  }, 120_000);

  it('a firing pass hung on a lock does not hold the stop past its timeout', async () => {
    const { url, schema, pool } = database();
    const config = defaultConfig({ ...crashTestConfig(`test-hang-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.1, reconcile_seconds: 60 } });
    const { logger, messages } = capturedLogger();
    const daemon = await startDaemon(config, { logger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qh` }, http: false, work: false });
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table jobs in access exclusive mode');
      await untilLockWaitOn(pool, schema, 'jobs');
      // the lock is held until the stop has returned: only the stop timeout can end the wait for the pass
      await stopWithinCeiling(daemon, messages);
      expect(messages).toContain('a firing or reconcile pass did not end by the stop timeout; going on without it');
      // the hung pass's connection keeps the pool open: that step is bounded too
      expect(messages).toContain('stopping: closing the database pool did not end in time; going on without it');
      expect(messages).toContain('daemon stopped');
    } finally {
      await locker.query('rollback');
      locker.release();
    }
  }, 120_000);

  it('takes no new run once stopping, even while a firing pass is still ending: the run stays queued for the next start', async () => {
    const { db, url, schema, pool } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-')), 'executions');
    const job = await slowJob(db, 'delivered-while-stopping');
    const config = defaultConfig({ ...crashTestConfig(`test-late-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 2, tick_seconds: 0.1, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_ql` }, http: false, extraTools: [slowTool(marker)],
    });
    // queued in the database, not yet on the queue
    const run = await manualRun({ db }, job.id, 'test');
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      // firing locks due jobs FOR UPDATE and hangs on this; a claim only reads the job and does not
      await locker.query('lock table jobs in exclusive mode');
      await untilLockWaitOn(pool, schema, 'jobs');
      const stopped = daemon.stop();
      await new Promise((r) => setTimeout(r, 200));
      await daemon.queue.enqueue(run!.id);
      await stopped;
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    expect((await getRun(db, run!.id))!.state).toBe('queued');
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('a queue connection that stops answering (Redis hung) does not hold the stop for ever', async () => {
    const { url, schema } = database();
    const proxy = await tcpProxy(6379);
    const { logger, messages } = capturedLogger();
    const config = defaultConfig({ ...crashTestConfig(`test-hungq-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger, database: { url, schema }, queue: { kind: 'redis', url: `redis://127.0.0.1:${proxy.port}` }, http: false });
    try {
      proxy.freeze();
      // the queue never answers again (the proxy stays frozen until after the stop): a stop that waited for
      // an answer would never end; the worker's close limits and the stop's step limits keep it short
      await stopWithinCeiling(daemon, messages);
      expect(messages).toContain('daemon stopped');
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
