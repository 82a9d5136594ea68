import { describe, expect, it } from 'vitest';
import { instantsBetween, parseSchedule } from '../../src/scheduler/schedule.ts';

/** "2026-03-08 03:00:00 GMT-4": the wall clock and offset an instant shows in a zone. */
function local(instant: Date, timeZone: string): string {
  const f = new Intl.DateTimeFormat('sv-SE', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short',
  });
  return f.format(instant);
}

function fires(pattern: string, tz: string, fromIso: string, toIso: string): Date[] {
  return instantsBetween(parseSchedule(pattern, tz), new Date(fromIso), new Date(toIso), 1000);
}

function strictlyIncreasing(xs: readonly Date[]): boolean {
  return xs.every((x, i) => i === 0 || x.getTime() > xs[i - 1]!.getTime());
}

// croner 11 with fixedTimeRule "no-wildcard": a fixed-time pattern (no * or step in
// second/minute/hour) in a spring-forward gap runs when the clock has jumped (same day);
// a repeated fall-back time runs once, at its first occurrence. Wildcard/step patterns are
// interval patterns: gap times do not exist, repeated times run on both occurrences.
describe('America/New_York, spring forward 2026-03-08 (02:00 EST -> 03:00 EDT)', () => {
  it('runs "30 2 * * *" once that day, at 03:00 EDT, since 02:30 does not exist', () => {
    const xs = fires('30 2 * * *', 'America/New_York', '2026-03-07T00:00:00Z', '2026-03-10T00:00:00Z');
    expect(xs.map((x) => x.toISOString())).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z']);
    expect(xs.map((x) => local(x, 'America/New_York'))).toEqual([
      '2026-03-07 02:30:00 GMT−5', '2026-03-08 03:00:00 GMT−4', '2026-03-09 02:30:00 GMT−4',
    ]);
  });

  it('the 6-field form "0 30 2 * * *" behaves the same', () => {
    expect(fires('0 30 2 * * *', 'America/New_York', '2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z').map((x) => x.toISOString()))
      .toEqual(['2026-03-08T07:00:00.000Z']);
  });

  it('a list of hours is fixed-time too: "30 1,2 * * *" runs 01:30 EST and 03:00 EDT', () => {
    expect(fires('30 1,2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', '2026-03-09T05:00:00Z').map((x) => x.toISOString()))
      .toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z']);
  });

  it('an interval pattern skips the missing hour: "*/30 2 * * *" has no run that day', () => {
    expect(fires('*/30 2 * * *', 'America/New_York', '2026-03-08T05:00:00Z', '2026-03-09T05:00:00Z')).toEqual([]);
  });

  it('"*/30 * * * *" runs every 30 elapsed minutes, 46 times in the 23-hour day', () => {
    const xs = fires('*/30 * * * *', 'America/New_York', '2026-03-08T04:59:59Z', '2026-03-09T03:59:59Z');
    expect(xs).toHaveLength(46);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!.getTime() - xs[i - 1]!.getTime()).toBe(30 * 60_000);
  });
});

describe('America/New_York, fall back 2026-11-01 (02:00 EDT -> 01:00 EST)', () => {
  it('runs "30 1 * * *" once, at the first 01:30 (EDT), not again at 01:30 EST', () => {
    const xs = fires('30 1 * * *', 'America/New_York', '2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z');
    expect(xs.map((x) => x.toISOString())).toEqual(['2026-10-31T05:30:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    expect(local(xs[1]!, 'America/New_York')).toBe('2026-11-01 01:30:00 GMT−4');
  });

  it('"30 1,2 * * *" runs each listed hour once', () => {
    expect(fires('30 1,2 * * *', 'America/New_York', '2026-11-01T04:00:00Z', '2026-11-02T04:00:00Z').map((x) => x.toISOString()))
      .toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T07:30:00.000Z']);
  });

  it('"*/30 * * * *" runs on both passes of the repeated hour, 50 distinct instants in the 25-hour day', () => {
    const xs = fires('*/30 * * * *', 'America/New_York', '2026-11-01T03:59:59Z', '2026-11-02T04:59:59Z');
    expect(xs).toHaveLength(50);
    expect(strictlyIncreasing(xs)).toBe(true);
    for (let i = 1; i < xs.length; i++) expect(xs[i]!.getTime() - xs[i - 1]!.getTime()).toBe(30 * 60_000);
  });
});

describe('Europe/Berlin, spring forward 2026-03-29 (02:00 CET -> 03:00 CEST)', () => {
  it('runs "30 2 * * *" once that day, at 03:00 CEST', () => {
    const xs = fires('30 2 * * *', 'Europe/Berlin', '2026-03-28T00:00:00Z', '2026-03-31T00:00:00Z');
    expect(xs.map((x) => x.toISOString())).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(local(xs[1]!, 'Europe/Berlin')).toBe('2026-03-29 03:00:00 CEST');
  });

  it('"0 * * * *" runs 23 times in the 23-hour day', () => {
    expect(fires('0 * * * *', 'Europe/Berlin', '2026-03-28T22:59:59Z', '2026-03-29T21:59:59Z')).toHaveLength(23);
  });
});

describe('Europe/Berlin, fall back 2026-10-25 (03:00 CEST -> 02:00 CET)', () => {
  it('runs "30 2 * * *" once, at the first 02:30 (CEST)', () => {
    const xs = fires('30 2 * * *', 'Europe/Berlin', '2026-10-24T00:00:00Z', '2026-10-27T00:00:00Z');
    expect(xs.map((x) => x.toISOString())).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(local(xs[1]!, 'Europe/Berlin')).toBe('2026-10-25 02:30:00 CEST');
  });

  it('"0 * * * *" runs 25 times in the 25-hour day, 02:00 on both passes', () => {
    const xs = fires('0 * * * *', 'Europe/Berlin', '2026-10-24T21:59:59Z', '2026-10-25T22:59:59Z');
    expect(xs).toHaveLength(25);
    expect(xs.filter((x) => local(x, 'Europe/Berlin').includes(' 02:00:00'))).toHaveLength(2);
  });
});

describe('no DST day fires a daily schedule twice', () => {
  it.each([
    ['America/New_York', '30 2 * * *'], ['America/New_York', '30 1 * * *'], ['America/New_York', '0 0 * * *'],
    ['Europe/Berlin', '30 2 * * *'], ['Europe/Berlin', '0 3 * * *'], ['Europe/Berlin', '59 1 * * *'],
  ])('%s %j: one instant per local date through 2026', (tz, pattern) => {
    const xs = fires(pattern, tz, '2025-12-31T12:00:00Z', '2026-12-31T12:00:00Z');
    const days = xs.map((x) => local(x, tz).slice(0, 10));
    expect(new Set(days).size).toBe(days.length);
    expect(days.length).toBe(365);
  });
});
