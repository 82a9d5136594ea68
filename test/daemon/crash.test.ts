import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/schema.ts';
import { startDaemon } from '../../src/daemon/daemon.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { openRunQueue, runQueueName } from '../../src/queue/run-queue.ts';
import { deploymentOf, type Executor } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import { listAudit } from '../../src/store/audit.ts';
import { ROOT } from '../support/cli.ts';
import { authorise, crashTestConfig, slowJob } from '../support/crash-config.ts';
import { useTestDatabase } from '../support/db.ts';
import { until } from '../support/until.ts';
import { slowTool } from '../support/slow-tool.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const database = useTestDatabase();
const prefix = useRedisPrefix('test-crash');

const spawnWorker = async (db: { url: string; schema: string }, marker: string, env: Record<string, string> = {}) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/crash-worker.ts'], {
    cwd: ROOT, env: { ...process.env, DB_URL: db.url, DB_SCHEMA: db.schema, QUEUE_PREFIX: prefix, MARKER: marker, REDIS_URL, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let childOut = '';
  child.stdout!.on('data', (d) => (childOut += d));
  await until('the child worker ready', () => childOut.includes('ready'), 60_000);
  return child;
};

const queueRun = async (db: Executor, jobId: string) => {
  const queue = openRunQueue({ kind: 'redis', url: REDIS_URL }, prefix, { name: runQueueName(await deploymentOf(db)) });
  const run = await manualRun({ db, enqueue: (id) => queue.enqueue(id) }, jobId, 'test');
  await queue.close();
  return run!;
};

const executions = (marker: string) => { try { return readFileSync(marker, 'utf8').trim().split('\n').filter(Boolean); } catch { return []; } };

describe('a worker killed with SIGKILL mid-run', () => {
  it('leaves the run retried by another replica, executed once per attempt and never lost', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-crash-')), 'executions');
    const job = await createJob(db, {
      name: 'crashy', owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
      payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }] }, max_retries: 1, retry_backoff_seconds: 0,
    });
    await authorise(db, job);
    const child = await spawnWorker({ url, schema }, marker);
    const run = await queueRun(db, job.id);
    const lines = () => executions(marker);
    await until('the first execution', () => lines().length === 1, 30_000);
    expect((await getRun(db, run!.id))!.state).toBe('running');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const survivor = await startDaemon(defaultConfig(crashTestConfig(prefix)), {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false,
      workerId: 'survivor:1', extraTools: [slowTool(marker)],
    });
    try {
      // the dead worker's lease (10 s) runs out, then the survivor's reconciler hands the run on
      await until('the retry to succeed', async () => (await getRun(db, run!.id))!.state === 'succeeded', 60_000, 100);
    } finally {
      await survivor.stop();
    }
    const final = (await getRun(db, run!.id))!;
    expect(final.attempt).toBe(2);
    const pids = lines();
    expect(pids).toHaveLength(2);
    expect(pids[0]).toBe(String(child.pid));
    expect(pids[1]).toBe(String(process.pid));
  }, 180_000);
});

describe('a daemon restarted on the same host after its worker was killed with SIGKILL', () => {
  it('takes the dead worker\'s run back at once, not when its lease runs out, and leaves a live worker\'s run alone', async () => {
    const { db, url, schema } = database();
    const marker = join(mkdtempSync(join(tmpdir(), 'echo-crash-')), 'executions');
    const job = await slowJob(db, 'restarted', { retries: 1 });
    // a lease far longer than the test: only seeing the holder dead can end the run in time
    const child = await spawnWorker({ url, schema }, marker, { LEASE_SECONDS: '300', WORKER_ID: 'default' });
    const run = await queueRun(db, job.id);
    await until('the first execution', () => executions(marker).length === 1, 30_000);
    const held = (await getRun(db, run.id))!;
    expect(held.lease_owner).toMatch(new RegExp(`:${child.pid}@[0-9a-f]{12}\\.\\d+\\.\\d+$`));

    const restarted = await startDaemon(defaultConfig(crashTestConfig(prefix, { leaseSeconds: 300 })), {
      logger: silentLogger, database: { url, schema }, queue: { kind: 'redis', url: REDIS_URL }, http: false, extraTools: [slowTool(marker)],
    });
    try {
      // several reconcile passes while the holder lives: its run stays its own
      for (let i = 0; i < 3; i++) await restarted.reconcileOnce();
      expect((await getRun(db, run.id))!).toMatchObject({ state: 'running', lease_owner: held.lease_owner });
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      await until('the run to be taken back and succeed', async () => (await getRun(db, run.id))!.state === 'succeeded', 20_000, 100);
    } finally {
      await restarted.stop();
    }
    expect((await getRun(db, run.id))!.attempt).toBe(2);
    expect(executions(marker)).toEqual([String(child.pid), String(process.pid)]);
    const taken = (await listAudit(db, { run_id: run.id, kind: 'run.state' })).find((r) => r.outcome === 'retrying');
    expect(taken).toMatchObject({ actor: 'reconciler', reason: `worker ${held.lease_owner} is gone: its process no longer runs on this host` });
  }, 120_000);
});
