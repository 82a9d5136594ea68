import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createJob } from '../../src/store/jobs.ts';
import { claimRun } from '../../src/store/run-claim.ts';
import { addDenial, cancelRun, finishRun, getRun, insertRun, markInterrupted, renewLease, retryRun } from '../../src/store/runs.ts';
import type { RunRow } from '../../src/store/schema.ts';
import { useTestDatabase } from '../support/db.ts';
import { aJob } from './fixtures.ts';

const database = useTestDatabase();
let minute = 0;
const nextInstant = () => new Date(Date.UTC(2026, 10, 3, 5, minute++));
/** One worker id for both attempts: `<host>:<pid>:<worker>` does not change when the same worker claims the run again. */
const OWNER = 'host-a:4242:1';

/**
 * Attempt 1 claimed by OWNER lost its lease; the reconciler sent the run back (the store call it makes), and
 * the same worker claimed it again: attempt 2, held by the same owner.
 */
async function reclaimedBySameWorker(): Promise<RunRow> {
  const { db } = database();
  const job = await createJob(db, aJob({ max_retries: 3 }));
  const run = (await insertRun(db, { job_id: job.id, nominal_at: nextInstant() }))!;
  expect(await claimRun(db, { run_id: run.id, owner: OWNER, lease_seconds: 60 })).toMatchObject({ attempt: 1 });
  await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${run.id}`);
  expect(await retryRun(db, { run_id: run.id, owner: OWNER, attempt: 1, leaseExpired: true, error: 'lease expired', backoff_ms: 0 })).toMatchObject({ state: 'retrying' });
  const second = (await claimRun(db, { run_id: run.id, owner: OWNER, lease_seconds: 60 }))!;
  expect(second).toMatchObject({ state: 'running', attempt: 2, lease_owner: OWNER });
  return second;
}

describe('a running attempt\'s writes about itself are bound to that attempt, not only to its worker id', () => {
  it('attempt 1\'s late renew, finish, retry and interrupt do nothing once the same worker holds attempt 2', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    const late = { run_id: second.id, owner: OWNER, attempt: 1 };
    expect(await renewLease(db, { ...late, lease_seconds: 3600 })).toBe(false);
    expect(await finishRun(db, { ...late, state: 'failed', error: 'attempt 1 failed' })).toBeNull();
    expect(await retryRun(db, { ...late, error: 'attempt 1 failed', backoff_ms: 60_000 })).toBeNull();
    expect(await markInterrupted(db, { ...late, reason: 'attempt 1 interrupted' })).toBeNull();
    // attempt 2's row as its claim left it: still running, its own lease, no error, no end
    expect(await getRun(db, second.id)).toEqual(second);
  });

  it('attempt 1\'s late refusal does not count against attempt 2\'s max_denials_per_run; attempt 2\'s own do', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    expect(await addDenial(db, second.id, 1)).toBeNull();
    expect((await getRun(db, second.id))!.denials).toBe(0);
    expect(await addDenial(db, second.id, 2)).toBe(1);
    expect((await getRun(db, second.id))!.denials).toBe(1);
  });

  it('attempt 2 itself still renews and finishes its run', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    const own = { run_id: second.id, owner: OWNER, attempt: 2 };
    expect(await renewLease(db, { ...own, lease_seconds: 120 })).toBe(true);
    expect(await finishRun(db, { ...own, state: 'succeeded', output: { ok: true } })).toMatchObject({ state: 'succeeded', attempt: 2, output: { ok: true } });
  });

  it('attempt 2 is retried and interrupted by its own calls', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    expect(await retryRun(db, { run_id: second.id, owner: OWNER, attempt: 2, error: 'flaky', backoff_ms: 0 })).toMatchObject({ state: 'retrying', attempt: 2 });
    const third = (await claimRun(db, { run_id: second.id, owner: OWNER, lease_seconds: 60 }))!;
    expect(await markInterrupted(db, { run_id: third.id, owner: OWNER, attempt: 3, reason: 'shutdown' })).toMatchObject({ state: 'interrupted', attempt: 3 });
  });

  it('the reconciler ending the attempt whose lease it saw expire leaves a later attempt alone, even one whose lease expired too', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    await db.execute(sql`update runs set lease_expires_at = now() - interval '1 second' where id = ${second.id}`);
    const seen = { run_id: second.id, owner: OWNER, attempt: 1, leaseExpired: true };
    expect(await retryRun(db, { ...seen, error: 'lease expired', backoff_ms: 0 })).toBeNull();
    expect(await markInterrupted(db, { ...seen, reason: 'lease expired' })).toBeNull();
    expect(await getRun(db, second.id)).toMatchObject({ state: 'running', attempt: 2 });
    // without an attempt (any attempt whose lease expired): still ended
    expect(await markInterrupted(db, { run_id: second.id, owner: OWNER, leaseExpired: true, reason: 'lease expired' })).toMatchObject({ state: 'interrupted', attempt: 2 });
  });

  it('an admin\'s cancel ends whichever attempt is running', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    expect(await cancelRun(db, { run_id: second.id, reason: 'cancelled by admin' })).toMatchObject({ state: 'cancelled', attempt: 2 });
  });

  it('a lost asynchronous claim of attempt 2 is still finished by attempt 2, never by attempt 1', async () => {
    const { db } = database();
    const second = await reclaimedBySameWorker();
    // what a crash before attempt 2's asynchronous claim reached the disk leaves behind
    await db.execute(sql`update runs set state = 'retrying', attempt = attempt - 1, lease_owner = null where id = ${second.id}`);
    expect(await finishRun(db, { run_id: second.id, owner: OWNER, attempt: 1, state: 'failed' })).toBeNull();
    expect(await finishRun(db, { run_id: second.id, owner: OWNER, attempt: 2, state: 'succeeded' })).toMatchObject({ state: 'succeeded', attempt: 2 });
  });
});
