import { MISFIRE_RULES, type MisfireRuleId } from '../scheduler/misfire.ts';
import { ScheduleError, instantsBetween, nextInstant, parseSchedule, type Schedule } from '../scheduler/schedule.ts';
import type { DroppedInstants, DueTaken } from '../store/jobs.ts';
import type { NewRun } from '../store/runs.ts';
import type { JobRow } from '../store/schema.ts';
import { JobInputError, type JobDefinition } from './definition.ts';

function scheduleOf(schedule: string, timezone: string): Schedule {
  try {
    return parseSchedule(schedule, timezone);
  } catch (err) {
    // the timezone message already starts with its field's name
    if (err instanceof ScheduleError && err.field === 'timezone') throw new JobInputError(err.message);
    // the message may name the schedule itself (`schedule "61 2 * * *": …`): say the field once
    throw new JobInputError(`schedule: ${(err as Error).message.replace(/^schedule (?=")/, '')}`);
  }
}

/** A schedule that parses, or a JobInputError naming what is wrong with it. */
export function checkSchedule(schedule: string, timezone: string): void {
  scheduleOf(schedule, timezone);
}

/** The first instant after `now`; a schedule without one is refused, not stored to never fire. */
export function futureFire(schedule: string, timezone: string, now: Date): Date {
  return firstAfter(scheduleOf(schedule, timezone), now);
}

/** A schedule with no instant left after now: an `at` instant that has passed. */
export class NoInstantLeft extends JobInputError {
  constructor(readonly schedule: Schedule) {
    super('schedule: has no instant after now (an "at" instant in the past?); the job would never run');
  }
}

function firstAfter(schedule: Schedule, now: Date): Date {
  const next = nextInstant(schedule, now);
  if (next === null) throw new NoInstantLeft(schedule);
  return next;
}

/**
 * Where an edited job's schedule stands afterwards; an empty result keeps the
 * stored next_fire_at. A one-shot that has already come (fired or skipped) does
 * not come again because only its timezone changed; max_runs reached ends the
 * schedule; max_runs raised on a job it had ended starts it again.
 */
export function nextFireAfterEdit(before: JobRow, def: JobDefinition, now: Date): { next_fire_at: Date | null } | Record<string, never> {
  const reached = def.max_runs !== null && before.fired_count >= def.max_runs;
  if (reached) return before.next_fire_at === null ? {} : { next_fire_at: null };
  // parsed only on the paths that need it: an edit of other fields leaves a stored schedule alone
  let parsed: Schedule | undefined;
  const schedule = (): Schedule => (parsed ??= scheduleOf(def.schedule, def.timezone));
  const oneShotDone = before.next_fire_at === null && def.schedule === before.schedule && schedule().kind === 'at';
  if (oneShotDone) return {};
  if (def.schedule !== before.schedule || def.timezone !== before.timezone) return { next_fire_at: firstAfter(schedule(), now) };
  if (before.next_fire_at === null && def.max_runs !== before.max_runs) return { next_fire_at: nextInstant(schedule(), now) };
  return {};
}

/** Most due instants one edit, removal or resume records as skipped; a longer backlog is the firing loop's (a running daemon's). */
export const EDIT_SKIP_LIMIT = 10_000;

/** The instants due and not yet taken (stored next_fire_at ≤ instant ≤ now), at most EDIT_SKIP_LIMIT after the first; null when none is. */
function dueBacklog(before: JobRow, now: Date): { first: Date; later: Date[] } | null {
  const first = before.next_fire_at;
  if (first === null || first.getTime() > now.getTime()) return null;
  const old = storedSchedule(before);
  return { first, later: old ? instantsBetween(old, first, now, EDIT_SKIP_LIMIT) : [] };
}

const skippedAs = (jobId: string, rule: MisfireRuleId) => (nominal_at: Date): NewRun =>
  ({ job_id: jobId, nominal_at, state: 'skipped', skip_reason: `${rule}: ${MISFIRE_RULES[rule]}` });

/**
 * The due instants an edit takes from the firing loop by moving or ending the schedule, as skipped
 * runs: a paused or overdue job keeps its account (I13).
 */
