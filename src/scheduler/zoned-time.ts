/**
 * Wall-clock time in an IANA time zone, from the runtime's ICU data (Intl). Pure: no clock.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The runtime's formatter for a zone, or null when the zone is unknown. */
function formatterFor(timezone: string): Intl.DateTimeFormat | null {
  const cached = formatters.get(timezone);
  if (cached) return cached;
  try {
    const f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone, hourCycle: 'h23',
      year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(timezone, f);
    return f;
  } catch {
    return null;
  }
}

/**
 * True for a zone name the runtime knows (`Europe/Berlin`, `UTC`, links such as `US/Eastern`).
 * Offsets (`+05:00`) and empty strings are not zone names.
 */
export function isTimeZone(timezone: string): boolean {
  return timezone.trim() !== '' && /^[A-Za-z]/.test(timezone) && formatterFor(timezone) !== null;
}

export interface WallClock {
  readonly year: number; readonly month: number; readonly day: number;
  readonly hour: number; readonly minute: number; readonly second: number; readonly ms: number;
}

/** The wall clock in `timezone` at an instant (milliseconds kept from the instant). */
export function wallClockAt(instantMs: number, timezone: string): WallClock {
  const f = formatterFor(timezone);
  if (!f) throw new RangeError(`unknown time zone ${JSON.stringify(timezone)}`);
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instantMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year!, month: parts.month!, day: parts.day!,
    hour: parts.hour!, minute: parts.minute!, second: parts.second!, ms: ((instantMs % 1000) + 1000) % 1000,
  };
}

function asUtcMs(w: WallClock): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day); // setUTCFullYear keeps years < 100 literal
  d.setUTCHours(w.hour, w.minute, w.second, w.ms);
  return d.getTime();
}

/** UTC offset of `timezone` at an instant, in ms (east positive). */
export function offsetMsAt(instantMs: number, timezone: string): number {
  return asUtcMs(wallClockAt(instantMs, timezone)) - instantMs;
}

/**
 * Every instant at which the wall clock in `timezone` shows `w`, earliest first:
 * one normally, two in a fall-back overlap, none in a spring-forward gap.
 */
export function instantsOfWallClock(w: WallClock, timezone: string): number[] {
  const naive = asUtcMs(w);
  // Offsets around the naive instant cover both sides of any transition (none exceeds a day).
  const offsets = new Set([offsetMsAt(naive - 86_400_000, timezone), offsetMsAt(naive, timezone), offsetMsAt(naive + 86_400_000, timezone)]);
  const found = new Set<number>();
  for (const off of offsets) {
    const candidate = naive - off;
    if (asUtcMs(wallClockAt(candidate, timezone)) === naive) found.add(candidate);
  }
  return [...found].sort((a, b) => a - b);
}
