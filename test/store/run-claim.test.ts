import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_SECONDS } from '../../src/config/schema.ts';
import { retryBackoffMs } from '../../src/daemon/retry-backoff.ts';
import { openDatabase } from '../../src/store/db.ts';
import { issueGrant, revokeGrant } from '../../src/store/grants.ts';
import { createJob, getJob } from '../../src/store/jobs.ts';
import { claimRun, claimRunWithJob } from '../../src/store/run-claim.ts';
import { finishRun, getRun, insertRun, markInterrupted, renewLease, retryRun } from '../../src/store/runs.ts';
import { useTestDatabase } from '../support/db.ts';
import { until } from '../support/until.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase({ poolMax: 4 });
let minute = 0;
const nextInstant = () => new Date(Date.UTC(2026, 11, 2, 4, minute++));
const human = { approval_id: 'apr_claim', approver: 'alice', channel: 'cli' };

async function queuedRun(over: Parameters<typeof aJob>[0] = {}) {
  const job = await createJob(database().db, aJob(over));
  const run = await insertRun(database().db, { job_id: job.id, nominal_at: nextInstant() });
  return { job, run: run! };
}

describe('claiming a run', () => {
  it('moves it to running and hands back the job and its live grant as stored', async () => {
    const { db } = database();
    const { job, run } = await queuedRun();
    const grant = await issueGrant(db, { job_id: job.id, ...human });
    const claimed = await claimRunWithJob(db, { run_id: run.id, owner: 'host:1', lease_seconds: 60, execution_id: 'exec-1', trace_id: run.id });
    if (typeof claimed === 'string' || 'notYetDue' in claimed || 'behind' in claimed) throw new Error(`not claimed: ${JSON.stringify(claimed)}`);
    expect(claimed.run).toEqual(await getRun(db, run.id));
    expect(claimed.run).toMatchObject({ state: 'running', attempt: 1, lease_owner: 'host:1', execution_id: 'exec-1' });
    expect(claimed.run.lease_expires_at).toBeInstanceOf(Date);
    // the same mapping as drizzle's own queries: dates, arrays, jsonb
    expect(claimed.job).toEqual(await getJob(db, job.id));
    expect(claimed.liveGrant).toMatchObject({ id: grant.id, approver: 'alice', revoked_at: null });
  });

  it('starts each attempt with no refusals counted: a retry replays the same calls and is held to the limit by its own', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    await claimRun(db, { run_id: run.id, owner: 'host:1', lease_seconds: 60 });
    await db.execute(sql`update runs set denials = 2 where id = ${run.id}`);
    expect(await retryRun(db, { run_id: run.id, owner: 'host:1', error: 'flaky', backoff_ms: 0 })).toBeTruthy();
    const again = await claimRun(db, { run_id: run.id, owner: 'host:2', lease_seconds: 60 });
    expect(again).toMatchObject({ attempt: 2, denials: 0 });
  });

  it('hands back no grant once it is revoked', async () => {
    const { db } = database();
    const { job, run } = await queuedRun();
    await issueGrant(db, { job_id: job.id, ...human });
    await revokeGrant(db, { job_id: job.id, by: 'admin', why: 'test' });
    const claimed = await claimRunWithJob(db, { run_id: run.id, owner: 'host:1', lease_seconds: 60 });
    expect(typeof claimed === 'string' || 'notYetDue' in claimed || 'behind' in claimed ? claimed : claimed.liveGrant).toBeNull();
  });

  it('a second delivery of a claimed or finished run is a duplicate', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    expect(await claimRun(db, { run_id: run.id, owner: 'a', lease_seconds: 60 })).not.toBeNull();
    expect(await claimRunWithJob(db, { run_id: run.id, owner: 'b', lease_seconds: 60 })).toBe('duplicate');
  });

  it('a run the database does not hold at all is unknown, not a duplicate: another deployment\'s, on a queue two share', async () => {
    const { db } = database();
    expect(await claimRunWithJob(db, { run_id: 'run_doesnotexist', owner: 'b', lease_seconds: 60 })).toBe('unknown');
  });

  it('holds back a buffer_one run while another run of its job is running, and claims it after', async () => {
    const { db } = database();
    const { job, run: first } = await queuedRun({ overlap_policy: 'buffer_one' });
    const second = (await insertRun(db, { job_id: job.id, nominal_at: nextInstant() }))!;
    expect(await claimRun(db, { run_id: first.id, owner: 'a', lease_seconds: 60 })).not.toBeNull();
    expect(await claimRunWithJob(db, { run_id: second.id, owner: 'b', lease_seconds: 60 })).toBe('busy');
    expect((await getRun(db, second.id))?.state).toBe('queued');
    await db.execute(sql`update runs set state = 'succeeded' where id = ${first.id}`);
    expect(await claimRun(db, { run_id: second.id, owner: 'b', lease_seconds: 60 })).toMatchObject({ state: 'running' });
  });

  it('of two buffer_one siblings claimed at the same moment, only one runs', async () => {
    const { db, pool } = database();
    const { job, run: first } = await queuedRun({ overlap_policy: 'buffer_one' });
    const second = (await insertRun(db, { job_id: job.id, nominal_at: nextInstant() }))!;
    let racing: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      expect(await claimRun(tx, { run_id: first.id, owner: 'a', lease_seconds: 60 })).not.toBeNull();
      const holder = (await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)).rows[0]!.pid;
      // the second claim starts before the first commits, so its snapshot sees no running sibling
      let raced = false;
      racing = claimRunWithJob(db, { run_id: second.id, owner: 'b', lease_seconds: 60 }).finally(() => { raced = true; });
      // it waits on this transaction's uncommitted row (or, were nothing there to stop it, it is done); only a
      // session this one blocks counts, not a lock wait of another test file in the same database
      await until('the racing claim waiting on the first', async () => raced || (await pool.query(
        'select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [holder])).rowCount! >= 1, 30_000, 10);
    });
    expect(await racing).toBe('busy');
    expect((await getRun(db, second.id))?.state).toBe('queued');
  });

  it('does not claim a retrying run before its backoff ends, and says how long until it is due', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    await claimRun(db, { run_id: run.id, owner: 'a', lease_seconds: 60 });
    await retryRun(db, { run_id: run.id, owner: 'a', error: 'flaky', backoff_ms: 60_000 });
    const early = await claimRunWithJob(db, { run_id: run.id, owner: 'b', lease_seconds: 60 });
    expect(early).toMatchObject({ notYetDue: expect.any(Number) });
    expect((early as { notYetDue: number }).notYetDue).toBeGreaterThan(50_000);
    expect((await getRun(db, run.id))?.state).toBe('retrying');
    await db.execute(sql`update runs set not_before = now() - interval '1 second' where id = ${run.id}`);
    expect(await claimRun(db, { run_id: run.id, owner: 'b', lease_seconds: 60 })).toMatchObject({ state: 'running', attempt: 2 });
  });

  it('a retry far in the future is still answered as not yet due, within the longest wait a timer can hold', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    await claimRun(db, { run_id: run.id, owner: 'a', lease_seconds: 60 });
    await retryRun(db, { run_id: run.id, owner: 'a', error: 'flaky', backoff_ms: 60_000 });
    await db.execute(sql`update runs set not_before = now() + interval '400 days' where id = ${run.id}`);
    expect(await claimRunWithJob(db, { run_id: run.id, owner: 'b', lease_seconds: 60 })).toEqual({ notYetDue: 2_147_483_000 });
  });

  it('the retry backoff doubles per attempt up to the longest timer, however many retries a job allows', () => {
    const job = { retry_backoff_seconds: 30 };
    expect([1, 2, 3].map((a) => retryBackoffMs(job, a))).toEqual([30_000, 60_000, 120_000]);
    // a day's backoff, retried 20 times, would be 2^19 days
    expect(retryBackoffMs({ retry_backoff_seconds: 86_400 }, 20)).toBe(MAX_TIMER_SECONDS * 1000);
  });

  it('a run whose holder renewed its lease is not taken over as expired', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    await claimRun(db, { run_id: run.id, owner: 'slow', lease_seconds: 0.001 });
    await new Promise((r) => setTimeout(r, 20));
    // the reconciler listed it as expired; then the holder renews before the reconciler acts
    expect(await renewLease(db, { run_id: run.id, owner: 'slow', lease_seconds: 60 })).toBe(true);
    expect(await retryRun(db, { run_id: run.id, owner: 'slow', leaseExpired: true, error: 'expired', backoff_ms: 0 })).toBeNull();
    expect(await markInterrupted(db, { run_id: run.id, owner: 'slow', leaseExpired: true, reason: 'expired' })).toBeNull();
    expect((await getRun(db, run.id))).toMatchObject({ state: 'running', lease_owner: 'slow' });
  });

  it('runs of other overlap policies are claimed beside a running sibling', async () => {
    const { db } = database();
    const { job, run: first } = await queuedRun({ overlap_policy: 'allow' });
    const second = (await insertRun(db, { job_id: job.id, nominal_at: nextInstant() }))!;
    await claimRun(db, { run_id: first.id, owner: 'a', lease_seconds: 60 });
    expect(await claimRun(db, { run_id: second.id, owner: 'b', lease_seconds: 60 })).toMatchObject({ state: 'running' });
  });

  it('its asynchronous commit does not leak: the pooled connection is synchronous again for whoever uses it next', async () => {
    const t = database();
    // one connection, so the check runs where the claim did
    const single = openDatabase({ url: t.url, schema: t.schema, poolMax: 1 });
    try {
      const { run } = await queuedRun();
      await claimRun(single.db, { run_id: run.id, owner: 'a', lease_seconds: 60 });
      const after = await single.pool.query<{ synchronous_commit: string }>('show synchronous_commit');
      expect(after.rows[0]?.synchronous_commit).toBe('on');
      expect((await getRun(t.db, run.id))?.state).toBe('running');
    } finally {
      await single.close();
    }
  });

  it('a run whose claim the database lost in a crash is still finished by the attempt that ran it', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    const claimed = (await claimRun(db, { run_id: run.id, owner: 'host:1', lease_seconds: 60 }))!;
    // what a crash before the asynchronous claim reached the disk leaves behind
    await db.execute(sql`update runs set state = 'queued', attempt = attempt - 1, lease_owner = null where id = ${run.id}`);
    const done = await finishRun(db, { run_id: run.id, owner: 'host:1', attempt: claimed.attempt, state: 'succeeded' });
    expect(done).toMatchObject({ state: 'succeeded', attempt: claimed.attempt });
  });

  it('a worker whose run was taken back and queued again cannot finish it', async () => {
    const { db } = database();
    const { run } = await queuedRun();
    const claimed = (await claimRun(db, { run_id: run.id, owner: 'slow:1', lease_seconds: 60 }))!;
    // the reconciler found the lease expired and sent the run back for another attempt
    await db.execute(sql`update runs set state = 'retrying', lease_owner = null where id = ${run.id}`);
    expect(await finishRun(db, { run_id: run.id, owner: 'slow:1', attempt: claimed.attempt, state: 'succeeded' })).toBeNull();
    expect((await getRun(db, run.id))?.state).toBe('retrying');
  });
});
