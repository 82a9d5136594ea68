import type { Logger } from 'pino';
import { inArray, sql } from 'drizzle-orm';
import { planFiring, type FiringPlan } from '../scheduler/misfire.ts';
import { decideOverlap } from '../scheduler/overlap.ts';
import { jitteredStart } from '../scheduler/jitter.ts';
import { nextInstant, parseSchedule, type Schedule } from '../scheduler/schedule.ts';
import { appendInTransaction, type AuditInput } from '../store/audit.ts';
import { databaseNow, type Db, type Executor } from '../store/db.ts';
import { advanceJobs, lockDueJobs, type DueJob } from '../store/jobs.ts';
import { pgColumn } from '../store/pg-array.ts';
import { jobs } from '../store/schema.ts';
import { activeRunsOf, cancelRun, createRuns, type ActiveRun, type CreatedRun, type NewRun } from '../store/runs.ts';
import type { Progress } from './hung-passes.ts';

export interface FiringReport {
  /** Runs created and to be enqueued after commit. */
  readonly queued: readonly CreatedRun[];
  /** Instants recorded as skipped, by rule (the skip reason's rule id). */
  readonly skipped: Readonly<Record<string, number>>;
  /** Queue lateness of each created run: firing time minus nominal instant, ms. */
  readonly lateness: readonly number[];
  /** Some job still has due instants (a long outage, or more due jobs than one batch): fire again at once. */
  readonly more: boolean;
  /** Due jobs the pass selected. */
  readonly due: number;
  /**
   * Whether the pass changed any of them: an instant fired or skipped, a next_fire_at moved. One that selected due jobs
   * and changed none (a next_fire_at that does not move) would select them again on every pass, for ever.
   */
  readonly changed: boolean;
  /** The database clock when the pass planned, and this process's monotonic clock then: delays are reckoned from these. */
  readonly dbNow: Date;
  readonly monoAt: number;
}

/** The database clock now, from a reading taken earlier and the monotonic time since (the host's wall clock may be off). */
export function dbClockNow(reading: { dbNow: Date; monoAt: number }): number {
  return reading.dbNow.getTime() + (performance.now() - reading.monoAt);
}

interface JobPlan {
  readonly job: DueJob;
  readonly schedule: Schedule;
  readonly plan: FiringPlan;
  readonly rows: NewRun[];
  readonly cancel: { run_id: string; reason: string }[];
}

/**
 * One firing pass. Every replica runs it; FOR UPDATE SKIP LOCKED hands each due
 * job to one of them, and UNIQUE(job, nominal instant) makes a second insert of
 * an instant a no-op (I13). Runs, skips and next_fire_at commit together; the
 * whole batch costs a handful of statements, not a few per job. Its audit
 * records go last: every writer takes the chain lock after its row locks, so a
 * pass and a run finishing at the same moment never wait on each other in a cycle.
 */
