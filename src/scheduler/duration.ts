/**
 * Durations as people write them in job definitions: `30s`, `5m`, `1h30m`, `2d`, `250ms`,
 * or ISO-8601 `PT5M` / `P1DT2H` / `P1W`. Used by `every <duration>`, retry backoff and timeouts.
 * Whole numbers only (`1h30m`, not `1.5h`), except ISO seconds (`PT0.5S`).
 */

export class DurationError extends Error {
  constructor(readonly input: string, readonly problem: string) {
    super(`duration ${JSON.stringify(input)}: ${problem}`);
    this.name = 'DurationError';
  }
}

const UNIT_MS = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
/** Largest first: the order a compound duration must be written in. */
const UNIT_ORDER: readonly Unit[] = ['w', 'd', 'h', 'm', 's', 'ms'];

const EXAMPLES = 'use e.g. 30s, 5m, 1h30m, 2d or ISO-8601 PT5M';
const COMPOUND_PART = /(\d+)(ms|w|d|h|m|s)/y;
const ISO = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?$/;
const ISO_CALENDAR = /^P[^T]*\d[YM]/;

export interface DurationLimits {
  /** Smallest accepted value in ms (inclusive). */
  readonly minMs?: number;
  /** Largest accepted value in ms (inclusive). */
  readonly maxMs?: number;
}

/** Parses a duration to milliseconds; throws DurationError naming the problem. */
export function parseDuration(input: string, limits: DurationLimits = {}): number {
  const text = input.trim();
  if (text === '') throw new DurationError(input, `empty duration (${EXAMPLES})`);
  const ms = /^p/i.test(text) ? parseIso(input, text.toUpperCase()) : parseCompound(input, text.toLowerCase());
  if (!Number.isSafeInteger(ms)) throw new DurationError(input, 'duration is too large');
  if (limits.minMs !== undefined && ms < limits.minMs) {
    throw new DurationError(input, `duration must be at least ${describeDuration(limits.minMs)}`);
  }
  if (limits.maxMs !== undefined && ms > limits.maxMs) {
    throw new DurationError(input, `duration must be at most ${describeDuration(limits.maxMs)}`);
  }
  return ms;
}

function parseCompound(input: string, text: string): number {
  if (/^-/.test(text)) throw new DurationError(input, 'duration must not be negative');
  if (/^\d+$/.test(text)) throw new DurationError(input, `missing unit (e.g. ${text}s or ${text}m)`);
  if (/\d[.,]\d/.test(text)) throw new DurationError(input, 'use whole numbers (e.g. 1h30m, not 1.5h)');
  let total = 0;
  let lastRank = -1;
  COMPOUND_PART.lastIndex = 0;
  while (COMPOUND_PART.lastIndex < text.length) {
    const at = COMPOUND_PART.lastIndex;
    const m = COMPOUND_PART.exec(text);
    if (!m) throw new DurationError(input, `unknown duration syntax at "${text.slice(at)}" (${EXAMPLES})`);
    const unit = m[2] as Unit;
    const rank = UNIT_ORDER.indexOf(unit);
    if (rank <= lastRank) throw new DurationError(input, 'units must appear once each, largest first (e.g. 1h30m)');
    lastRank = rank;
    total += Number(m[1]) * UNIT_MS[unit];
  }
  return total;
}

function parseIso(input: string, text: string): number {
  const m = ISO.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) {
    if (ISO_CALENDAR.test(text)) {
      throw new DurationError(input, 'months and years have no fixed length (PT1M is one minute, P1M is a month)');
    }
    throw new DurationError(input, `not an ISO-8601 duration (${EXAMPLES})`);
  }
  const [, w, d, h, min, s] = m;
  const seconds = s === undefined ? 0 : Math.round(Number(s.replace(',', '.')) * 1000);
  return Number(w ?? 0) * UNIT_MS.w + Number(d ?? 0) * UNIT_MS.d + Number(h ?? 0) * UNIT_MS.h
    + Number(min ?? 0) * UNIT_MS.m + seconds;
}

/** The compact form of a duration: 5400000 -> "1h30m", 0 -> "0s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`formatDuration: ${ms} is not a non-negative duration`);
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  for (const unit of UNIT_ORDER) {
    if (unit === 'w') continue; // "14d" reads better than "2w"
    const n = Math.floor(rest / UNIT_MS[unit]);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * UNIT_MS[unit];
  }
  return out;
}

const SPELLED: readonly [Unit, string][] = [['w', 'week'], ['d', 'day'], ['h', 'hour'], ['m', 'minute'], ['s', 'second'], ['ms', 'millisecond']];

/** For messages: 1000 -> "1 second", 300000 -> "5 minutes", 5400000 -> "90 minutes". */
export function describeDuration(ms: number): string {
  for (const [unit, word] of SPELLED) {
    const n = ms / UNIT_MS[unit];
    if (ms > 0 && Number.isInteger(n) && (unit === 'ms' || n < 1000)) return `${n} ${word}${n === 1 ? '' : 's'}`;
  }
  return formatDuration(ms);
}
