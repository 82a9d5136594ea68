import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../src/daemon/reconciler.ts';
import { manualRun } from '../../src/jobs/service.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { openRunQueue } from '../../src/queue/run-queue.ts';
import { createJob, listJobs } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { getRun, insertRuns } from '../../src/store/runs.ts';
import { sql } from 'drizzle-orm';
import { useTestDatabase } from '../support/db.ts';
import { TEST_REDIS_URL as REDIS_URL, useRedisPrefix } from '../support/redis.ts';

const prefix = useRedisPrefix('test-rec');
const database = useTestDatabase();
const queue = openRunQueue({ kind: 'redis', url: REDIS_URL }, prefix);
const redis = new Redis(REDIS_URL);

afterAll(async () => {
  await queue.close();
  await redis.quit();
});

// overlap allow: several manual runs of one job may wait at once
const newJob = (name: string, max_retries = 0) => createJob(database().db, {
  name, owner: 'test', created_by: 'test', schedule: '0 0 * * *', timezone: 'UTC', overlap_policy: 'allow',
  payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, max_retries,
});

describe('reconciler: PostgreSQL is the source of truth, Redis can be lost', () => {
  it('goes through every queued run, not only the first thousand: a catch-up held back behind an earlier instant is never stranded', async () => {
    const db = database().db;
    const job = await newJob('many-waiting');
    // one firing pass: 2,500 runs with the same queued_at, ordered among themselves by their random ids
    const created = await insertRuns(db, Array.from({ length: 2_500 }, (_, i) => ({ job_id: job.id, nominal_at: new Date(Date.UTC(2030, 0, 1) + i * 60_000), catch_up: true })));
    expect(created).toHaveLength(2_500);
    const report = await reconcile(db, queue, silentLogger);
    expect(report.requeued).toBeGreaterThanOrEqual(2_500);
    const earliest = created.reduce((a, b) => (a.nominal_at < b.nominal_at ? a : b));
    expect(await queue.holds(earliest.id)).toBe(true);
    for (const r of created.filter((_, i) => i % 250 === 0)) expect(await queue.holds(r.id)).toBe(true);
    await db.execute(sql`update runs set state = 'cancelled' where job_id = ${job.id}`);
  });

  it('re-enqueues queued runs after Redis lost its keys, and loses no job definition', async () => {
    const db = database().db;
    const job = await newJob('flushed');
    const runs = await Promise.all([0, 1, 2].map(async (i) => manualRun({ db, enqueue: (id) => queue.enqueue(id), now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, i)) }, job.id, 'test')));
    for (const r of runs) expect(await queue.holds(r!.id)).toBe(true);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    for (const r of runs) expect(await queue.holds(r!.id)).toBe(false);
    const report = await reconcile(db, queue, silentLogger);
    expect(report.requeued).toBe(3);
    for (const r of runs) expect(await queue.holds(r!.id)).toBe(true);
    expect((await listJobs(db)).map((j) => j.id)).toContain(job.id);
    // a second pass finds nothing missing
    expect((await reconcile(db, queue, silentLogger)).requeued).toBe(0);
  });

  it('a run committed a moment ago is a hand-off under way, not a run the queue lost: it is sent only once overdue', async () => {
    const db = database().db;
    const job = await newJob('hand-off');
    // committed by a firing pass (or a worker's retry) that has not enqueued it yet
    const run = (await manualRun({ db }, job.id, 'test'))!;
    const early = await reconcile(db, queue, silentLogger, { handOffGraceSeconds: 5 });
    expect(early.requeued).toBe(0);
    expect(await queue.holds(run.id)).toBe(false);
    await db.execute(sql`update runs set queued_at = now() - interval '6 seconds' where id = ${run.id}`);
    const late = await reconcile(db, queue, silentLogger, { handOffGraceSeconds: 5 });
    expect(late.requeued).toBe(1);
    expect(await queue.holds(run.id)).toBe(true);
  });

  it('a dead worker\'s retry is handed to the queue by the pass that decided it, whatever the grace', async () => {
    const db = database().db;
    const job = await newJob('dead-worker-grace', 1);
    const run = (await manualRun({ db }, job.id, 'test'))!;
    await claimRun(db, { run_id: run.id, owner: 'dead-host:9', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run.id}`);
    const report = await reconcile(db, queue, silentLogger, { handOffGraceSeconds: 30 });
    expect(report.outcomes.retrying).toBe(1);
    expect(report.requeued, 'not counted as lost: it was never in the queue under this attempt').toBe(0);
    expect(await queue.holds(run.id, 1)).toBe(true);
  });

  it('turns a run whose worker died into a retry when retries are left, else into interrupted', async () => {
    const db = database().db;
    for (const [retries, expected] of [[1, 'retrying'], [0, 'interrupted']] as const) {
      const job = await newJob(`dead-worker-${retries}`, retries);
      const run = await manualRun({ db }, job.id, 'test');
      await claimRun(db, { run_id: run!.id, owner: 'dead-host:1', lease_seconds: 60 });
      await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run!.id}`);
      const report = await reconcile(db, queue, silentLogger);
      expect(report.leasesExpired).toBe(1);
      expect(report.outcomes, 'what the metrics count').toEqual({ retrying: expected === 'retrying' ? 1 : 0, interrupted: expected === 'interrupted' ? 1 : 0 });
      expect((await getRun(db, run!.id))!.state).toBe(expected);
      if (expected === 'retrying') expect(await queue.holds(run!.id, 1)).toBe(true);
    }
  });

  it('a retry after a dead worker waits the job\'s backoff, like a failure the worker saw itself', async () => {
    const db = database().db;
    const job = await createJob(db, {
      name: 'dead-worker-backoff', owner: 'test', created_by: 'test', schedule: '0 0 * * *', timezone: 'UTC', overlap_policy: 'allow',
      payload: { kind: 'steps', steps: [{ tool: 'read_file', args: { path: 'x' } }] }, tools: [], paused: false, max_retries: 2, retry_backoff_seconds: 45,
    });
    const run = await manualRun({ db }, job.id, 'test');
    await claimRun(db, { run_id: run!.id, owner: 'dead-host:2', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run!.id}`);
    await reconcile(db, queue, silentLogger);
    const [{ wait }] = (await db.execute<{ wait: number }>(sql`select extract(epoch from not_before - now())::float as wait from runs where id = ${run!.id}`)).rows as [{ wait: number }];
    expect(wait).toBeGreaterThan(40);
    expect(wait).toBeLessThanOrEqual(45);
  });

  it('a run whose record cannot be written keeps its state: the change and its record commit together', async () => {
    const db = database().db;
    const job = await newJob('unrecorded');
    const run = await manualRun({ db }, job.id, 'test');
    await claimRun(db, { run_id: run!.id, owner: 'dead-host:3', lease_seconds: 60 });
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run!.id}`);
    // the audit log refuses the reconciler's records for a moment (a full disk, say)
    await db.execute(sql.raw(`create function refuse_reconciler() returns trigger language plpgsql as $$ begin
      if new.actor = 'reconciler' then raise exception 'no space left'; end if; return new; end $$`));
    await db.execute(sql.raw('create trigger refuse_reconciler before insert on audit_events for each row execute function refuse_reconciler()'));
    try {
      await expect(reconcile(db, queue, silentLogger)).rejects.toThrow();
      expect((await getRun(db, run!.id))!.state).toBe('running');
    } finally {
      await db.execute(sql.raw('drop trigger refuse_reconciler on audit_events'));
    }
    await reconcile(db, queue, silentLogger);
    expect((await getRun(db, run!.id))!.state).toBe('interrupted');
  });
});
