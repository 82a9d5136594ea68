/**
 * Job schedules: what instants a schedule string names. Pure: the clock is always a parameter.
 *
 * - cron: 5 fields (minute precision) or 6 fields (leading seconds), croner 11, in an IANA zone.
 *   Nicknames (`@hourly`, `@daily`, `@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`) are
 *   croner's; `@reboot` is not a schedule.
 *   DST (croner's rules, with fixedTimeRule "no-wildcard", close to Vixie cron): a pattern whose
 *   second/minute/hour fields have no `*` and no step is fixed-time; in a spring-forward gap it
 *   runs when the clock has jumped (02:30 -> 03:00 that day), and a repeated fall-back time runs
 *   once, at its first occurrence. Wildcard/step patterns are intervals: a gap time does not
 *   exist and is skipped, a repeated time is two instants (an hour apart) and runs on both.
 *   Each field is checked first (cron-fields.ts), so an error names the field as written.
 * - `every <duration>`: elapsed time (the zone does not matter), instants `anchor + k·interval`
 *   for k ≥ 0, so fire times do not drift across restarts. Whole seconds, at least 1 second.
 * - `at <ISO-8601 instant>`: one instant. Without `Z` or an offset the wall-clock time is read in
 *   the job's time zone; a time that does not exist there (DST gap) is refused, and a time that
 *   occurs twice (fall back) means its first occurrence.
 */
import { Cron } from 'croner';
import { cronFieldProblem, describeCronerError } from './cron-fields.ts';
import { DurationError, parseDuration } from './duration.ts';
import { instantsOfWallClock, isTimeZone } from './zoned-time.ts';

export class ScheduleError extends Error {
  /** Which job field was wrong, so an error can name it. */
  constructor(message: string, readonly input: string, readonly field: 'schedule' | 'timezone' = 'schedule') {
    super(message);
    this.name = 'ScheduleError';
  }
}

export type Schedule =
  | { readonly kind: 'cron'; readonly text: string; readonly timezone: string; readonly pattern: string }
  | { readonly kind: 'every'; readonly text: string; readonly timezone: string; readonly intervalMs: number; readonly anchor: Date }
  | { readonly kind: 'at'; readonly text: string; readonly timezone: string; readonly at: Date };

/** Default anchor of `every`: the Unix epoch, so `every 15m` fires at :00, :15, :30, :45 UTC. */
export const EVERY_EPOCH_ANCHOR = new Date(0);

/** croner options every cron schedule is built with (see the module comment for the DST rules). */
const CRON_OPTIONS = { paused: true, mode: '5-or-6-parts', fixedTimeRule: 'no-wildcard' } as const;
const KINDS_HINT = 'expected a cron pattern, "every <duration>" or "at <ISO-8601 instant>"';

// Built once per parsed schedule; the Schedule itself stays plain data.
const crons = new WeakMap<Schedule, Cron>();

function cronFor(schedule: Extract<Schedule, { kind: 'cron' }>): Cron {
  let cron = crons.get(schedule);
  if (!cron) {
    cron = new Cron(schedule.pattern, { ...CRON_OPTIONS, timezone: schedule.timezone });
    crons.set(schedule, cron);
  }
  return cron;
}

/**
 * Parses a schedule string. `anchor` is where an `every` schedule starts counting (use a stored,
 * stable instant such as the job's creation time; default: the Unix epoch).
 */
export function parseSchedule(text: string, timezone = 'UTC', anchor: Date = EVERY_EPOCH_ANCHOR): Schedule {
  // The firing loop parses the same few schedules every tick; results are immutable, so memoise.
  const anchored = /^\s*every\b/i.test(text); // the anchor matters only to `every`
  const key = `${timezone}\u0000${anchored && anchor instanceof Date ? anchor.getTime() : ''}\u0000${text}`;
  const known = parsed.get(key);
  if (known) return known;
  const schedule = parseUncached(text, timezone, anchor);
  if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, schedule);
  return schedule;
}

const PARSED_MAX = 20_000;
const parsed = new Map<string, Schedule>();

