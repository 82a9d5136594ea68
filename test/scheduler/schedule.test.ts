import { describe, expect, it } from 'vitest';
import { ScheduleError, instantsBetween, nextInstant, parseSchedule } from '../../src/scheduler/schedule.ts';

const d = (iso: string) => new Date(iso);
const isos = (ds: readonly Date[]) => ds.map((x) => x.toISOString());

describe('parseSchedule refuses bad schedules, naming the problem', () => {
  it.each([
    ['*/5 * *', 'UTC', 'schedule "*/5 * *": expected 5 or 6 cron fields, got 3'],
    ['0 0 0 1 1 * 2030', 'UTC', 'schedule "0 0 0 1 1 * 2030": expected 5 or 6 cron fields, got 7'],
    ['61 * * * *', 'UTC', 'schedule "61 * * * *": minute field "61" is out of range 0–59'],
    ['0 0 30 2 *', 'UTC', 'schedule "0 0 30 2 *": never fires (no date matches all fields)'],
    ['@reboot', 'UTC', 'schedule "@reboot": unknown nickname'],
    ['', 'UTC', 'schedule "": empty; expected a cron pattern, "every <duration>" or "at <ISO-8601 instant>"'],
    ['* * * * *', 'Mars/Base', 'timezone "Mars/Base": not an IANA time zone'],
    ['* * * * *', '+05:00', 'timezone "+05:00": not an IANA time zone'],
    ['* * * * *', '', 'timezone "": not an IANA time zone'],
    ['every 0s', 'UTC', 'every 0s: duration must be at least 1 second'],
    ['every 500ms', 'UTC', 'every 500ms: duration must be at least 1 second'],
    ['every 1500ms', 'UTC', 'every 1500ms: duration must be a whole number of seconds'],
    ['every 5x', 'UTC', 'every 5x: unknown duration syntax at "5x"'],
    ['every', 'UTC', 'every: missing duration (e.g. every 30s, every 5m, every 1h30m)'],
    ['every P1M', 'UTC', 'every P1M: months and years have no fixed length'],
    ['every 100000001d', 'UTC', 'every 100000001d: duration must be at most 520 weeks'],
    ['every 14285715w', 'UTC', 'every 14285715w: duration must be at most 520 weeks'],
    ['at 2026-13-01', 'UTC', 'at 2026-13-01: not an ISO-8601 instant (month 13 is out of range)'],
    ['at 2026-12-01', 'UTC', 'at 2026-12-01: not an ISO-8601 instant (a date needs a time of day, e.g. 2026-12-01T09:00:00Z)'],
    ['at 2026-02-29T10:00Z', 'UTC', 'at 2026-02-29T10:00Z: not an ISO-8601 instant (day 29 is out of range for 2026-02)'],
    ['at 2026-12-01T24:00Z', 'UTC', 'at 2026-12-01T24:00Z: not an ISO-8601 instant (hour 24 is out of range)'],
    ['at 2026-12-01T10:00+25:00', 'UTC', 'not an ISO-8601 instant (UTC offset +25:00 is out of range)'],
    ['at tomorrow', 'UTC', 'at tomorrow: not an ISO-8601 instant (expected e.g. 2026-12-01T09:00:00Z)'],
    ['at', 'UTC', 'at: missing instant'],
    ['at 2026-03-08T02:30', 'America/New_York', 'at 2026-03-08T02:30: does not exist in America/New_York (the clock skips it for daylight saving time)'],
  ])('%j in %j', (text, tz, message) => {
    expect(() => parseSchedule(text, tz)).toThrow(ScheduleError);
    expect(() => parseSchedule(text, tz)).toThrow(message);
  });
});

