import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { startHttp } from '../../src/daemon/http.ts';
import { createMetrics } from '../../src/daemon/metrics.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { crashTestConfig, slowJob, untilRunning } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { slowTool } from '../support/slow-tool.ts';

const database = useTestDatabase();

describe('/healthz asked with HEAD (load balancers, uptime probes)', () => {
  it.each([
    ['healthy', async () => ({ database: 'ok' }), 200],
    ['failing', async (): Promise<Record<string, string>> => { throw new Error('the database: connect ECONNREFUSED'); }, 503],
  ] as const)('answers the GET status without a body when %s', async (_what, check, status) => {
    const metrics = createMetrics();
    const http = await startHttp({ host: '127.0.0.1', port: 0, metrics, logger: silentLogger, health: { check } });
    try {
      const head = await fetch(`http://127.0.0.1:${http.port}/healthz`, { method: 'HEAD' });
      expect(head.status).toBe(status);
      expect(await head.text()).toBe('');
      expect((await fetch(`http://127.0.0.1:${http.port}/healthz`)).status).toBe(status);
      // other methods are still refused, saying which are allowed
      const post = await fetch(`http://127.0.0.1:${http.port}/healthz`, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await http.close();
      metrics.close();
    }
  });
});

describe('a graceful stop, seen from outside and cut short', () => {
  it('/healthz says stopping (503) while running work may still finish; cancelNow cancels it at once and records it interrupted, as the stop timeout would', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-now-')), 'executions');
    const job = await slowJob(db, 'held-until-cancelled');
    // a stop timeout far beyond the test's own: only cancelNow can end this stop in time
    const config = defaultConfig({ ...crashTestConfig(`test-stop-now-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 3600, tick_seconds: 0.2, reconcile_seconds: 60, http: { port: 0 } } });
    const { lines, logger } = capturedLog();
    const daemon = await startDaemon(config, { logger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qn` }, extraTools: [slowTool(marker)] });
    const healthz = `http://127.0.0.1:${daemon.httpPort}/healthz`;
    expect((await fetch(healthz)).status).toBe(200);
    const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
    await untilRunning(db, run.id);

    const stopped = daemon.stop();
    // the first line says how many runs the stop waits on, and until when
    await expect.poll(() => lines.some((l) => String(l.msg).startsWith('stopping:'))).toBe(true);
    const stopping = lines.find((l) => String(l.msg).startsWith('stopping:'));
    expect(stopping).toMatchObject({ running: 1, stop_timeout_seconds: 3600, msg: expect.stringContaining('waiting for 1 running run(s) until') });
    const cancelAt = Date.parse(String(stopping!.cancel_at));
    expect(cancelAt).toBeGreaterThan(Date.now() + 3_000_000);
    const during = await fetch(healthz);
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ status: 'stopping', firing: 'stopped', running: expect.stringMatching(/^1 run\(s\), cancelled at /) });
    expect(daemon.stopping()).toMatchObject({ running: 1 });

    daemon.cancelNow('a second SIGTERM');
    await expect(stopped).resolves.toEqual({ failure: null });
    const final = (await getRun(db, run.id))!;
    expect(final.state).toBe('interrupted');
    expect(final.error).toContain('shutdown');
    expect((await listAudit(db, { run_id: run.id, kind: 'run.state' }))[0]).toMatchObject({ outcome: 'interrupted' });
    const messages = lines.map((l) => String(l.msg));
    expect(lines.find((l) => String(l.msg).startsWith('a second SIGTERM while stopping: cancelling 1 running run(s) now'))).toMatchObject({ level: 'warn', running: 1 });
    // it was not the stop timeout, and the log does not say so
    expect(messages).not.toContain('stop timeout reached; cancelling running work');
    expect(messages).toContain('daemon stopped');
  }, 120_000);

  it('a cancelNow asked before the stop begins applies as soon as it does', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-now-')), 'executions');
    const job = await slowJob(db, 'cancelled-before-stop');
    const config = defaultConfig({ ...crashTestConfig(`test-stop-early-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 3600, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_qe` }, http: false, extraTools: [slowTool(marker)] });
    const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
    await untilRunning(db, run.id);
    expect(daemon.stopping()).toBeNull();
    daemon.cancelNow('a second SIGINT');
    await daemon.stop();
    expect((await getRun(db, run.id))!.state).toBe('interrupted');
  }, 120_000);
});