export async function fireDueJobs(db: Db, opts: { batch?: number; logger?: Logger } = {}): Promise<FiringReport> {
  const batch = opts.batch ?? 1000;
  // logged once committed: a pass that rolls back skipped nothing
  const { report, lines } = await db.transaction(async (tx) => {
    const now = await databaseNow(tx);
    const monoAt = performance.now();
    const due = await lockDueJobs(tx, { limit: batch, now });
    const active = await activeRunsOf(tx, due.map((j) => j.id));
    const plans: JobPlan[] = [];
    const invalid: { job_id: string; record: AuditInput; row: NewRun | null; error: Error }[] = [];
    for (const job of due) {
      const planned = planJob(job, now, active.get(job.id) ?? []);
      if ('invalid' in planned) {
        // a stored job that can no longer be planned (tz data changed, a value edited by hand): stop firing it, loudly
        const row: NewRun | null = job.next_fire_at
          ? { job_id: job.id, nominal_at: job.next_fire_at, state: 'skipped', skip_reason: `job.schedule_invalid: ${planned.error.message}` }
          : null;
        invalid.push({ job_id: job.id, record: planned.invalid, row, error: planned.error });
      } else plans.push(planned);
    }
    for (const c of plans.flatMap((p) => p.cancel)) await cancelRun(tx, c);
    const created = await createRuns(tx, [...plans.flatMap((p) => p.rows), ...invalid.flatMap((i) => (i.row ? [i.row] : []))]);
    const queuedBy = new Map<string, CreatedRun[]>();
    for (const r of created) if (r.state === 'queued') queuedBy.set(r.job_id, [...(queuedBy.get(r.job_id) ?? []), r]);
    await advanceJobs(tx, plans.map(({ job, schedule, plan }) => {
      const queuedRuns = queuedBy.get(job.id) ?? [];
      const fired = queuedRuns.length;
      // the newest instant that got a run: one the plan meant to fire may have been skipped for overlap
      const last = queuedRuns.reduce<Date | undefined>((m, r) => (!m || r.nominal_at > m ? r.nominal_at : m), undefined);
      // planFiring ends the schedule when its fires would reach max_runs; overlap skips may have kept some from running
      const endedEarly = plan.nextFireAt === null && job.max_runs !== null && job.fired_count + fired < job.max_runs;
      return { id: job.id, next_fire_at: endedEarly ? nextInstant(schedule, now) : plan.nextFireAt, ...(last ? { last_fire_at: last } : {}), fired };
    }).concat(invalid.map((i) => ({ id: i.job_id, next_fire_at: null, fired: 0 }))));
    await appendInTransaction(tx, invalid.map((i) => i.record));
    const queued = [...queuedBy.values()].flat();
    // read back, not taken from the plan: a stored row can refuse the move (a trigger, a rule) as well as a plan miss it
    const changed = created.length > 0 || (due.length > 0 && await nextFireMoved(tx, due));
    const skips = skipsByJob(created);
    const names = opts.logger && (skips.size > 0 || invalid.length > 0) ? await jobNames(tx, [...skips.keys(), ...invalid.map((i) => i.job_id)]) : new Map<string, string>();
    return {
      report: {
        queued,
        skipped: skipsByRule(created),
        lateness: queued.map((r) => now.getTime() - r.nominal_at.getTime()),
        more: due.length === batch || plans.some((p) => p.plan.more),
        due: due.length, changed,
        dbNow: now, monoAt,
      },
      lines: { skips, invalid, names },
    };
  });
  const { skips, invalid, names } = lines;
  for (const i of invalid) opts.logger?.error({ job_id: i.job_id, job_name: names.get(i.job_id) ?? null, err: i.error }, 'job cannot be planned; firing stopped');
  for (const [jobId, s] of skips) {
    const name = names.get(jobId) ?? null;
    const counts = Object.entries(s.rules).map(([rule, n]) => `${rule} ${n}`).join(', ');
    const range = s.first === s.last ? s.first : `${s.first} to ${s.last}`;
    // firing.skips_logged: one line per job and pass (a long outage skips thousands), with counts by rule and the range
    opts.logger?.info({ job_id: jobId, job_name: name, skipped: s.rules, first_at: s.first, last_at: s.last },
      `job ${name ?? jobId}: ${s.count} instant${s.count === 1 ? '' : 's'} skipped (${counts}), ${range}; runs list shows each`);
  }
  return report;
}

/** A job's instants skipped in one pass: counts by rule, and the earliest and latest (ISO). */
interface JobSkips { count: number; rules: Record<string, number>; first: string; last: string }

/** The skips each job got in a pass; a schedule that cannot be planned has its own error line. */
function skipsByJob(created: readonly CreatedRun[]): Map<string, JobSkips> {
  const out = new Map<string, JobSkips>();
  for (const r of created) {
    if (r.state !== 'skipped') continue;
    const rule = (r.skip_reason ?? 'unknown').split(':')[0]!;
    if (rule === 'job.schedule_invalid') continue;
    const at = r.nominal_at.toISOString();
    const s = out.get(r.job_id) ?? { count: 0, rules: {}, first: at, last: at };
    s.count++;
    s.rules[rule] = (s.rules[rule] ?? 0) + 1;
    if (at < s.first) s.first = at;
    if (at > s.last) s.last = at;
    out.set(r.job_id, s);
  }
  return out;
}

