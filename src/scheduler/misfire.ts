/**
 * What to do with a job's due instants: which ones run and which are skipped, and why (I13: every
 * due instant is accounted for, as a run or as a recorded skip). Pure: `now` is the database clock.
 *
 * An instant is *due* when next_fire_at ≤ instant ≤ now; next_fire_at is the stored nominal
 * instant (jitter is applied to the run, not to next_fire_at). A due instant late by at most the
 * grace is on time and runs under every policy; a later one is a misfire:
 * - skip: not run.
 * - run_once (default): when nothing due is on time, the latest misfired instant runs, once; the
 *   other misfired instants are covered by that run (or by the on-time run) and skipped.
 *   The catch-up window does not limit run_once: one run after an outage of any length.
 * - run_all: misfired instants inside the catch-up window run, in order.
 * At most `cap` (100) instants run per call, the latest ones; older ones are skipped.
 * max_runs ends the schedule with the run that reaches it: nextFireAt becomes null, and due
 * instants after that run are skipped with rule misfire.max_runs.
 *
 * Paused jobs: every due instant is skipped as misfire.paused as it falls due, whatever the
 * policy, so a resume starts from the next instant and never catches up the pause.
 *
 * One call handles at most batch + cap due instants. With more (a long outage of a fast
 * schedule), the first `batch` are skipped (each has at least `cap` later due instants, so none
 * of them could run under any policy), nextFireAt is the first instant not yet handled (still
 * ≤ now) and `more` is true: call again with that nextFireAt.
 */
import { formatDuration } from './duration.ts';
import { instantsBetween, nextInstant, type Schedule } from './schedule.ts';

export type MisfirePolicy = 'skip' | 'run_once' | 'run_all';

/** Most instants one catch-up runs. */
export const MISFIRE_CAP = 100;
/** Lateness that is not a misfire: a 1 s tick plus slack for a busy database or a quick restart. */
export const DEFAULT_GRACE_SECONDS = 30;
/** Most instants one call skips before handing back with `more`. */
export const DEFAULT_SKIP_BATCH = 1000;

export const MISFIRE_RULES = {
  'misfire.on_time': 'An instant due within the grace period is not a misfire, so it runs.',
  'misfire.superseded': 'Misfire policy skip or run_once: a later instant is due too, so only the latest runs (no backlog of a fast schedule).',
  'misfire.skip.late': 'Misfire policy skip: an instant missed by more than the grace period does not run.',
  'misfire.run_once.latest': 'Misfire policy run_once: the latest missed instant runs once to catch up.',
  'misfire.run_once.covered': 'Misfire policy run_once: one run catches up, so the other missed instants do not run.',
  'misfire.run_all.in_window': 'Misfire policy run_all: a missed instant inside the catch-up window runs.',
  'misfire.run_all.outside_window': 'Misfire policy run_all: a missed instant older than the catch-up window does not run.',
  'misfire.cap': 'At most 100 instants run in one catch-up; older ones beyond the cap do not run.',
  'misfire.max_runs': 'The job reached max_runs, so its schedule has ended.',
  'misfire.schedule_edited': 'The schedule was changed while this instant was due and not yet taken, so it does not run; the new schedule starts after the change.',
  'misfire.job_removed': 'The job was removed while this instant was due and not yet taken, so it never runs.',
  'misfire.paused': 'The job was paused at this instant, so it did not run; a resume does not catch up instants missed while paused.',
  'misfire.paused_while_due': 'The job was paused while this instant was due and not yet taken, so it does not run.',
} as const;

export type MisfireRuleId = keyof typeof MISFIRE_RULES;

export interface FiringInput {
  readonly schedule: Schedule;
  /** The stored next_fire_at (a nominal instant), or null when the schedule has ended. */
  readonly nextFireAt: Date | null;
  /** The database clock. */
  readonly now: Date;
  readonly policy: MisfirePolicy;
  readonly catchupWindowSeconds: number;
  readonly maxRuns?: number | null;
  /** Runs the job has fired so far (jobs.fired_count). */
  readonly firedCount?: number;
  readonly graceSeconds?: number;
  /** The job is paused: its due instants are recorded, none runs. */
  readonly paused?: boolean;
  readonly cap?: number;
  readonly batch?: number;
}