describe('a bad cron field is named as written, in the field names a person knows', () => {
  it.each([
    ['0 0 31 13 *', 'schedule "0 0 31 13 *": month field "13" is out of range 1–12'],
    ['a b c d e', 'schedule "a b c d e": minute field "a" is not a number, range, list or step (e.g. 5, 1-5, 1,15, */10)'],
    ['0 0 * * MON-XYZ', 'schedule "0 0 * * MON-XYZ": day of week field "MON-XYZ": "XYZ" is not a number or name (SUN–SAT)'],
    ['*/0 * * * *', 'schedule "*/0 * * * *": minute field "*/0": a step must be at least 1'],
    ['5-1 * * * *', 'schedule "5-1 * * * *": minute field "5-1": a range must go from low to high'],
    ['0 0 0 * *', 'schedule "0 0 0 * *": day of month field "0" is out of range 1–31'],
  ])('%s', (text, message) => {
    expect(() => parseSchedule(text)).toThrow(ScheduleError);
    expect(() => parseSchedule(text)).toThrow(message);
  });

  it('names the 6-field form from second, the 5-field form from minute', () => {
    expect(() => parseSchedule('60 * * * * *')).toThrow('schedule "60 * * * * *": second field "60" is out of range 0–59');
    expect(() => parseSchedule('0 60 * * * *')).toThrow('schedule "0 60 * * * *": minute field "60" is out of range 0–59');
    expect(() => parseSchedule('60 * * * *')).toThrow('schedule "60 * * * *": minute field "60" is out of range 0–59');
    expect(() => parseSchedule('0 0 24 * * *')).toThrow('schedule "0 0 24 * * *": hour field "24" is out of range 0–23');
  });

  it('still refuses a pattern that never fires, after its fields pass', () => {
    expect(() => parseSchedule('0 0 31 2 *')).toThrow('schedule "0 0 31 2 *": never fires (no date matches all fields)');
  });
});