/** The names of jobs, for log lines: an operator knows a job by its name. */
async function jobNames(tx: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.select({ id: jobs.id, name: jobs.name }).from(jobs).where(inArray(jobs.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export interface FiringBurst {
  readonly batch?: number;
  /** Passes at once while more is due than one batch; each has its own connection and, through SKIP LOCKED, its own jobs. */
  readonly parallel?: number;
  readonly logger?: Logger;
  readonly stopping?: () => boolean;
  /** Takes each pass's runs (to enqueue them); the next pass does not wait for it. */
  readonly onFired: (report: FiringReport) => Promise<void>;
  /** Told of each committed batch: a burst over many due schedules is slow, not hung. */
  readonly progress?: Progress;
}

/**
 * Fires until nothing is due. A quiet tick costs one pass; a burst (10,000 jobs
 * due in the same minute) runs `parallel` passes at once, and a pass's runs go
 * to the queue while the next pass is already planning.
 */
export async function fireUntilDone(db: Db, opts: FiringBurst): Promise<number> {
  const handed: Promise<void>[] = [];
  let failure: { err: unknown } | undefined;
  let total = 0;
  const pass = async (): Promise<boolean> => {
    const report = await fireDueJobs(db, { ...(opts.batch ? { batch: opts.batch } : {}), ...(opts.logger ? { logger: opts.logger } : {}) });
    total += report.queued.length;
    // a batch that found nothing due has done its part; one that found due jobs and moved none has not
    if (report.due === 0 || report.changed) {
      opts.progress?.('firing batches committed');
      if (report.queued.length > 0) opts.progress?.('runs fired', report.queued.length);
    } else opts.progress?.stalled?.('firing batches that changed nothing');
    // observed at once: a hand-off failing while passes still run must not be an unhandled rejection
    handed.push(opts.onFired(report).catch((err: unknown) => { failure ??= { err }; }));
    // the same batch again would change nothing again: the loop's next pass tries after its pause
    return report.more && report.changed;
  };
  const stopping = opts.stopping ?? (() => false);
  const lanes: Promise<void>[] = [];
  try {
    if (await pass()) {
      lanes.push(...Array.from({ length: Math.max(1, opts.parallel ?? 1) }, async () => {
        while (!stopping() && await pass());
      }));
    }
  } finally {
    // every lane and hand-off settles before the first failure is reported: none is left running unobserved
    const lane = (await Promise.allSettled(lanes)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
    await Promise.all(handed);
    if (lane) throw lane.reason;
    if (failure) throw failure.err;
  }
  return total;
}

/** The runs and skips of one due job, or the record of why its stored schedule cannot be planned. */
function planJob(job: DueJob, now: Date, active: ActiveRun[]): JobPlan | { invalid: AuditInput; error: Error } {
  try {
    return planValidJob(job, now, active);
  } catch (err) {
    const error = err as Error;
    return { error, invalid: { kind: 'job.schedule_invalid', actor: 'scheduler', job_id: job.id, reason: error.message, data: { schedule: job.schedule, timezone: job.timezone, jitter_seconds: job.jitter_seconds } } };
  }
}

function planValidJob(job: DueJob, now: Date, active: ActiveRun[]): JobPlan {
  const schedule = parseSchedule(job.schedule, job.timezone);
  const plan = planFiring({
    schedule, nextFireAt: job.next_fire_at, now, policy: job.misfire_policy,
    catchupWindowSeconds: job.catchup_window_seconds, maxRuns: job.max_runs, firedCount: job.fired_count, paused: job.paused,
  });
  // an instant that already has an active run (re-planned, e.g. after a schedule change) is accounted for: neither cancelled nor inserted again
  const existing = new Set(active.map((r) => r.nominal_at.getTime()));
  // instants planFiring held back for max_runs go through the overlap decision too: if overlap keeps some
  // fires from running, max_runs is not reached and the held-back ones must not say it was
  const capped = plan.skipped.filter((s) => s.rule === 'misfire.max_runs');
  const rows: NewRun[] = plan.skipped.filter((s) => s.rule !== 'misfire.max_runs')
    .map((s) => ({ job_id: job.id, nominal_at: s.instant, state: 'skipped', skip_reason: `${s.rule}: ${s.reason}` }));
  const remaining = job.max_runs === null ? Infinity : job.max_runs - job.fired_count;
  const queuedNow = () => rows.filter((r) => r.state === 'queued').length;
  const cancel: { run_id: string; reason: string }[] = [];
  let running = active.filter((r) => r.state === 'running').length;
  let waiting = active.length - running;
  const candidates = [...plan.fire, ...capped.map((c) => c.instant)].sort((x, y) => x.getTime() - y.getTime());
  // run_all asks for every missed instant: under skip or buffer_one they run one after another, in order,
  // and the overlap policy weighs the catch-up as a whole against the runs already there
  const catchUp = job.misfire_policy === 'run_all' && candidates.length > 1 && (job.overlap_policy === 'skip' || job.overlap_policy === 'buffer_one');
  const before = { running, queued: waiting };
  for (const instant of candidates) {
    if (existing.has(instant.getTime())) continue;
    if (queuedNow() >= remaining) {
      const held = capped.find((c) => c.instant.getTime() === instant.getTime());
      rows.push({ job_id: job.id, nominal_at: instant, state: 'skipped', skip_reason: `misfire.max_runs: ${held?.reason ?? `max_runs (${job.max_runs}) reached`}` });
      continue;
    }
    const decision = decideOverlap(job.overlap_policy, catchUp ? before : { running, queued: waiting });
    if (decision.action === 'skip') {
      rows.push({ job_id: job.id, nominal_at: instant, state: 'skipped', skip_reason: `${decision.rule}: ${decision.reason}` });
      continue;
    }
    if (decision.action === 'cancel_running_then_start') {
      const reason = `${decision.rule}: replaced by the run of ${instant.toISOString()}`;
      for (const other of active.splice(0)) cancel.push({ run_id: other.id, reason });
      // a catch-up pass: the newer instant replaces the one queued just before it
      for (const row of rows) if (row.state === 'queued') Object.assign(row, { state: 'skipped', skip_reason: reason, not_before: null });
      running = 0;
      waiting = 0;
    }
    rows.push({ job_id: job.id, nominal_at: instant, state: 'queued', not_before: jitteredStart(job.id, instant, jitterBound(schedule, instant, job.jitter_seconds)), ...(catchUp ? { catch_up: true } : {}) });
    waiting++;
  }
  return { job, schedule, plan, rows, cancel };
}

/** The jitter of an instant stays below the gap to the next one, so a run never starts after its successor is due. */
function jitterBound(schedule: Schedule, instant: Date, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return jitterSeconds;
  const next = nextInstant(schedule, instant);
  return next ? Math.min(jitterSeconds, (next.getTime() - instant.getTime()) / 2000) : jitterSeconds;
}

/** Whether any of the jobs' next_fire_at now differs from the one it was selected with (in the pass's transaction). */
async function nextFireMoved(tx: Executor, due: readonly DueJob[]): Promise<boolean> {
  const res = await tx.execute<{ moved: boolean }>(sql`
    select exists (
      select 1 from ${jobs} join unnest(${pgColumn(due, (j) => j.id)}::text[], ${pgColumn(due, (j) => j.next_fire_at?.toISOString() ?? null)}::timestamptz[]) as v(id, selected)
        on ${jobs.id} = v.id
      where ${jobs.next_fire_at} is distinct from v.selected) as moved`);
  return res.rows[0]!.moved;
}

function skipsByRule(created: readonly CreatedRun[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of created) {
    if (r.state !== 'skipped') continue;
    const rule = (r.skip_reason ?? 'unknown').split(':')[0]!;
    out[rule] = (out[rule] ?? 0) + 1;
  }
  return out;
}
