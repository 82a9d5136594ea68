import type { Logger } from 'pino';
import { planFiring, type FiringPlan } from '../scheduler/misfire.ts';
import { decideOverlap } from '../scheduler/overlap.ts';
import { jitteredStart } from '../scheduler/jitter.ts';
import { nextInstant, parseSchedule, type Schedule } from '../scheduler/schedule.ts';
import { appendAudit } from '../store/audit.ts';
import { databaseNow, type Db, type Executor } from '../store/db.ts';
import { advanceJob, lockDueJobs } from '../store/jobs.ts';
import { activeRuns, cancelRun, insertRuns, type NewRun } from '../store/runs.ts';
import type { JobRow, RunRow } from '../store/schema.ts';

export interface FiringReport {
  /** Runs created and to be enqueued after commit. */
  readonly queued: readonly RunRow[];
  readonly skipped: number;
  /** Queue lateness of each created run: enqueue time minus nominal instant, ms. */
  readonly lateness: readonly number[];
  /** Some job still has due instants (a long outage): tick again at once. */
  readonly more: boolean;
}

/**
 * One firing pass. Every replica runs it; FOR UPDATE SKIP LOCKED hands each due
 * job to one of them, and UNIQUE(job, nominal instant) makes a second insert of
 * an instant a no-op (I13). Runs, skips and next_fire_at commit together.
 */
export async function fireDueJobs(db: Db, opts: { batch?: number; logger?: Logger } = {}): Promise<FiringReport> {
  return db.transaction(async (tx) => {
    const now = await databaseNow(tx);
    const due = await lockDueJobs(tx, { limit: opts.batch ?? 200, now });
    const queued: RunRow[] = [];
    const lateness: number[] = [];
    let skipped = 0;
    let more = false;
    for (const job of due) {
      const r = await fireJob(tx, job, now, opts.logger);
      queued.push(...r.queued);
      skipped += r.skipped;
      more ||= r.more;
      for (const run of r.queued) lateness.push(now.getTime() - run.nominal_at.getTime());
    }
    return { queued, skipped, lateness, more };
  });
}

async function fireJob(tx: Executor, job: JobRow, now: Date, logger?: Logger): Promise<{ queued: RunRow[]; skipped: number; more: boolean }> {
  let plan: FiringPlan;
  let schedule: Schedule;
  try {
    schedule = parseSchedule(job.schedule, job.timezone);
    plan = planFiring({
      schedule, nextFireAt: job.next_fire_at, now, policy: job.misfire_policy,
      catchupWindowSeconds: job.catchup_window_seconds, maxRuns: job.max_runs, firedCount: job.fired_count,
    });
  } catch (err) {
    // a stored schedule that no longer parses (e.g. tz data changed): stop firing it, loudly
    await advanceJob(tx, job.id, { next_fire_at: null });
    await appendAudit(tx, { kind: 'job.schedule_invalid', actor: 'scheduler', job_id: job.id, reason: (err as Error).message, data: { schedule: job.schedule, timezone: job.timezone } });
    logger?.error({ job_id: job.id, err }, 'job schedule is invalid; firing stopped');
    return { queued: [], skipped: 0, more: false };
  }
  const rows: NewRun[] = plan.skipped.map((s) => ({ job_id: job.id, nominal_at: s.instant, state: 'skipped', skip_reason: `${s.rule}: ${s.reason}` }));
  if (plan.fire.length > 0) {
    const active = await activeRuns(tx, job.id);
    let running = active.filter((r) => r.state === 'running').length;
    let waiting = active.length - running;
    for (const instant of plan.fire) {
      const decision = decideOverlap(job.overlap_policy, { running, queued: waiting });
      if (decision.action === 'skip') {
        rows.push({ job_id: job.id, nominal_at: instant, state: 'skipped', skip_reason: `${decision.rule}: ${decision.reason}` });
        continue;
      }
      if (decision.action === 'cancel_running_then_start') {
        for (const other of active.splice(0)) await cancelRun(tx, { run_id: other.id, reason: `${decision.rule}: replaced by the run of ${instant.toISOString()}` });
        // a catch-up pass: the newer instant replaces the one queued just before it
        for (const row of rows) {
          if (row.state === 'queued') Object.assign(row, { state: 'skipped', skip_reason: `${decision.rule}: replaced by the run of ${instant.toISOString()}`, not_before: null });
        }
        running = 0;
        waiting = 0;
      }
      rows.push({ job_id: job.id, nominal_at: instant, state: 'queued', not_before: jitteredStart(job.id, instant, job.jitter_seconds) });
      waiting++;
    }
  }
  const created = await insertRuns(tx, rows);
  const queued = created.filter((r) => r.state === 'queued');
  const last = plan.fire[plan.fire.length - 1];
  // planFiring ends the schedule when its fires would reach max_runs; overlap skips may have kept some from running
  const endedEarly = plan.nextFireAt === null && job.max_runs !== null && job.fired_count + queued.length < job.max_runs;
  const next = endedEarly ? nextInstant(schedule, now) : plan.nextFireAt;
  await advanceJob(tx, job.id, { next_fire_at: next, ...(last ? { last_fire_at: last } : {}), fired: queued.length });
  return { queued, skipped: created.length - queued.length, more: plan.more };
}
