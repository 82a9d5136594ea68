import { CliError } from './errors.ts';
import { warn } from './output.ts';
import type { Executor } from '../store/db.ts';

/** The most rows a listing returns at once. */
export const MAX_LIMIT = 10_000;

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/**
 * An ISO-8601 date (midnight UTC) or instant with Z or an offset. Loose forms
 * JavaScript's Date would guess at ("1", "2024-02-30", a local time) are refused.
 */
export function parseInstant(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const m = ISO.exec(value.trim());
  const bad = (why: string) => new CliError(`${flag}: ${why}, got "${value}" (e.g. 2026-12-01 or 2026-12-01T08:00:00Z)`);
  if (!m) throw bad('expected an ISO-8601 date or instant');
  const [, y, mo, d, hh, , , zone] = m;
  const day = new Date(0);
  day.setUTCFullYear(Number(y), Number(mo) - 1, Number(d)); // Date.UTC would read years below 100 as 19xx
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) throw bad('no such calendar date');
  if (hh !== undefined && zone === undefined) throw bad('an instant needs Z or an offset, so it does not depend on this machine\'s time zone');
  const at = new Date(hh === undefined ? `${y}-${mo}-${d}T00:00:00Z` : value.trim());
  if (Number.isNaN(at.getTime())) throw bad('expected an ISO-8601 date or instant');
  return at;
}

const AGO = /^(\d{1,6})\s*(m|min|h|d|w)$/i;
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A `--since` as given: an instant, or a time ago that sinceOn counts back from the database clock. */
export type Since = { readonly at: Date } | { readonly agoMs: number };

/**
 * `--since`: an ISO date or instant as parseInstant takes it, or a time ago (`90m`, `24h`, `2d`, `1w`), which is
 * what an admin types the morning after. Checked here, before any database is opened; sinceOn gives the instant.
 */
export function parseSince(flag: string, value: string | undefined): Since | undefined {
  if (value === undefined) return undefined;
  const ago = AGO.exec(value.trim());
  if (ago) return { agoMs: Number(ago[1]) * UNIT_MS[ago[2]!.toLowerCase()]! };
  // neither shape: name both; an ISO form with a bad part (no such date, no zone) keeps parseInstant's words
  if (!ISO.test(value.trim())) throw new CliError(`${flag}: expected an ISO-8601 date or instant (2026-12-01, 2026-12-01T08:00:00Z) or a time ago (90m, 24h, 2d, 1w), got "${value}"`);
  return { at: parseInstant(flag, value)! };
}

/**
 * The instant a --since names. A time ago counts back from the database clock, which stamps runs and audit
 * records: this machine's clock may be off by an hour, and "30m" would then miss tonight's.
 */
export async function sinceOn(exec: Executor, since: Since | undefined): Promise<Date | undefined> {
  if (since === undefined) return undefined;
  if ('at' in since) return since.at;
  const { databaseNow } = await import('../store/db.ts');
  return new Date((await databaseNow(exec)).getTime() - since.agoMs);
}

/** A whole number 1..max: digits only, so "7d" or "1e3" is refused rather than guessed at. */
export function parseWhole(flag: string, value: string, max: number, unit?: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) throw new CliError(`${flag}: expected a whole number${unit ? ` of ${unit}` : ''} from 1 to ${max}, got "${value}"`);
  return n;
}

/** A row limit: 1..MAX_LIMIT. */
export const parseLimit = (flag: string, value: string): number => parseWhole(flag, value, MAX_LIMIT);

/**
 * A listing's first `limit` rows, with a warning when there were more. Fetch `limit + 1` rows:
 * exactly `limit` rows is then no cut. `order` names which end of the listing is shown.
 */
export function noteIfCut<T>(rows: readonly T[], limit: number, order: 'newest' | 'oldest' = 'newest'): T[] {
  if (rows.length > limit) warn(`showing the ${order} ${limit}; use --limit for more`);
  return rows.slice(0, limit);
}

/** Seconds as plain decimal digits (`90`, `2.5`): no hex, exponent or padding Number() would accept. */
export function parseSeconds(flag: string, value: string, max: number): number {
  const n = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new CliError(`${flag}: expected a number of seconds above 0 and at most ${max}, got "${value}"`);
  return n;
}

/** A text option given as "" would be read as absent or recorded blank; say so instead. */
export function refuseEmptyText<T extends object>(flags: T, names: readonly (keyof T & string)[]): void {
  for (const name of names) {
    const v: unknown = flags[name];
    if (typeof v === 'string' && v.trim() === '') throw new CliError(`--${name}: is empty; give a value or leave the option out`);
  }
}