function parseUncached(text: string, timezone: string, anchor: Date): Schedule {
  if (typeof timezone !== 'string' || !isTimeZone(timezone)) {
    throw new ScheduleError(`timezone ${JSON.stringify(timezone)}: not an IANA time zone (e.g. UTC, Europe/Berlin)`, String(timezone), 'timezone');
  }
  const normal = text.trim().replace(/\s+/g, ' ');
  if (normal === '') throw new ScheduleError(`schedule ${JSON.stringify(text)}: empty; ${KINDS_HINT}`, text);
  const word = /^(every|at)(?: (.*))?$/i.exec(normal);
  const kind = word?.[1]?.toLowerCase();
  const rest = word?.[2] ?? '';
  const schedule = kind === 'every' ? parseEvery(rest, timezone, anchor)
    : kind === 'at' ? parseAt(rest, timezone)
    : parseCron(normal, timezone);
  return Object.freeze(schedule);
}

const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

function parseCron(pattern: string, timezone: string): Schedule {
  const fields = pattern.split(' ').length;
  if (pattern.startsWith('@') && !NICKNAMES.includes(pattern.toLowerCase())) {
    throw new ScheduleError(`schedule ${JSON.stringify(pattern)}: unknown nickname (use one of ${NICKNAMES.join(', ')})`, pattern);
  }
  if (!pattern.startsWith('@') && fields !== 5 && fields !== 6) {
    throw new ScheduleError(`schedule ${JSON.stringify(pattern)}: expected 5 or 6 cron fields, got ${fields}`, pattern);
  }
  const problem = pattern.startsWith('@') ? undefined : cronFieldProblem(pattern);
  if (problem) throw new ScheduleError(`schedule ${JSON.stringify(pattern)}: ${problem}`, pattern);
  const schedule: Schedule = { kind: 'cron', text: pattern, timezone, pattern };
  let cron: Cron;
  try {
    cron = cronFor(schedule);
  } catch (err) {
    // our check should have caught it; croner still decides
    throw new ScheduleError(`schedule ${JSON.stringify(pattern)}: ${describeCronerError((err as Error).message)}`, pattern);
  }
  // Fields repeat within 400 years and croner searches to the year 3000: null here means never.
  if (cron.nextRun(EVERY_EPOCH_ANCHOR) === null) {
    throw new ScheduleError(`schedule ${JSON.stringify(pattern)}: never fires (no date matches all fields)`, pattern);
  }
  return schedule;
}

/** About ten years: a longer interval is a typo, and its instants would soon pass the end of JavaScript dates. */
const MAX_EVERY_MS = 520 * 604_800_000;

