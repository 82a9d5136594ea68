import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { createJob } from '../../src/store/jobs.ts';
import { spawnDaemon } from '../support/daemon-process.ts';
import { admin, TEST_DATABASE_URL, useTestDatabase } from '../support/db.ts';
import { aJob } from '../store/fixtures.ts';

// BullMQ's PostgreSQL backend waits for jobs on a 5 s timer (waitForJob). A forced worker close skipped the call
// that ends it, so a daemon stopped just after a fire waited on it past its 3 s exit backstop and warned that
// "an open handle kept the process alive". The close now ends the wait (queue.worker_wait_ended).
const database = useTestDatabase();
const tag = randomBytes(4).toString('hex');
const prefix = `rvstop${tag}`;
afterAll(async () => {
  for (const s of [`q_${tag}`, `${prefix}_queue`]) await admin(`drop schema if exists "${s}" cascade`);
});

describe('closing a PostgreSQL-backend worker', () => {
  it('ends the worker\'s wait for jobs (its timer) with the close, not 5 s later', async () => {
    const queue = openRunQueue({ kind: 'postgres', url: TEST_DATABASE_URL, schema: `q_${tag}` }, prefix);
    await queue.ready();
    const done: string[] = [];
    const qw = queue.work(async (runId) => { done.push(runId); }, { concurrency: 1 });
    await qw.run();
    await queue.enqueue('run_waitclose');
    await expect.poll(() => done, { timeout: 20_000 }).toEqual(['run_waitclose']);
    // the worker is back waiting for the next job: its wait (and timer) is armed
    const backend = qw.worker.backend as unknown as { cancelWait?: () => void };
    await expect.poll(() => typeof backend.cancelWait, { timeout: 20_000 }).toBe('function');
    await qw.close();
    expect(backend.cancelWait).toBeUndefined();
    await queue.close();
  }, 60_000);

  it('a daemon stopped just after a fire exits without the open-handle warning', async () => {
    const { db, schema } = database();
    await createJob(db, aJob({ name: 'tick', schedule: 'every 1s', timezone: 'UTC', next_fire_at: new Date(), paused: false }));
    const dir = mkdtempSync(join(tmpdir(), 'echo-stop-pgq-'));
    const file = join(dir, 'echo-agent.yaml');
    // no queue.redis_url: BullMQ's PostgreSQL backend
    writeFileSync(file, [
      'database:', `  url: postgres://postgres@127.0.0.1:5432/test?options=-c%20search_path%3D${schema}`,
      'queue:', `  prefix: ${prefix}`, 'daemon:', `  data_dir: ${join(dir, 'data')}`, '  http:', '    port: 0', '',
    ].join('\n'));
    const daemon = spawnDaemon(file);
    try {
      await daemon.until('daemon started');
      await expect.poll(() => daemon.lines().some((l) => l.msg === 'run finished'), { timeout: 30_000, interval: 20 }).toBe(true);
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      expect(daemon.log()).toContain('daemon stopped');
      expect(daemon.log()).not.toContain('an open handle kept the process alive');
    } finally {
      if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    }
  }, 90_000);
});
