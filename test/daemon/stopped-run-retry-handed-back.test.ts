import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { openRunQueue, runQueueName } from '../../src/queue/run-queue.ts';
import { deploymentOf } from '../../src/store/db.ts';
import { getRun } from '../../src/store/runs.ts';
import { capturedLog } from '../support/captured-log.ts';
import { crashTestConfig, slowJob, untilRunning } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL, useRedisPrefix } from '../support/redis.ts';
import { slowTool } from '../support/slow-tool.ts';

// A run cut off by a graceful stop was left out of the queue on purpose, so it ran again only when some reconcile
// pass found it missing: 16-40 s after its retry time, on every rolling restart. It is handed back with its backoff,
// as other retries are; the stopping worker is paused by then, so another replica (or the next start) takes it.
const database = useTestDatabase();
const prefix = useRedisPrefix('test-stop-retry');

describe('a run interrupted by a daemon stop, with retries left', () => {
  it('is back in the queue as its next attempt when the stop returns, and the next daemon runs it once, with nothing to re-enqueue', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-stop-retry-')), 'executions');
    const job = await slowJob(db, 'cut-by-stop', { retries: 1 });
    // reconcile passes far apart: only the start's own pass could re-enqueue it
    const config = defaultConfig({ ...crashTestConfig(prefix), queue: { prefix, redis_url: TEST_REDIS_URL }, daemon: { stop_timeout_seconds: 1, tick_seconds: 0.2, reconcile_seconds: 600 } });
    const first = await startDaemon(config, { logger: capturedLog().logger, database: { url, schema }, http: false, extraTools: [slowTool(marker)] });
    const run = (await manualRun({ db, enqueue: (id) => first.queue.enqueue(id) }, job.id, 'test'))!;
    await untilRunning(db, run.id);
    await first.stop();
    expect((await getRun(db, run.id))!).toMatchObject({ state: 'retrying', attempt: 1, error: 'interrupted: shutdown' });

    const queue = openRunQueue({ kind: 'redis', url: TEST_REDIS_URL }, prefix, { name: runQueueName(await deploymentOf(db)) });
    try {
      expect(await queue.holds(run.id, 1)).toBe(true);
    } finally {
      await queue.close();
    }

    const { lines, logger } = capturedLog();
    const second = await startDaemon(config, { logger, database: { url, schema }, http: false, extraTools: [slowTool(marker)] });
    try {
      for (const start = Date.now(); (await getRun(db, run.id))!.state !== 'succeeded' && Date.now() - start < 30_000;) await new Promise((r) => setTimeout(r, 200));
      expect((await getRun(db, run.id))!).toMatchObject({ state: 'succeeded', attempt: 2 });
      expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(2);
      expect(lines.filter((l) => l.msg === 'reconciler re-enqueued runs missing from the queue')).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
