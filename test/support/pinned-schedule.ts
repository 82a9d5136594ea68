/**
 * Schedules whose instants are pinned: a test that fires them cannot straddle a minute boundary,
 * because no further instant falls due for about a year, whenever the wall-clock minute turns.
 */
const minute = 60_000;
const hour = 60 * minute;

/** The cron of the minute `at` (UTC) only: it comes again a year later. */
export function cronAt(at: Date): string {
  return `${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
}

/** The current minute, read once. */
export function thisMinute(): Date {
  return new Date(Math.floor(Date.now() / minute) * minute);
}

/**
 * `count` consecutive minutes from the start of the previous hour (between one and two hours ago,
 * so a run_all catch-up needs a window of a few hours), and a cron that fires on those only.
 */
export function pinnedMinutes(count: number): { instants: Date[]; schedule: string } {
  if (!Number.isInteger(count) || count < 1 || count > 60) throw new RangeError(`pinnedMinutes: count must be 1..60, got ${count}`);
  const first = new Date(Math.floor(Date.now() / hour) * hour - hour);
  const instants = Array.from({ length: count }, (_, i) => new Date(first.getTime() + i * minute));
  const minutes = count === 1 ? '0' : `0-${count - 1}`;
  return { instants, schedule: `${minutes} ${first.getUTCHours()} ${first.getUTCDate()} ${first.getUTCMonth() + 1} *` };
}
