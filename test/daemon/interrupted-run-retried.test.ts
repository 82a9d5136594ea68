import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { listAudit } from '../../src/store/audit.ts';
import { getRun } from '../../src/store/runs.ts';
import { crashTestConfig, slowJob, untilRunning } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { slowTool } from '../support/slow-tool.ts';

const database = useTestDatabase();

describe('a run interrupted by a daemon stop', () => {
  it('is retried by the next daemon when the job has retries left, as a run whose worker was killed would be', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-restart-')), 'executions');
    const job = await slowJob(db, 'restarted', { retries: 1 });
    const config = defaultConfig({ ...crashTestConfig(`test-restart-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 0.5 } });
    const options = { logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres' as const, url, schema: `${schema}_q` }, http: false, extraTools: [slowTool(marker)] };
    const first = await startDaemon(config, options);
    const run = (await manualRun({ db, enqueue: (id) => first.queue.enqueue(id) }, job.id, 'test'))!;
    await untilRunning(db, run.id);
    await first.stop();
    const stopped = (await getRun(db, run.id))!;
    expect(stopped).toMatchObject({ state: 'retrying', attempt: 1 });
    expect(stopped.error).toBe('interrupted: shutdown');
    const [record] = await listAudit(db, { run_id: run.id, kind: 'run.state' });
    expect(record).toMatchObject({ actor: 'daemon', outcome: 'retrying', rule: 'run.retry_after_interruption', data: expect.objectContaining({ attempt: 1, interrupted: 'shutdown' }) });
    expect(record!.reason).toContain('interrupted: shutdown');

    const second = await startDaemon(config, options);
    try {
      const start = Date.now();
      while ((await getRun(db, run.id))!.state !== 'succeeded' && Date.now() - start < 30_000) await new Promise((r) => setTimeout(r, 200));
      expect((await getRun(db, run.id))!).toMatchObject({ state: 'succeeded', attempt: 2 });
      expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(2);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('without retries left it stays interrupted, with its cause', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-restart-')), 'executions');
    const job = await slowJob(db, 'no-retries');
    const config = defaultConfig({ ...crashTestConfig(`test-noretry-${randomBytes(3).toString('hex')}`), daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 60 } });
    const daemon = await startDaemon(config, {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'postgres', url, schema: `${schema}_q2` }, http: false, extraTools: [slowTool(marker)],
    });
    const run = (await manualRun({ db, enqueue: (id) => daemon.queue.enqueue(id) }, job.id, 'test'))!;
    await untilRunning(db, run.id);
    await daemon.stop();
    expect((await getRun(db, run.id))!).toMatchObject({ state: 'interrupted', error: 'interrupted: shutdown' });
  }, 60_000);
});