function parseEvery(rest: string, timezone: string, anchor: Date): Schedule {
  const text = `every ${rest}`.trim();
  if (rest === '') throw new ScheduleError('every: missing duration (e.g. every 30s, every 5m, every 1h30m)', text);
  let intervalMs: number;
  try {
    intervalMs = parseDuration(rest, { minMs: 1000, maxMs: MAX_EVERY_MS });
  } catch (err) {
    if (err instanceof DurationError) throw new ScheduleError(`${text}: ${err.problem}`, text);
    throw err;
  }
  if (intervalMs % 1000 !== 0) throw new ScheduleError(`${text}: duration must be a whole number of seconds`, text);
  if (!(anchor instanceof Date) || Number.isNaN(anchor.getTime())) {
    throw new ScheduleError(`${text}: anchor is not a valid date`, text);
  }
  return { kind: 'every', text, timezone, intervalMs, anchor: new Date(anchor.getTime()) };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function parseAt(rest: string, timezone: string): Schedule {
  const text = `at ${rest}`.trim();
  const bad = (why: string) => new ScheduleError(`${text}: not an ISO-8601 instant (${why})`, text);
  if (rest === '') throw new ScheduleError('at: missing instant (e.g. at 2026-12-01T09:00:00Z)', text);
  const date = ISO_DATE.exec(rest);
  if (!date) throw bad('expected e.g. 2026-12-01T09:00:00Z');
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  if (month < 1 || month > 12) throw bad(`month ${month} is out of range`);
  const monthDays = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (day < 1 || day > monthDays) throw bad(`day ${day} is out of range for ${date[1]}-${date[2]}`);
  const m = ISO_INSTANT.exec(rest);
  if (!m) {
    if (rest === date[0]) throw bad(`a date needs a time of day, e.g. ${rest}T09:00:00Z`);
    throw bad('expected e.g. 2026-12-01T09:00:00Z');
  }
  const hour = Number(m[4]); const minute = Number(m[5]); const second = Number(m[6] ?? 0);
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  if (hour > 23) throw bad(`hour ${hour} is out of range`);
  if (minute > 59) throw bad(`minute ${minute} is out of range`);
  if (second > 59) throw bad(`second ${second} is out of range`);
  const wall = { year, month, day, hour, minute, second, ms };
  const zone = m[8];
  let instantMs: number;
  if (zone === undefined) {
    const found = instantsOfWallClock(wall, timezone);
    if (found.length === 0) {
      throw new ScheduleError(`${text}: does not exist in ${timezone} (the clock skips it for daylight saving time)`, text);
    }
    instantMs = found[0]!; // a repeated fall-back time means its first occurrence
  } else {
    const offsetMin = zone.toUpperCase() === 'Z' ? 0 : offsetMinutes(zone);
    if (Number.isNaN(offsetMin)) throw bad(`UTC offset ${zone} is out of range`);
    instantMs = instantsOfWallClock(wall, 'UTC')[0]! - offsetMin * 60_000;
  }
  return { kind: 'at', text, timezone, at: new Date(instantMs) };
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function offsetMinutes(zone: string): number {
  const digits = zone.slice(1).replace(':', '');
  const h = Number(digits.slice(0, 2)); const min = Number(digits.slice(2) || '0');
  if (h > 23 || min > 59) return Number.NaN;
  return (zone.startsWith('-') ? -1 : 1) * (h * 60 + min);
}

function checkDate(name: string, d: Date): number {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new RangeError(`${name} is not a valid Date`);
  return d.getTime();
}

/** The first instant of the schedule strictly after `after`, or null when there is none. */
export function nextInstant(schedule: Schedule, after: Date): Date | null {
  const afterMs = checkDate('after', after);
  switch (schedule.kind) {
    case 'at':
      return schedule.at.getTime() > afterMs ? new Date(schedule.at.getTime()) : null;
    case 'every': {
      const anchorMs = schedule.anchor.getTime();
      if (afterMs < anchorMs) return new Date(anchorMs);
      const k = Math.floor((afterMs - anchorMs) / schedule.intervalMs) + 1;
      const next = new Date(anchorMs + k * schedule.intervalMs);
      // past the last date JavaScript can hold, there is no next instant
      return Number.isNaN(next.getTime()) ? null : next;
    }
    case 'cron': {
      // many jobs share a schedule and are due at the same instant: croner costs ~55 µs a call
      const key = `${schedule.timezone}\u0000${schedule.pattern}\u0000${afterMs}`;
      const cached = NEXT_CRON.get(key);
      if (cached !== undefined) return cached === null ? null : new Date(cached);
      const cron = cronFor(schedule);
      let next = cron.nextRun(after);
      // croner strips milliseconds; never hand back an instant that is not strictly later
      while (next !== null && next.getTime() <= afterMs) next = cron.nextRun(next);
      if (NEXT_CRON.size >= NEXT_CRON_MAX) NEXT_CRON.clear();
      NEXT_CRON.set(key, next === null ? null : next.getTime());
      return next;
    }
  }
}

/** Pure memo of cron next instants, by zone, pattern and instant. */
const NEXT_CRON = new Map<string, number | null>();
const NEXT_CRON_MAX = 50_000;

/**
 * The schedule's instants in (fromExclusive, toInclusive], earliest first, at most `cap` of them
 * (ask for cap + 1 to learn whether more exist).
 */
export function instantsBetween(schedule: Schedule, fromExclusive: Date, toInclusive: Date, cap: number): Date[] {
  checkDate('fromExclusive', fromExclusive);
  const toMs = checkDate('toInclusive', toInclusive);
  if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`cap must be a non-negative integer, got ${cap}`);
  const out: Date[] = [];
  let cursor: Date | null = fromExclusive;
  while (out.length < cap) {
    cursor = nextInstant(schedule, cursor);
    if (cursor === null || cursor.getTime() > toMs) break;
    out.push(cursor);
  }
  return out;
}
