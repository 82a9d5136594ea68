import { issueGrant } from '../../src/store/grants.ts';
import { createJob } from '../../src/store/jobs.ts';
import { getRun } from '../../src/store/runs.ts';
import type { Executor } from '../../src/store/db.ts';
import type { JobRow } from '../../src/store/schema.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { until } from './until.ts';

/**
 * Short ticks so a dead worker is noticed soon after its lease runs out. The lease (10 s) is short enough for a
 * takeover to be waited out, and long enough that a renewal slowed by load (renewals every lease/3, the run
 * stopping after 2/3 of the lease without one) does not end a live worker's run. `leaseSeconds` for tests that
 * must not rely on the lease.
 */
export function crashTestConfig(prefix: string, opts: { leaseSeconds?: number } = {}): ConfigInput {
  return {
    tools: { also_allow: ['test_slow'] },
    queue: { prefix },
    daemon: { lease_seconds: opts.leaseSeconds ?? 10, tick_seconds: 0.2, reconcile_seconds: 0.5, stop_timeout_seconds: 2, concurrency: 2 },
  };
}

/** A human grant for the job, so its (external, hence write-classed) test tool runs unattended. */
export async function authorise(db: Executor, job: JobRow): Promise<void> {
  await issueGrant(db, {
    job_id: job.id, approval_id: 'apr_test', approver: 'alice', channel: 'cli', approved_at: new Date(), definition_hash: job.definition_hash, actor: 'alice',
  });
}

/**
 * A job whose one step is the slow test tool, never due by itself (runs come from manualRun); `authorised`: with a
 * human grant; `retries`: attempts after the first, at once.
 */
export async function slowJob(db: Executor, name: string, opts: { authorised?: boolean; retries?: number } = {}): Promise<JobRow> {
  const job = await createJob(db, {
    name, owner: 'test', created_by: 'test', schedule: '0 0 1 1 *', timezone: 'UTC', tools: [], paused: false,
    payload: { kind: 'steps', steps: [{ tool: 'test_slow', args: {} }] },
    ...(opts.retries ? { max_retries: opts.retries, retry_backoff_seconds: 0 } : {}),
  });
  if (opts.authorised !== false) await authorise(db, job);
  return job;
}

/** Waits until a worker has claimed the run. */
export async function untilRunning(db: Executor, runId: string, ms = 20_000): Promise<void> {
  await until(`run ${runId} running`, async () => (await getRun(db, runId))!.state === 'running', ms, 100);
}
