import { describe, expect, it } from 'vitest';
import { DurationError, describeDuration, formatDuration, parseDuration } from '../../src/scheduler/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['250ms', 250],
    ['1m30s500ms', 90_500],
    [' 10M ', 600_000],
    ['PT5M', 300_000],
    ['pt30s', 30_000],
    ['PT1H30M', 5_400_000],
    ['P2D', 172_800_000],
    ['P1DT2H', 93_600_000],
    ['P1W', 604_800_000],
    ['PT0.5S', 500],
    ['PT1,25S', 1250],
    ['0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'duration "": empty duration'],
    ['30', 'duration "30": missing unit (e.g. 30s or 30m)'],
    ['1.5h', 'duration "1.5h": use whole numbers (e.g. 1h30m, not 1.5h)'],
    ['30m1h', 'duration "30m1h": units must appear once each, largest first (e.g. 1h30m)'],
    ['5m5m', 'duration "5m5m": units must appear once each, largest first'],
    ['5x', 'duration "5x": unknown duration syntax at "5x"'],
    ['-5m', 'duration "-5m": duration must not be negative'],
    ['P1M', 'duration "P1M": months and years have no fixed length (PT1M is one minute, P1M is a month)'],
    ['P1Y', 'duration "P1Y": months and years have no fixed length'],
    ['PT', 'duration "PT": not an ISO-8601 duration'],
    ['P', 'duration "P": not an ISO-8601 duration'],
    ['PT5X', 'duration "PT5X": not an ISO-8601 duration'],
    ['99999999999999999d', 'duration "99999999999999999d": duration is too large'],
  ])('refuses %j with a message naming the problem', (text, message) => {
    expect(() => parseDuration(text)).toThrow(DurationError);
    expect(() => parseDuration(text)).toThrow(message);
  });

  it('enforces limits with the limit in words', () => {
    expect(() => parseDuration('0s', { minMs: 1000 })).toThrow('duration "0s": duration must be at least 1 second');
    expect(() => parseDuration('2h', { maxMs: 3_600_000 })).toThrow('duration must be at most 1 hour');
    expect(parseDuration('1s', { minMs: 1000, maxMs: 1000 })).toBe(1000);
  });
});

describe('formatDuration and describeDuration', () => {
  it.each([
    [0, '0s'], [1000, '1s'], [5_400_000, '1h30m'], [172_800_000, '2d'], [90_500, '1m30s500ms'], [1_209_600_000, '14d'],
  ])('formats %i ms as %s, which parses back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([[1000, '1 second'], [300_000, '5 minutes'], [86_400_000, '1 day'], [1500, '1500 milliseconds']])(
    'describes %i ms as %s', (ms, words) => expect(describeDuration(ms)).toBe(words),
  );
});
