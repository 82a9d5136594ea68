import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { createJob } from '../../src/store/jobs.ts';
import {
  activeRuns, addDenial, cancelRun, finishRun, getRun, insertRun, insertRuns, listExpiredLeases, listQueued, listRuns,
  markInterrupted, recordSkip, renewLease, retryRun,
} from '../../src/store/runs.ts';
import { jobIdFor } from '../../src/queue/run-queue.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { TEST_DATABASE_URL, useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase({ poolMax: 10 });
const at = (s: string) => new Date(`2026-12-02T${s}Z`);

async function newJob() {
  return createJob(database().db, aJob());
}

describe('runs', () => {
  it('one run per (job, nominal instant) however many replicas insert it at once (I13)', async () => {
    const job = await newJob();
    const replicas = Array.from({ length: 3 }, () => openDatabase({ url: TEST_DATABASE_URL, poolMax: 4, schema: database().schema }));
    try {
      const instants = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 11, 2, 0, i)));
      const results = await Promise.all(replicas.flatMap((r) => instants.flatMap((nominal_at) => [
        insertRun(r.db, { job_id: job.id, nominal_at }),
        insertRun(r.db, { job_id: job.id, nominal_at }),
      ])));
      const won = results.filter((r) => r !== null);
      expect(won).toHaveLength(40);
      expect(new Set(won.map((r) => r!.nominal_at.getTime())).size).toBe(40);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
    expect(await listRuns(database().db, { job_id: job.id, limit: 1000 })).toHaveLength(40);
  });

  it('batch insert returns only the instants it created; a recorded skip takes the instant too', async () => {
    const { db } = database();
    const job = await newJob();
    const skip = await recordSkip(db, { job_id: job.id, nominal_at: at('01:00:00'), reason: 'overlap: previous run still running' });
    expect(skip).toMatchObject({ state: 'skipped', skip_reason: 'overlap: previous run still running' });
    expect(skip!.finished_at).toBeInstanceOf(Date);
    const created = await insertRuns(db, [
      { job_id: job.id, nominal_at: at('01:00:00') }, { job_id: job.id, nominal_at: at('02:00:00') }, { job_id: job.id, nominal_at: at('03:00:00'), trigger: 'manual' },
    ]);
    expect(created.map((r) => r.nominal_at)).toEqual([at('02:00:00'), at('03:00:00')]);
    expect(created[1]?.trigger).toBe('manual');
  });

  it('run ids are usable as BullMQ job ids', async () => {
    const run = await insertRun(database().db, { job_id: (await newJob()).id, nominal_at: at('04:00:00') });
    expect(run!.id).toMatch(/^run_[a-z2-7]{26}$/);
    expect(jobIdFor(run!.id)).toBe(`${run!.id}.0`);
  });

  it('a claim is exclusive: of many concurrent claims exactly one wins', async () => {
    const { db } = database();
    const job = await newJob();
    const run = await insertRun(db, { job_id: job.id, nominal_at: at('05:00:00') });
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => claimRun(db, { run_id: run!.id, owner: `w${i}`, lease_seconds: 60 })));
    const winners = claims.filter((c) => c !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ state: 'running', attempt: 1 });
    expect(winners[0]!.lease_expires_at!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    // a redelivered message finds it claimed
    expect(await claimRun(db, { run_id: run!.id, owner: 'late', lease_seconds: 60 })).toBeNull();
  });

  it('only the lease holder renews or finishes; output and error are redacted', async () => {
    const { db } = database();
    const run = await insertRun(db, { job_id: (await newJob()).id, nominal_at: at('06:00:00') });
    await claimRun(db, { run_id: run!.id, owner: 'w1', lease_seconds: 60, execution_id: 'exec-1', trace_id: 'trace-1' });
    expect(await renewLease(db, { run_id: run!.id, owner: 'w2', lease_seconds: 60 })).toBe(false);
    expect(await renewLease(db, { run_id: run!.id, owner: 'w1', lease_seconds: 120 })).toBe(true);
    expect(await addDenial(db, run!.id)).toBe(1);
    expect(await finishRun(db, { run_id: run!.id, owner: 'w2', state: 'succeeded' })).toBeNull();
    const done = await finishRun(db, {
      run_id: run!.id, owner: 'w1', state: 'failed', output: { steps: [{ ok: true, headers: { authorization: 'Bearer abcdefghijklmnop' } }] },
      error: 'POST https://bot:pa55word@hooks.example/x failed', denials: 1, cron_authorized: false,
    });
    expect(done).toMatchObject({ state: 'failed', denials: 1, cron_authorized: false, execution_id: 'exec-1', trace_id: 'trace-1', lease_expires_at: null });
    expect(JSON.stringify(done)).not.toMatch(/abcdefghijklmnop|pa55word/);
    expect(await finishRun(db, { run_id: run!.id, state: 'succeeded' })).toBeNull();
  });

  it('a retry goes back to the queue and is claimed again with the next attempt number', async () => {
    const { db } = database();
    const run = await insertRun(db, { job_id: (await newJob()).id, nominal_at: at('07:00:00') });
    await claimRun(db, { run_id: run!.id, owner: 'w1', lease_seconds: 60 });
    const [{ now }] = (await db.execute<{ now: Date }>(sql`select now() as now`)).rows as [{ now: Date }];
    const retrying = await retryRun(db, { run_id: run!.id, owner: 'w1', error: 'timeout', backoff_ms: 30_000 });
    expect(retrying).toMatchObject({ state: 'retrying', lease_owner: null });
    // due by the database clock, whatever this host's clock says
    expect(retrying!.not_before!.getTime() - new Date(now).getTime()).toBeGreaterThanOrEqual(30_000);
    expect(retrying!.not_before!.getTime() - new Date(now).getTime()).toBeLessThan(40_000);
    expect((await listQueued(db)).map((r) => r.id)).toContain(run!.id);
    await db.execute(sql`update runs set not_before = now() - interval '1 second' where id = ${run!.id}`);
    expect(await claimRun(db, { run_id: run!.id, owner: 'w2', lease_seconds: 60 })).toMatchObject({ attempt: 2, lease_owner: 'w2' });
  });

  it('expired leases are listed and marked interrupted, never lost', async () => {
    const { db } = database();
    const job = await newJob();
    const run = await insertRun(db, { job_id: job.id, nominal_at: at('08:00:00') });
    await claimRun(db, { run_id: run!.id, owner: 'dead-worker', lease_seconds: 0.001 });
    await new Promise((r) => setTimeout(r, 20));
    expect((await listExpiredLeases(db)).map((r) => r.id)).toContain(run!.id);
    expect(await markInterrupted(db, { run_id: run!.id, owner: 'someone-else', reason: 'lease expired' })).toBeNull();
    expect(await markInterrupted(db, { run_id: run!.id, reason: 'lease expired' })).toMatchObject({ state: 'interrupted', error: 'lease expired' });
    expect((await listExpiredLeases(db)).map((r) => r.id)).not.toContain(run!.id);
    expect(await claimRun(db, { run_id: run!.id, owner: 'w', lease_seconds: 60 })).toBeNull();
  });

  it('lists runs newest instant first, active runs of a job, and cancels unfinished ones', async () => {
    const { db } = database();
    const job = await newJob();
    const [a, b, c] = await insertRuns(db, ['09:00:00', '10:00:00', '11:00:00'].map((t) => ({ job_id: job.id, nominal_at: at(t) })));
    await claimRun(db, { run_id: b!.id, owner: 'w', lease_seconds: 60 });
    await finishRun(db, { run_id: b!.id, state: 'succeeded' });
    expect((await listRuns(db, { job_id: job.id })).map((r) => r.id)).toEqual([c!.id, b!.id, a!.id]);
    expect((await listRuns(db, { job_id: job.id, states: ['succeeded'] })).map((r) => r.id)).toEqual([b!.id]);
    expect((await activeRuns(db, job.id)).map((r) => r.id)).toEqual([a!.id, c!.id]);
    expect(await cancelRun(db, { run_id: a!.id, reason: 'overlap cancel_other' })).toMatchObject({ state: 'cancelled' });
    expect(await cancelRun(db, { run_id: b!.id, reason: 'too late' })).toBeNull();
    expect((await getRun(db, b!.id))?.state).toBe('succeeded');
  });
});