describe('cron patterns croner accepts still parse, with their meaning', () => {
  it.each([
    ['0 9 * * MON#2', '2026-01-01T00:00:00Z', '2026-01-12T09:00:00.000Z'], // second Monday
    ['0 0 L * *', '2026-02-01T00:00:00Z', '2026-02-28T00:00:00.000Z'], // last day of the month
    ['0 0 LW * *', '2026-05-01T00:00:00Z', '2026-05-29T00:00:00.000Z'], // last weekday (the 31st is a Sunday)
    ['0 0 15W * *', '2026-02-01T00:00:00Z', '2026-02-16T00:00:00.000Z'], // the 15th is a Sunday
    ['0 0 * * 5L', '2026-01-01T00:00:00Z', '2026-01-30T00:00:00.000Z'], // last Friday
    ['0 0 * * FRI#L', '2026-01-01T00:00:00Z', '2026-01-30T00:00:00.000Z'],
    ['0 0 * JUN *', '2026-01-01T00:00:00Z', '2026-06-01T00:00:00.000Z'],
    ['0 0 1 * +MON', '2026-01-01T00:00:00Z', '2026-06-01T00:00:00.000Z'], // the 1st AND a Monday
    ['0 0 * * MON-SUN', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00.000Z'], // -SUN is 7: every day
    ['0 0 ? * 7', '2026-01-01T00:00:00Z', '2026-01-04T00:00:00.000Z'], // 7 is Sunday
    ['30 0 */6 ? * *', '2026-01-01T01:00:00Z', '2026-01-01T06:00:30.000Z'],
    ['0 1-24/2 * * *', '2026-01-01T23:30:00Z', '2026-01-02T01:00:00.000Z'], // the step never reaches 24
    ['0-30/15 0 1 jan,jul *', '2026-01-01T00:20:00Z', '2026-01-01T00:30:00.000Z'],
  ])('%s after %s is %s', (text, after, iso) => {
    expect(nextInstant(parseSchedule(text), d(after))?.toISOString()).toBe(iso);
  });
});

describe('cron schedules', () => {
  it('reads 5 fields at minute precision and 6 fields with leading seconds', () => {
    expect(nextInstant(parseSchedule('*/15 * * * *'), d('2026-01-01T00:07:00Z'))?.toISOString()).toBe('2026-01-01T00:15:00.000Z');
    expect(nextInstant(parseSchedule('*/10 * * * * *'), d('2026-01-01T00:07:00Z'))?.toISOString()).toBe('2026-01-01T00:07:10.000Z');
  });

  it('is strictly after the reference, also on an instant and with milliseconds', () => {
    const s = parseSchedule('*/15 * * * *');
    expect(nextInstant(s, d('2026-01-01T00:15:00.000Z'))?.toISOString()).toBe('2026-01-01T00:30:00.000Z');
    expect(nextInstant(s, d('2026-01-01T00:14:59.999Z'))?.toISOString()).toBe('2026-01-01T00:15:00.000Z');
    expect(nextInstant(s, d('2026-01-01T00:15:00.001Z'))?.toISOString()).toBe('2026-01-01T00:30:00.000Z');
  });

  it('reads the pattern in the job time zone', () => {
    const s = parseSchedule('0 9 * * MON-FRI', 'Europe/Berlin');
    expect(nextInstant(s, d('2026-01-02T12:00:00Z'))?.toISOString()).toBe('2026-01-05T08:00:00.000Z'); // Friday noon -> Monday 09:00 CET
  });

  it('accepts croner nicknames and collapses extra spaces', () => {
    expect(nextInstant(parseSchedule('@daily', 'UTC'), d('2026-01-01T10:00:00Z'))?.toISOString()).toBe('2026-01-02T00:00:00.000Z');
    expect(parseSchedule('  0   9 * *  * ').text).toBe('0 9 * * *');
  });

  it('lists instants in (from, to] up to the cap', () => {
    const s = parseSchedule('*/15 * * * *');
    expect(isos(instantsBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-01T01:00:00Z'), 100))).toEqual([
      '2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z', '2026-01-01T00:45:00.000Z', '2026-01-01T01:00:00.000Z',
    ]);
    expect(instantsBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-01T01:00:00Z'), 2)).toHaveLength(2);
    expect(instantsBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-01T00:14:00Z'), 10)).toEqual([]);
  });

  it('a leap-day pattern waits for the next leap year', () => {
    expect(nextInstant(parseSchedule('0 0 29 2 *'), d('2026-03-01T00:00:00Z'))?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
});

describe('every <duration>', () => {
  it('defaults to the Unix epoch as anchor, so instants are aligned and restart-stable', () => {
    const s = parseSchedule('every 15m');
    expect(nextInstant(s, d('2026-01-01T10:07:12Z'))?.toISOString()).toBe('2026-01-01T10:15:00.000Z');
    expect(nextInstant(s, d('2026-01-01T10:15:00Z'))?.toISOString()).toBe('2026-01-01T10:30:00.000Z');
  });

  it('counts from its anchor: anchor + k·interval, never drifting with the reference', () => {
    const anchor = d('2026-01-01T00:02:17Z');
    const s = parseSchedule('every 5m', 'UTC', anchor);
    expect(nextInstant(s, d('2025-12-01T00:00:00Z'))?.toISOString()).toBe('2026-01-01T00:02:17.000Z'); // before the anchor: the anchor
    expect(nextInstant(s, anchor)?.toISOString()).toBe('2026-01-01T00:07:17.000Z');
    for (const ref of ['2026-01-03T11:40:00Z', '2026-01-03T11:41:59.999Z', '2026-01-03T11:37:17.001Z']) {
      expect(nextInstant(s, d(ref))?.toISOString()).toBe('2026-01-03T11:42:17.000Z');
    }
  });

  it.each([
    ['every 30s', 30_000], ['every 1h30m', 5_400_000], ['every 2d', 172_800_000], ['every PT5M', 300_000], ['EVERY 10S', 10_000],
  ])('%s has an interval of %i ms', (text, ms) => {
    const s = parseSchedule(text);
    expect(s.kind === 'every' && s.intervalMs).toBe(ms);
    const [a, b, c] = instantsBetween(s, d('2026-03-01T00:00:00Z'), d('2026-03-30T00:00:00Z'), 3);
    expect(b!.getTime() - a!.getTime()).toBe(ms);
    expect(c!.getTime() - b!.getTime()).toBe(ms);
    expect(a!.getTime() % ms).toBe(0);
  });

  it('has no instant past the last date JavaScript can hold', () => {
    expect(nextInstant(parseSchedule('every 520w'), new Date(8.64e15 - 1000))).toBeNull();
  });

  it('is elapsed time: the time zone and DST do not change the spacing', () => {
    const s = parseSchedule('every 1h', 'America/New_York');
    const xs = instantsBetween(s, d('2026-11-01T03:00:00Z'), d('2026-11-01T09:00:00Z'), 100);
    expect(xs).toHaveLength(6);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!.getTime() - xs[i - 1]!.getTime()).toBe(3_600_000);
  });
});

describe('at <ISO instant>', () => {
  it.each([
    ['at 2026-12-01T09:00:00Z', 'UTC', '2026-12-01T09:00:00.000Z'],
    ['at 2026-12-01T09:00Z', 'UTC', '2026-12-01T09:00:00.000Z'],
    ['at 2026-12-01T09:00:00+01:00', 'UTC', '2026-12-01T08:00:00.000Z'],
    ['at 2026-12-01T09:00:00-0530', 'UTC', '2026-12-01T14:30:00.000Z'],
    ['at 2026-12-01T09:00:00.250Z', 'UTC', '2026-12-01T09:00:00.250Z'],
    ['at 2026-12-01T09:00:00Z', 'Asia/Tokyo', '2026-12-01T09:00:00.000Z'], // an explicit offset wins over the zone
    ['at 2026-12-01T09:00', 'Europe/Berlin', '2026-12-01T08:00:00.000Z'], // no offset: the job's zone
    ['at 2026-07-01T09:00', 'Europe/Berlin', '2026-07-01T07:00:00.000Z'],
    ['at 2026-11-01T01:30', 'America/New_York', '2026-11-01T05:30:00.000Z'], // repeated time: first occurrence (EDT)
  ])('%s in %s is %s', (text, tz, iso) => {
    const s = parseSchedule(text, tz);
    expect(s.kind === 'at' && s.at.toISOString()).toBe(iso);
  });

  it('fires once: next is the instant before it and null from then on', () => {
    const s = parseSchedule('at 2026-12-01T09:00:00Z');
    expect(nextInstant(s, d('2026-11-30T00:00:00Z'))?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
    expect(nextInstant(s, d('2026-12-01T09:00:00Z'))).toBeNull();
    expect(isos(instantsBetween(s, d('2026-01-01T00:00:00Z'), d('2027-01-01T00:00:00Z'), 10))).toEqual(['2026-12-01T09:00:00.000Z']);
  });
});

describe('the parsed schedule', () => {
  it('is frozen plain data', () => {
    const s = parseSchedule('*/5 * * * *', 'Europe/Berlin');
    expect(s).toEqual({ kind: 'cron', text: '*/5 * * * *', timezone: 'Europe/Berlin', pattern: '*/5 * * * *' });
    expect(Object.isFrozen(s)).toBe(true);
  });

  it('is memoised per text, zone and anchor', () => {
    expect(parseSchedule('every 5m', 'UTC', new Date(1000))).toBe(parseSchedule('every 5m', 'UTC', new Date(1000)));
    expect(parseSchedule('every 5m', 'UTC', new Date(1000))).not.toBe(parseSchedule('every 5m', 'UTC', new Date(2000)));
    expect(parseSchedule('0 9 * * *', 'UTC')).not.toBe(parseSchedule('0 9 * * *', 'Europe/Berlin'));
    expect(parseSchedule('0 9 * * *', 'UTC', new Date(1000))).toBe(parseSchedule('0 9 * * *', 'UTC', new Date(2000)));
  });

  it('refuses an invalid reference date instead of guessing', () => {
    expect(() => nextInstant(parseSchedule('* * * * *'), new Date(Number.NaN))).toThrow('after is not a valid Date');
  });
});