export function instantsDroppedByEdit(before: JobRow, fire: { next_fire_at?: Date | null }, def: JobDefinition, now: Date): NewRun[] {
  const due = 'next_fire_at' in fire ? dueBacklog(before, now) : null;
  if (!due) return [];
  if (due.later.length >= EDIT_SKIP_LIMIT) {
    throw new JobInputError(`schedule: more than ${EDIT_SKIP_LIMIT} instants have been due since ${due.first.toISOString()} and not taken; nothing was changed: start the daemon so its firing loop accounts for them (a paused job's too), then edit it`, 'business');
  }
  const ended = fire.next_fire_at === null && def.max_runs !== null && before.fired_count >= def.max_runs;
  return [due.first, ...due.later].map(skippedAs(before.id, before.paused ? 'misfire.paused' : ended ? 'misfire.max_runs' : 'misfire.schedule_edited'));
}

/**
 * The due instants a removal takes from the firing loop, as skipped runs (I13), paused or not. A removal is
 * never refused: past EDIT_SKIP_LIMIT rows the rest is summed up in `unrecorded`, for the job.removed record.
 */
export function instantsDroppedByRemoval(before: JobRow, now: Date): DroppedInstants {
  return droppedBacklog(before, dueBacklog(before, now), now, before.paused ? 'misfire.paused' : 'misfire.job_removed');
}

/**
 * A resume: the instants due while paused that the firing loop has not yet recorded (it records them as
 * they fall due; these are the last tick's, or all of them when no daemon ran), as skipped misfire.paused,
 * and the schedule goes on after now. More than EDIT_SKIP_LIMIT of them are the firing loop's to record:
 * the resume is refused, as an edit is, rather than leave some unaccounted for (I13).
 */
export function instantsMissedWhilePaused(before: JobRow, now: Date): DueTaken {
  const due = dueBacklog(before, now);
  if (due && due.later.length >= EDIT_SKIP_LIMIT) {
    throw new JobInputError(`more than ${EDIT_SKIP_LIMIT} instants have been due since ${due.first.toISOString()} while the job was paused and no daemon recorded them; nothing was changed: start the daemon (the job stays paused while its firing loop records them), then resume`, 'business');
  }
  const dropped = droppedBacklog(before, due, now, 'misfire.paused');
  const schedule = storedSchedule(before);
  return dropped.skipped.length > 0 && schedule ? { ...dropped, next_fire_at: nextInstant(schedule, now) } : dropped;
}

/**
 * A pause: the instants already due and not yet taken (a daemon that was down or behind) go with it, as
 * skipped misfire.paused_while_due. A pause is never refused: past EDIT_SKIP_LIMIT the schedule stays at
 * the first instant not recorded, which the firing loop then records as misfire.paused.
 */
export function instantsDueAtPause(before: JobRow, now: Date): DueTaken {
  const schedule = storedSchedule(before);
  if (!schedule) return { skipped: [], unrecorded: null };
  const { skipped, unrecorded } = droppedBacklog(before, dueBacklog(before, now), now, 'misfire.paused_while_due');
  if (skipped.length === 0) return { skipped, unrecorded: null };
  // what is not recorded here stays due, for the firing loop: not a range the job.paused record names
  return { skipped, unrecorded: null, next_fire_at: nextInstant(schedule, unrecorded ? unrecorded.after : now) };
}

function droppedBacklog(before: JobRow, due: ReturnType<typeof dueBacklog>, now: Date, rule: MisfireRuleId): DroppedInstants {
  if (!due) return { skipped: [], unrecorded: null };
  const recorded = [due.first, ...due.later].slice(0, EDIT_SKIP_LIMIT);
  return {
    skipped: recorded.map(skippedAs(before.id, rule)),
    unrecorded: due.later.length >= EDIT_SKIP_LIMIT ? { after: recorded[recorded.length - 1]!, until: now } : null,
  };
}

/** A stored job's schedule, or null when it no longer parses: such a schedule has no instants the firing loop could take. */
export function storedSchedule(job: Pick<JobRow, 'schedule' | 'timezone'>): Schedule | null {
  try {
    return parseSchedule(job.schedule, job.timezone);
  } catch {
    return null;
  }
}

/** Whether `at` is an instant of the schedule: a manual run must not take one the firing loop will want. */
export function isInstantOf(schedule: Schedule | null, at: Date): boolean {
  return schedule !== null && nextInstant(schedule, new Date(at.getTime() - 1))?.getTime() === at.getTime();
}
