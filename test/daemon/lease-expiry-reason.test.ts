import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { reconcile } from '../../src/daemon/reconciler.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { RunQueue } from '../../src/queue/run-queue.ts';
import { listAudit } from '../../src/store/audit.ts';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';

const database = useTestDatabase();
// nothing is waiting to be sent again here; the pass only looks at the expired lease
const queue = { holds: async () => true, enqueue: async () => {} } as unknown as RunQueue;

describe('a lease the reconciler finds expired', () => {
  it('is recorded without claiming the worker died: a live worker that lost its database lets its lease lapse too', async () => {
    const db = database().db;
    const job = await createJob(db, {
      name: 'lapsed', owner: 'test', created_by: 'test', schedule: '0 0 * * *', timezone: 'UTC',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false,
    });
    const run = (await manualRun({ db }, job.id, 'test'))!;
    await claimRun(db, { run_id: run.id, owner: 'live-host:7', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run.id}`);
    await reconcile(db, queue, silentLogger);
    const ended = (await getRun(db, run.id))!;
    expect(ended.state).toBe('interrupted');
    const [record] = await listAudit(db, { run_id: run.id, kind: 'run.state' });
    for (const text of [ended.error ?? '', record?.reason ?? '']) {
      expect(text).toBe('lease of live-host:7 expired: the worker died, hung or lost its database');
    }
  });
});
