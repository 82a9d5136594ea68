import type { Logger } from 'pino';
import { appendAudit } from '../store/audit.ts';
import { databaseNow, type Executor } from '../store/db.ts';
import { dbClockNow } from './firing.ts';
import { getJob } from '../store/jobs.ts';
import { allQueued, listExpiredLeases, listRunningHeldIn, markInterrupted, retryRun, type RunningHolder } from '../store/runs.ts';
import type { RunRow } from '../store/schema.ts';
import { holderIsGone, namespaceMark, type ProcessIdentity, type ProcessProbe } from './process-identity.ts';
import { retryBackoffMs } from './retry-backoff.ts';
import type { Progress } from './hung-passes.ts';
import type { RunQueue } from '../queue/run-queue.ts';

export interface ReconcileReport {
  readonly requeued: number;
  readonly leasesExpired: number;
  /** Runs whose holder was seen dead on this host before its lease ran out. */
  readonly holdersGone: number;
  /** What became of the runs whose lease expired or whose holder is gone. */
  readonly outcomes: { readonly retrying: number; readonly interrupted: number };
}

export interface ReconcileOptions {
  readonly handOffGraceSeconds?: number;
  /** This process and how to see others: runs held by a dead process of this PID namespace are taken back at once. */
  readonly deadHolders?: { readonly self: ProcessIdentity; readonly probe: ProcessProbe };
  /** Told of each run ended and each queued run checked: a pass over a huge backlog is slow, not hung. */
  readonly progress?: Progress;
  /** Queued runs read a page at a time (1000). */
  readonly pageSize?: number;
}

/**
 * PostgreSQL is the source of truth and Redis may be lost: queued runs missing
 * from the queue are sent again, and runs whose worker died are retried or
 * recorded as interrupted. Never loses a run, never starts one twice (the claim decides).
 */
export async function reconcile(db: Executor, queue: RunQueue, logger: Logger, opts: ReconcileOptions = {}): Promise<ReconcileReport> {
  const outcomes = { retrying: 0, interrupted: 0 };
  const progress = opts.progress ?? (() => {});
  const end = async (run: RunRow, why: Abandoned): Promise<void> => {
    const state = await endAbandonedRun(db, queue, logger, run, why);
    // counted once committed: a rolled-back pass changed nothing
    if (state) outcomes[state]++;
  };
  // before the leases: a daemon restarted after kill -9 takes its dead self's runs back at once, not lease_seconds later
  let holdersGone = 0;
  if (opts.deadHolders) {
    const { self, probe } = opts.deadHolders;
    for (const run of await listRunningHeldIn(db, namespaceMark(self))) {
      if (!run.lease_owner || !holderIsGone(run.lease_owner, self, probe)) continue;
      await end(run, { holder: { owner: run.lease_owner }, reason: `worker ${run.lease_owner} is gone: its process no longer runs on this host`, log: 'run lease holder is gone' });
      holdersGone++;
      progress('runs of gone holders ended');
    }
  }
  let leasesExpired = 0;
  for (const run of await listExpiredLeases(db)) {
    // only while that very lease is still expired: a holder that renewed since keeps its run
    const holder = { ...(run.lease_owner ? { owner: run.lease_owner } : {}), leaseExpired: true };
    await end(run, { holder, reason: `lease of ${run.lease_owner ?? 'a worker'} expired: the worker died, hung or lost its database`, log: 'run lease expired' });
    leasesExpired++;
    progress('expired leases ended');
  }
  let requeued = 0;
  const reading = { dbNow: await databaseNow(db), monoAt: performance.now() };
  // a run committed moments ago may not be handed to the queue yet (the firing pass or the worker enqueues after
  // its commit): sending it now would count a hand-off in progress as a run the queue lost
  for await (const run of allQueued(db, opts.pageSize ?? 1000, opts.handOffGraceSeconds ?? 0)) {
    // each run, not each page: a page of runs missing from a slow queue may itself take long
    if (await queue.holds(run.id, run.attempt)) {
      progress('queued runs checked');
      continue;
    }
    // not_before is on the database clock, and so is this delay
    const delayMs = run.not_before ? run.not_before.getTime() - dbClockNow(reading) : 0;
    await queue.enqueue(run.id, { attempt: run.attempt, delayMs });
    requeued++;
    progress('queued runs checked');
    progress('runs re-enqueued');
  }
  if (requeued > 0) logger.info({ requeued }, 'reconciler re-enqueued runs missing from the queue');
  return { requeued, leasesExpired, holdersGone, outcomes };
}

interface Abandoned {
  readonly holder: RunningHolder;
  readonly reason: string;
  readonly log: string;
}

/** A running run whose worker is gone: retried when the job allows another attempt, else recorded as interrupted. */
async function endAbandonedRun(db: Executor, queue: RunQueue, logger: Logger, run: RunRow, why: Abandoned): Promise<'retrying' | 'interrupted' | null> {
  const { holder, reason } = why;
  const job = await getJob(db, run.job_id, { includeRemoved: true });
  // the state change and its record commit together: a failed append must not leave a change nobody recorded
  const ended = await db.transaction(async (tx): Promise<{ state: 'retrying'; attempt: number; backoff: number } | { state: 'interrupted' } | null> => {
    if (job && !job.removed_at && run.attempt <= job.max_retries) {
      // the same backoff as a failure the worker saw itself: a run that kills its worker does not retry at once
      const backoff = retryBackoffMs(job, run.attempt);
      const retried = await retryRun(tx, { run_id: run.id, ...holder, attempt: run.attempt, error: reason, backoff_ms: backoff });
      if (retried) {
        await appendAudit(tx, { kind: 'run.state', actor: 'reconciler', job_id: run.job_id, run_id: run.id, outcome: 'retrying', reason, data: { attempt: run.attempt, backoff_ms: backoff } });
        return { state: 'retrying', attempt: retried.attempt, backoff };
      }
    } else if (await markInterrupted(tx, { run_id: run.id, ...holder, attempt: run.attempt, reason })) {
      await appendAudit(tx, { kind: 'run.state', actor: 'reconciler', job_id: run.job_id, run_id: run.id, outcome: 'interrupted', reason, data: { attempt: run.attempt } });
      return { state: 'interrupted' };
    }
    return null;
  });
  // handed over at once, as the worker does with a retry of its own: the requeue pass waits for overdue hand-offs only
  if (ended?.state === 'retrying') await queue.enqueue(run.id, { attempt: ended.attempt, delayMs: ended.backoff });
  logger.warn({ run_id: run.id, job_id: run.job_id, job_name: job?.name ?? null, lease_owner: run.lease_owner, state: ended?.state ?? null, error: reason }, why.log);
  return ended?.state ?? null;
}
