import { isTimeZone } from '../scheduler/zoned-time.ts';

/**
 * A zone as the runtime names it (`europe/berlin`: Europe/Berlin): zones are matched without case, but a job
 * shows and compares its zone as written. Anything else (an alias, an unknown zone, not a text) is kept as written.
 */
export function canonicalTimeZone<T>(tz: T): T | string {
  if (typeof tz !== 'string' || !isTimeZone(tz)) return tz;
  const named = [new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone, ...Intl.supportedValuesOf('timeZone')];
  return named.find((z) => z !== tz && z.toLowerCase() === tz.toLowerCase()) ?? tz;
}
