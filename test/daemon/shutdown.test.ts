import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { Writable } from 'node:stream';
import { createLogger, silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob, untilRunning } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { slowTool } from '../support/slow-tool.ts';
import { tcpProxy } from '../support/tcp-proxy.ts';

const database = useTestDatabase();

describe('graceful shutdown', () => {
  it('lets running work go until the stop timeout, then cancels it and records it as interrupted', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-')), 'executions');
    const job = await slowJob(db, 'long');
    const config = defaultConfig({ ...crashTestConfig(`test-stop-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q` }, http: false, extraTools: [slowTool(marker)],
    });
    const run = await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test');
    await untilRunning(db, run!.id);
    const stopping = Date.now();
    await daemon.stop();
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(1000);
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
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qs` }, http: false, extraTools: [slowTool(marker)],
    });
    const run = await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test');
    await untilRunning(db, run!.id);
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from runs where id = $1 for update', [run!.id]);
      const stopping = Date.now();
      await daemon.stop();
      // 1 s timeout, 5 s for the cancelled run, 5 s for the queue and 5 s for the pool, at most
      expect(Date.now() - stopping).toBeLessThan(20_000);
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    // the stop gave up on it, it did not finish it: once the row is free the cancelled attempt may still
    // record itself as interrupted, or the run stays running until its lease hands it on; never succeeded
    expect(['running', 'interrupted']).toContain((await getRun(db, run!.id))!.state);
  }, 60_000);

  it('a firing pass hung on a lock does not hold the stop past its timeout', async () => {
    const { url, schema, pool } = database();
    const config = defaultConfig({ ...crashTestConfig(`test-hang-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.1, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qh` }, http: false, work: false });
    const locker = await pool.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table jobs in access exclusive mode');
      // let a firing pass start and block on the lock
      await new Promise((r) => setTimeout(r, 500));
      const stopping = Date.now();
      await daemon.stop();
      expect(Date.now() - stopping).toBeLessThan(9_000);
    } finally {
      await locker.query('rollback');
      locker.release();
    }
  }, 30_000);

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
      await new Promise((r) => setTimeout(r, 500));
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
    const messages: string[] = [];
    const logger = createLogger('info', new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n').filter(Boolean)) messages.push(String(JSON.parse(l).msg)); cb(); } }));
    const config = defaultConfig({ ...crashTestConfig(`test-hungq-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger, database: { url, schema }, queue: { kind: 'redis', url: `redis://127.0.0.1:${proxy.port}` }, http: false });
    try {
      proxy.freeze();
      const stopping = Date.now();
      await daemon.stop();
      // the worker's close and the queue's close get 5 s each, at most
      expect(Date.now() - stopping).toBeLessThan(20_000);
      expect(messages).toContain('daemon stopped');
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