export interface SkippedInstant {
  readonly instant: Date;
  readonly rule: MisfireRuleId;
  readonly reason: string;
}

export interface FiringPlan {
  /** Instants to insert as runs, earliest first. */
  readonly fire: Date[];
  /** Instants to record as skipped runs, earliest first. */
  readonly skipped: SkippedInstant[];
  /** The new next_fire_at: null when the schedule has ended. */
  readonly nextFireAt: Date | null;
  /** True when due instants remain (nextFireAt ≤ now): call again. */
  readonly more: boolean;
}

interface Ctx {
  readonly nowMs: number; readonly graceMs: number; readonly windowMs: number;
  readonly policy: MisfirePolicy; readonly cap: number;
}

function nonNegative(name: string, v: number): void {
  if (!Number.isFinite(v) || v < 0) throw new RangeError(`${name} must be a non-negative number, got ${v}`);
}

function positiveInt(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a positive integer, got ${v}`);
}

const late = (ctx: Ctx, i: Date) => ctx.nowMs - i.getTime();
const lateText = (ms: number) => `missed by ${formatDuration(Math.round(ms / 1000) * 1000)}`;

function skip(instant: Date, rule: MisfireRuleId, reason: string): SkippedInstant {
  return { instant, rule, reason };
}

/** The reason for an instant that has at least `cap` later due instants (none such can run). */
function skipEarly(ctx: Ctx, i: Date): SkippedInstant {
  const ms = late(ctx, i);
  if (ms <= ctx.graceMs) return capSkip(ctx, i);
  if (ctx.policy === 'skip') return lateSkip(ctx, i);
  if (ctx.policy === 'run_once') return coveredSkip(ctx, i);
  return ms > ctx.windowMs ? windowSkip(ctx, i) : capSkip(ctx, i);
}

const capSkip = (ctx: Ctx, i: Date) => skip(i, 'misfire.cap', `beyond the catch-up cap of ${ctx.cap} runs`);
const lateSkip = (ctx: Ctx, i: Date) =>
  skip(i, 'misfire.skip.late', `${lateText(late(ctx, i))} (grace ${formatDuration(ctx.graceMs)}); misfire policy skip`);
const coveredSkip = (ctx: Ctx, i: Date) =>
  skip(i, 'misfire.run_once.covered', `${lateText(late(ctx, i))}; misfire policy run_once runs only the latest due instant`);
const windowSkip = (ctx: Ctx, i: Date) =>
  skip(i, 'misfire.run_all.outside_window', `${lateText(late(ctx, i))}, outside the catch-up window of ${formatDuration(ctx.windowMs)}`);

/** Plans one firing of a due job (see the module comment for the rules). */
export function planFiring(input: FiringInput): FiringPlan {
  const { schedule, nextFireAt, now, policy } = input;
  const grace = input.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  const cap = input.cap ?? MISFIRE_CAP;
  const batch = input.batch ?? DEFAULT_SKIP_BATCH;
  const firedCount = input.firedCount ?? 0;
  nonNegative('catchupWindowSeconds', input.catchupWindowSeconds);
  nonNegative('graceSeconds', grace);
  nonNegative('firedCount', firedCount);
  positiveInt('cap', cap);
  positiveInt('batch', batch);
  if (input.maxRuns != null) positiveInt('maxRuns', input.maxRuns);
  if (!['skip', 'run_once', 'run_all'].includes(policy)) throw new RangeError(`unknown misfire policy ${JSON.stringify(policy)}`);
  const nowMs = now.getTime();
  if (Number.isNaN(nowMs)) throw new RangeError('now is not a valid Date');

  if (nextFireAt === null) return { fire: [], skipped: [], nextFireAt: null, more: false };
  if (nextFireAt.getTime() > nowMs) return { fire: [], skipped: [], nextFireAt, more: false };
  const remaining = input.maxRuns == null ? Infinity : Math.max(0, input.maxRuns - firedCount);
  // reached before this instant came (max_runs lowered, or the schedule edited after the end): said, not dropped
  if (remaining === 0) return { fire: [], skipped: [skip(new Date(nextFireAt.getTime()), 'misfire.max_runs', `max_runs (${input.maxRuns}) reached`)], nextFireAt: null, more: false };

  const ctx: Ctx = { nowMs, graceMs: grace * 1000, windowMs: input.catchupWindowSeconds * 1000, policy, cap };
  if (input.paused) return planPaused(schedule, nextFireAt, now, batch);
  const limit = batch + cap;
  const due = [new Date(nextFireAt.getTime()), ...instantsBetween(schedule, nextFireAt, now, limit)];
  if (due.length > limit) {
    return { fire: [], skipped: due.slice(0, batch).map((i) => skipEarly(ctx, i)), nextFireAt: due[batch]!, more: true };
  }

  const skipped: SkippedInstant[] = [];
  let candidates: Date[] = [];
  let misfired: Date[] = [];
  for (const i of due) {
    const ms = late(ctx, i);
    if (ms <= ctx.graceMs) candidates.push(i);
    else if (policy === 'skip') skipped.push(lateSkip(ctx, i));
    else if (policy === 'run_once') misfired.push(i);
    else if (ms <= ctx.windowMs) candidates.push(i);
    else skipped.push(windowSkip(ctx, i));
  }
  // skip and run_once never run a backlog, even one inside the grace period (a fast schedule after a stall)
  if (policy !== 'run_all' && candidates.length > 1) {
    for (const i of candidates.slice(0, -1)) skipped.push(skip(i, 'misfire.superseded', `a later instant (${candidates[candidates.length - 1]!.toISOString()}) is due too`));
    candidates = candidates.slice(-1);
  }
  // run_once: nothing on time -> the latest misfired instant is the catch-up run
  if (candidates.length === 0 && misfired.length > 0) {
    candidates = [misfired[misfired.length - 1]!];
    misfired = misfired.slice(0, -1);
  }
  if (candidates.length > cap) {
    for (const i of candidates.slice(0, candidates.length - cap)) skipped.push(capSkip(ctx, i));
    candidates = candidates.slice(-cap);
  }
  const fire = candidates.slice(0, remaining);
  for (const i of candidates.slice(fire.length)) {
    skipped.push(skip(i, 'misfire.max_runs', `max_runs (${input.maxRuns}) reached`));
  }
  for (const i of misfired) skipped.push(coveredSkip(ctx, i));
  skipped.sort((a, b) => a.instant.getTime() - b.instant.getTime());
  const ended = fire.length >= remaining;
  return { fire, skipped, nextFireAt: ended ? null : nextInstant(schedule, now), more: false };
}

/** A paused job's due instants, up to `batch` of them, all skipped; the schedule goes on after now. */
function planPaused(schedule: Schedule, nextFireAt: Date, now: Date, batch: number): FiringPlan {
  const due = [new Date(nextFireAt.getTime()), ...instantsBetween(schedule, nextFireAt, now, batch)];
  const taken = due.slice(0, batch);
  const skipped = taken.map((i) => skip(i, 'misfire.paused', 'the job was paused'));
  return due.length > batch ? { fire: [], skipped, nextFireAt: due[batch]!, more: true } : { fire: [], skipped, nextFireAt: nextInstant(schedule, now), more: false };
}

/** The rule a fired instant ran under (for the run's audit record). */
export function fireRule(policy: MisfirePolicy, instant: Date, now: Date, graceSeconds = DEFAULT_GRACE_SECONDS): MisfireRuleId {
  if (now.getTime() - instant.getTime() <= graceSeconds * 1000) return 'misfire.on_time';
  return policy === 'run_all' ? 'misfire.run_all.in_window' : 'misfire.run_once.latest';
}
